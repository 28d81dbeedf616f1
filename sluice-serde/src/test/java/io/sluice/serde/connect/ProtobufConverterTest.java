package io.sluice.serde.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.DynamicMessage;
import io.sluice.kafka.testing.SharedKafka;
import io.sluice.serde.testing.SharedRegistry;
import io.sluice.serde.SerdeConfig;
import io.sluice.registry.client.SchemaRegistryClient;
import io.sluice.serde.protobuf.ProtobufDeserializer;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The Connect Protobuf converter against Sluice's registry: Debezium's envelope both ways. */
class ProtobufConverterTest {
  private static SchemaRegistryClient client;

  @BeforeAll
  static void start() {
    client = SharedRegistry.client();
  }


  private static ProtobufConverter converter() {
    ProtobufConverter c = new ProtobufConverter();
    c.configure(Map.of(SerdeConfig.REGISTRY_URL, SharedRegistry.url()), false);
    return c;
  }

  /**
   * Columns dropped, added and renamed at the source, as Debezium's envelope carries them: each field keeps its number
   * from version to version and a dropped one's number is reserved, so that the registry's default mode (BACKWARD)
   * takes every version; numbered in order instead, the fields after a dropped column would change kind.
   */
  @Test
  void fieldsKeepTheirNumbersAsColumnsComeAndGo() {
    String topic = SharedKafka.unique("evo.public.t");
    Schema v1 = SchemaBuilder.struct().name("evo.public.t.Value").field("id", Schema.INT32_SCHEMA)
        .field("legacy", Schema.STRING_SCHEMA).field("label", Schema.OPTIONAL_STRING_SCHEMA)
        .field("phase", Schema.INT32_SCHEMA).build();
    converter().fromConnectData(topic, v1, new Struct(v1).put("id", 1).put("legacy", "x").put("label", "a")
        .put("phase", 0));
    Schema v2 = SchemaBuilder.struct().name("evo.public.t.Value").field("id", Schema.INT32_SCHEMA)
        .field("phase", Schema.INT64_SCHEMA).field("title", Schema.OPTIONAL_STRING_SCHEMA).build();
    ProtobufConverter writer = converter();

    byte[] bytes = writer.fromConnectData(topic, v2, new Struct(v2).put("id", 2).put("phase", 5L).put("title", "b"));

    String text = client.latest(topic + "-value").orElseThrow().schema().schema();
    assertTrue(text.contains("int32 id = 1;") && text.contains("int64 phase = 4;")
        && text.contains("optional string title = 5;") && text.contains("reserved 2, 3;"), text);
    Struct back = (Struct) converter().toConnectData(topic, bytes).value();
    assertEquals(List.of("id", "phase", "title"), back.schema().fields().stream().map(Field::name).toList());
    assertEquals(2, back.getInt32("id"));
    assertEquals(5L, back.getInt64("phase"));
    assertEquals("b", back.getString("title"));
  }

  @Test
  void debeziumEnvelopeTravelsAsProtobufWithItsSemanticTypes() {
    String topic = SharedKafka.unique("shop.public.orders");
    byte[] bytes = converter().fromConnectData(topic, DebeziumShapes.ENVELOPE,
        DebeziumShapes.created(7, 1_764_054_000_123_456L));
    assertEquals(0, bytes[0]);
    assertEquals(0, bytes[5], "the top message: index path [0] as one byte");
    SchemaRegistryClient.SubjectVersion registered = client.latest(topic + "-value").orElseThrow();
    assertEquals("PROTOBUF", registered.schema().type());
    String text = registered.schema().schema();
    assertTrue(text.contains("io.debezium.time.MicroTimestamp") && text.contains("confluent/meta.proto"), text);

    SchemaAndValue read = converter().toConnectData(topic, bytes);
    assertEquals("demo-shop.public.orders.Envelope", read.schema().name());
    Struct back = (Struct) read.value();
    assertNull(back.get("before"), "an unset message is null");
    Struct after = back.getStruct("after");
    assertEquals("demo-shop.public.orders.Value", after.schema().name());
    assertEquals(7, after.getInt32("id"));
    assertEquals(1_764_054_000_123_456L, after.getInt64("placed_at"), "microseconds survive");
    assertEquals("io.debezium.time.MicroTimestamp", after.schema().field("placed_at").schema().name());
    assertEquals(Integer.valueOf(1), after.schema().field("placed_at").schema().version());
    assertEquals("io.debezium.data.Json", after.schema().field("attrs").schema().name());
    assertEquals(new BigDecimal("12.34"), after.get("total"));
    assertEquals(Schema.Type.INT16, after.schema().field("priority").schema().type());
    assertEquals((short) 3, after.get("priority"));
    assertEquals(DebeziumShapes.row(7, 1L).get("shipped_on"), after.get("shipped_on"));
    assertEquals(List.of("a", "b"), after.getArray("tags"));
    assertEquals(Map.of(1, 10L, 2, 20L), after.getMap("counts"));
    assertNull(back.getStruct("source").get("lsn"), "an unset optional scalar is null, not 0");
    assertEquals("c", back.getString("op"));

    // Any Confluent-compatible Protobuf reader reads the same bytes.
    ProtobufDeserializer plain = new ProtobufDeserializer();
    plain.configure(Map.of(SerdeConfig.REGISTRY_URL, SharedRegistry.url()), false);
    DynamicMessage message = plain.deserialize(topic, bytes);
    assertEquals("c", message.getField(message.getDescriptorForType().findFieldByName("op")));
  }

  @Test
  void aRecordTheFastReaderLeavesToTheParserReadsAsTheParserReadsIt() {
    String topic = SharedKafka.unique("merged");
    byte[] bytes = converter().fromConnectData(topic, DebeziumShapes.ENVELOPE, DebeziumShapes.created(3, 1L));
    // A second source block (field 3) with only its lsn: a Protobuf parser merges the two messages.
    byte[] merged = java.util.Arrays.copyOf(bytes, bytes.length + 4);
    System.arraycopy(new byte[] {0x1a, 0x02, 0x20, 0x63}, 0, merged, bytes.length, 4);
    Struct source = ((Struct) converter().toConnectData(topic, merged).value()).getStruct("source");
    assertEquals("3.7.0", source.get("version"), "kept from the first block");
    assertEquals(99L, source.get("lsn"), "taken from the second");
    assertEquals(DebeziumShapes.created(3, 1L).getStruct("after").get("total"),
        ((Struct) converter().toConnectData(topic, merged).value()).getStruct("after").get("total"));
  }

  @Test
  void whatProtobufCannotSayIsRefusedAndAnUnreadableRecordIsMarked() {
    String topic = SharedKafka.unique("refused");
    Schema nested = SchemaBuilder.struct().name("t.Nested")
        .field("grid", SchemaBuilder.array(SchemaBuilder.array(Schema.INT32_SCHEMA).build()).build()).build();
    DataException e = assertThrows(DataException.class, () -> converter().fromConnectData(topic, nested,
        new Struct(nested).put("grid", List.of(List.of(1)))));
    assertTrue(e.getMessage().contains("grid"), e.getMessage());
    assertThrows(DataException.class, () -> converter().fromConnectData(topic, Schema.STRING_SCHEMA, "x"));

    byte[] bytes = converter().fromConnectData(topic, DebeziumShapes.ENVELOPE, DebeziumShapes.created(1, 1L));
    byte[] broken = java.util.Arrays.copyOf(bytes, 7);
    broken[6] = 0x0f; // field 1 with wire type 7, which does not exist
    RecordHeaders headers = new RecordHeaders();
    DataException unreadable = assertThrows(DataException.class,
        () -> converter().toConnectData(topic, headers, broken));
    int id = java.nio.ByteBuffer.wrap(bytes, 1, 4).getInt();
    assertTrue(unreadable.getMessage().contains("schema id " + id), unreadable.getMessage());
    assertEquals(String.valueOf(id), new String(headers.lastHeader(AvroConverter.SCHEMA_ID_HEADER).value(),
        StandardCharsets.UTF_8));
  }

  /** A message type that contains itself has no Connect schema: a DataException (the DLQ's), not a stack overflow. */
  @Test
  void aRecursiveMessageTypeIsRefusedAsData() {
    String topic = SharedKafka.unique("recursive");
    String proto = "syntax = \"proto3\";\npackage t;\nmessage Node {\n  string name = 1;\n  repeated Node children = 2;\n}\n";
    int id = client.register(topic + "-value", new SchemaRegistryClient.Schema("PROTOBUF", proto, List.of()));
    // name "a", no children: field 1, length-delimited.
    byte[] record = {0, 0, 0, 0, 0, 0, 0x0a, 0x01, 'a'};
    java.nio.ByteBuffer.wrap(record).putInt(1, id);
    DataException e = assertThrows(DataException.class, () -> converter().toConnectData(topic, record));
    assertTrue(String.valueOf(e.getMessage()).contains("t.Node") || String.valueOf(e.getCause()).contains("t.Node"),
        e.toString());
  }
}
