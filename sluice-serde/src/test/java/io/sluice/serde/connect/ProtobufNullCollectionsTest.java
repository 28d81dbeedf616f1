package io.sluice.serde.connect;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.UnknownFieldSet;
import io.sluice.kafka.testing.SharedKafka;
import io.sluice.registry.client.SchemaRegistryClient;
import io.sluice.serde.SerdeConfig;
import io.sluice.serde.protobuf.ProtobufDeserializer;
import io.sluice.serde.protobuf.ProtobufSchemas;
import io.sluice.serde.testing.SharedRegistry;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.junit.jupiter.api.Test;

/**
 * A null optional array or map is not an empty one in Protobuf either: Sluice's writer names it in its message's field
 * {@value ConnectProtobuf#NULL_FIELDS} and Sluice's reader gives it back null, on both paths (the compiled plans and
 * {@code DynamicMessage}), at the top, in nested structs, in structs inside arrays and maps, and in Debezium's before
 * and after; a reader that does not know the mark (Confluent's converter, protoc's classes: {@code DynamicMessage}
 * with the registered descriptor) reads the empty list it always read, and the registered schema text is as before.
 */
class ProtobufNullCollectionsTest {
  private static final Schema INNER = SchemaBuilder.struct().name("t.Inner").optional()
      .field("n", Schema.INT32_SCHEMA)
      .field("o_ints", SchemaBuilder.array(Schema.INT32_SCHEMA).optional().build())
      .field("o_names", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.OPTIONAL_STRING_SCHEMA).optional().build())
      .build();

  private static final Schema TOP = SchemaBuilder.struct().name("t.Top")
      .field("id", Schema.INT32_SCHEMA)
      .field("o_ints", SchemaBuilder.array(Schema.INT32_SCHEMA).optional().build())
      .field("o_texts", SchemaBuilder.array(Schema.OPTIONAL_STRING_SCHEMA).optional().build())
      .field("o_inners", SchemaBuilder.array(INNER).optional().build())
      .field("o_counts", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.OPTIONAL_INT64_SCHEMA).optional().build())
      .field("o_by_n", SchemaBuilder.map(Schema.INT32_SCHEMA, INNER).optional().build())
      .field("ints", SchemaBuilder.array(Schema.INT64_SCHEMA).build())
      .field("inner", INNER)
      .build();

  private final ConnectProtobuf data = new ConnectProtobuf();

  /** Each optional array and map of {@link #TOP} and of its inner structs: null, empty or filled, by {@code kind}. */
  private static Struct top(int kind) {
    return new Struct(TOP).put("id", kind)
        .put("o_ints", pick(kind, List.of(), List.of(1, 0, -1)))
        .put("o_texts", pick(kind + 1, List.of(), Arrays.asList("a", null, "")))
        .put("o_inners", pick(kind + 2, List.of(), Arrays.asList(inner(kind), null, inner(kind + 1))))
        .put("o_counts", pick(kind, Map.of(), mapOf("k", 5L, "none", null)))
        .put("o_by_n", pick(kind + 1, Map.of(), mapOf(1, inner(kind + 2), 2, null)))
        .put("ints", kind % 2 == 0 ? List.of() : List.of(7L))
        .put("inner", kind % 4 == 3 ? null : inner(kind + 1));
  }

  /** Every optional array and map null, at the top and in the nested struct. */
  private static Struct allNull() {
    return new Struct(TOP).put("id", 0).put("ints", List.of()).put("inner", new Struct(INNER).put("n", 1));
  }

  private static Struct inner(int kind) {
    return new Struct(INNER).put("n", kind).put("o_ints", pick(kind, List.of(), List.of(3)))
        .put("o_names", pick(kind + 2, Map.of(), mapOf("x", null)));
  }

  private static <T> T pick(int kind, T empty, T filled) {
    return switch (Math.floorMod(kind, 3)) {
      case 0 -> null;
      case 1 -> empty;
      default -> filled;
    };
  }

  private static <K, V> Map<K, V> mapOf(K k1, V v1, K k2, V v2) {
    Map<K, V> m = new LinkedHashMap<>();
    m.put(k1, v1);
    m.put(k2, v2);
    return m;
  }

  private static <K, V> Map<K, V> mapOf(K k1, V v1) {
    Map<K, V> m = new LinkedHashMap<>();
    m.put(k1, v1);
    return m;
  }

  @Test
  void nullEmptyAndFilledArraysAndMapsReadBackAsTheyWereOnBothPaths() throws IOException {
    ConnectProtobuf.Written w = data.written(TOP);
    Descriptor registered = ProtobufSchemas.build("registered.proto", w.text(), Map.of()).getMessageTypes().get(0);
    Schema read = ConnectProtobuf.connectSchema(registered, w.text());
    assertEquals(TOP, read, "the schema reads back whole, optional arrays and maps optional");
    ConnectProtobufWriter writer = ConnectProtobufWriter.of(TOP, w.message());
    ConnectProtobufReader reader = ConnectProtobufReader.of(registered, read);
    for (int kind = 0; kind < 12; kind++) {
      Struct value = top(kind);
      byte[] bytes = data.message(TOP, w.message(), value).toByteArray();
      assertArrayEquals(bytes, writer.write(value, 0), "the plan writes DynamicMessage's bytes, marks and all");
      assertEquals(value, data.connectValue(read, DynamicMessage.parseFrom(registered, bytes)), "DynamicMessage path");
      assertEquals(value, reader.read(CodedInputStream.newInstance(bytes)), "the plan");
    }
    byte[] bytes = writer.write(allNull(), 0);
    Struct back = reader.read(CodedInputStream.newInstance(bytes));
    assertEquals(allNull(), back);
    assertNull(back.get("o_inners"));
    assertNull(back.getStruct("inner").get("o_ints"));
    assertEquals(back, data.connectValue(read, DynamicMessage.parseFrom(registered, bytes)));
  }

  @Test
  void aNullArrayCostsOneMarkAfterTheFieldsAndNothingElse() throws IOException {
    Schema one = SchemaBuilder.struct().name("t.One")
        .field("id", Schema.INT32_SCHEMA)
        .field("xs", SchemaBuilder.array(Schema.INT32_SCHEMA).optional().build())
        .field("m", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.STRING_SCHEMA).optional().build())
        .build();
    Descriptor d = data.written(one).message();
    byte[] nothingNull = ConnectProtobufWriter.of(one, d).write(new Struct(one).put("id", 1).put("xs", List.of())
        .put("m", Map.of()), 0);
    assertArrayEquals(new byte[] {0x08, 0x01}, nothingNull, "empty lists are written as before: not at all");
    byte[] bothNull = ConnectProtobufWriter.of(one, d).write(new Struct(one).put("id", 1), 0);
    // id, then field 536870910 as a varint (tag 0xfffffff0 in five bytes) holding 2, then again holding 3.
    assertArrayEquals(new byte[] {0x08, 0x01, (byte) 0xf0, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f, 0x02,
        (byte) 0xf0, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f, 0x03}, bothNull);
  }

  /**
   * What any other Protobuf reader makes of it: {@code DynamicMessage} with the registered descriptor, as Confluent's
   * converter and deserializer parse, and as protoc's classes do, keeps the mark as an unknown field and reads the
   * arrays and maps empty; Connect data read without the mark (Confluent's converter ignores unknown fields) is the
   * empty lists of before.
   */
  @Test
  void readersThatDoNotKnowTheMarkReadEmptyListsAsBefore() throws IOException {
    ConnectProtobuf.Written w = data.written(TOP);
    Descriptor registered = ProtobufSchemas.build("registered.proto", w.text(), Map.of()).getMessageTypes().get(0);
    byte[] bytes = ConnectProtobufWriter.of(TOP, w.message()).write(allNull(), 0);
    DynamicMessage m = DynamicMessage.parseFrom(registered, bytes);
    for (String name : List.of("o_ints", "o_texts", "o_inners", "o_counts", "o_by_n")) {
      FieldDescriptor f = registered.findFieldByName(name);
      assertEquals(0, m.getRepeatedFieldCount(f), name + " reads empty");
    }
    assertTrue(m.getUnknownFields().hasField(ConnectProtobuf.NULL_FIELDS));
    assertEquals(List.of(2L, 3L, 4L, 5L, 6L),
        m.getUnknownFields().getField(ConnectProtobuf.NULL_FIELDS).getVarintList());
    DynamicMessage inner = (DynamicMessage) m.getField(registered.findFieldByName("inner"));
    assertEquals(0, inner.getRepeatedFieldCount(inner.getDescriptorForType().findFieldByName("o_ints")));
    assertEquals(0, inner.getRepeatedFieldCount(inner.getDescriptorForType().findFieldByName("o_names")));

    // Connect data as a reader ignoring unknown fields makes it: the empty lists a null array always arrived as.
    Schema read = ConnectProtobuf.connectSchema(registered, w.text());
    Struct stripped = (Struct) data.connectValue(read, strip(m));
    assertEquals(List.of(), stripped.get("o_ints"));
    assertEquals(Map.of(), stripped.get("o_counts"));
    assertEquals(List.of(), stripped.getStruct("inner").get("o_ints"));

    // A reader that keeps unknown fields and writes the message again (protoc's classes, DynamicMessage) keeps the
    // mark: Sluice still reads null. One that adds an element meanwhile has an array, and the element wins.
    assertEquals(allNull(), data.connectValue(read, DynamicMessage.parseFrom(registered, m.toByteArray())));
    DynamicMessage grown = m.toBuilder().addRepeatedField(registered.findFieldByName("o_ints"), 9).build();
    Struct back = ConnectProtobufReader.of(registered, read).read(CodedInputStream.newInstance(grown.toByteArray()));
    assertEquals(List.of(9), back.get("o_ints"));
    assertNull(back.get("o_texts"));
    assertEquals(back, data.connectValue(read, DynamicMessage.parseFrom(registered, grown.toByteArray())));
  }

  /** A mark naming what is not a nullable array or map (a scalar, a required array, no field) is ignored both ways. */
  @Test
  void aMarkNamingAnythingElseIsIgnored() throws IOException {
    ConnectProtobuf.Written w = data.written(TOP);
    Descriptor d = w.message();
    Schema read = ConnectProtobuf.connectSchema(d, w.text());
    Struct value = top(1);
    DynamicMessage m = data.message(TOP, d, value);
    UnknownFieldSet.Field.Builder marks = UnknownFieldSet.Field.newBuilder();
    for (long n : new long[] {1, 7, 8, 99, 0, -1}) {
      marks.addVarint(n);
    }
    byte[] bytes = m.toBuilder().setUnknownFields(UnknownFieldSet.newBuilder(m.getUnknownFields())
        .mergeField(ConnectProtobuf.NULL_FIELDS, marks.build()).build()).build().toByteArray();
    assertNull(value.get("o_inners"), "beside the marks to ignore, one that holds");
    assertEquals(value, data.connectValue(read, DynamicMessage.parseFrom(d, bytes)));
    assertEquals(value, ConnectProtobufReader.of(d, read).read(CodedInputStream.newInstance(bytes)));
  }

  @Test
  void theConverterCarriesNullArraysInDebeziumsBeforeAndAfterAndRegistersTheSameText() {
    String topic = SharedKafka.unique("nullarrays");
    Struct withNulls = DebeziumShapes.row(4, 1L).put("tags", null).put("counts", null);
    Struct withEmpties = DebeziumShapes.row(4, 2L).put("tags", List.of()).put("counts", Map.of());
    Struct update = DebeziumShapes.created(4, 1L).put("op", "u").put("before", withNulls).put("after", withEmpties);
    Struct back = roundTrip(topic, update, true);
    assertNull(back.getStruct("before").get("tags"));
    assertNull(back.getStruct("before").get("counts"));
    assertEquals(List.of(), back.getStruct("after").get("tags"));
    assertEquals(Map.of(), back.getStruct("after").get("counts"));
    Struct reverse = DebeziumShapes.created(4, 1L).put("op", "u").put("before", withEmpties).put("after", withNulls);
    roundTrip(topic, reverse, true);
    Struct delete = DebeziumShapes.created(4, 1L).put("op", "d").put("before", withNulls).put("after", null);
    roundTrip(topic, delete, true);
    // Without wrappers (Confluent's setting) too: the mark needs none.
    roundTrip(SharedKafka.unique("nullarrays-bare"), update, false);

    // The registered text has no word of the mark, and records with and without null arrays share one version:
    // subjects registered before stay compatible.
    SchemaRegistryClient.SubjectVersion registered = SharedRegistry.client().latest(topic + "-value").orElseThrow();
    assertEquals(1, registered.version(), "one version for every record");
    assertFalse(data.written(DebeziumShapes.ENVELOPE).text().contains(String.valueOf(ConnectProtobuf.NULL_FIELDS)));
    assertFalse(registered.schema().schema().contains(String.valueOf(ConnectProtobuf.NULL_FIELDS)));
    assertFalse(registered.schema().schema().contains("reserved"));

    // Confluent's kind of deserializer reads the same bytes: empty lists, the mark an unknown field.
    byte[] bytes = converter(true).fromConnectData(topic, DebeziumShapes.ENVELOPE, delete);
    ProtobufDeserializer plain = new ProtobufDeserializer();
    plain.configure(Map.of(SerdeConfig.REGISTRY_URL, SharedRegistry.url()), false);
    DynamicMessage message = plain.deserialize(topic, bytes);
    DynamicMessage before = (DynamicMessage) message.getField(message.getDescriptorForType().findFieldByName("before"));
    Descriptor row = before.getDescriptorForType();
    assertEquals(0, before.getRepeatedFieldCount(row.findFieldByName("tags")));
    assertEquals(0, before.getRepeatedFieldCount(row.findFieldByName("counts")));
    assertEquals(List.of((long) row.findFieldByName("tags").getNumber(), (long) row.findFieldByName("counts")
        .getNumber()), before.getUnknownFields().getField(ConnectProtobuf.NULL_FIELDS).getVarintList());
  }

  private static Struct roundTrip(String topic, Struct value, boolean wrappers) {
    byte[] bytes = converter(wrappers).fromConnectData(topic, DebeziumShapes.ENVELOPE, value);
    Struct back = (Struct) converter(wrappers).toConnectData(topic, bytes).value();
    assertSameValues("", value, back);
    return back;
  }

  /** Field by field by name: the schema read back is the registered one, which is not the very object written. */
  private static void assertSameValues(String path, Object expected, Object actual) {
    if (expected instanceof Struct e && actual instanceof Struct a) {
      for (org.apache.kafka.connect.data.Field f : e.schema().fields()) {
        assertSameValues(path + "." + f.name(), e.getWithoutDefault(f.name()), a.getWithoutDefault(f.name()));
      }
      assertEquals(e.schema().fields().size(), a.schema().fields().size(), path);
    } else {
      assertEquals(expected, actual, path);
    }
  }

  private static ProtobufConverter converter(boolean wrappers) {
    ProtobufConverter c = new ProtobufConverter();
    c.configure(Map.of(SerdeConfig.REGISTRY_URL, SharedRegistry.url(), ProtobufConverter.WRAPPER_FOR_NULLABLES,
        String.valueOf(wrappers)), false);
    return c;
  }

  /** The message without its unknown fields, all the way down, as a reader that drops them holds it. */
  private static DynamicMessage strip(DynamicMessage m) {
    DynamicMessage.Builder b = m.toBuilder().setUnknownFields(UnknownFieldSet.getDefaultInstance());
    for (Map.Entry<FieldDescriptor, Object> e : m.getAllFields().entrySet()) {
      FieldDescriptor f = e.getKey();
      if (f.getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
        continue;
      }
      if (f.isRepeated()) {
        List<Object> items = new ArrayList<>();
        for (Object item : (List<?>) e.getValue()) {
          items.add(strip((DynamicMessage) item));
        }
        b.setField(f, items);
      } else {
        b.setField(f, strip((DynamicMessage) e.getValue()));
      }
    }
    return b.build();
  }
}
