package io.sluice.serde.connect;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.sluice.serde.avro.AvroSchemas;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;
import org.junit.jupiter.api.Test;

/**
 * Differential: for every Connect type, optional or not, with defaults, logical types, nested structs, arrays and both
 * kinds of maps, {@link ConnectAvroWriter} writes exactly the bytes of the converter's former path, GenericRecords
 * built from the Connect value and written by Avro's GenericDatumWriter (kept below as {@link #genericDatum}).
 */
class ConnectAvroWriterTest {
  private static final Schema LINE = SchemaBuilder.struct().name("shop.Line").field("sku", Schema.STRING_SCHEMA)
      .field("qty", Schema.INT32_SCHEMA).field("price", Decimal.builder(2).optional().build()).build();
  /** Another struct of the same name: Avro numbers the second one (shop.Line2). */
  private static final Schema OTHER_LINE = SchemaBuilder.struct().name("shop.Line").optional()
      .field("note", Schema.OPTIONAL_STRING_SCHEMA).build();
  private static final Schema OPTIONAL_LINE = SchemaBuilder.struct().name("shop.Line").optional()
      .field("sku", Schema.STRING_SCHEMA).field("qty", Schema.INT32_SCHEMA)
      .field("price", Decimal.builder(2).optional().build()).build();
  private static final Schema DEEP = SchemaBuilder.struct().optional()
      .field("grid", SchemaBuilder.array(SchemaBuilder.array(Schema.OPTIONAL_STRING_SCHEMA).build()).build())
      .field("index", SchemaBuilder.map(Schema.STRING_SCHEMA, SchemaBuilder.array(Schema.INT64_SCHEMA).build())
          .optional().build())
      .build();

  private static final Schema EVERYTHING = SchemaBuilder.struct().name("shop.Everything").version(3).doc("all of it")
      .field("i8", Schema.INT8_SCHEMA).field("i16", Schema.INT16_SCHEMA).field("i32", Schema.INT32_SCHEMA)
      .field("i64", Schema.INT64_SCHEMA).field("f32", Schema.FLOAT32_SCHEMA).field("f64", Schema.FLOAT64_SCHEMA)
      .field("flag", Schema.BOOLEAN_SCHEMA).field("text", Schema.STRING_SCHEMA).field("raw", Schema.BYTES_SCHEMA)
      .field("o_i8", Schema.OPTIONAL_INT8_SCHEMA).field("o_i16", Schema.OPTIONAL_INT16_SCHEMA)
      .field("o_i32", Schema.OPTIONAL_INT32_SCHEMA).field("o_i64", Schema.OPTIONAL_INT64_SCHEMA)
      .field("o_f32", Schema.OPTIONAL_FLOAT32_SCHEMA).field("o_f64", Schema.OPTIONAL_FLOAT64_SCHEMA)
      .field("o_flag", Schema.OPTIONAL_BOOLEAN_SCHEMA).field("o_text", Schema.OPTIONAL_STRING_SCHEMA)
      .field("o_raw", Schema.OPTIONAL_BYTES_SCHEMA)
      .field("d_i32", SchemaBuilder.int32().defaultValue(42).build())
      .field("d_i8", SchemaBuilder.int8().optional().defaultValue((byte) 7).build())
      .field("d_text", SchemaBuilder.string().optional().defaultValue("none").build())
      .field("d_flag", SchemaBuilder.bool().defaultValue(true).build())
      .field("amount", Decimal.schema(2))
      .field("big", Decimal.builder(0).parameter("connect.decimal.precision", "38").build())
      .field("o_amount", Decimal.builder(4).optional().build())
      .field("day", Date.SCHEMA).field("o_day", Date.builder().optional().build())
      .field("at", Time.SCHEMA).field("o_at", Time.builder().optional().build())
      .field("ts", Timestamp.SCHEMA).field("o_ts", Timestamp.builder().optional().build())
      .field("micros", SchemaBuilder.int64().name("io.debezium.time.MicroTimestamp").version(1).build())
      .field("json", SchemaBuilder.string().name("io.debezium.data.Json").version(1).optional().build())
      .field("line", LINE).field("o_line", OPTIONAL_LINE).field("other", OTHER_LINE).field("deep", DEEP)
      .field("lines", SchemaBuilder.array(LINE).build())
      .field("o_ints", SchemaBuilder.array(Schema.OPTIONAL_INT32_SCHEMA).optional().build())
      .field("tags", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.STRING_SCHEMA).build())
      .field("o_counts", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.OPTIONAL_INT64_SCHEMA).optional().build())
      .field("by_id", SchemaBuilder.map(Schema.INT64_SCHEMA, LINE).build())
      .field("by_opt_key", SchemaBuilder.map(Schema.OPTIONAL_STRING_SCHEMA, Schema.OPTIONAL_FLOAT64_SCHEMA).build())
      .field("by_day", SchemaBuilder.map(Date.SCHEMA, Decimal.schema(1)).optional().build())
      .build();

  private static final String[] TEXTS = {"", "paid", "leave at the door", "naïve café", "emoji 😀 ok",
      "unpaired \uD800 surrogate", "x".repeat(300), "ünïcödé".repeat(60)};

  @Test
  void writesTheGenericRecordBytesForEveryShape() {
    Random random = new Random(34);
    for (int i = 0; i < 2_000; i++) {
      assertSameBytes(EVERYTHING, everything(random));
    }
  }

  @Test
  void writesTheGenericRecordBytesForTopLevelValuesOfEveryKind() {
    Random random = new Random(2);
    assertSameBytes(Schema.STRING_SCHEMA, "a key");
    assertSameBytes(Schema.OPTIONAL_STRING_SCHEMA, "naïve");
    assertSameBytes(Schema.INT64_SCHEMA, Long.MIN_VALUE);
    assertSameBytes(Schema.INT8_SCHEMA, (byte) -128);
    assertSameBytes(Schema.FLOAT64_SCHEMA, Double.NaN);
    assertSameBytes(Schema.BYTES_SCHEMA, ByteBuffer.allocateDirect(3).put((byte) 9).flip());
    assertSameBytes(Decimal.schema(3), new BigDecimal("-12345.678"));
    assertSameBytes(Timestamp.SCHEMA, new java.util.Date(-1L));
    assertSameBytes(SchemaBuilder.array(LINE).build(), List.of(line(random), line(random)));
    assertSameBytes(SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.OPTIONAL_STRING_SCHEMA).build(),
        new TreeMap<>(Map.of("a", "1", "b", "2")));
    assertSameBytes(DebeziumShapes.ENVELOPE, DebeziumShapes.created(7, 1_764_054_000_000_000L));
    assertSameBytes(LINE, line(random));
  }

  @Test
  void refusesWhatThePreviousPathRefusedWithTheSameWords() {
    Struct missing = new Struct(LINE).put("qty", 1);
    DataException required = assertThrows(DataException.class, () -> write(LINE, missing));
    DataException before = assertThrows(DataException.class, () -> genericDatum(LINE, avro(LINE), missing));
    assertEquals(before.getMessage(), required.getMessage());

    Struct wrongSchema = new Struct(OPTIONAL_LINE).put("sku", "a").put("qty", 1);
    // Struct.put checks the field's schema, so the mismatch can only come in through a list, as a sloppy source may.
    Schema list = SchemaBuilder.array(LINE).build();
    assertEquals("Mismatching struct schema",
        assertThrows(DataException.class, () -> write(list, List.of(wrongSchema))).getMessage());
    assertEquals("Mismatching struct schema",
        assertThrows(DataException.class, () -> genericDatum(list, avro(list), List.of(wrongSchema))).getMessage());

    DataException scale = assertThrows(DataException.class, () -> write(Decimal.schema(2), new BigDecimal("1.5")));
    assertEquals(assertThrows(DataException.class,
        () -> genericDatum(Decimal.schema(2), avro(Decimal.schema(2)), new BigDecimal("1.5"))).getMessage(),
        scale.getMessage());
  }

  @Test
  void leavesTheRoomAskedForInFrontOfTheValue() {
    Struct value = everything(new Random(5));
    byte[] plain = write(EVERYTHING, value);
    byte[] framed = ConnectAvroWriter.of(EVERYTHING, avro(EVERYTHING)).write(value, 5);
    assertEquals(plain.length + 5, framed.length);
    assertArrayEquals(plain, Arrays.copyOfRange(framed, 5, framed.length));
  }

  private static void assertSameBytes(Schema schema, Object value) {
    org.apache.avro.Schema avro = avro(schema);
    byte[] expected = genericBytes(avro, genericDatum(schema, avro, value));
    // Twice: the second write starts from the size hint the first left.
    ConnectAvroWriter writer = ConnectAvroWriter.of(schema, avro);
    assertArrayEquals(expected, writer.write(value, 0), () -> "for " + value);
    assertArrayEquals(expected, writer.write(value, 0), () -> "again for " + value);
  }

  private static byte[] write(Schema schema, Object value) {
    return ConnectAvroWriter.of(schema, avro(schema)).write(value, 0);
  }

  private static org.apache.avro.Schema avro(Schema schema) {
    return new ConnectAvro().avroSchema(schema);
  }

  private static byte[] genericBytes(org.apache.avro.Schema avro, Object datum) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
      new GenericDatumWriter<>(avro).write(datum, encoder);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return out.toByteArray();
  }

  /**
   * The converter's former path: the GenericData form of a Connect value, for Avro's datum writer; changed since in
   * one rule only, that a null of a nullable schema stays null where the schema has a default.
   */
  private static Object genericDatum(Schema schema, org.apache.avro.Schema avro, Object value) {
    if (value == null) {
      if (schema.isOptional()) {
        return null;
      }
      if (schema.defaultValue() == null) {
        throw new DataException("Conversion error: null value for field that is required and has no default value");
      }
      value = schema.defaultValue();
    }
    org.apache.avro.Schema type = AvroSchemas.nonNull(avro);
    String name = schema.name();
    if (Decimal.LOGICAL_NAME.equals(name)) {
      return ByteBuffer.wrap(Decimal.fromLogical(schema, (BigDecimal) value));
    }
    if (Date.LOGICAL_NAME.equals(name)) {
      return Date.fromLogical(schema, (java.util.Date) value);
    }
    if (Time.LOGICAL_NAME.equals(name)) {
      return Time.fromLogical(schema, (java.util.Date) value);
    }
    if (Timestamp.LOGICAL_NAME.equals(name)) {
      return Timestamp.fromLogical(schema, (java.util.Date) value);
    }
    return switch (schema.type()) {
      case INT8, INT16 -> ((Number) value).intValue();
      case INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING -> value;
      case BYTES -> value instanceof byte[] b ? ByteBuffer.wrap(b) : value;
      case ARRAY -> {
        Collection<?> in = (Collection<?>) value;
        List<Object> out = new GenericData.Array<>(in.size(), type);
        for (Object item : in) {
          out.add(genericDatum(schema.valueSchema(), type.getElementType(), item));
        }
        yield out;
      }
      case MAP -> {
        Map<?, ?> in = (Map<?, ?>) value;
        if (type.getType() == org.apache.avro.Schema.Type.MAP) {
          Map<String, Object> out = new LinkedHashMap<>(in.size() * 2);
          in.forEach((k, v) -> out.put((String) k, genericDatum(schema.valueSchema(), type.getValueType(), v)));
          yield out;
        }
        org.apache.avro.Schema entry = type.getElementType();
        List<Object> out = new GenericData.Array<>(in.size(), type);
        in.forEach((k, v) -> {
          GenericData.Record r = new GenericData.Record(entry);
          r.put(0, genericDatum(schema.keySchema(), entry.getFields().get(0).schema(), k));
          r.put(1, genericDatum(schema.valueSchema(), entry.getFields().get(1).schema(), v));
          out.add(r);
        });
        yield out;
      }
      case STRUCT -> {
        Struct struct = (Struct) value;
        if (!struct.schema().equals(schema)) {
          throw new DataException("Mismatching struct schema");
        }
        GenericData.Record r = new GenericData.Record(type);
        List<Field> fields = schema.fields();
        for (int i = 0; i < fields.size(); i++) {
          Field f = fields.get(i);
          r.put(i, genericDatum(f.schema(), type.getFields().get(i).schema(), struct.getWithoutDefault(f.name())));
        }
        yield r;
      }
    };
  }

  // ---- values -----------------------------------------------------------------------------------------------

  private static Struct everything(Random r) {
    Struct s = new Struct(EVERYTHING)
        .put("i8", (byte) r.nextInt()).put("i16", (short) r.nextInt()).put("i32", anInt(r)).put("i64", aLong(r))
        .put("f32", aFloat(r)).put("f64", aDouble(r)).put("flag", r.nextBoolean()).put("text", text(r))
        .put("raw", bytes(r))
        .put("o_i8", maybe(r, () -> (byte) r.nextInt())).put("o_i16", maybe(r, () -> (short) r.nextInt()))
        .put("o_i32", maybe(r, () -> anInt(r))).put("o_i64", maybe(r, () -> aLong(r)))
        .put("o_f32", maybe(r, () -> aFloat(r))).put("o_f64", maybe(r, () -> aDouble(r)))
        .put("o_flag", maybe(r, r::nextBoolean)).put("o_text", maybe(r, () -> text(r)))
        .put("o_raw", maybe(r, () -> bytes(r)))
        .put("d_i8", maybe(r, () -> (byte) r.nextInt())).put("d_text", maybe(r, () -> text(r)))
        .put("amount", BigDecimal.valueOf(aLong(r), 2))
        .put("big", new BigDecimal(new BigInteger(1 + r.nextInt(120), r).multiply(BigInteger.valueOf(r.nextBoolean()
            ? 1 : -1))))
        .put("o_amount", maybe(r, () -> BigDecimal.valueOf(r.nextInt(), 4)))
        .put("day", day(r)).put("o_day", maybe(r, () -> day(r)))
        .put("at", time(r)).put("o_at", maybe(r, () -> time(r)))
        .put("ts", new java.util.Date(aLong(r) / 1_000)).put("o_ts", maybe(r, () -> new java.util.Date(r.nextLong())))
        .put("micros", aLong(r)).put("json", maybe(r, () -> "{\"gift\":" + r.nextBoolean() + "}"))
        .put("line", line(r)).put("o_line", maybe(r, () -> optionalLine(r)))
        .put("other", maybe(r, () -> new Struct(OTHER_LINE).put("note", maybe(r, () -> text(r)))))
        .put("deep", maybe(r, () -> deep(r)));
    // A required field with a default may be left unset (Struct.put refuses null for it): the default is written.
    if (r.nextBoolean()) {
      s.put("d_i32", anInt(r));
    }
    if (r.nextBoolean()) {
      s.put("d_flag", r.nextBoolean());
    }
    List<Struct> lines = new ArrayList<>();
    for (int i = r.nextInt(4); i > 0; i--) {
      lines.add(line(r));
    }
    s.put("lines", lines);
    s.put("o_ints", maybe(r, () -> {
      List<Integer> ints = new ArrayList<>();
      for (int i = r.nextInt(5); i > 0; i--) {
        ints.add(r.nextInt(3) == 0 ? null : anInt(r));
      }
      return ints;
    }));
    Map<String, String> tags = new HashMap<>();
    for (int i = r.nextInt(4); i > 0; i--) {
      tags.put(text(r) + i, text(r));
    }
    s.put("tags", tags);
    s.put("o_counts", maybe(r, () -> {
      Map<String, Long> counts = new LinkedHashMap<>();
      for (int i = r.nextInt(4); i > 0; i--) {
        counts.put("k" + r.nextInt(100), r.nextBoolean() ? null : aLong(r));
      }
      return counts;
    }));
    Map<Long, Struct> byId = new HashMap<>();
    for (int i = r.nextInt(3); i > 0; i--) {
      byId.put(aLong(r), line(r));
    }
    s.put("by_id", byId);
    Map<String, Double> byOptKey = new HashMap<>();
    for (int i = r.nextInt(3); i > 0; i--) {
      byOptKey.put(r.nextInt(4) == 0 ? null : text(r), r.nextBoolean() ? null : aDouble(r));
    }
    s.put("by_opt_key", byOptKey);
    s.put("by_day", maybe(r, () -> Map.of(day(r), BigDecimal.valueOf(r.nextInt(), 1))));
    return s;
  }

  private static Struct line(Random r) {
    return new Struct(LINE).put("sku", text(r)).put("qty", anInt(r))
        .put("price", maybe(r, () -> BigDecimal.valueOf(r.nextLong(), 2)));
  }

  private static Struct optionalLine(Random r) {
    return new Struct(OPTIONAL_LINE).put("sku", text(r)).put("qty", anInt(r))
        .put("price", maybe(r, () -> BigDecimal.valueOf(r.nextInt(), 2)));
  }

  private static Struct deep(Random r) {
    List<List<String>> grid = new ArrayList<>();
    for (int i = r.nextInt(3); i > 0; i--) {
      List<String> row = new ArrayList<>();
      for (int j = r.nextInt(3); j > 0; j--) {
        row.add(r.nextBoolean() ? null : text(r));
      }
      grid.add(row);
    }
    return new Struct(DEEP).put("grid", grid)
        .put("index", maybe(r, () -> Map.of("a", List.of(aLong(r)), "b", List.<Long>of())));
  }

  private static <T> T maybe(Random r, Supplier<T> value) {
    return r.nextInt(3) == 0 ? null : value.get();
  }

  private static String text(Random r) {
    return TEXTS[r.nextInt(TEXTS.length)];
  }

  private static Object bytes(Random r) {
    byte[] b = new byte[r.nextInt(40)];
    r.nextBytes(b);
    return switch (r.nextInt(3)) {
      case 0 -> b;
      case 1 -> ByteBuffer.wrap(b).position(b.length / 2); // only what remains is the value
      default -> ByteBuffer.allocateDirect(b.length).put(b).flip();
    };
  }

  private static int anInt(Random r) {
    return switch (r.nextInt(4)) {
      case 0 -> r.nextBoolean() ? Integer.MIN_VALUE : Integer.MAX_VALUE;
      case 1 -> r.nextInt(300) - 150;
      default -> r.nextInt();
    };
  }

  private static long aLong(Random r) {
    return switch (r.nextInt(4)) {
      case 0 -> r.nextBoolean() ? Long.MIN_VALUE : Long.MAX_VALUE;
      case 1 -> r.nextInt(300) - 150;
      default -> r.nextLong();
    };
  }

  private static float aFloat(Random r) {
    float[] odd = {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, -0.0f, Float.MIN_VALUE};
    return r.nextInt(3) == 0 ? odd[r.nextInt(odd.length)] : r.nextFloat() * 1e6f - 5e5f;
  }

  private static double aDouble(Random r) {
    double[] odd = {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -0.0, Double.MAX_VALUE};
    return r.nextInt(3) == 0 ? odd[r.nextInt(odd.length)] : r.nextGaussian() * 1e12;
  }

  private static java.util.Date day(Random r) {
    return new java.util.Date((r.nextInt(40_000) - 20_000) * 86_400_000L);
  }

  private static java.util.Date time(Random r) {
    return new java.util.Date(r.nextInt(86_400_000));
  }
}
