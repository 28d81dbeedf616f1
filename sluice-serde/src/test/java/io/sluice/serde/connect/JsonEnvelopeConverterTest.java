package io.sluice.serde.connect;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.kafka.testing.LogCapture;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.json.JsonConverter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Differential: for every shape of data, the bytes are exactly Kafka's JsonConverter's. */
class JsonEnvelopeConverterTest {

  private static Map<String, Object> config(String variant) {
    return switch (variant) {
      case "default" -> Map.of();
      case "numeric" -> Map.of("decimal.format", "NUMERIC");
      case "no-envelope" -> Map.of("schemas.enable", "false");
      case "small-cache" -> Map.of("schemas.cache.size", "1");
      case "keep-nulls" -> Map.of("replace.null.with.default", "false");
      case "default-for-null" -> Map.of("replace.null.with.default", "true");
      default -> throw new IllegalArgumentException(variant);
    };
  }

  /** Kafka's converter configured as Sluice's is by {@code variant}: Sluice's keeps NULLs unless told otherwise. */
  private static Map<String, Object> kafkaConfig(String variant) {
    Map<String, Object> c = new java.util.HashMap<>(config(variant));
    c.putIfAbsent("replace.null.with.default", "false");
    return c;
  }

  @ParameterizedTest
  @ValueSource(strings = {"default", "numeric", "no-envelope", "small-cache", "keep-nulls", "default-for-null"})
  void writesKafkasBytesForEveryShape(String variant) {
    for (boolean isKey : new boolean[] {false, true}) {
      JsonConverter kafka = new JsonConverter();
      kafka.configure(kafkaConfig(variant), isKey);
      JsonEnvelopeConverter ours = new JsonEnvelopeConverter();
      ours.configure(config(variant), isKey);
      List<SchemaAndValue> cases = cases();
      // Twice over, and shuffled: the second pass is served from the schema cache.
      for (int pass = 0; pass < 2; pass++) {
        for (SchemaAndValue c : cases) {
          byte[] expected = kafka.fromConnectData("t", c.schema(), c.value());
          byte[] actual = ours.fromConnectData("t", c.schema(), c.value());
          assertArrayEquals(expected, actual, () -> "for " + c + ": expected "
              + (expected == null ? null : new String(expected, StandardCharsets.UTF_8)) + " got "
              + (actual == null ? null : new String(actual, StandardCharsets.UTF_8)));
        }
        java.util.Collections.shuffle(cases, new Random(pass));
      }
      ours.close();
      kafka.close();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"default", "numeric", "no-envelope", "small-cache", "keep-nulls", "default-for-null"})
  void readsWhatKafkaReads(String variant) {
    JsonConverter kafka = new JsonConverter();
    kafka.configure(kafkaConfig(variant), false);
    JsonEnvelopeConverter ours = new JsonEnvelopeConverter();
    ours.configure(config(variant), false);
    List<byte[]> records = new ArrayList<>();
    for (SchemaAndValue c : cases()) {
      records.add(kafka.fromConnectData("t", c.schema(), c.value()));
    }
    String schema = "{\"type\":\"struct\",\"optional\":false,\"fields\":[{\"field\":\"id\",\"type\":\"int64\","
        + "\"optional\":false},{\"field\":\"n\",\"type\":\"int32\",\"optional\":true,\"default\":3},"
        + "{\"field\":\"d\",\"type\":\"int32\",\"optional\":true,\"name\":\"org.apache.kafka.connect.data.Date\"}]}";
    for (String odd : List.of(
        "{\"schema\":" + schema + ",\"payload\":{\"id\":1,\"n\":null,\"d\":19000}}",
        "{\"schema\":" + schema + ",\"payload\":{\"id\":\"text\",\"n\":2.5}}",
        "{\"schema\":" + schema + ",\"payload\":{\"id\":007}}",
        "{\"schema\":" + schema + ",\"payload\":{\"n\":1}}",
        "{\"schema\":" + schema + ",\"payload\":{\"id\":1,\"d\":\"2024-01-01\"}}",
        "{\"schema\":" + schema + ",\"payload\":[1,2]}",
        "{\"schema\":" + schema + ",\"payload\":null}",
        "{\"schema\":" + schema + ",\"payload\":{\"id\":1},\"extra\":1}",
        "{\"schema\":" + schema + ",\"payload\":{\"id\":1}} trailing",
        "{\"payload\":{\"id\":1},\"schema\":" + schema + "}",
        "{\"schema\":null,\"payload\":{\"id\":1,\"xs\":[1,2.5,\"a\"]}}",
        "{\"schema\":{\"type\":\"nope\"},\"payload\":1}",
        "{\"schema\":{\"type\":\"bytes\"},\"payload\":\"not base64!\"}",
        "{\"schema\":{\"type\":\"map\",\"keys\":{\"type\":\"int32\"},\"values\":{\"type\":\"string\"}},"
            + "\"payload\":[[1,\"a\"],[2]]}",
        "{\"schema\":{\"type\":\"array\",\"items\":{\"type\":\"int32\"}},\"payload\":{\"a\":1}}",
        "{\"schema\":{\"type\":\"string\"},\"payload\":5}",
        "not json", "", "null", "{}", "{\"schema\":{")) {
      records.add(odd.getBytes(StandardCharsets.UTF_8));
    }
    for (int pass = 0; pass < 2; pass++) {
      for (byte[] record : records) {
        String text = record == null ? "(no bytes)" : new String(record, StandardCharsets.UTF_8);
        Object expected = outcome(() -> kafka.toConnectData("t", record));
        Object actual = outcome(() -> ours.toConnectData("t", record));
        if (expected instanceof SchemaAndValue e && actual instanceof SchemaAndValue a) {
          assertEquals(e.schema(), a.schema(), text);
          if (e.value() instanceof byte[] bytes) {
            assertArrayEquals(bytes, (byte[]) a.value(), text);
          } else {
            assertEquals(e.value(), a.value(), text);
          }
        } else {
          assertEquals(expected, actual, text);
        }
      }
    }
  }

  @org.junit.jupiter.api.Test
  void readsChangeEventsWithoutKafkasPath() {
    JsonConverter kafka = new JsonConverter();
    kafka.configure(Map.of(), false);
    EnvelopeReader reader = new EnvelopeReader(true, 16, kafka::asConnectSchema);
    int read = 0;
    for (SchemaAndValue c : cases()) {
      byte[] record = kafka.fromConnectData("t", c.schema(), c.value());
      if (c.schema() != null && c.value() instanceof Struct && reader.read(record) != null) {
        read++;
      }
    }
    assertEquals(101, read, "every struct record with a schema takes the fast path");
    String reversed = "{\"payload\":1,\"schema\":{\"type\":\"int32\"}}";
    assertEquals(null, reader.read(reversed.getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * Bad input falls back to Kafka's converter quietly (Kafka says what is wrong); a fault of the reader itself falls
   * back too, but is said at WARN with its cause, once.
   */
  @org.junit.jupiter.api.Test
  void aFaultOfTheFastReaderIsSaidNotHidden() {
    JsonConverter kafka = new JsonConverter();
    kafka.configure(Map.of(), false);
    byte[] record = kafka.fromConnectData("t", Schema.INT32_SCHEMA, 7);
    byte[] bad = ("{\"schema\":{\"type\":\"struct\",\"fields\":[{\"field\":\"a\",\"type\":\"int32\"}]},"
        + "\"payload\":5}").getBytes(StandardCharsets.UTF_8);
    try (LogCapture said = LogCapture.of(EnvelopeReader.class)) {
      EnvelopeReader reader = new EnvelopeReader(true, 16, kafka::asConnectSchema);
      assertEquals(null, reader.read(bad));
      assertEquals(List.of(), said.lines(), "bad input is Kafka's converter's to explain");
      EnvelopeReader faulty = new EnvelopeReader(true, 16, schema -> {
        throw new IllegalStateException("a bug in the reader");
      });
      assertEquals(null, faulty.read(record));
      assertEquals(null, faulty.read(record));
      assertEquals(1, said.lines().size(), said.lines().toString());
      assertTrue(said.lines().get(0).startsWith("WARN the fast reader of JSON envelopes failed")
          && said.lines().get(0).contains("a bug in the reader"), said.lines().get(0));
    }
  }

  /** The converted data, or the exception's class and message. */
  private static Object outcome(java.util.function.Supplier<SchemaAndValue> read) {
    try {
      return read.get();
    } catch (RuntimeException e) {
      return e.getClass().getName() + ": " + e.getMessage();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"default", "no-envelope"})
  void refusesWhatKafkaRefuses(String variant) {
    JsonEnvelopeConverter ours = new JsonEnvelopeConverter();
    ours.configure(config(variant), false);
    Schema required = SchemaBuilder.struct().field("id", Schema.INT64_SCHEMA).build();
    assertThrows(DataException.class, () -> ours.fromConnectData("t", required, new Struct(required)));
    assertThrows(DataException.class, () -> ours.fromConnectData("t", Schema.INT32_SCHEMA, "text"));
  }

  /** A Debezium-like change event plus every Connect type, logical types, defaults, nulls and schemaless data. */
  private static List<SchemaAndValue> cases() {
    Schema row = SchemaBuilder.struct().name("db.public.orders.Value").optional()
        .field("id", Schema.INT64_SCHEMA)
        .field("item", Schema.OPTIONAL_STRING_SCHEMA)
        .field("qty", SchemaBuilder.int32().optional().defaultValue(7).build())
        .field("price", Decimal.builder(2).optional().build())
        .field("created", Timestamp.builder().optional().build())
        .field("at", Time.builder().optional().build())
        .field("day", org.apache.kafka.connect.data.Date.builder().optional().build())
        .field("raw", Schema.OPTIONAL_BYTES_SCHEMA)
        .field("ratio", Schema.OPTIONAL_FLOAT64_SCHEMA)
        .field("f32", Schema.OPTIONAL_FLOAT32_SCHEMA)
        .field("small", Schema.OPTIONAL_INT8_SCHEMA)
        .field("mid", Schema.OPTIONAL_INT16_SCHEMA)
        .field("ok", SchemaBuilder.bool().optional().doc("a \"quoted\" doc").build())
        .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).optional().build())
        .field("attrs", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.OPTIONAL_STRING_SCHEMA).optional().build())
        .field("byId", SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.STRING_SCHEMA).optional().build())
        .build();
    Schema source = SchemaBuilder.struct().name("io.debezium.connector.postgresql.Source")
        .field("version", Schema.STRING_SCHEMA).field("ts_ms", Schema.INT64_SCHEMA)
        .field("snapshot", SchemaBuilder.string().optional().name("io.debezium.data.Enum").version(1)
            .parameter("allowed", "true,last,false,incremental").defaultValue("false").build())
        .field("lsn", Schema.OPTIONAL_INT64_SCHEMA).build();
    Schema envelope = SchemaBuilder.struct().name("db.public.orders.Envelope").version(2)
        .field("before", row).field("after", row).field("source", source)
        .field("op", Schema.STRING_SCHEMA).field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA).build();

    List<SchemaAndValue> out = new ArrayList<>();
    Random random = new Random(42);
    for (int i = 0; i < 50; i++) {
      Struct after = new Struct(row).put("id", (long) i).put("item", i % 5 == 0 ? null : "item-\u00e9\u4e2d-" + i)
          .put("price", i % 3 == 0 ? null : new BigDecimal(random.nextInt(100000)).movePointLeft(2))
          .put("created", new Date(1_700_000_000_000L + i))
          .put("at", new Date(i * 1000L)).put("day", new Date(86_400_000L * i))
          .put("raw", i % 2 == 0 ? null : new byte[] {(byte) i, 0, -1})
          .put("ratio", random.nextDouble() * 1e6).put("f32", (float) random.nextGaussian())
          .put("small", (byte) i).put("mid", (short) (i * 100)).put("ok", i % 2 == 0)
          .put("tags", List.of("a", "b\n" + i)).put("attrs", Map.of("k", "v" + i))
          .put("byId", Map.of(i, "x"));
      if (i % 4 != 0) {
        after.put("qty", i);
      }
      Struct src = new Struct(source).put("version", "3.7.0.Final").put("ts_ms", 1_700_000_000_000L + i)
          .put("lsn", i % 7 == 0 ? null : (long) i * 1000);
      Struct event = new Struct(envelope).put("before", i % 2 == 0 ? null : after).put("after", after)
          .put("source", src).put("op", i % 3 == 0 ? "u" : "c").put("ts_ms", 1_700_000_000_500L + i);
      out.add(new SchemaAndValue(envelope, event));
      out.add(new SchemaAndValue(row, after));
    }
    Schema key = SchemaBuilder.struct().name("db.public.orders.Key").field("id", Schema.INT64_SCHEMA).build();
    out.add(new SchemaAndValue(key, new Struct(key).put("id", 5L)));
    out.add(new SchemaAndValue(row, null));
    out.add(new SchemaAndValue(null, null));
    out.add(new SchemaAndValue(null, Map.of("schemaless", List.of(1, 2.5, "x", true))));
    out.add(new SchemaAndValue(null, "plain string"));
    out.add(new SchemaAndValue(Schema.STRING_SCHEMA, "s"));
    out.add(new SchemaAndValue(Schema.OPTIONAL_INT64_SCHEMA, null));
    out.add(new SchemaAndValue(SchemaBuilder.int64().optional().defaultValue(9L).build(), null));
    out.add(new SchemaAndValue(Decimal.schema(3), new BigDecimal("-12.345")));
    out.add(new SchemaAndValue(Schema.BYTES_SCHEMA, new byte[] {1, 2, 3}));
    out.add(new SchemaAndValue(SchemaBuilder.array(Schema.FLOAT64_SCHEMA).build(), List.of(1.0, -0.0, 1e300)));
    return out;
  }
}
