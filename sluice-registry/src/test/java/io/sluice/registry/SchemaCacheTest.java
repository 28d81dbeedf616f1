package io.sluice.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.kafka.testing.SharedKafka;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The registry keeps schemas as text and parses them again when a check or a descriptor needs them: a node that keeps
 * no parsed schema at all answers every request exactly as one that keeps them, references included, even after the
 * versions a schema referenced are gone and their numbers hold other schemas.
 */
class SchemaCacheTest {
  private static final String MONEY = "syntax = \"proto3\";\npackage common;\nmessage Money {\n  int64 units = 1;\n}\n";
  private static final String OTHER_MONEY =
      "syntax = \"proto3\";\npackage other;\nmessage Cash {\n  string amount = 1;\n}\n";

  @Test
  void aNodeWithoutParsedSchemasAnswersAsOneWithThem() {
    List<String> uncached;
    List<String> cached;
    try (SchemaRegistry none = SchemaRegistry.builder().bootstrapServers(SharedKafka.bootstrapServers())
        .topic(SharedKafka.unique("_schemas")).schemaCacheBytes(0).port(0).start()) {
      uncached = script(new Http(none.url()));
    }
    try (SchemaRegistry all = SchemaRegistry.builder().bootstrapServers(SharedKafka.bootstrapServers())
        .topic(SharedKafka.unique("_schemas")).port(0).start()) {
      cached = script(new Http(all.url()));
    }
    assertEquals(cached.size(), uncached.size());
    for (int i = 0; i < cached.size(); i++) {
      assertEquals(cached.get(i), uncached.get(i), "answer " + i);
    }
    assertTrue(cached.stream().anyMatch(a -> a.startsWith("409 ")), "the script has refusals: " + cached);
  }

  /** Requests whose answers depend on parsed schemas; each answer as "status body". */
  private static List<String> script(Http http) {
    List<String> out = new ArrayList<>();
    // Avro: compatible and incompatible evolutions, a direct check, a transitive mode.
    String avro = "{\"type\":\"record\",\"name\":\"A\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"}%s]}";
    String optional = ",{\"name\":\"note\",\"type\":[\"null\",\"string\"],\"default\":null}";
    String required = ",{\"name\":\"size\",\"type\":\"int\"}";
    out.add(answer(http.register("a", avro.formatted(""))));
    out.add(answer(http.register("a", avro.formatted(optional))));
    out.add(answer(http.register("a", avro.formatted(required))));
    out.add(answer(http.post("/compatibility/subjects/a/versions/1?verbose=true",
        Map.of("schema", avro.formatted(required)))));
    out.add(answer(http.put("/config/a", Map.of("compatibility", "FULL_TRANSITIVE"))));
    out.add(answer(http.register("a", avro.formatted(optional + ",{\"name\":\"x\",\"type\":\"int\",\"default\":0}"))));
    out.add(answer(http.register("a", avro.formatted(required))));
    out.add(answer(http.post("/compatibility/subjects/a/versions?verbose=true",
        Map.of("schema", avro.formatted(required)))));
    out.add(answer(http.get("/subjects/a/versions/latest")));

    // Protobuf with a reference, as text and as a descriptor; then the referenced version is deleted for good and
    // its number reused: the referencing schema still parses against the text it was registered with.
    out.add(answer(register(http, "money", "PROTOBUF", MONEY)));
    Map<String, Object> ref = Map.of("name", "money.proto", "subject", "money", "version", 1);
    String order = "syntax = \"proto3\";\npackage shop;\nimport \"money.proto\";\nmessage Order {\n%s\n}\n";
    out.add(answer(register(http, "order", "PROTOBUF", order.formatted("  common.Money total = 1;"), ref)));
    out.add(answer(register(http, "order", "PROTOBUF", order.formatted("  string total = 1;"), ref)));
    out.add(answer(http.get("/subjects/order/versions/1?format=serialized")));
    out.add(answer(http.delete("/subjects/order")));
    out.add(answer(http.delete("/subjects/money/versions/1")));
    out.add(answer(http.delete("/subjects/money/versions/1?permanent=true")));
    out.add(answer(register(http, "money", "PROTOBUF", OTHER_MONEY)));
    out.add(answer(http.get("/subjects/order/versions/1?deleted=true&format=serialized")));
    out.add(answer(http.get("/schemas/ids/" + idOf(out.get(10)) + "?format=serialized")));

    // JSON Schema with a reference, under the strict and the lenient policy.
    out.add(answer(register(http, "address", "JSON",
        "{\"type\":\"object\",\"properties\":{\"street\":{\"type\":\"string\"}}}")));
    Map<String, Object> address = Map.of("name", "address.json", "subject", "address", "version", 1);
    String customer = "{\"type\":\"object\",\"properties\":{\"home\":{\"$ref\":\"address.json\"}%s},"
        + "\"additionalProperties\":%s}";
    out.add(answer(register(http, "customer", "JSON", customer.formatted("", "true"), address)));
    out.add(answer(register(http, "customer", "JSON",
        customer.formatted(",\"age\":{\"type\":\"integer\"}", "true"), address)));
    out.add(answer(http.put("/config/customer", Map.of("compatibilityPolicy", "LENIENT"))));
    out.add(answer(register(http, "customer", "JSON",
        customer.formatted(",\"age\":{\"type\":\"integer\"}", "true"), address)));
    out.add(answer(http.get("/schemas?subjectPrefix=customer")));
    return out;
  }

  private static Http.Answer register(Http http, String subject, String type, String schema, Object... refs) {
    return http.post("/subjects/" + subject + "/versions", Map.of("schema", schema, "schemaType", type,
        "references", List.of(refs)));
  }

  private static String answer(Http.Answer a) {
    return a.status() + " " + a.body();
  }

  private static int idOf(String answer) {
    return new Http.Answer(200, "", answer.substring(answer.indexOf(' ') + 1)).json().get("id").asInt();
  }
}
