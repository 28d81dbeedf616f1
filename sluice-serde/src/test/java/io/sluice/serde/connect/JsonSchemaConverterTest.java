package io.sluice.serde.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.kafka.testing.SharedKafka;
import io.sluice.serde.testing.SharedRegistry;
import io.sluice.serde.SerdeConfig;
import io.sluice.registry.client.SchemaRegistryClient;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The Connect JSON Schema converter against Sluice's registry: Debezium's envelope both ways. */
class JsonSchemaConverterTest {
  private static SchemaRegistryClient client;

  @BeforeAll
  static void start() {
    client = SharedRegistry.client();
  }


  private static JsonSchemaConverter converter() {
    JsonSchemaConverter c = new JsonSchemaConverter();
    c.configure(Map.of(SerdeConfig.REGISTRY_URL, SharedRegistry.url()), false);
    return c;
  }

  @Test
  void debeziumEnvelopeTravelsAsJsonWithItsSchemaInTheRegistry() throws Exception {
    String topic = SharedKafka.unique("shop.public.orders");
    byte[] bytes = converter().fromConnectData(topic, DebeziumShapes.ENVELOPE,
        DebeziumShapes.created(7, 1_764_054_000_123_456L));
    assertEquals(0, bytes[0]);
    JsonNode payload = SerdeConfig.JSON.readTree(new String(bytes, 5, bytes.length - 5, StandardCharsets.UTF_8));
    assertEquals(1_764_054_000_123_456L, payload.at("/after/placed_at").asLong(), payload.toString());
    assertEquals(new BigDecimal("12.34"), payload.at("/after/total").decimalValue(), "a decimal is a JSON number");
    assertTrue(payload.path("before").isNull());

    SchemaRegistryClient.SubjectVersion registered = client.latest(topic + "-value").orElseThrow();
    assertEquals("JSON", registered.schema().type());
    JsonNode schema = SerdeConfig.JSON.readTree(registered.schema().schema());
    JsonNode envelope = schema.path("oneOf").get(1);
    assertEquals("demo-shop.public.orders.Envelope", envelope.path("title").asText(), schema.toString());
    JsonNode placedAt = envelope.at("/properties/after/oneOf/1/properties/placed_at");
    assertEquals("io.debezium.time.MicroTimestamp", placedAt.path("title").asText(), schema.toString());
    assertEquals("int64", placedAt.path("connect.type").asText());

    SchemaAndValue read = converter().toConnectData(topic, bytes);
    Struct back = (Struct) read.value();
    assertEquals("demo-shop.public.orders.Envelope", read.schema().name());
    Struct after = back.getStruct("after");
    assertEquals(1_764_054_000_123_456L, after.getInt64("placed_at"));
    assertEquals("io.debezium.time.MicroTimestamp", after.schema().field("placed_at").schema().name());
    assertEquals(new BigDecimal("12.34"), after.get("total"));
    assertEquals(Schema.Type.INT16, after.schema().field("priority").schema().type());
    assertEquals(DebeziumShapes.row(7, 1L).get("shipped_on"), after.get("shipped_on"));
    assertEquals(Map.of(1, 10L, 2, 20L), after.getMap("counts"));
    assertEquals(List.of("a", "b"), after.getArray("tags"));
    assertNull(back.get("before"));
    assertEquals(List.of("version", "connector", "ts_ms", "lsn"),
        back.getStruct("source").schema().fields().stream().map(f -> f.name()).toList(), "fields keep their order");
  }

  /** Debezium after ALTER TABLE ADD COLUMN: a new optional field must be a new, compatible version (BACKWARD). */
  @Test
  void anAddedOptionalColumnIsACompatibleNewVersion() {
    String topic = SharedKafka.unique("evolving");
    Schema v1 = SchemaBuilder.struct().name("shop.public.items.Value")
        .field("id", Schema.INT32_SCHEMA).field("item", Schema.STRING_SCHEMA).build();
    Schema v2 = SchemaBuilder.struct().name("shop.public.items.Value")
        .field("id", Schema.INT32_SCHEMA).field("item", Schema.STRING_SCHEMA)
        .field("note", Schema.OPTIONAL_STRING_SCHEMA).build();
    JsonSchemaConverter c = converter();
    c.fromConnectData(topic, v1, new Struct(v1).put("id", 1).put("item", "pen"));
    byte[] second = c.fromConnectData(topic, v2, new Struct(v2).put("id", 2).put("item", "ink").put("note", "x"));
    assertEquals(List.of(1, 2), client.versions(topic + "-value"));
    assertEquals("x", ((Struct) converter().toConnectData(topic, second).value()).getString("note"));
  }

  @Test
  void aRecordItCannotReadIsMarkedWithItsSchemaId() {
    String topic = SharedKafka.unique("broken");
    JsonSchemaConverter c = converter();
    byte[] bytes = c.fromConnectData(topic, DebeziumShapes.ENVELOPE, DebeziumShapes.created(1, 1L));
    byte[] truncated = java.util.Arrays.copyOf(bytes, bytes.length - 3);
    RecordHeaders headers = new RecordHeaders();
    DataException e = assertThrows(DataException.class, () -> converter().toConnectData(topic, headers, truncated));
    int id = java.nio.ByteBuffer.wrap(bytes, 1, 4).getInt();
    assertTrue(e.getMessage().contains("schema id " + id), e.getMessage());
    assertEquals(String.valueOf(id), new String(headers.lastHeader(AvroConverter.SCHEMA_ID_HEADER).value(),
        StandardCharsets.UTF_8));
  }
}
