package io.sluice.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.kafka.testing.SharedKafka;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Conformance of every endpoint and error code with Confluent Schema Registry, over real HTTP and a real broker. */
class RestApiTest {
  private static SchemaRegistry registry;
  private static Http http;

  static final String V1 = rec("{\"name\":\"a\",\"type\":\"int\"}");
  static final String V2 = rec("{\"name\":\"a\",\"type\":\"int\"},{\"name\":\"b\",\"type\":\"string\",\"default\":\"x\"}");
  static final String V2_NO_DEFAULT = rec("{\"name\":\"a\",\"type\":\"int\"},{\"name\":\"b\",\"type\":\"string\"}");

  static String rec(String fields) {
    return "{\"type\":\"record\",\"name\":\"R\",\"namespace\":\"t\",\"fields\":[" + fields + "]}";
  }

  @BeforeAll
  static void start() {
    registry = SchemaRegistry.builder().bootstrapServers(SharedKafka.bootstrapServers())
        .topic(SharedKafka.unique("_schemas")).port(0).start();
    http = new Http(registry.url());
  }

  @AfterAll
  static void stop() {
    registry.close();
  }

  private static final java.util.concurrent.atomic.AtomicInteger names = new java.util.concurrent.atomic.AtomicInteger();

  /** The schema under a record name no other test uses, so ids are not shared between tests. */
  private static String own(String schema, int tag) {
    return schema.replace("\"name\":\"R\"", "\"name\":\"R" + tag + "\"");
  }

  private static String subject() {
    return SharedKafka.unique("subj");
  }

  @Test
  void rootAndTypes() {
    Http.Answer root = http.get("/");
    assertEquals(200, root.status());
    assertEquals("{}", root.body());
    assertEquals(Http.SR, root.contentType());
    assertEquals("[\"JSON\",\"PROTOBUF\",\"AVRO\"]", http.get("/schemas/types").body());
  }

  @Test
  void registerIsIdempotentAndSharesIdsAcrossSubjects() {
    int tag = names.incrementAndGet();
    String V1 = own(RestApiTest.V1, tag);
    String V2 = own(RestApiTest.V2, tag);
    String s = subject();
    int id = http.registerOk(s, V1);
    assertEquals(id, http.registerOk(s, V1));
    assertEquals("[1]", http.get("/subjects/" + s + "/versions").body());
    // Same schema written differently is the same schema.
    assertEquals(id, http.registerOk(s, V1.replace(":", " : ")));
    String other = subject();
    assertEquals(id, http.registerOk(other, V1));
    int id2 = http.registerOk(s, V2);
    assertNotEquals(id, id2);
    assertEquals("[1,2]", http.get("/subjects/" + s + "/versions").body());

    JsonNode v = http.get("/subjects/" + s + "/versions/latest").json();
    assertEquals(s, v.get("subject").asText());
    assertEquals(2, v.get("version").asInt());
    assertEquals(id2, v.get("id").asInt());
    assertFalse(v.has("schemaType"), "Avro answers carry no schemaType");
    assertFalse(v.has("references"));
    assertEquals(List.of("subject", "version", "id", "schema"), fieldNames(v));
    assertEquals(v, http.get("/subjects/" + s + "/versions/-1").json());
    assertEquals(id, http.get("/subjects/" + s + "/versions/1").json().get("id").asInt());
    assertEquals(V1, http.get("/subjects/" + s + "/versions/1/schema").body());

    JsonNode byId = http.get("/schemas/ids/" + id).json();
    assertEquals(List.of("schema"), fieldNames(byId));
    assertEquals(V1, byId.get("schema").asText());
    assertEquals(V1, http.get("/schemas/ids/" + id + "/schema").body());
    assertEquals(List.of(s, other).stream().sorted().toList(),
        Http.MAPPER.convertValue(http.get("/schemas/ids/" + id + "/subjects").json(), List.class));
    JsonNode versions = http.get("/schemas/ids/" + id + "/versions").json();
    assertEquals(2, versions.size());
    assertEquals(List.of("subject", "version"), fieldNames(versions.get(0)));
  }

  /** Confluent's clients name a Protobuf import's subject by its path, and send the slash encoded. */
  @Test
  void aSubjectWithAnEncodedSlashIsOneSubject() {
    String s = SharedKafka.unique("shop") + "/common.proto";
    String encoded = s.replace("/", "%2F");
    int id = http.registerOk(encoded, own(V1, names.incrementAndGet()));
    assertEquals(id, http.get("/subjects/" + encoded + "/versions/1").json().get("id").asInt());
    assertEquals(s, http.get("/subjects/" + encoded + "/versions/1").json().get("subject").asText());
    assertTrue(http.get("/subjects").body().contains("\"" + s + "\""));
  }

  @Test
  void primitiveSchemaIsStoredInCanonicalForm() {
    String s = subject();
    int id = http.registerOk(s, "{\"type\": \"string\"}");
    assertEquals("\"string\"", http.get("/schemas/ids/" + id).json().get("schema").asText());
  }

  @Test
  void subjectsListingHonoursDeletedAndPrefix() {
    String prefix = SharedKafka.unique("pfx");
    http.registerOk(prefix + "-a", V1);
    http.registerOk(prefix + "-b", V1);
    http.delete("/subjects/" + prefix + "-b");
    assertEquals(List.of(prefix + "-a"), names(http.get("/subjects?subjectPrefix=" + prefix)));
    assertEquals(List.of(prefix + "-a", prefix + "-b"), names(http.get("/subjects?deleted=true&subjectPrefix=" + prefix)));
    assertTrue(names(http.get("/subjects")).contains(prefix + "-a"));
  }

  @Test
  void schemasListing() {
    String prefix = SharedKafka.unique("list");
    int tag = names.incrementAndGet();
    http.registerOk(prefix + "-x", own(V1, tag));
    http.registerOk(prefix + "-x", own(V2, tag));
    JsonNode all = http.get("/schemas?subjectPrefix=" + prefix).json();
    assertEquals(2, all.size());
    assertEquals(List.of("subject", "version", "id", "schema"), fieldNames(all.get(0)));
    JsonNode latest = http.get("/schemas?latestOnly=true&subjectPrefix=" + prefix).json();
    assertEquals(1, latest.size());
    assertEquals(2, latest.get(0).get("version").asInt());
    assertEquals(1, http.get("/schemas?subjectPrefix=" + prefix + "&offset=1&limit=5").json().size());
  }

  @Test
  void lookup() {
    String s = subject();
    int id = http.registerOk(s, V1);
    JsonNode found = http.post("/subjects/" + s, Map.of("schema", V1)).json();
    assertEquals(id, found.get("id").asInt());
    assertEquals(1, found.get("version").asInt());
    assertEquals(s, found.get("subject").asText());
    assertEquals(V1, found.get("schema").asText());

    Http.Answer unknownSubject = http.post("/subjects/" + subject(), Map.of("schema", V1));
    assertEquals(404, unknownSubject.status());
    assertEquals(40401, unknownSubject.errorCode());
    Http.Answer notUnder = http.post("/subjects/" + s, Map.of("schema", V2));
    assertEquals(404, notUnder.status());
    assertEquals(40403, notUnder.errorCode());
    assertEquals(422, http.post("/subjects/" + s, Map.of("schema", "{bad")).status());
  }

  @Test
  void incompatibleRegistrationIs409AndStoresNothing() {
    String s = subject();
    http.registerOk(s, V1);
    int before = maxId();
    Http.Answer r = http.register(s, V2_NO_DEFAULT);
    assertEquals(409, r.status());
    assertEquals(409, r.errorCode());
    String msg = r.json().get("message").asText();
    assertTrue(msg.startsWith("Schema being registered is incompatible with an earlier schema for subject \"" + s
        + "\", details: [{errorType:'READER_FIELD_MISSING_DEFAULT_VALUE'"), msg);
    assertTrue(msg.contains("{oldSchemaVersion: 1}"), msg);
    assertTrue(msg.endsWith("{validateFields: 'false', compatibility: 'BACKWARD'}]"), msg);
    assertEquals("[1]", http.get("/subjects/" + s + "/versions").body());
    // No id was used up: the next new schema gets the next id.
    int next = http.registerOk(subject(), rec("{\"name\":\"fresh" + before + "\",\"type\":\"int\"}"));
    assertEquals(before + 1, next);
  }

  private int maxId() {
    // Registering an existing schema returns its id without using one; use a probe subject to read the highest id.
    String probe = subject();
    int id = http.registerOk(probe, rec("{\"name\":\"probe" + System.nanoTime() + "\",\"type\":\"int\"}"));
    return id;
  }

  @Test
  void invalidSchemaAndTypesAre42201() {
    String s = subject();
    Http.Answer bad = http.register(s, "{\"type\":\"record\",\"name\":\"R\"}");
    assertEquals(422, bad.status());
    assertEquals(42201, bad.errorCode());
    assertTrue(bad.json().get("message").asText().contains("fields"));
    Http.Answer proto = http.post("/subjects/" + s + "/versions", Map.of("schema", "syntax = \"proto3\"; message {",
        "schemaType", "PROTOBUF"));
    assertEquals(42201, proto.errorCode());
    assertTrue(proto.json().get("message").asText().contains("Syntax error"), proto.body());
    assertEquals(42201, http.post("/subjects/" + s + "/versions", Map.of("schemaType", "AVRO")).errorCode());
    assertEquals(42201, http.post("/subjects/" + s + "/versions", Map.of("schema", "\"int\"", "schemaType", "XML"))
        .errorCode());
    assertEquals(404, http.get("/subjects/" + s + "/versions").status());
    Http.Answer malformed = http.post("/subjects/" + s + "/versions", "{not json");
    assertEquals(400, malformed.status());
  }

  @Test
  void contentTypes() {
    String s = subject();
    for (String type : List.of("application/vnd.schemaregistry.v1+json", "application/vnd.schemaregistry+json",
        "application/json", "application/octet-stream")) {
      Http.Answer a = http.post("/subjects/" + s + "/versions", Map.of("schema", V1), type);
      assertEquals(200, a.status(), type);
      assertEquals(Http.SR, a.contentType());
    }
    assertEquals(415, http.post("/subjects/" + s + "/versions", Map.of("schema", V1), "text/plain").status());
  }

  @Test
  void versionsAndErrors() {
    String s = subject();
    assertEquals(40401, http.get("/subjects/" + s + "/versions").errorCode());
    assertEquals(40401, http.get("/subjects/" + s + "/versions/1").errorCode());
    http.registerOk(s, V1);
    Http.Answer missing = http.get("/subjects/" + s + "/versions/7");
    assertEquals(404, missing.status());
    assertEquals(40402, missing.errorCode());
    for (String bad : List.of("0", "-2", "abc", "2147483648", "1.5")) {
      Http.Answer a = http.get("/subjects/" + s + "/versions/" + bad);
      assertEquals(422, a.status(), bad);
      assertEquals(42202, a.errorCode(), bad);
    }
    assertEquals(40402, http.get("/subjects/" + s + "/versions/2147483647").errorCode());
    assertEquals("[]", http.get("/subjects/" + s + "/versions/1/referencedby").body());
  }

  @Test
  void schemasByIdErrors() {
    Http.Answer a = http.get("/schemas/ids/987654");
    assertEquals(404, a.status());
    assertEquals(40403, a.errorCode());
    assertEquals(40403, http.get("/schemas/ids/987654/schema").errorCode());
    assertEquals(40403, http.get("/schemas/ids/987654/subjects").errorCode());
    assertEquals(40403, http.get("/schemas/ids/987654/versions").errorCode());
    assertEquals(404, http.get("/no/such/path").status());
    assertEquals(404, http.get("/no/such/path").errorCode());
    Http.Answer wrongMethod = http.put("/subjects", Map.of());
    assertEquals(405, wrongMethod.status());
    assertEquals(405, wrongMethod.errorCode());
  }

  @Test
  void softAndHardDeleteOfVersions() {
    int tag = names.incrementAndGet();
    String V1 = own(RestApiTest.V1, tag);
    String V2 = own(RestApiTest.V2, tag);
    String s = subject();
    int id1 = http.registerOk(s, V1);
    http.registerOk(s, V2);
    // Hard delete before soft delete.
    Http.Answer early = http.delete("/subjects/" + s + "/versions/1?permanent=true");
    assertEquals(404, early.status());
    assertEquals(40407, early.errorCode());
    assertEquals("1", http.delete("/subjects/" + s + "/versions/1").body());
    Http.Answer again = http.delete("/subjects/" + s + "/versions/1");
    assertEquals(40406, again.errorCode());
    assertEquals("Subject '" + s + "' Version 1 was soft deleted.Set permanent=true to delete permanently",
        again.json().get("message").asText());
    assertEquals("[2]", http.get("/subjects/" + s + "/versions").body());
    assertEquals("[1,2]", http.get("/subjects/" + s + "/versions?deleted=true").body());
    assertEquals(40402, http.get("/subjects/" + s + "/versions/1").errorCode());
    assertEquals(id1, http.get("/subjects/" + s + "/versions/1?deleted=true").json().get("id").asInt());
    // Soft-deleted schemas stay readable by id.
    assertEquals(200, http.get("/schemas/ids/" + id1).status());
    assertEquals("[]", http.get("/schemas/ids/" + id1 + "/subjects").body());
    assertEquals("[\"" + s + "\"]", http.get("/schemas/ids/" + id1 + "/subjects?deleted=true").body());
    assertEquals("1", http.delete("/subjects/" + s + "/versions/1?permanent=true").body());
    assertEquals(40402, http.get("/subjects/" + s + "/versions/1?deleted=true").errorCode());
    assertEquals(40403, http.get("/schemas/ids/" + id1).errorCode());
    assertEquals(40402, http.delete("/subjects/" + s + "/versions/9").errorCode());
    assertEquals(40401, http.delete("/subjects/" + subject() + "/versions/1").errorCode());
    assertEquals(42202, http.delete("/subjects/" + s + "/versions/zero").errorCode());
    // The same schema registered again keeps its id and becomes a new version.
    assertEquals(id1, http.registerOk(s, V1));
    assertEquals("[2,3]", http.get("/subjects/" + s + "/versions").body());
  }

  @Test
  void softAndHardDeleteOfSubjects() {
    String s = subject();
    int id = http.registerOk(s, V1);
    http.registerOk(s, V2);
    http.put("/config/" + s, Map.of("compatibility", "NONE"));
    Http.Answer early = http.delete("/subjects/" + s + "?permanent=true");
    assertEquals(40405, early.errorCode());
    assertEquals("Subject '" + s + "' was not deleted first before being permanently deleted",
        early.json().get("message").asText());
    assertEquals("[1,2]", http.delete("/subjects/" + s).body());
    Http.Answer again = http.delete("/subjects/" + s);
    assertEquals(404, again.status());
    assertEquals(40404, again.errorCode());
    assertEquals(40401, http.get("/subjects/" + s + "/versions").errorCode());
    assertEquals(200, http.get("/schemas/ids/" + id).status());
    assertEquals("[1,2]", http.delete("/subjects/" + s + "?permanent=true").body());
    assertEquals(40401, http.delete("/subjects/" + s).errorCode());
    assertEquals(40401, http.get("/subjects/" + s + "/versions?deleted=true").errorCode());
    assertEquals(40408, http.get("/config/" + s).errorCode(), "a deleted subject loses its config");
  }

  @Test
  void compatibilityEndpoints() {
    String s = subject();
    http.registerOk(s, V1);
    JsonNode ok = http.post("/compatibility/subjects/" + s + "/versions/latest", Map.of("schema", V2)).json();
    assertEquals("{\"is_compatible\":true}", ok.toString());
    JsonNode verboseOk = http.post("/compatibility/subjects/" + s + "/versions/1?verbose=true", Map.of("schema", V2)).json();
    assertEquals("{\"is_compatible\":true,\"messages\":[]}", verboseOk.toString());
    JsonNode bad = http.post("/compatibility/subjects/" + s + "/versions?verbose=true",
        Map.of("schema", V2_NO_DEFAULT)).json();
    assertFalse(bad.get("is_compatible").asBoolean());
    assertTrue(bad.get("messages").size() > 0);
    assertTrue(bad.get("messages").get(0).asText().contains("READER_FIELD_MISSING_DEFAULT_VALUE"));
    assertEquals("{\"is_compatible\":false}",
        http.post("/compatibility/subjects/" + s + "/versions/1", Map.of("schema", V2_NO_DEFAULT)).body());
    // As Confluent: an unknown version is 40402; "latest" of a subject without versions has nothing to break.
    assertEquals(40402, http.post("/compatibility/subjects/" + subject() + "/versions/1", Map.of("schema", V1)).errorCode());
    assertEquals("{\"is_compatible\":true}",
        http.post("/compatibility/subjects/" + subject() + "/versions/latest", Map.of("schema", V1)).body());
    JsonNode invalid = http.post("/compatibility/subjects/" + s + "/versions/latest?verbose=true",
        Map.of("schema", "{\"type\":\"nope\"}")).json();
    assertFalse(invalid.get("is_compatible").asBoolean());
    assertEquals(1, invalid.get("messages").size());
    assertEquals(40402, http.post("/compatibility/subjects/" + s + "/versions/5", Map.of("schema", V1)).errorCode());
    assertEquals(42202, http.post("/compatibility/subjects/" + s + "/versions/x", Map.of("schema", V1)).errorCode());
    assertEquals(42201, http.post("/compatibility/subjects/" + s + "/versions", Map.of("schema", "{")).errorCode());
    // Nothing registered yet: anything is compatible.
    assertEquals("{\"is_compatible\":true}",
        http.post("/compatibility/subjects/" + subject() + "/versions", Map.of("schema", V1)).body());
  }

  @Test
  void transitiveCheckAgainstWhatRegistrationWouldCheck() {
    String s = subject();
    http.put("/config/" + s, Map.of("compatibility", "NONE"));
    http.registerOk(s, rec("{\"name\":\"a\",\"type\":\"int\"}"));
    http.registerOk(s, rec("{\"name\":\"a\",\"type\":\"int\"},{\"name\":\"b\",\"type\":\"int\",\"default\":0}"));
    String v3 = rec("{\"name\":\"a\",\"type\":\"int\"},{\"name\":\"b\",\"type\":\"int\"}");
    http.put("/config/" + s, Map.of("compatibility", "BACKWARD"));
    assertEquals("{\"is_compatible\":true}", http.post("/compatibility/subjects/" + s + "/versions", Map.of("schema", v3)).body());
    http.put("/config/" + s, Map.of("compatibility", "BACKWARD_TRANSITIVE"));
    JsonNode r = http.post("/compatibility/subjects/" + s + "/versions?verbose=true", Map.of("schema", v3)).json();
    assertFalse(r.get("is_compatible").asBoolean());
    assertTrue(r.get("messages").toString().contains("{oldSchemaVersion: 1}"));
    assertEquals(409, http.register(s, v3).status());
    // Soft-deleted versions are not checked: with version 1 gone, the same registration passes.
    http.delete("/subjects/" + s + "/versions/1");
    assertEquals(200, http.register(s, v3).status());
    assertEquals("[2,3]", http.get("/subjects/" + s + "/versions").body());
  }

  @Test
  void config() {
    String s = subject();
    assertEquals("{\"compatibilityLevel\":\"BACKWARD\"}", http.get("/config").body());
    Http.Answer none = http.get("/config/" + s);
    assertEquals(404, none.status());
    assertEquals(40408, none.errorCode());
    assertEquals("Subject '" + s + "' does not have subject-level compatibility configured",
        none.json().get("message").asText());
    assertEquals("{\"compatibilityLevel\":\"BACKWARD\"}", http.get("/config/" + s + "?defaultToGlobal=true").body());
    assertEquals("{\"compatibility\":\"FULL_TRANSITIVE\"}",
        http.put("/config/" + s, Map.of("compatibility", "FULL_TRANSITIVE")).body());
    assertEquals("{\"compatibilityLevel\":\"FULL_TRANSITIVE\"}", http.get("/config/" + s).body());
    Http.Answer invalid = http.put("/config/" + s, Map.of("compatibility", "SIDEWAYS"));
    assertEquals(422, invalid.status());
    assertEquals(42203, invalid.errorCode());
    assertEquals(42203, http.put("/config", Map.of("compatibility", "SIDEWAYS")).errorCode());
    assertEquals("{\"compatibilityLevel\":\"FULL_TRANSITIVE\"}", http.delete("/config/" + s).body());
    assertEquals(40408, http.get("/config/" + s).errorCode());
    assertEquals(40401, http.delete("/config/" + s).errorCode());
    // The update is echoed as sent; the level itself is case-insensitive.
    assertEquals("{\"compatibility\":\"forward\"}", http.put("/config/" + s, Map.of("compatibility", "forward")).body());
    assertEquals("{\"compatibilityLevel\":\"FORWARD\"}", http.get("/config/" + s).body());
  }

  @Test
  void globalConfigAndMode() {
    // Global settings on a registry of its own, so the other tests keep the defaults.
    try (SchemaRegistry own = ClusterTest.start(SharedKafka.unique("_schemas"))) {
      Http h = new Http(own.url());
      assertEquals("{\"compatibility\":\"FULL\"}", h.put("/config", Map.of("compatibility", "FULL")).body());
      assertEquals("{\"compatibilityLevel\":\"FULL\"}", h.get("/config").body());
      assertEquals("{\"compatibilityLevel\":\"FULL\"}", h.get("/config/any?defaultToGlobal=true").body());
      assertEquals("{\"compatibilityLevel\":\"FULL\"}", h.delete("/config").body());
      assertEquals("{\"compatibilityLevel\":\"BACKWARD\"}", h.get("/config").body());

      h.registerOk("g", V1);
      assertEquals("{\"mode\":\"READONLY\"}", h.put("/mode", Map.of("mode", "READONLY")).body());
      assertEquals(42205, h.register("g", V2).errorCode());
      assertEquals("{\"mode\":\"READONLY\"}", h.get("/mode/g?defaultToGlobal=true").body());
      // A subject's own mode wins over the global one.
      h.put("/mode/g", Map.of("mode", "READWRITE"));
      assertEquals(200, h.register("g", V2).status());
      assertEquals("{\"mode\":\"READONLY\"}", h.delete("/mode").body());
      assertEquals("{\"mode\":\"READWRITE\"}", h.get("/mode").body());
      // IMPORT globally needs force once schemas exist.
      assertEquals(42205, h.put("/mode", Map.of("mode", "IMPORT")).errorCode());
      assertEquals("{\"mode\":\"IMPORT\"}", h.put("/mode?force=true", Map.of("mode", "IMPORT")).body());
    }
  }

  @Test
  void modes() {
    String s = subject();
    assertEquals("{\"mode\":\"READWRITE\"}", http.get("/mode").body());
    assertEquals(40409, http.get("/mode/" + s).errorCode());
    assertEquals("{\"mode\":\"READWRITE\"}", http.get("/mode/" + s + "?defaultToGlobal=true").body());
    http.registerOk(s, V1);
    assertEquals("{\"mode\":\"READONLY\"}", http.put("/mode/" + s, Map.of("mode", "READONLY")).body());
    Http.Answer ro = http.register(s, V2);
    assertEquals(422, ro.status());
    assertEquals(42205, ro.errorCode());
    assertEquals(42205, http.delete("/subjects/" + s).errorCode());
    // A schema the subject already holds is still answered with its id, as Confluent does.
    assertEquals(200, http.register(s, V1).status());
    assertEquals(42204, http.put("/mode/" + s, Map.of("mode", "SOMETIMES")).errorCode());
    assertEquals("{\"mode\":\"READONLY\"}", http.delete("/mode/" + s).body());
    assertEquals(40401, http.delete("/mode/" + s).errorCode());
    assertEquals(200, http.register(s, V2).status());

    // IMPORT keeps given ids and versions; refuses an id that holds another schema.
    Http.Answer refused = http.put("/mode/" + s, Map.of("mode", "IMPORT"));
    assertEquals(42205, refused.errorCode());
    String imp = subject();
    assertEquals("{\"mode\":\"IMPORT\"}", http.put("/mode/" + imp, Map.of("mode", "IMPORT")).body());
    String schema = rec("{\"name\":\"imported\",\"type\":\"int\"}");
    Http.Answer a = http.post("/subjects/" + imp + "/versions", Map.of("schema", schema, "id", 900001, "version", 7));
    assertEquals(200, a.status(), a.body());
    assertEquals(900001, a.json().get("id").asInt());
    assertEquals(7, http.get("/subjects/" + imp + "/versions/latest").json().get("version").asInt());
    Http.Answer noId = http.register(imp, rec("{\"name\":\"noid\",\"type\":\"int\"}"));
    assertEquals(42205, noId.errorCode());
    assertEquals("Subject " + imp + " is not in read-write mode", noId.json().get("message").asText());
    Http.Answer clash = http.post("/subjects/" + imp + "/versions",
        Map.of("schema", rec("{\"name\":\"other\",\"type\":\"int\"}"), "id", 900001, "version", 8));
    assertEquals(42207, clash.errorCode());
    // An id outside IMPORT mode is refused.
    assertEquals(42205, http.post("/subjects/" + subject() + "/versions",
        Map.of("schema", rec("{\"name\":\"z\",\"type\":\"int\"}"), "id", 900002)).errorCode());
  }

  @Test
  void referencesAndReferencedBy() {
    String addr = subject();
    String address = "{\"type\":\"record\",\"name\":\"Address\",\"namespace\":\"t\",\"fields\":[{\"name\":\"city\",\"type\":\"string\"}]}";
    int addrId = http.registerOk(addr, address);
    String person = subject();
    String personSchema = "{\"type\":\"record\",\"name\":\"Person\",\"namespace\":\"t\",\"fields\":[{\"name\":\"home\",\"type\":\"t.Address\"}]}";
    Http.Answer r = http.post("/subjects/" + person + "/versions", Map.of("schema", personSchema,
        "references", List.of(Map.of("name", "t.Address", "subject", addr, "version", 1))));
    assertEquals(200, r.status(), r.body());
    int personId = r.json().get("id").asInt();
    assertNotEquals(addrId, personId);
    JsonNode v = http.get("/subjects/" + person + "/versions/1").json();
    assertEquals("[{\"name\":\"t.Address\",\"subject\":\"" + addr + "\",\"version\":1}]", v.get("references").toString());
    assertEquals("[" + personId + "]", http.get("/subjects/" + addr + "/versions/1/referencedby").body());
    Http.Answer refused = http.delete("/subjects/" + addr + "/versions/1");
    assertEquals(422, refused.status());
    assertEquals(42206, refused.errorCode());
    assertEquals(42206, http.delete("/subjects/" + addr).errorCode());
    assertEquals(42201, http.post("/subjects/" + subject() + "/versions", Map.of("schema", personSchema)).errorCode());
  }

  private static List<String> fieldNames(JsonNode n) {
    List<String> out = new java.util.ArrayList<>();
    n.fieldNames().forEachRemaining(out::add);
    return out;
  }

  @SuppressWarnings("unchecked")
  private static List<String> names(Http.Answer a) {
    return Http.MAPPER.convertValue(a.json(), List.class);
  }

  /** A request line as written: the JDK's client will not send a malformed escape. */
  private static String raw(String target) throws Exception {
    java.net.URI u = java.net.URI.create(registry.url());
    try (java.net.Socket socket = new java.net.Socket(u.getHost(), u.getPort())) {
      socket.getOutputStream().write(("GET " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
          .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      return new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  @Test
  void badQueryValuesGetConfluentsAnswersNotA500() throws Exception {
    // Jersey cannot convert the int parameters, so no resource matches: 404, as Confluent answers.
    for (String q : java.util.List.of("offset=x", "limit=x", "offset=1&limit=ten")) {
      Http.Answer a = http.get("/schemas?" + q);
      assertEquals(404, a.status(), q + ": " + a.body());
      assertEquals("{\"error_code\":404,\"message\":\"HTTP 404 Not Found\"}", a.body());
    }
    assertEquals(200, http.get("/schemas?offset=0&limit=5").status());
    String undecodable = raw("/subjects?subjectPrefix=%zz");
    assertTrue(undecodable.startsWith("HTTP/1.1 400"), undecodable);
    assertTrue(undecodable.contains("{\"error_code\":400,\"message\":\"invalid query string: invalid URL escape "
        + "\\\"%zz\\\"\"}"), undecodable);
  }

  @Test
  void aBodyOverTheLimitIs413InConfluentsShape() {
    try (SchemaRegistry small = SchemaRegistry.builder().bootstrapServers(SharedKafka.bootstrapServers())
        .topic(SharedKafka.unique("_schemas")).port(0).maxRequestBytes(1024).start()) {
      Http client = new Http(small.url());
      String subject = subject();
      Http.Answer big = client.register(subject, rec("{\"name\":\"" + "a".repeat(2000) + "\",\"type\":\"int\"}"));
      assertEquals(413, big.status(), big.body());
      assertEquals(413, big.errorCode(), big.body());
      assertTrue(big.json().path("message").asText().contains("limit of 1024 bytes"), big.body());
      assertEquals(404, client.get("/subjects/" + subject + "/versions").status(), "nothing registered");
      assertEquals(200, client.register(subject, V1).status());
    }
  }
}
