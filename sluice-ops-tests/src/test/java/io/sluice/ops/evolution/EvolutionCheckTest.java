package io.sluice.ops.evolution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.kafka.testing.SharedKafka;
import io.sluice.registry.SchemaRegistry;
import io.sluice.schema.CompatibilityLevel;
import io.sluice.schema.CompatibilityPolicy;
import io.sluice.schema.SchemaType;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The evolution check against a real registry: verdicts per mode, plain-word problems, rollout order, warnings. */
class EvolutionCheckTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static SchemaRegistry registry;

  @BeforeAll
  static void start() {
    registry = SchemaRegistry.builder().bootstrapServers(SharedKafka.bootstrapServers())
        .topic(SharedKafka.unique("_schemas")).port(0).start();
  }

  @AfterAll
  static void stop() {
    registry.close();
  }

  static void send(String method, String path, Map<String, Object> body) throws Exception {
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(registry.url() + path))
        .header("Content-Type", "application/vnd.schemaregistry.v1+json")
        .method(method, HttpRequest.BodyPublishers.ofString(MAPPER.writeValueAsString(body))).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), r.body());
  }

  static void register(String subject, String type, String schema) throws Exception {
    send("POST", "/subjects/" + subject + "/versions", Map.of("schema", schema, "schemaType", type));
  }

  static String proto(String fields) {
    return "syntax = \"proto3\";\npackage shop;\nmessage Order {\n" + fields + "\n}\n";
  }

  private static EvolutionReport check(String subject, String schema, SchemaType type) throws Exception {
    return EvolutionCheck.against(registry.url()).check(subject, schema, type, null);
  }

  @Test
  void protobufScalarKindChangeIsIncompatibleEverywhereButNone() throws Exception {
    String s = SharedKafka.unique("evo");
    register(s, "PROTOBUF", proto("  string id = 1;\n  int32 qty = 2;"));
    EvolutionReport r = check(s, proto("  string id = 1;\n  string qty = 2;"), SchemaType.PROTOBUF);
    assertFalse(r.compatible());
    assertEquals(CompatibilityLevel.BACKWARD, r.subjectLevel());
    for (EvolutionReport.Verdict v : r.verdicts()) {
      assertEquals(v.level() == CompatibilityLevel.NONE, v.compatible(), v.toString());
    }
    EvolutionReport.Problem p = r.verdict(CompatibilityLevel.BACKWARD).problems().get(0);
    assertEquals("FIELD_SCALAR_KIND_CHANGED", p.kind());
    assertEquals("#/Order/2", p.path());
    assertTrue(p.description().contains("wire encoding"), p.description());
    assertEquals(1, r.verdict(CompatibilityLevel.BACKWARD).againstVersion());
    assertTrue(r.rollout().startsWith("no safe order"), r.rollout());
  }

  @Test
  void rolloutFollowsTheDirectionsThatHold() throws Exception {
    String s = SharedKafka.unique("evo");
    register(s, "PROTOBUF", proto("  string id = 1;"));
    EvolutionReport added = check(s, proto("  string id = 1;\n  string note = 2;"), SchemaType.PROTOBUF);
    assertTrue(added.compatible());
    assertTrue(added.rollout().startsWith("any order"), added.rollout());
    // A new message is backward compatible only (Confluent rejects message removal, which FORWARD sees).
    EvolutionReport message = check(s, proto("  string id = 1;") + "message Extra {\n  int32 x = 1;\n}\n",
        SchemaType.PROTOBUF);
    assertTrue(message.verdict(CompatibilityLevel.BACKWARD).compatible());
    assertFalse(message.verdict(CompatibilityLevel.FORWARD).compatible());
    assertTrue(message.rollout().startsWith("upgrade consumers first"), message.rollout());
  }

  @Test
  void protobufWarningsForUndeprecatedRemovalAndReusedReservedNumber() throws Exception {
    String s = SharedKafka.unique("evo");
    register(s, "PROTOBUF", proto("  string id = 1;\n  int32 priority = 2;\n  int64 total = 3;"));
    register(s, "PROTOBUF", proto("  string id = 1;\n  reserved 2;\n  int64 total = 3;"));
    EvolutionReport r = check(s, proto("  string id = 1;\n  string label = 2;\n  int32 total = 3;"),
        SchemaType.PROTOBUF);
    // Latest (v2) has no field 2, so plain BACKWARD accepts; v1 had it as int32, so the transitive mode does not.
    assertTrue(r.compatible());
    assertFalse(r.verdict(CompatibilityLevel.BACKWARD_TRANSITIVE).compatible());
    assertTrue(r.warnings().stream().anyMatch(w -> w.contains("Order.label (= 2): reuses a field number")),
        r.warnings().toString());
    assertTrue(r.warnings().stream().anyMatch(w -> w.contains("narrowed from int64 to int32")),
        r.warnings().toString());

    EvolutionReport removed = check(s, proto("  string id = 1;\n  reserved 2;"), SchemaType.PROTOBUF);
    assertTrue(removed.warnings().stream().anyMatch(w -> w.contains("Order.total (= 3): field removed without")),
        removed.warnings().toString());
  }

  @Test
  void jsonSchemaUsesTheSubjectPolicyAndWarnsAboutContentModelChanges() throws Exception {
    String s = SharedKafka.unique("evo");
    String v1 = "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"},\"old\":{\"type\":\"string\"}}}";
    register(s, "JSON", v1);
    String closed = "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"}},"
        + "\"additionalProperties\":false}";
    EvolutionReport strict = check(s, closed, SchemaType.JSON);
    assertFalse(strict.compatible());
    assertEquals(CompatibilityPolicy.STRICT, strict.policy());
    assertTrue(strict.warnings().stream().anyMatch(w -> w.contains("additionalProperties policy changed from open "
        + "to closed")), strict.warnings().toString());
    assertTrue(strict.warnings().stream().anyMatch(w -> w.contains("#/properties/old: property removed")),
        strict.warnings().toString());

    // Closing the model alone is what the lenient policy forgives (removing "old" as well would still break).
    String closedKeepingOld = "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"},"
        + "\"old\":{\"type\":\"string\"}},\"additionalProperties\":false}";
    assertFalse(check(s, closedKeepingOld, SchemaType.JSON).compatible());
    send("PUT", "/config/" + s, Map.of("compatibilityPolicy", "LENIENT"));
    EvolutionReport lenient = check(s, closedKeepingOld, SchemaType.JSON);
    assertEquals(CompatibilityPolicy.LENIENT, lenient.policy());
    assertTrue(lenient.compatible(), lenient.verdicts().toString());
  }

  @Test
  void avroRenameWithoutAliasIsWarned() throws Exception {
    String s = SharedKafka.unique("evo");
    register(s, "AVRO", "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"string\","
        + "\"default\":\"\"}]}");
    EvolutionReport r = check(s, "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"b\",\"type\":\"string\","
        + "\"default\":\"\"}]}", SchemaType.AVRO);
    assertTrue(r.compatible());
    assertTrue(r.warnings().stream().anyMatch(w -> w.contains("looks renamed to 'b' without an alias")),
        r.warnings().toString());
  }

  @Test
  void aNewSubjectAcceptsAnything() throws Exception {
    EvolutionReport r = check(SharedKafka.unique("evo"), proto("  string id = 1;"), SchemaType.PROTOBUF);
    assertTrue(r.compatible());
    assertEquals(List.of(), r.versions());
    assertTrue(r.rollout().startsWith("first version"));
  }
}
