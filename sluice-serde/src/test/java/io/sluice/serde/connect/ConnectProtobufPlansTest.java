package io.sluice.serde.connect;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.DynamicMessage;
import io.sluice.serde.protobuf.ProtobufSchemas;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.junit.jupiter.api.Test;

/**
 * Differential: {@link ConnectProtobufWriter} writes exactly the bytes of the converter's {@code DynamicMessage} path
 * ({@link ConnectProtobuf#message} then {@code writeTo}), and {@link ConnectProtobufReader} reads exactly the Connect
 * data of its reading path ({@code DynamicMessage.parseFrom} then {@link ConnectProtobuf#connectValue}): every
 * Connect type the converter writes, optional or not, at and off their defaults, logical types, nested, repeated,
 * maps, Debezium's envelopes; and, reading, messages of schemas Sluice did not write (enums, oneofs, every integer
 * encoding, proto2 defaults) in every spelling the wire allows.
 */
class ConnectProtobufPlansTest {
  private static final Schema LINE = SchemaBuilder.struct().name("shop.Line").field("sku", Schema.STRING_SCHEMA)
      .field("qty", Schema.INT32_SCHEMA).field("price", Decimal.builder(2).optional().build()).build();
  private static final Schema OPTIONAL_LINE = SchemaBuilder.struct().name("shop.Line").optional()
      .field("sku", Schema.STRING_SCHEMA).field("qty", Schema.INT32_SCHEMA)
      .field("price", Decimal.builder(2).optional().build()).build();
  /** Another struct of the same name: the mapping names its message Line2. */
  private static final Schema OTHER_LINE = SchemaBuilder.struct().name("shop.Line").optional()
      .field("note", Schema.OPTIONAL_STRING_SCHEMA).build();
  private static final Schema EMPTY = SchemaBuilder.struct().name("shop.Empty").optional().build();

  private static final Schema EVERYTHING = SchemaBuilder.struct().name("shop.Everything").version(3)
      .parameter("origin", "test")
      .field("i8", Schema.INT8_SCHEMA).field("i16", Schema.INT16_SCHEMA).field("i32", Schema.INT32_SCHEMA)
      .field("i64", Schema.INT64_SCHEMA).field("f32", Schema.FLOAT32_SCHEMA).field("f64", Schema.FLOAT64_SCHEMA)
      .field("flag", Schema.BOOLEAN_SCHEMA).field("text", Schema.STRING_SCHEMA).field("raw", Schema.BYTES_SCHEMA)
      .field("o_i8", Schema.OPTIONAL_INT8_SCHEMA).field("o_i16", Schema.OPTIONAL_INT16_SCHEMA)
      .field("o_i32", Schema.OPTIONAL_INT32_SCHEMA).field("o_i64", Schema.OPTIONAL_INT64_SCHEMA)
      .field("o_f32", Schema.OPTIONAL_FLOAT32_SCHEMA).field("o_f64", Schema.OPTIONAL_FLOAT64_SCHEMA)
      .field("o_flag", Schema.OPTIONAL_BOOLEAN_SCHEMA).field("o_text", Schema.OPTIONAL_STRING_SCHEMA)
      .field("o_raw", Schema.OPTIONAL_BYTES_SCHEMA)
      .field("d_i32", SchemaBuilder.int32().defaultValue(42).build())
      .field("d_text", SchemaBuilder.string().optional().defaultValue("none").build())
      .field("amount", Decimal.schema(2))
      .field("big", Decimal.builder(0).parameter("connect.decimal.precision", "38").build())
      .field("o_amount", Decimal.builder(4).optional().build())
      .field("day", Date.SCHEMA).field("o_day", Date.builder().optional().build())
      .field("at", Time.SCHEMA).field("o_at", Time.builder().optional().build())
      .field("ts", Timestamp.SCHEMA).field("o_ts", Timestamp.builder().optional().build())
      .field("micros", SchemaBuilder.int64().name("io.debezium.time.MicroTimestamp").version(1).build())
      .field("json", SchemaBuilder.string().name("io.debezium.data.Json").version(1).optional().build())
      .field("line", LINE).field("o_line", OPTIONAL_LINE).field("other", OTHER_LINE).field("empty", EMPTY)
      .field("lines", SchemaBuilder.array(LINE).build())
      .field("o_ints", SchemaBuilder.array(Schema.INT32_SCHEMA).optional().build())
      .field("longs", SchemaBuilder.array(Schema.INT64_SCHEMA).build())
      .field("small", SchemaBuilder.array(Schema.INT16_SCHEMA).build())
      .field("floats", SchemaBuilder.array(Schema.FLOAT32_SCHEMA).build())
      .field("doubles", SchemaBuilder.array(Schema.FLOAT64_SCHEMA).optional().build())
      .field("flags", SchemaBuilder.array(Schema.BOOLEAN_SCHEMA).build())
      .field("words", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
      .field("blobs", SchemaBuilder.array(Schema.BYTES_SCHEMA).build())
      .field("days", SchemaBuilder.array(Date.SCHEMA).build())
      .field("stamps", SchemaBuilder.array(Timestamp.SCHEMA).optional().build())
      .field("prices", SchemaBuilder.array(Decimal.schema(2)).build())
      .field("tags", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.STRING_SCHEMA).build())
      .field("o_counts", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.OPTIONAL_INT64_SCHEMA).optional().build())
      .field("by_id", SchemaBuilder.map(Schema.INT64_SCHEMA, LINE).build())
      .field("by_n", SchemaBuilder.map(Schema.INT32_SCHEMA, OPTIONAL_LINE).optional().build())
      .field("by_flag", SchemaBuilder.map(Schema.BOOLEAN_SCHEMA, Schema.OPTIONAL_FLOAT64_SCHEMA).build())
      .field("by_day", SchemaBuilder.map(Schema.STRING_SCHEMA, Date.SCHEMA).optional().build())
      .field("by_price", SchemaBuilder.map(Schema.STRING_SCHEMA, Decimal.schema(1)).build())
      .build();

  private static final String[] TEXTS = {"", "paid", "leave at the door", "naïve café", "emoji 😀 ok",
      "unpaired \uD800 surrogate", "x".repeat(300), "ünïcödé".repeat(60), "y".repeat(127), "z".repeat(128)};

  private final ConnectProtobuf data = new ConnectProtobuf();

  @Test
  void writesAndReadsWhatDynamicMessageDoesForEveryShape() throws IOException {
    Random random = new Random(33);
    for (int i = 0; i < 2_000; i++) {
      assertSamePaths(EVERYTHING, everything(random, i % 10 == 0));
    }
  }

  @Test
  void writesAndReadsDebeziumEnvelopesAsDynamicMessageDoes() throws IOException {
    assertSamePaths(DebeziumShapes.ENVELOPE, DebeziumShapes.created(7, 1_764_054_000_123_456L));
    Struct update = new Struct(DebeziumShapes.ENVELOPE).put("before", DebeziumShapes.row(8, 0L))
        .put("after", DebeziumShapes.row(8, -1L)).put("op", "u")
        .put("source", new Struct(DebeziumShapes.SOURCE).put("version", "").put("connector", "postgresql")
            .put("ts_ms", 0L).put("lsn", 0L));
    assertSamePaths(DebeziumShapes.ENVELOPE, update);
    Struct delete = new Struct(DebeziumShapes.ENVELOPE).put("before", new Struct(DebeziumShapes.ROW).put("id", 0)
            .put("total", BigDecimal.ZERO.setScale(2)).put("placed_at", 0L))
        .put("op", "d")
        .put("source", new Struct(DebeziumShapes.SOURCE).put("version", "3").put("connector", "pg").put("ts_ms", 1L));
    assertSamePaths(DebeziumShapes.ENVELOPE, delete);
    // A snapshot of a big row: its nested message needs a length of more than two bytes.
    Struct big = DebeziumShapes.row(9, 5L).put("attrs", "{\"k\":\"" + "v".repeat(40_000) + "\"}");
    assertSamePaths(DebeziumShapes.ENVELOPE, DebeziumShapes.created(9, 5L).put("after", big));
  }

  @Test
  void refusesWhatDynamicMessageRefuses() {
    Descriptor d = data.written(LINE).message();
    ConnectProtobufWriter writer = ConnectProtobufWriter.of(LINE, d);
    Struct missing = new Struct(LINE).put("qty", 1);
    assertEquals(assertThrows(RuntimeException.class, () -> data.message(LINE, d, missing)).getMessage(),
        assertThrows(RuntimeException.class, () -> writer.write(missing, 0)).getMessage());
    Struct scale = new Struct(LINE).put("sku", "a").put("qty", 1);
    scale.put("price", new BigDecimal("1.5")); // Struct.put checks the class only, not the scale
    assertEquals(assertThrows(RuntimeException.class, () -> data.message(LINE, d, scale)).getMessage(),
        assertThrows(RuntimeException.class, () -> writer.write(scale, 0)).getMessage());

    Schema list = SchemaBuilder.struct().name("t.List").field("xs", SchemaBuilder.array(Schema.OPTIONAL_INT32_SCHEMA)
        .build()).build();
    // Without wrappers (Confluent's default), a null element has no Protobuf form; with them, both write it alike.
    ConnectProtobuf bare = new ConnectProtobuf(false);
    Descriptor ld = bare.written(list).message();
    Struct withNull = new Struct(list).put("xs", Arrays.asList(1, null));
    assertEquals(assertThrows(RuntimeException.class, () -> bare.message(list, ld, withNull)).getMessage(),
        assertThrows(RuntimeException.class, () -> ConnectProtobufWriter.of(list, ld).write(withNull, 0))
            .getMessage());
    Descriptor wd = data.written(list).message();
    assertArrayEquals(data.message(list, wd, withNull).toByteArray(),
        ConnectProtobufWriter.of(list, wd).write(withNull, 0));

    // A value of the wrong Java type (a sloppy transform): both fail, and the converter reports DynamicMessage's.
    Schema longs = SchemaBuilder.struct().name("t.Longs").field("xs", SchemaBuilder.array(Schema.INT64_SCHEMA)
        .build()).build();
    Descriptor nd = data.written(longs).message();
    Struct ints = new Struct(longs);
    ints.put("xs", new ArrayList<>(List.of(1L)));
    @SuppressWarnings("unchecked")
    List<Object> sloppy = (List<Object>) ints.get("xs");
    sloppy.add(2);
    assertThrows(RuntimeException.class, () -> data.message(longs, nd, ints));
    assertThrows(RuntimeException.class, () -> ConnectProtobufWriter.of(longs, nd).write(ints, 0));
  }

  @Test
  void leavesTheRoomAskedForInFrontOfTheMessage() throws IOException {
    Struct value = everything(new Random(5), false);
    Descriptor d = data.written(EVERYTHING).message();
    byte[] plain = data.message(EVERYTHING, d, value).toByteArray();
    byte[] framed = ConnectProtobufWriter.of(EVERYTHING, d).write(value, 6);
    assertArrayEquals(plain, Arrays.copyOfRange(framed, 6, framed.length));
  }

  // ---- reading what others wrote --------------------------------------------------------------------------------

  private static final String FOREIGN = """
      syntax = "proto3";
      package other;
      message Order {
        enum Status { UNKNOWN = 0; PLACED = 1; PAID = 2; }
        message Item { string sku = 1; sint32 qty = 2; repeated Status history = 3; }
        int32 id = 1;
        sint64 delta = 2;
        fixed32 f32 = 3;
        fixed64 f64 = 4;
        sfixed32 sf32 = 5;
        sfixed64 sf64 = 6;
        uint32 u32 = 7;
        uint64 u64 = 8;
        Status status = 9;
        optional Status o_status = 10;
        repeated Item items = 11;
        map<string, Item> by_sku = 12;
        map<int32, Status> statuses = 13;
        oneof payment { string card = 14; Item voucher = 15; int64 points = 16; }
        repeated sint64 deltas = 17;
        repeated fixed32 fixeds = 18;
        bytes blob = 19;
        optional double o_d = 20;
        float ratio = 21;
        bool done = 22;
        map<uint64, bytes> blobs = 23;
        repeated string notes = 24;
        map<string, int64> counts = 100;
      }
      """;

  private static final String PROTO2 = """
      syntax = "proto2";
      package legacy;
      message Row {
        optional int32 n = 1 [default = 7];
        optional string name = 2 [default = "anon"];
        optional bytes raw = 3;
        repeated int32 packed = 4 [packed = true];
        repeated int32 loose = 5;
        optional Inner child = 6;
        message Inner { optional sint32 z = 1 [default = -3]; repeated string names = 2; }
      }
      message Strict { required int32 id = 1; }
      """;

  @Test
  void readsMessagesOfOtherWritersAsDynamicMessageDoes() throws IOException {
    Descriptor order = ProtobufSchemas.build("foreign.proto", FOREIGN, Map.of()).findMessageTypeByName("Order");
    Schema schema = ConnectProtobuf.connectSchema(order, FOREIGN);
    ConnectProtobufReader reader = ConnectProtobufReader.of(order, schema);
    // Map entries other writers leave short: no value (a message value reads as an empty struct, a scalar as its
    // default), no key, nothing at all; an entry's fields in the other order; a key twice (the last value wins).
    for (String hex : List.of("62030a0161", "6a020801", "6a021002", "620212006a00", "6200", "62050a01611200",
        "6a04100208036a0408031001", "a206050a016b1005a206050a016b1006", "a206020804")) {
      assertSameRead(order, schema, reader, HexFormat.of().parseHex(hex));
    }
    Random random = new Random(7);
    for (int i = 0; i < 1_000; i++) {
      DynamicMessage m = randomMessage(order, random, 0);
      byte[] bytes = m.toByteArray();
      assertSameRead(order, schema, reader, bytes);
      // The same fields in other spellings: unknown fields between, repeated numbers unpacked, and a oneof or
      // scalar set twice (the last wins).
      assertSameRead(order, schema, reader, concat(unknownFields(random), bytes, unknownFields(random)));
      assertSameRead(order, schema, reader, unpacked(m));
      // (Without a second voucher: a message field twice is merged, which the reader leaves to the parser.)
      byte[] second = randomMessage(order, random, 0).toBuilder().clearField(order.findFieldByName("voucher")).build()
          .toByteArray();
      assertSameRead(order, schema, reader, concat(bytes, second));
    }
  }

  @Test
  void readsProto2DefaultsAndLeavesRequiredFieldsToTheParser() throws IOException {
    var file = ProtobufSchemas.build("legacy.proto", PROTO2, Map.of());
    Descriptor row = file.findMessageTypeByName("Row");
    Schema schema = ConnectProtobuf.connectSchema(row, PROTO2);
    ConnectProtobufReader reader = ConnectProtobufReader.of(row, schema);
    Random random = new Random(9);
    for (int i = 0; i < 300; i++) {
      DynamicMessage m = randomMessage(row, random, 0);
      assertSameRead(row, schema, reader, m.toByteArray());
      assertSameRead(row, schema, reader, unpacked(m));
    }
    // proto2 strings are read without the UTF-8 check proto3 makes.
    byte[] badUtf8 = {0x12, 2, (byte) 0xc3, 0x28};
    assertSameRead(row, schema, reader, badUtf8);
    Descriptor strict = file.findMessageTypeByName("Strict");
    assertThrows(IllegalArgumentException.class,
        () -> ConnectProtobufReader.of(strict, ConnectProtobuf.connectSchema(strict, PROTO2)));
  }

  @Test
  void leavesToTheParserWhatItDoesNotCoverAndFailsWhatTheParserFails() throws IOException {
    Descriptor order = ProtobufSchemas.build("foreign.proto", FOREIGN, Map.of()).findMessageTypeByName("Order");
    Schema schema = ConnectProtobuf.connectSchema(order, FOREIGN);
    ConnectProtobufReader reader = ConnectProtobufReader.of(order, schema);
    FieldDescriptor items = order.findFieldByName("voucher");
    Descriptor item = items.getMessageType();
    byte[] one = DynamicMessage.newBuilder(order).setField(items, DynamicMessage.newBuilder(item)
        .setField(item.findFieldByName("sku"), "a").build()).build().toByteArray();
    byte[] two = DynamicMessage.newBuilder(order).setField(items, DynamicMessage.newBuilder(item)
        .setField(item.findFieldByName("qty"), 3).build()).build().toByteArray();
    // A message field twice is merged by the parser: the reader leaves such a record to it.
    assertThrows(ConnectProtobufReader.NotCovered.class,
        () -> reader.read(CodedInputStream.newInstance(concat(one, two))));
    Struct merged = (Struct) data.connectValue(schema, DynamicMessage.parseFrom(order, concat(one, two)));
    assertEquals("a", merged.getStruct("voucher").get("sku"));
    assertEquals(3, merged.getStruct("voucher").get("qty"));
    // An enum number the enum does not declare.
    byte[] unknownEnum = {(byte) 0x48, 9};
    assertThrows(ConnectProtobufReader.NotCovered.class, () -> reader.read(CodedInputStream.newInstance(unknownEnum)));
    // A group.
    byte[] group = {(byte) 0xfb, 0x07, (byte) 0xfc, 0x07};
    assertThrows(ConnectProtobufReader.NotCovered.class, () -> reader.read(CodedInputStream.newInstance(group)));
    // Broken bytes fail both ways.
    for (byte[] broken : List.of(new byte[] {0x0f}, new byte[] {0x08}, new byte[] {0x5a, 0x05, 0x01},
        new byte[] {0x72, 2, (byte) 0xc3, 0x28}, new byte[] {0x00})) {
      assertThrows(IOException.class, () -> DynamicMessage.parseFrom(order, broken));
      assertThrows(IOException.class, () -> reader.read(CodedInputStream.newInstance(broken)));
    }
  }

  // ---- the comparison -------------------------------------------------------------------------------------------

  private void assertSamePaths(Schema schema, Struct value) throws IOException {
    ConnectProtobuf.Written w = data.written(schema);
    byte[] expected = data.message(schema, w.message(), value).toByteArray();
    // Twice: the second write starts from the size hint the first left.
    ConnectProtobufWriter writer = ConnectProtobufWriter.of(schema, w.message());
    assertArrayEquals(expected, writer.write(value, 0), () -> "for " + value);
    assertArrayEquals(expected, writer.write(value, 0), () -> "again for " + value);

    // Read as a consumer does: the descriptor and the Connect schema from the registered text.
    Consumer consumer = consumers.computeIfAbsent(schema, s -> {
      Descriptor registered = ProtobufSchemas.build("registered.proto", w.text(), Map.of()).getMessageTypes().get(0);
      Schema read = ConnectProtobuf.connectSchema(registered, w.text());
      return new Consumer(registered, read, ConnectProtobufReader.of(registered, read));
    });
    assertSameRead(consumer.message(), consumer.schema(), consumer.reader(), expected);
  }

  private record Consumer(Descriptor message, Schema schema, ConnectProtobufReader reader) {}

  private final Map<Schema, Consumer> consumers = new HashMap<>();

  private void assertSameRead(Descriptor d, Schema schema, ConnectProtobufReader reader, byte[] bytes)
      throws IOException {
    Object expected = data.connectValue(schema, DynamicMessage.parseFrom(d, bytes));
    Struct actual = reader.read(CodedInputStream.newInstance(bytes));
    assertEquals(comparable(expected), comparable(actual), () -> "reading " + HexFormat.of().formatHex(bytes));
    assertTrue(actual.schema() == schema, "the struct has the reading schema");
  }

  /** Connect data with its byte arrays as hex and each struct as its schema and values: equals all the way down. */
  private static Object comparable(Object v) {
    if (v instanceof Struct s) {
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("#schema", s.schema());
      for (Field f : s.schema().fields()) {
        out.put(f.name(), comparable(s.get(f)));
      }
      return out;
    }
    if (v instanceof byte[] b) {
      return "bytes:" + HexFormat.of().formatHex(b);
    }
    if (v instanceof List<?> l) {
      List<Object> out = new ArrayList<>();
      l.forEach(x -> out.add(comparable(x)));
      return List.of(l.getClass().getSimpleName(), out);
    }
    if (v instanceof Map<?, ?> m) {
      List<Object> out = new ArrayList<>();
      m.forEach((k, x) -> out.add(List.of(comparable(k), x == null ? "null" : comparable(x))));
      return List.of(m.getClass().getSimpleName(), out);
    }
    return v == null ? "null" : List.of(v.getClass().getSimpleName(), v);
  }

  // ---- Connect values ---------------------------------------------------------------------------------------------

  private static Struct everything(Random r, boolean defaults) {
    Struct s = new Struct(EVERYTHING)
        .put("i8", defaults ? (byte) 0 : (byte) r.nextInt()).put("i16", defaults ? (short) 0 : (short) r.nextInt())
        .put("i32", defaults ? 0 : anInt(r)).put("i64", defaults ? 0L : aLong(r))
        .put("f32", defaults ? 0f : aFloat(r)).put("f64", defaults ? 0d : aDouble(r))
        .put("flag", !defaults && r.nextBoolean()).put("text", defaults ? "" : text(r))
        .put("raw", defaults ? new byte[0] : bytes(r))
        .put("o_i8", maybe(r, () -> (byte) r.nextInt(3))).put("o_i16", maybe(r, () -> (short) r.nextInt(3)))
        .put("o_i32", maybe(r, () -> r.nextInt(3))).put("o_i64", maybe(r, () -> aLong(r)))
        .put("o_f32", maybe(r, () -> aFloat(r))).put("o_f64", maybe(r, () -> aDouble(r)))
        .put("o_flag", maybe(r, r::nextBoolean)).put("o_text", maybe(r, () -> text(r)))
        .put("o_raw", maybe(r, () -> bytes(r)))
        .put("d_text", maybe(r, () -> text(r)))
        .put("amount", defaults ? BigDecimal.ZERO.setScale(2) : BigDecimal.valueOf(aLong(r), 2))
        .put("big", new BigDecimal(new BigInteger(1 + r.nextInt(120), r).multiply(BigInteger.valueOf(r.nextBoolean()
            ? 1 : -1))))
        .put("o_amount", maybe(r, () -> BigDecimal.valueOf(r.nextInt(), 4)))
        .put("day", defaults ? new java.util.Date(0) : day(r)).put("o_day", maybe(r, () -> day(r)))
        .put("at", defaults ? new java.util.Date(0) : time(r)).put("o_at", maybe(r, () -> time(r)))
        .put("ts", defaults ? new java.util.Date(0) : new java.util.Date(aLong(r) / 1_000))
        .put("o_ts", maybe(r, () -> new java.util.Date(r.nextLong())))
        .put("micros", defaults ? 0L : aLong(r)).put("json", maybe(r, () -> "{\"gift\":" + r.nextBoolean() + "}"))
        .put("line", line(r)).put("o_line", maybe(r, () -> optionalLine(r)))
        .put("other", maybe(r, () -> new Struct(OTHER_LINE).put("note", maybe(r, () -> text(r)))))
        .put("empty", maybe(r, () -> new Struct(EMPTY)));
    if (r.nextBoolean()) {
      s.put("d_i32", anInt(r));
    }
    s.put("lines", list(r, () -> line(r)));
    s.put("o_ints", maybe(r, () -> list(r, () -> anInt(r))));
    s.put("longs", list(r, () -> aLong(r)));
    s.put("small", list(r, () -> (short) r.nextInt()));
    s.put("floats", list(r, () -> aFloat(r)));
    s.put("doubles", maybe(r, () -> list(r, () -> aDouble(r))));
    s.put("flags", list(r, r::nextBoolean));
    s.put("words", list(r, () -> text(r)));
    s.put("blobs", list(r, () -> bytes(r)));
    s.put("days", list(r, () -> day(r)));
    s.put("stamps", maybe(r, () -> list(r, () -> new java.util.Date(aLong(r)))));
    s.put("prices", list(r, () -> BigDecimal.valueOf(aLong(r), 2)));
    s.put("tags", map(r, () -> text(r), () -> text(r)));
    s.put("o_counts", maybe(r, () -> map(r, () -> "k" + r.nextInt(100), () -> r.nextBoolean() ? null : aLong(r))));
    s.put("by_id", map(r, () -> aLong(r), () -> line(r)));
    s.put("by_n", maybe(r, () -> map(r, () -> anInt(r), () -> r.nextBoolean() ? null : optionalLine(r))));
    s.put("by_flag", map(r, r::nextBoolean, () -> r.nextBoolean() ? null : aDouble(r)));
    s.put("by_day", maybe(r, () -> map(r, () -> text(r), () -> day(r))));
    s.put("by_price", map(r, () -> text(r), () -> BigDecimal.valueOf(r.nextInt(3), 1)));
    return s;
  }

  private static <T> List<T> list(Random r, Supplier<T> item) {
    List<T> out = new ArrayList<>();
    for (int i = r.nextInt(5); i > 0; i--) {
      out.add(item.get());
    }
    return out;
  }

  private static <K, V> Map<K, V> map(Random r, Supplier<K> key, Supplier<V> value) {
    Map<K, V> out = r.nextBoolean() ? new HashMap<>() : new LinkedHashMap<>();
    for (int i = r.nextInt(4); i > 0; i--) {
      out.put(key.get(), value.get());
    }
    return out;
  }

  private static Struct line(Random r) {
    return new Struct(LINE).put("sku", text(r)).put("qty", anInt(r))
        .put("price", maybe(r, () -> BigDecimal.valueOf(r.nextLong(), 2)));
  }

  private static Struct optionalLine(Random r) {
    return new Struct(OPTIONAL_LINE).put("sku", text(r)).put("qty", anInt(r))
        .put("price", maybe(r, () -> BigDecimal.valueOf(r.nextInt(), 2)));
  }

  private static <T> T maybe(Random r, Supplier<T> value) {
    return r.nextInt(3) == 0 ? null : value.get();
  }

  private static String text(Random r) {
    return TEXTS[r.nextInt(TEXTS.length)];
  }

  private static Object bytes(Random r) {
    byte[] b = new byte[r.nextInt(200)];
    r.nextBytes(b);
    return switch (r.nextInt(3)) {
      case 0 -> b;
      case 1 -> ByteBuffer.wrap(b).position(b.length / 2); // only what remains is the value
      default -> ByteBuffer.allocateDirect(b.length).put(b).flip();
    };
  }

  private static int anInt(Random r) {
    return switch (r.nextInt(5)) {
      case 0 -> r.nextBoolean() ? Integer.MIN_VALUE : Integer.MAX_VALUE;
      case 1 -> r.nextInt(300) - 150;
      case 2 -> 0;
      default -> r.nextInt();
    };
  }

  private static long aLong(Random r) {
    return switch (r.nextInt(5)) {
      case 0 -> r.nextBoolean() ? Long.MIN_VALUE : Long.MAX_VALUE;
      case 1 -> r.nextInt(300) - 150;
      case 2 -> 0;
      default -> r.nextLong();
    };
  }

  private static float aFloat(Random r) {
    float[] odd = {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, -0.0f, 0.0f, Float.MIN_VALUE};
    return r.nextInt(3) == 0 ? odd[r.nextInt(odd.length)] : r.nextFloat() * 1e6f - 5e5f;
  }

  private static double aDouble(Random r) {
    double[] odd = {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -0.0, 0.0, Double.MAX_VALUE};
    return r.nextInt(3) == 0 ? odd[r.nextInt(odd.length)] : r.nextGaussian() * 1e12;
  }

  private static java.util.Date day(Random r) {
    return new java.util.Date((r.nextInt(40_000) - 20_000) * 86_400_000L);
  }

  private static java.util.Date time(Random r) {
    return new java.util.Date(r.nextInt(86_400_000));
  }

  // ---- Protobuf messages ------------------------------------------------------------------------------------------

  /** A message with each field set or not at random, to every depth the descriptor has (cut at three). */
  private static DynamicMessage randomMessage(Descriptor d, Random r, int depth) {
    DynamicMessage.Builder b = DynamicMessage.newBuilder(d);
    for (FieldDescriptor f : d.getFields()) {
      if (r.nextInt(3) == 0 || depth > 2 && f.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
        continue;
      }
      if (f.isRepeated()) {
        for (int i = r.nextInt(4); i > 0; i--) {
          b.addRepeatedField(f, randomValue(f, r, depth));
        }
      } else {
        b.setField(f, randomValue(f, r, depth));
      }
    }
    return b.build();
  }

  private static Object randomValue(FieldDescriptor f, Random r, int depth) {
    if (f.isMapField()) {
      Descriptor entry = f.getMessageType();
      DynamicMessage.Builder e = DynamicMessage.newBuilder(entry);
      for (FieldDescriptor ef : entry.getFields()) {
        if (r.nextInt(4) != 0) {
          e.setField(ef, randomValue(ef, r, depth + 1));
        }
      }
      return e.build();
    }
    return switch (f.getJavaType()) {
      case INT -> anInt(r);
      case LONG -> aLong(r);
      case FLOAT -> aFloat(r);
      case DOUBLE -> aDouble(r);
      case BOOLEAN -> r.nextBoolean();
      case STRING -> text(r);
      case BYTE_STRING -> ByteString.copyFrom((byte[]) (r.nextBoolean() ? new byte[0] : new byte[] {1, 2, 3}));
      case ENUM -> f.getEnumType().getValues().get(r.nextInt(f.getEnumType().getValues().size()));
      case MESSAGE -> randomMessage(f.getMessageType(), r, depth + 1);
    };
  }

  /** The message with its packed fields written unpacked, which a parser must read alike. */
  private static byte[] unpacked(DynamicMessage m) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    CodedOutputStream out = CodedOutputStream.newInstance(bytes);
    DynamicMessage.Builder rest = m.toBuilder();
    for (Map.Entry<FieldDescriptor, Object> e : m.getAllFields().entrySet()) {
      FieldDescriptor f = e.getKey();
      if (f.isPacked()) {
        rest.clearField(f);
        for (Object v : (List<?>) e.getValue()) {
          switch (f.getType()) {
            case SINT64 -> out.writeSInt64(f.getNumber(), (Long) v);
            case FIXED32 -> out.writeFixed32(f.getNumber(), (Integer) v);
            case INT32 -> out.writeInt32(f.getNumber(), (Integer) v);
            case ENUM -> out.writeEnum(f.getNumber(), ((com.google.protobuf.Descriptors.EnumValueDescriptor) v)
                .getNumber());
            default -> fail("no packed " + f.getType() + " in the test's schemas");
          }
        }
      }
    }
    rest.build().writeTo(out);
    out.flush();
    return bytes.toByteArray();
  }

  /** Fields no schema here declares, of every wire type but groups. */
  private static byte[] unknownFields(Random r) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    CodedOutputStream out = CodedOutputStream.newInstance(bytes);
    out.writeInt64(1000 + r.nextInt(100), r.nextLong());
    out.writeFixed32(2000, r.nextInt());
    out.writeFixed64(3000, r.nextLong());
    out.writeString(5000, "unknown");
    out.writeFixed32(1, r.nextInt()); // a known number with another wire type is unknown too
    out.writeString(22, "not a bool");
    out.flush();
    return bytes.toByteArray();
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }
}
