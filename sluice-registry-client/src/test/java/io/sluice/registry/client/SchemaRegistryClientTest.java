package io.sluice.registry.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.client.ClientOptions;
import io.sluice.client.HttpTransport;
import io.sluice.kafka.testing.SharedKafka;
import io.sluice.registry.SchemaRegistry;
import io.sluice.registry.client.SchemaRegistryClient.Schema;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The one registry client against Sluice's registry over HTTP: answers, Confluent's error codes, and its caches. */
class SchemaRegistryClientTest {
  private static final ClientOptions FAST = ClientOptions.defaults().withAttempts(2, Duration.ofMillis(50));

  private static Schema avro(String fields) {
    return new Schema("AVRO", "{\"type\":\"record\",\"name\":\"Order\",\"namespace\":\"shop\",\"fields\":[" + fields
        + "]}", List.of());
  }

  private static SchemaRegistry registry() {
    return SchemaRegistry.builder().bootstrapServers(SharedKafka.bootstrapServers())
        .topic(SharedKafka.unique("_schemas")).port(0).start();
  }

  @Test
  void registersLooksUpAndReadsVersions() {
    try (SchemaRegistry server = registry()) {
      SchemaRegistryClient client = new SchemaRegistryClient(server.url(), FAST);
      Schema v1 = avro("{\"name\":\"id\",\"type\":\"int\"}");
      Schema v2 = avro("{\"name\":\"id\",\"type\":\"int\"},{\"name\":\"note\",\"type\":\"string\",\"default\":\"\"}");
      int id1 = client.register("orders-value", v1);
      int id2 = client.register("orders-value", v2);
      assertNotEquals(id1, id2);
      assertEquals(List.of(1, 2), client.versions("orders-value"));
      assertEquals(id2, client.latest("orders-value").orElseThrow().id());
      assertEquals(1, client.lookup("orders-value", v1).orElseThrow().version());
      assertEquals(List.of("orders-value"), client.subjects());
      assertEquals("BACKWARD", client.config("orders-value").path("compatibilityLevel").asText());
      assertTrue(client.version("orders-value", "7").isEmpty());
      assertTrue(client.versions("no-such-subject").isEmpty());
      assertTrue(client.idOf("orders-value", avro("{\"name\":\"other\",\"type\":\"long\"}")).isEmpty());

      // A second client, as another process would be: the registry's id, not the first client's cache.
      SchemaRegistryClient other = new SchemaRegistryClient(server.url(), FAST);
      assertEquals(id1, other.register("orders-value", v1));
      assertEquals(v1.schema(), other.schemaById(id1).schema().replace(" ", ""));
    }
  }

  @Test
  void protobufAndJsonSchemasKeepTheirTypeAndReferences() {
    try (SchemaRegistry server = registry()) {
      SchemaRegistryClient client = new SchemaRegistryClient(server.url(), FAST);
      int common = client.register("common.proto", new Schema("PROTOBUF",
          "syntax = \"proto3\";\npackage shop;\nmessage Money { int64 cents = 1; }\n", List.of()));
      Schema order = new Schema("PROTOBUF", "syntax = \"proto3\";\npackage shop;\nimport \"common.proto\";\n"
          + "message Order { Money total = 1; }\n",
          List.of(new SchemaRegistryClient.Reference("common.proto", "common.proto", 1)));
      int id = client.register("orders-proto-value", order);
      assertNotEquals(common, id);
      Schema read = new SchemaRegistryClient(server.url(), FAST).schemaById(id);
      assertEquals("PROTOBUF", read.type());
      assertEquals(order.references(), read.references());
      int json = client.register("orders-json-value", new Schema("JSON", "{\"type\":\"object\"}", List.of()));
      assertEquals("JSON", new SchemaRegistryClient(server.url(), FAST).schemaById(json).type());
    }
  }

  @Test
  void refusalsCarryConfluentsErrorCodes() {
    try (SchemaRegistry server = registry()) {
      SchemaRegistryClient client = new SchemaRegistryClient(server.url(), FAST);
      client.register("orders-value", avro("{\"name\":\"id\",\"type\":\"int\"}"));
      RegistryApiException incompatible = assertThrows(RegistryApiException.class,
          () -> client.register("orders-value", avro("{\"name\":\"id\",\"type\":\"int\"},"
              + "{\"name\":\"required\",\"type\":\"string\"}")));
      assertEquals(409, incompatible.status());
      assertEquals(RegistryApiException.INCOMPATIBLE_SCHEMA, incompatible.errorCode());

      RegistryApiException invalid = assertThrows(RegistryApiException.class,
          () -> client.register("orders-value", new Schema("AVRO", "{\"type\":\"nonsense\"}", List.of())));
      assertEquals(422, invalid.status());
      assertEquals(RegistryApiException.INVALID_SCHEMA, invalid.errorCode());

      RegistryApiException unknownId = assertThrows(RegistryApiException.class, () -> client.schemaById(999_999));
      assertEquals(RegistryApiException.SCHEMA_NOT_FOUND, unknownId.errorCode());
      assertTrue(unknownId.notFound());
      assertTrue(unknownId.getMessage().startsWith("cannot read schema id 999999: the schema registry answered HTTP 404"),
          unknownId.getMessage());
    }
  }

  @Test
  void aSchemaOnceKnownIsAnsweredWithoutTheRegistry() {
    SchemaRegistryClient client;
    Schema v1 = avro("{\"name\":\"id\",\"type\":\"int\"}");
    int id;
    try (SchemaRegistry server = registry()) {
      client = new SchemaRegistryClient(server.url(), FAST);
      id = client.register("orders-value", v1);
      client.schemaById(id);
    }
    // The registry is gone: the hot path (id → schema, schema → id) still answers, from the caches.
    assertEquals(v1, client.schemaById(id));
    assertEquals(id, client.register("orders-value", v1));
    assertEquals(id, client.idOf("orders-value", v1).orElseThrow());
    // Anything not cached says plainly that the registry cannot be reached, after retrying.
    HttpTransport.UnreachableException e = assertThrows(HttpTransport.UnreachableException.class,
        () -> client.schemaById(id + 1));
    assertTrue(e.getMessage().startsWith("cannot reach the schema registry at http://"), e.getMessage());
    assertTrue(e.getMessage().contains(": unreachable after 2 attempts (GET /schemas/ids/"), e.getMessage());
  }
}
