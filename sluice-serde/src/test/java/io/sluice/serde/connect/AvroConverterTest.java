package io.sluice.serde.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.kafka.testing.LogCapture;
import io.sluice.kafka.testing.SharedKafka;
import io.sluice.serde.testing.SharedRegistry;
import io.sluice.serde.SerdeConfig;
import io.sluice.serde.avro.AvroSerializer;
import io.sluice.registry.client.SchemaRegistryClient;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.generic.GenericData;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The Connect Avro converter against Sluice's registry: Debezium's envelope both ways, and reading with a reader schema. */
class AvroConverterTest {
  private static SchemaRegistryClient client;

  @BeforeAll
  static void start() {
    client = SharedRegistry.client();
  }


  private static AvroConverter converter(boolean isKey, String... pairs) {
    Map<String, Object> c = new HashMap<>();
    c.put(SerdeConfig.REGISTRY_URL, SharedRegistry.url());
    for (int i = 0; i < pairs.length; i += 2) {
      c.put(pairs[i], pairs[i + 1]);
    }
    AvroConverter converter = new AvroConverter();
    converter.configure(c, isKey);
    return converter;
  }

  /**
   * A record that cannot be read gets the schema id header for its dead-letter copy; where its headers are read-only
   * (the record was produced somewhere already) the header is missing from that copy, and that is said: at WARN and
   * in the error, which still names the id.
   */
  @Test
  void aRecordWhoseHeadersCannotTakeTheSchemaIdSaysSo() {
    String topic = SharedKafka.unique("orders");
    byte[] unknownId = {0, 0x7f, 0x7f, 0x7f, 0x7f, 2, 4};
    RecordHeaders headers = new RecordHeaders();
    headers.setReadOnly();
    try (LogCapture said = LogCapture.of(RegistryBinding.class)) {
      DataException e = assertThrows(DataException.class, () -> converter(false).toConnectData(topic, headers,
          unknownId));
      assertTrue(e.getMessage().contains("schema id 2139062143") && e.getMessage().contains("the header "
          + AvroConverter.SCHEMA_ID_HEADER + " could not be added"), e.getMessage());
      assertEquals(1, said.lines().size(), said.lines().toString());
      assertTrue(said.lines().get(0).startsWith("WARN a record of topic " + topic + " with schema id 2139062143"),
          said.lines().get(0));
    }
  }

  /**
   * A refused schema fails the write with what an operator needs first, as the deepest cause of a failed task's trace
   * (where {@code connectors describe} looks): the subject, the version it broke with among the subject's versions,
   * the mode, the rule and what changed in the record's fields; the registry's whole answer rides along, suppressed.
   */
  @Test
  void aRefusedSchemaNamesSubjectVersionsModeAndRule() {
    String topic = SharedKafka.unique("evo.public.orders");
    String subject = topic + "-value";
    AvroConverter writer = converter(false);
    Schema v1 = SchemaBuilder.struct().name("Value").field("id", Schema.INT32_SCHEMA)
        .field("legacy", Schema.STRING_SCHEMA).build();
    writer.fromConnectData(topic, v1, new Struct(v1).put("id", 1).put("legacy", "x"));
    client.setCompatibility(subject, "FULL_TRANSITIVE");
    Schema v2 = SchemaBuilder.struct().name("Value").field("id", Schema.INT32_SCHEMA).build();

    DataException refused = assertThrows(DataException.class,
        () -> writer.fromConnectData(topic, v2, new Struct(v2).put("id", 2)));

    String m = refused.getMessage();
    assertTrue(m.startsWith("The schema registry refused the new AVRO schema of topic " + topic + " under subject "
        + subject + ": it breaks FULL_TRANSITIVE compatibility with version 1: READER_FIELD_MISSING_DEFAULT_VALUE: "),
        m);
    assertTrue(m.contains("'legacy'") && m.contains("(the subject holds version 1)"), m);
    assertTrue(m.endsWith("What changed against version 1: Value.legacy removed (was string, required, no default)."),
        "the columns as the source names them: " + m);
    assertTrue(!m.contains("oldSchema"), "the old schema's text is left to the registry's answer: " + m);
    assertNull(refused.getCause(), "the deepest cause of the trace");
    assertTrue(refused.getSuppressed()[0].getMessage().contains("{oldSchema: "));
  }

  @Test
  void debeziumEnvelopeTravelsWithItsSemanticTypesAndMicroseconds() {
    String topic = SharedKafka.unique("demo-shop.public.orders");
    AvroConverter writer = converter(false);
    Struct event = DebeziumShapes.created(7, 1_764_054_000_123_456L);

    byte[] bytes = writer.fromConnectData(topic, DebeziumShapes.ENVELOPE, event);
    assertEquals(0, bytes[0], "magic byte");
    SchemaRegistryClient.SubjectVersion registered = client.latest(topic + "-value").orElseThrow();
    assertEquals(1, registered.version());
    org.apache.avro.Schema avro = new org.apache.avro.Schema.Parser().parse(registered.schema().schema());
    assertEquals("demo_shop.public.orders.Envelope", avro.getFullName(), "Avro names are adjusted");
    assertEquals("demo-shop.public.orders.Envelope", avro.getProp("connect.name"), "the Connect name travels");
    org.apache.avro.Schema after = avro.getField("after").schema();
    assertEquals(org.apache.avro.Schema.Type.UNION, after.getType());
    assertEquals(org.apache.avro.Schema.Type.NULL, after.getTypes().get(0).getType(), "optional is [null, T]");
    org.apache.avro.Schema placedAt = after.getTypes().get(1).getField("placed_at").schema();
    assertEquals("io.debezium.time.MicroTimestamp", placedAt.getProp("connect.name"));
    assertEquals("decimal", after.getTypes().get(1).getField("total").schema().getLogicalType().getName());

    SchemaAndValue read = converter(false).toConnectData(topic, bytes);
    Struct back = (Struct) read.value();
    assertEquals("demo-shop.public.orders.Envelope", read.schema().name());
    assertEquals(Integer.valueOf(2), read.schema().version());
    assertNull(back.get("before"));
    Struct a = back.getStruct("after");
    assertEquals(1_764_054_000_123_456L, a.getInt64("placed_at"), "microseconds survive");
    assertEquals("io.debezium.time.MicroTimestamp", a.schema().field("placed_at").schema().name());
    assertEquals("io.debezium.data.Json", a.schema().field("attrs").schema().name());
    assertEquals(new BigDecimal("12.34"), a.get("total"));
    assertEquals(Schema.Type.INT16, a.schema().field("priority").schema().type());
    assertEquals((short) 3, a.get("priority"));
    assertEquals(DebeziumShapes.row(7, 1_764_054_000_123_456L).get("shipped_on"), a.get("shipped_on"));
    assertEquals(Map.of(1, 10L, 2, 20L), a.getMap("counts"));
    assertEquals(List.of("a", "b"), a.getArray("tags"));
    assertEquals("c", back.getString("op"));

    // The same schema again: same id, nothing new in the subject.
    byte[] again = writer.fromConnectData(topic, DebeziumShapes.ENVELOPE, DebeziumShapes.created(7, 1L)
        .put("before", DebeziumShapes.row(7, 1L)).put("after", null).put("op", "d"));
    assertEquals(java.nio.ByteBuffer.wrap(bytes, 1, 4).getInt(), java.nio.ByteBuffer.wrap(again, 1, 4).getInt());
    assertEquals(List.of(1), client.versions(topic + "-value"));
    assertNull(writer.fromConnectData(topic, DebeziumShapes.ENVELOPE, null), "a tombstone stays null");
    assertEquals(SchemaAndValue.NULL, converter(false).toConnectData(topic, null));
  }

  @Test
  void keysAndPrimitivesUseTheKeySubject() {
    String topic = SharedKafka.unique("keys");
    Schema key = SchemaBuilder.struct().name("k.Key").field("id", Schema.INT32_SCHEMA).build();
    AvroConverter c = converter(true);
    byte[] bytes = c.fromConnectData(topic, key, new Struct(key).put("id", 5));
    assertTrue(client.latest(topic + "-key").isPresent());
    assertEquals(5, ((Struct) c.toConnectData(topic, bytes).value()).getInt32("id"));
    byte[] ts = converter(false).fromConnectData(topic, Timestamp.SCHEMA, new java.util.Date(1234));
    assertEquals(new java.util.Date(1234), converter(false).toConnectData(topic, ts).value());
  }

  /**
   * Defaults of Connect's logical types travel in Avro's encoding of each type, as Confluent's AvroData writes them
   * (a Decimal's unscaled bytes as a string of ISO-8859-1 code points, a Date as int days, a Time as int millis of the
   * day, a Timestamp as long millis), on a field and as {@code connect.default} of an array's element, and read back
   * into the same Connect defaults (issue #40).
   */
  @Test
  void logicalTypeDefaultsTravelInAvrosEncodingAndReadBack() {
    String topic = SharedKafka.unique("defaults");
    java.util.Date day = new java.util.Date(19_000L * 86_400_000L);
    java.util.Date noon = new java.util.Date(12L * 3_600_000L + 34_567L);
    java.util.Date instant = new java.util.Date(1_764_054_000_123L);
    Schema schema = SchemaBuilder.struct().name("d.Row")
        .field("amount", Decimal.builder(2).defaultValue(new BigDecimal("12.34")).build())
        .field("negative", Decimal.builder(3).optional().defaultValue(new BigDecimal("-0.005")).build())
        .field("wide", Decimal.builder(0).parameter("connect.decimal.precision", "38")
            .defaultValue(new BigDecimal("123456789012345678901234567890")).build())
        .field("on", Date.builder().defaultValue(day).build())
        .field("at", org.apache.kafka.connect.data.Time.builder().optional().defaultValue(noon).build())
        .field("stamp", Timestamp.builder().defaultValue(instant).build())
        .field("raw", SchemaBuilder.bytes().defaultValue(new byte[] {0, 1, (byte) 0xff}).build())
        .field("days", SchemaBuilder.array(Date.builder().defaultValue(day).build()).build())
        .build();
    Struct row = new Struct(schema).put("amount", new BigDecimal("1.00")).put("wide", BigDecimal.ONE)
        .put("negative", new BigDecimal("0.250")).put("on", day).put("at", new java.util.Date(1_000L))
        .put("stamp", instant).put("raw", new byte[0]).put("days", List.of(day));

    byte[] bytes = converter(false).fromConnectData(topic, schema, row);
    org.apache.avro.Schema avro = new org.apache.avro.Schema.Parser()
        .parse(client.latest(topic + "-value").orElseThrow().schema().schema());
    com.fasterxml.jackson.databind.JsonNode json;
    try {
      json = new com.fasterxml.jackson.databind.ObjectMapper().readTree(avro.toString());
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
    Map<String, com.fasterxml.jackson.databind.JsonNode> defaults = new HashMap<>();
    json.get("fields").forEach(f -> defaults.put(f.get("name").asText(), f.get("default")));
    assertEquals("\u0004\u00d2", defaults.get("amount").textValue(), "1234 unscaled, big-endian");
    assertEquals("\u00fb", defaults.get("negative").textValue(), "-5 unscaled");
    assertEquals(new String(new BigDecimal("123456789012345678901234567890").unscaledValue().toByteArray(),
        StandardCharsets.ISO_8859_1), defaults.get("wide").textValue());
    assertEquals(19_000, defaults.get("on").intValue());
    assertTrue(defaults.get("on").isInt());
    assertEquals(43_234_567, defaults.get("at").intValue());
    assertEquals(1_764_054_000_123L, defaults.get("stamp").longValue());
    assertTrue(defaults.get("stamp").isIntegralNumber());
    assertEquals("\u0000\u0001\u00ff", defaults.get("raw").textValue());
    assertEquals(19_000, json.at("/fields/7/type/items/connect.default").intValue());

    SchemaAndValue read = converter(false).toConnectData(topic, bytes);
    assertEquals(schema, read.schema(), "every default reads back into the Connect schema");
    Map<String, Object> expected = new HashMap<>();
    expected.put("amount", new BigDecimal("12.34"));
    expected.put("negative", new BigDecimal("-0.005"));
    expected.put("wide", new BigDecimal("123456789012345678901234567890"));
    expected.put("on", day);
    expected.put("at", noon);
    expected.put("stamp", instant);
    for (Map.Entry<String, Object> e : expected.entrySet()) {
      assertEquals(e.getValue(), read.schema().field(e.getKey()).schema().defaultValue(), e.getKey());
    }
    assertEquals(day, read.schema().field("days").schema().valueSchema().defaultValue());
    assertTrue(java.util.Arrays.equals(new byte[] {0, 1, (byte) 0xff},
        (byte[]) read.schema().field("raw").schema().defaultValue()));
    assertEquals(row, read.value());
  }

  private static final String V1 = "{\"type\":\"record\",\"name\":\"Order\",\"namespace\":\"shop\",\"fields\":["
      + "{\"name\":\"id\",\"type\":\"int\"},{\"name\":\"item\",\"type\":\"string\"},{\"name\":\"qty\",\"type\":\"int\"}]}";

  private static byte[] write(String topic, String schema, Object... fields) {
    org.apache.avro.Schema s = new org.apache.avro.Schema.Parser().parse(schema);
    GenericData.Record r = new GenericData.Record(s);
    for (int i = 0; i < fields.length; i += 2) {
      r.put((String) fields[i], fields[i + 1]);
    }
    AvroSerializer serializer = new AvroSerializer();
    serializer.configure(Map.of(SerdeConfig.REGISTRY_URL, SharedRegistry.url()), false);
    return serializer.serialize(topic, r);
  }

  @Test
  void readerSchemaDecidesWhatIsForgiven() throws Exception {
    String topic = SharedKafka.unique("orders");
    client.register(topic + "-value", new SchemaRegistryClient.Schema("AVRO", V1, List.of()));
    client.setCompatibility(topic + "-value", "NONE");
    byte[] extraField = write(topic, V1.replace("]}", ",{\"name\":\"note\",\"type\":\"string\"}]}"),
        "id", 1, "item", "pen", "qty", 2, "note", "gift");
    byte[] missingQty = write(topic, V1.replace(",{\"name\":\"qty\",\"type\":\"int\"}", ""), "id", 2, "item", "ink");
    byte[] qtyAsString = write(topic, V1.replace("{\"name\":\"qty\",\"type\":\"int\"}",
        "{\"name\":\"qty\",\"type\":\"string\"}"), "id", 3, "item", "pad", "qty", "two");

    AvroConverter strict = converter(false, "reader.schema.version", "1");
    AvroConverter tolerant = converter(false, "reader.schema.version", "1", "schema.mismatch", "ignore-unknown");
    AvroConverter filling = converter(false, "reader.schema.version", "1", "schema.mismatch", "fill-default");

    RecordHeaders headers = new RecordHeaders();
    DataException unknown = assertThrows(DataException.class, () -> strict.toConnectData(topic, headers, extraField));
    assertTrue(unknown.getMessage().contains("note"), unknown.getMessage());
    int extraId = java.nio.ByteBuffer.wrap(extraField, 1, 4).getInt();
    assertTrue(unknown.getMessage().contains("schema id " + extraId), unknown.getMessage());
    assertEquals(String.valueOf(extraId),
        new String(headers.lastHeader(AvroConverter.SCHEMA_ID_HEADER).value(), StandardCharsets.UTF_8));

    Struct tolerated = (Struct) tolerant.toConnectData(topic, extraField).value();
    assertEquals(2, tolerated.getInt32("qty"));
    assertNull(tolerated.schema().field("note"), "the reader's shape, not the writer's");
    assertThrows(DataException.class, () -> tolerant.toConnectData(topic, missingQty));

    Struct filled = (Struct) filling.toConnectData(topic, missingQty).value();
    assertEquals("ink", filled.getString("item"));
    assertEquals(0, filled.getInt32("qty"), "a missing int is filled with 0");
    assertEquals("pen", ((Struct) filling.toConnectData(topic, extraField).value()).getString("item"));

    for (AvroConverter c : List.of(strict, tolerant, filling)) {
      DataException e = assertThrows(DataException.class, () -> c.toConnectData(topic, qtyAsString));
      assertTrue(e.getMessage().contains("qty"), e.getMessage());
    }
    // Without a reader schema every record reads with its own writer schema.
    assertEquals("two", ((Struct) converter(false).toConnectData(topic, qtyAsString).value()).getString("qty"));
    assertThrows(DataException.class, () -> strict.toConnectData(topic, new byte[] {1, 2, 3}));
  }
}
