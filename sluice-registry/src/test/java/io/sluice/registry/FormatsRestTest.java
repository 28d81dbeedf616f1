package io.sluice.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.kafka.testing.SharedKafka;
import io.sluice.testing.TestClock;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Protobuf and JSON Schema through the REST API: registration, references, normalisation, compatibility, policy. */
class FormatsRestTest {
  private static SchemaRegistry registry;
  private static Http http;

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

  private static String subject() {
    return SharedKafka.unique("fmt");
  }

  private static Http.Answer register(String subject, String type, String schema, Object... refs) {
    return http.post("/subjects/" + subject + "/versions", Map.of("schema", schema, "schemaType", type,
        "references", List.of(refs)));
  }

  private static int registerOk(String subject, String type, String schema, Object... refs) {
    Http.Answer a = register(subject, type, schema, refs);
    assertEquals(200, a.status(), a.body());
    return a.json().get("id").asInt();
  }

  static final String MONEY = "syntax = \"proto3\";\npackage common;\nmessage Money {\n  int64 units = 1;\n}\n";

  static String order(String fields) {
    return "syntax = \"proto3\";\npackage shop" + "" + ";\nimport \"money.proto\";\nmessage Order {\n" + fields + "\n}\n";
  }

  /**
   * Confluent's JavaScript and Go clients speak Protobuf schemas as base64 FileDescriptorProtos: they read them with
   * {@code format=serialized} and register them in that form; the registry stores and compares the text either way.
   */
  @Test
  void protobufAsSerializedDescriptorsInAndOut() throws Exception {
    String money = subject();
    String orders = subject();
    registerOk(money, "PROTOBUF", MONEY);
    Map<String, Object> ref = Map.of("name", "money.proto", "subject", money, "version", 1);
    int id = registerOk(orders, "PROTOBUF", order("  string id = 1;\n  common.Money total = 2;"), ref);

    JsonNode serialized = http.get("/schemas/ids/" + id + "?format=serialized").json();
    com.google.protobuf.DescriptorProtos.FileDescriptorProto file = com.google.protobuf.DescriptorProtos
        .FileDescriptorProto.parseFrom(java.util.Base64.getDecoder().decode(serialized.get("schema").asText()));
    assertEquals("shop", file.getPackage());
    assertEquals(List.of("money.proto"), file.getDependencyList());
    assertEquals(".common.Money", file.getMessageType(0).getField(1).getTypeName(), "fully qualified, as protoc");
    assertEquals("money.proto", serialized.get("references").get(0).get("name").asText());
    assertEquals(serialized.get("schema"), http.get("/subjects/" + orders + "/versions/latest?format=serialized")
        .json().get("schema"));
    assertFalse(http.get("/schemas/ids/" + id).json().get("schema").asText().startsWith("Cg"), "text by default");

    // The same file registered as a serialized descriptor is the same schema once normalized (type names qualified),
    // as with Confluent's registry: same id, no new version.
    String normalized = subject();
    Http.Answer asText = http.post("/subjects/" + normalized + "/versions?normalize=true", Map.of("schema",
        order("  string id = 1;\n  common.Money total = 2;"), "schemaType", "PROTOBUF", "references", List.of(ref)));
    assertEquals(200, asText.status(), asText.body());
    Http.Answer asDescriptor = http.post("/subjects/" + normalized + "/versions?normalize=true", Map.of("schema",
        serialized.get("schema").asText(), "schemaType", "PROTOBUF", "references", List.of(ref)));
    assertEquals(asText.json().get("id"), asDescriptor.json().get("id"), asDescriptor.body());
    assertEquals("[1]", http.get("/subjects/" + normalized + "/versions").body());
    String other = subject();
    int fresh = registerOk(other, "PROTOBUF", java.util.Base64.getEncoder().encodeToString(
        com.google.protobuf.DescriptorProtos.FileDescriptorProto.newBuilder().setName("x.proto").setSyntax("proto3")
            .setPackage("x").addMessageType(com.google.protobuf.DescriptorProtos.DescriptorProto.newBuilder()
                .setName("Thing").addField(com.google.protobuf.DescriptorProtos.FieldDescriptorProto.newBuilder()
                    .setName("name").setNumber(1).setType(com.google.protobuf.DescriptorProtos.FieldDescriptorProto
                        .Type.TYPE_STRING))).build().toByteArray()));
    assertTrue(http.get("/schemas/ids/" + fresh).json().get("schema").asText().contains("string name = 1;"));
    assertEquals(422, register(subject(), "PROTOBUF", "bm90IGEgZGVzY3JpcHRvcg==").status(),
        "base64 that is no descriptor is an invalid schema");
  }

  @Test
  void typesListsAllThreeFormats() {
    assertEquals("[\"JSON\",\"PROTOBUF\",\"AVRO\"]", http.get("/schemas/types").body());
  }

  @Test
  void protobufWithReferences() {
    String money = subject();
    String orders = subject();
    int moneyId = registerOk(money, "PROTOBUF", MONEY);
    Map<String, Object> ref = Map.of("name", "money.proto", "subject", money, "version", 1);
    int orderId = registerOk(orders, "PROTOBUF", order("  string id = 1;\n  common.Money total = 2;"), ref);
    assertNotEquals(moneyId, orderId);

    JsonNode byId = http.get("/schemas/ids/" + orderId).json();
    assertEquals("PROTOBUF", byId.get("schemaType").asText());
    assertEquals("money.proto", byId.get("references").get(0).get("name").asText());
    assertTrue(byId.get("schema").asText().contains("common.Money total = 2;"), byId.toString());
    assertEquals("[" + orderId + "]", http.get("/subjects/" + money + "/versions/1/referencedby").body());

    Http.Answer delete = http.delete("/subjects/" + money + "/versions/1");
    assertEquals(422, delete.status());
    assertEquals(42206, delete.errorCode());

    // Without the reference the import does not resolve.
    Http.Answer missing = register(subject(), "PROTOBUF", order("  common.Money total = 2;"));
    assertEquals(42201, missing.errorCode());

    // Field number 2 turns from a message into a scalar: refused under the default BACKWARD.
    Http.Answer incompatible = register(orders, "PROTOBUF", order("  string id = 1;\n  int64 total = 2;"), ref);
    assertEquals(409, incompatible.status());
    assertTrue(incompatible.json().get("message").asText().contains("{errorType:\"FIELD_KIND_CHANGED\", description:"
        + "\"The type of a field at path '#/Order/2' in the new schema does not match the old schema\"}"),
        incompatible.body());
    Http.Answer verbose = http.post("/compatibility/subjects/" + orders + "/versions/latest?verbose=true",
        Map.of("schema", order("  string id = 1;\n  int64 total = 2;"), "schemaType", "PROTOBUF",
            "references", List.of(ref)));
    assertFalse(verbose.json().get("is_compatible").asBoolean());
    assertTrue(verbose.json().get("messages").toString().contains("#/Order/2"), verbose.body());

    int v2 = registerOk(orders, "PROTOBUF", order("  string id = 1;\n  common.Money amount = 2;\n  string note = 3;"),
        ref);
    assertNotEquals(orderId, v2);
  }

  @Test
  void protobufParseErrorsAre42201() {
    Http.Answer bad = register(subject(), "PROTOBUF", "syntax = \"proto3\";\nmessage M { int32 a = ; }");
    assertEquals(422, bad.status());
    assertEquals(42201, bad.errorCode());
    assertTrue(bad.json().get("message").asText().contains("Syntax error"), bad.body());
    Http.Answer reserved = register(subject(), "PROTOBUF",
        "syntax = \"proto3\";\nmessage M {\n  reserved 2;\n  int32 a = 2;\n}\n");
    assertEquals(42201, reserved.errorCode(), reserved.body());
  }

  @Test
  void protobufNormalizationGivesOneId() {
    String s = subject();
    String a = "syntax = \"proto3\";\npackage n;\nmessage M {\n  int32 b = 2;\n  string a = 1;\n}\n";
    String b = "syntax = \"proto3\"; package n;\n// comment\nmessage M { string a = 1; int32 b = 2; }";
    Http.Answer first = http.post("/subjects/" + s + "/versions?normalize=true",
        Map.of("schema", a, "schemaType", "PROTOBUF"));
    Http.Answer second = http.post("/subjects/" + s + "/versions?normalize=true",
        Map.of("schema", b, "schemaType", "PROTOBUF"));
    assertEquals(200, first.status(), first.body());
    assertEquals(first.json().get("id"), second.json().get("id"));
    assertEquals("[1]", http.get("/subjects/" + s + "/versions").body());
    Http.Answer lookup = http.post("/subjects/" + s + "?normalize=true", Map.of("schema", b, "schemaType", "PROTOBUF"));
    assertEquals(200, lookup.status(), lookup.body());
  }

  /**
   * Option strings with every escape .proto allows (issue #40): the stored text parses again, so the schema is served
   * by id and by version, reads back to the same canonical form and the same values, and a node rebuilt from the log
   * serves it too.
   */
  @Test
  void protobufOptionStringsWithEscapesSurviveStorageAndARestart() throws Exception {
    String literal = "\"a \\\"quoted\\\" value, \\\\ \\n \\t \\x41 \\101 \\u00e9 \\U0001F600 \\'\"";
    String text = "syntax = \"proto3\";\npackage esc;\nimport \"confluent/meta.proto\";\n"
        + "message M {\n"
        + "  option (confluent.message_meta).params = { key: \"k\" value: " + literal + " };\n"
        + "  string s = 1 [(confluent.field_meta).doc = " + literal + "];\n"
        + "}\n";
    io.sluice.schema.protobuf.ProtobufSchemaProvider provider = new io.sluice.schema.protobuf.ProtobufSchemaProvider();
    String canonical = provider.parse(text, List.of(), List.of()).canonical();
    assertTrue(canonical.contains("value: \"a \\\"quoted\\\" value, \\\\ \\n \\t A A é \uD83D\uDE00 \\'\""),
        canonical);

    String topic = SharedKafka.unique("_schemas");
    String s = subject();
    int id;
    try (SchemaRegistry node = SchemaRegistry.builder().bootstrapServers(SharedKafka.bootstrapServers())
        .topic(topic).port(0).start()) {
      Http h = new Http(node.url());
      Http.Answer r = h.post("/subjects/" + s + "/versions", Map.of("schema", text, "schemaType", "PROTOBUF"));
      assertEquals(200, r.status(), r.body());
      id = r.json().get("id").asInt();
      assertServed(h, s, id, canonical, provider);
      // The same text, as written and normalised, finds the same schema.
      Http.Answer lookup = h.post("/subjects/" + s, Map.of("schema", text, "schemaType", "PROTOBUF"));
      assertEquals(id, lookup.json().get("id").asInt(), lookup.body());
      Http.Answer again = h.post("/subjects/" + s + "/versions?normalize=true",
          Map.of("schema", text, "schemaType", "PROTOBUF"));
      assertEquals(200, again.status(), again.body());
      assertEquals(200, h.get("/schemas/ids/" + again.json().get("id").asInt()).status());
      assertEquals(200, h.get("/schemas/ids/" + id + "?format=serialized").status());
    }
    try (SchemaRegistry rebuilt = SchemaRegistry.builder().bootstrapServers(SharedKafka.bootstrapServers())
        .topic(topic).port(0).start()) {
      assertServed(new Http(rebuilt.url()), s, id, canonical, provider);
    }
  }

  private static void assertServed(Http h, String subject, int id, String canonical,
      io.sluice.schema.protobuf.ProtobufSchemaProvider provider) throws Exception {
    Http.Answer byId = h.get("/schemas/ids/" + id);
    assertEquals(200, byId.status(), byId.body());
    Http.Answer byVersion = h.get("/subjects/" + subject + "/versions/1");
    assertEquals(200, byVersion.status(), byVersion.body());
    assertEquals(canonical, byId.json().get("schema").asText());
    assertEquals(canonical, byVersion.json().get("schema").asText());
    assertEquals(canonical, h.get("/schemas/ids/" + id + "/schema").body());
    assertEquals(canonical, provider.parse(canonical, List.of(), List.of()).canonical());
  }

  static final String ADDRESS = "{\"type\":\"object\",\"properties\":{\"street\":{\"type\":\"string\"}}}";

  @Test
  void jsonSchemaWithReferencesAndPolicy() {
    String address = subject();
    String customers = subject();
    registerOk(address, "JSON", ADDRESS);
    Map<String, Object> ref = Map.of("name", "address.json", "subject", address, "version", 1);
    String v1 = "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"},"
        + "\"home\":{\"$ref\":\"address.json\"}}}";
    int id = registerOk(customers, "JSON", v1, ref);
    assertEquals("JSON", http.get("/schemas/ids/" + id).json().get("schemaType").asText());
    assertEquals("[" + id + "]", http.get("/subjects/" + address + "/versions/1/referencedby").body());

    // A property added to an open content model: Confluent's strict policy refuses it, the lenient one accepts it.
    String v2 = v1.replace("\"id\":{\"type\":\"string\"},", "\"id\":{\"type\":\"string\"},\"age\":{\"type\":\"integer\"},");
    Http.Answer strict = register(customers, "JSON", v2, ref);
    assertEquals(409, strict.status(), strict.body());
    assertTrue(strict.json().get("message").asText().contains("{errorType:\"PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL\", "
        + "description:\"The new schema has an open content model and has a property or item at path "
        + "'#/properties/age' which is missing in the old schema\"}"), strict.body());

    Http.Answer put = http.put("/config/" + customers, Map.of("compatibility", "BACKWARD", "compatibilityPolicy",
        "LENIENT"));
    assertEquals(200, put.status(), put.body());
    assertEquals("LENIENT", put.json().get("compatibilityPolicy").asText());
    JsonNode config = http.get("/config/" + customers).json();
    assertEquals("BACKWARD", config.get("compatibilityLevel").asText());
    assertEquals("LENIENT", config.get("compatibilityPolicy").asText());
    assertFalse(http.get("/config").json().has("compatibilityPolicy"), "no policy field where none is set");
    assertEquals(200, register(customers, "JSON", v2, ref).status());

    Http.Answer badPolicy = http.put("/config/" + customers, Map.of("compatibilityPolicy", "SLOPPY"));
    assertEquals(42203, badPolicy.errorCode());
  }

  @Test
  void jsonSchemaInvalidDocumentsAre42201() {
    assertEquals(42201, register(subject(), "JSON", "{\"type\":\"strin\"}").errorCode());
    assertEquals(42201, register(subject(), "JSON", "{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":\"#/nope\"}}}")
        .errorCode());
    assertEquals(42201, register(subject(), "JSON", "{not json").errorCode());
  }

  @Test
  void jsonSchemaNormalizationSortsKeys() {
    String s = subject();
    Http.Answer a = http.post("/subjects/" + s + "/versions?normalize=true",
        Map.of("schema", "{\"type\":\"string\",\"maxLength\":3}", "schemaType", "JSON"));
    Http.Answer b = http.post("/subjects/" + s + "/versions?normalize=true",
        Map.of("schema", "{ \"maxLength\": 3, \"type\": \"string\" }", "schemaType", "JSON"));
    assertEquals(a.json().get("id"), b.json().get("id"));
  }

  @Test
  void aComparisonOverItsBudgetAnswersAnErrorInsteadOfHanging() {
    // Every reading of the clock moves it a second on: any comparison long enough to look at it runs out of budget.
    Clock ticking = TestClock.ticking();
    try (SchemaRegistry slow = SchemaRegistry.builder().bootstrapServers(SharedKafka.bootstrapServers())
        .topic(SharedKafka.unique("_schemas")).port(0).clock(ticking).comparisonBudget(Duration.ofMillis(500))
        .start()) {
      Http h = new Http(slow.url());
      String s = subject();
      String wide = jsonOneOf(40);
      assertEquals(200, h.post("/subjects/" + s + "/versions", Map.of("schema", wide, "schemaType", "JSON")).status());
      Http.Answer check = h.post("/compatibility/subjects/" + s + "/versions/latest",
          Map.of("schema", jsonOneOf(41), "schemaType", "JSON"));
      assertEquals(500, check.status(), check.body());
      assertEquals(50002, check.errorCode());
      assertTrue(check.json().get("message").asText().contains("budget"), check.body());
      Http.Answer register = h.post("/subjects/" + s + "/versions", Map.of("schema", jsonOneOf(41), "schemaType", "JSON"));
      assertEquals(50002, register.errorCode(), register.body());
      assertEquals("[1]", h.get("/subjects/" + s + "/versions").body(), "nothing registered");
    }
  }

  static String jsonOneOf(int branches) {
    StringBuilder b = new StringBuilder("{\"oneOf\":[");
    for (int i = 0; i < branches; i++) {
      b.append(i == 0 ? "" : ",").append("{\"type\":\"object\",\"properties\":{\"k").append(i)
          .append("\":{\"type\":\"string\",\"maxLength\":").append(i + 1).append("}},\"required\":[\"k").append(i)
          .append("\"]}");
    }
    return b.append("]}").toString();
  }
}
