package io.sluice.serde.protobuf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Timestamp;
import io.sluice.kafka.testing.CheckedSends;
import io.sluice.kafka.testing.SharedKafka;
import io.sluice.serde.testing.SharedRegistry;
import io.sluice.schema.protobuf.ProtoDescriptors;
import io.sluice.serde.SerdeConfig;
import io.sluice.registry.client.SchemaRegistryClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The Protobuf serializer and deserializer on Sluice's registry and a real broker. */
class ProtobufSerdeTest {
  private static final String COMMON = """
      syntax = "proto3";
      package shop.common;
      message Money {
        string currency = 1;
        int64 cents = 2;
      }
      """;
  private static final String ORDERS = """
      syntax = "proto3";
      package shop;
      import "google/protobuf/timestamp.proto";
      import "shop/common.proto";
      message Order {
        int64 id = 1;
        string item = 2;
        optional string note = 3;
        map<string, int32> counts = 4;
        repeated Line lines = 5;
        Status status = 6;
        google.protobuf.Timestamp placed_at = 7;
        shop.common.Money total = 8;
        oneof payment {
          string card = 9;
          string voucher = 10;
        }
        message Line {
          string sku = 1;
          int32 qty = 2;
        }
        enum Status {
          PLACED = 0;
          PAID = 1;
        }
      }
      message Refund {
        int64 order_id = 1;
      }
      """;
  private static SchemaRegistryClient client;
  private static FileDescriptor file;

  @BeforeAll
  static void start() {
    client = SharedRegistry.client();
    file = ProtoDescriptors.build("shop/orders.proto", ORDERS, path -> {
      assertEquals("shop/common.proto", path);
      return COMMON;
    });
  }


  private static Map<String, Object> config() {
    return Map.of(SerdeConfig.REGISTRY_URL, SharedRegistry.url());
  }

  private static DynamicMessage order(long id) {
    Descriptor order = file.findMessageTypeByName("Order");
    Descriptor line = order.findNestedTypeByName("Line");
    Descriptor money = file.getDependencies().get(1).findMessageTypeByName("Money");
    DynamicMessage.Builder b = DynamicMessage.newBuilder(order)
        .setField(order.findFieldByName("id"), id)
        .setField(order.findFieldByName("item"), "tea")
        .setField(order.findFieldByName("note"), "green")
        .addRepeatedField(order.findFieldByName("lines"), DynamicMessage.newBuilder(line)
            .setField(line.findFieldByName("sku"), "T-1").setField(line.findFieldByName("qty"), 3).build())
        .setField(order.findFieldByName("status"), order.findEnumTypeByName("Status").findValueByName("PAID"))
        .setField(order.findFieldByName("placed_at"), Timestamp.newBuilder().setSeconds(1_764_054_000L)
            .setNanos(123_456_000).build())
        .setField(order.findFieldByName("total"), DynamicMessage.newBuilder(money)
            .setField(money.findFieldByName("currency"), "EUR").setField(money.findFieldByName("cents"), 1234L).build())
        .setField(order.findFieldByName("voucher"), "V-9");
    Descriptor entry = order.findFieldByName("counts").getMessageType();
    b.addRepeatedField(order.findFieldByName("counts"), DynamicMessage.newBuilder(entry)
        .setField(entry.findFieldByName("key"), "cups").setField(entry.findFieldByName("value"), 2).build());
    return b.build();
  }

  @Test
  void messagesTravelThroughABrokerWithTheirSchemaAndReferencesRegistered() {
    String topic = SharedKafka.unique("orders-proto");
    ProtobufSerializer serializer = new ProtobufSerializer();
    serializer.configure(config(), false);
    ProtobufDeserializer deserializer = new ProtobufDeserializer();
    deserializer.configure(config(), false);
    DynamicMessage order = order(42);
    byte[] bytes = serializer.serialize(topic, order);
    assertEquals(0, bytes[0], "magic byte");
    assertEquals(0, bytes[5], "the first top-level message is the single byte 0");
    SchemaRegistryClient.SubjectVersion registered = client.latest(topic + "-value").orElseThrow();
    assertEquals("PROTOBUF", registered.schema().type());
    assertEquals(List.of(new SchemaRegistryClient.Reference("shop/common.proto", "shop/common.proto", 1)),
        registered.schema().references());
    assertTrue(client.subjects().contains("shop/common.proto"));

    try (KafkaProducer<String, byte[]> p = new KafkaProducer<>(Map.of("bootstrap.servers",
        SharedKafka.bootstrapServers()), new StringSerializer(), new org.apache.kafka.common.serialization
        .ByteArraySerializer());
        CheckedSends<String, byte[]> sends = CheckedSends.through(p)) {
      sends.send(new ProducerRecord<>(topic, "42", bytes));
      sends.send(new ProducerRecord<>(topic, "43", serializer.serialize(topic, order(43))));
    }
    List<DynamicMessage> read = new ArrayList<>();
    try (KafkaConsumer<String, DynamicMessage> c = new KafkaConsumer<>(Map.of("bootstrap.servers",
        SharedKafka.bootstrapServers()), new StringDeserializer(), deserializer)) {
      TopicPartition tp = new TopicPartition(topic, 0);
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (read.size() < 2 && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, DynamicMessage> r : c.poll(Duration.ofMillis(500))) {
          read.add(r.value());
        }
      }
    }
    assertEquals(2, read.size());
    DynamicMessage back = read.get(0);
    // Compared as bytes: the reader's descriptors are its own, linked from the registry's text.
    assertEquals(order.toByteString(), back.toByteString());
    assertEquals("V-9", back.getField(back.getDescriptorForType().findFieldByName("voucher")));
    assertEquals("shop.Order", back.getDescriptorForType().getFullName());
    assertEquals(43L, read.get(1).getField(read.get(1).getDescriptorForType().findFieldByName("id")));
  }

  @Test
  void aNestedOrSecondMessageIsFoundByItsIndexes() {
    String topic = SharedKafka.unique("refunds-proto");
    Descriptor refund = file.findMessageTypeByName("Refund");
    Descriptor line = file.findMessageTypeByName("Order").findNestedTypeByName("Line");
    assertEquals(List.of(1), ProtobufSchemas.indexes(refund));
    assertEquals(List.of(0, 0), ProtobufSchemas.indexes(line));
    ProtobufSerializer serializer = new ProtobufSerializer();
    serializer.configure(Map.of(SerdeConfig.REGISTRY_URL, SharedRegistry.url(), SerdeConfig.VALUE_STRATEGY,
        "io.confluent.kafka.serializers.subject.RecordNameStrategy"), false);
    ProtobufDeserializer deserializer = new ProtobufDeserializer();
    deserializer.configure(config(), false);
    byte[] bytes = serializer.serialize(topic, DynamicMessage.newBuilder(line)
        .setField(line.findFieldByName("sku"), "S-1").setField(line.findFieldByName("qty"), 9).build());
    assertTrue(client.subjects().contains("shop.Order.Line"), "RecordNameStrategy: the message's full name");
    assertEquals(4, bytes[5], "indexes [0, 0]: a count of 2 and two zeros, zig-zag");
    DynamicMessage back = deserializer.deserialize(topic, bytes);
    assertEquals("shop.Order.Line", back.getDescriptorForType().getFullName());
    assertEquals(9, back.getField(back.getDescriptorForType().findFieldByName("qty")));
  }

  @Test
  void aWriterThatMayNotRegisterLooksItsImportsUpAndRegistersNothing() {
    String topic = SharedKafka.unique("fixed-proto");
    String common = "shop/" + topic + ".proto";
    FileDescriptor fixed = ProtoDescriptors.build("shop/" + topic + "-orders.proto", """
        syntax = "proto3";
        package fixed;
        import "%s";
        message Order {
          int64 id = 1;
          shop.common.Money total = 2;
        }
        """.formatted(common), path -> COMMON);
    Descriptor order = fixed.findMessageTypeByName("Order");
    DynamicMessage message = DynamicMessage.newBuilder(order).setField(order.findFieldByName("id"), 7L).build();
    ProtobufSerializer serializer = new ProtobufSerializer();
    serializer.configure(Map.of(SerdeConfig.REGISTRY_URL, SharedRegistry.url(), SerdeConfig.AUTO_REGISTER, "false"),
        false);

    org.apache.kafka.common.errors.SerializationException missing = org.junit.jupiter.api.Assertions.assertThrows(
        org.apache.kafka.common.errors.SerializationException.class, () -> serializer.serialize(topic, message));
    assertTrue(missing.getMessage().contains("subject " + common) && missing.getMessage().contains("imported by"),
        missing.getMessage());
    assertTrue(!client.subjects().contains(common) && !client.subjects().contains(topic + "-value"),
        "nothing registered: " + client.subjects());

    // Registered by their owner, as a writer that may not register expects: the writer finds both.
    SchemaRegistryClient.Schema commonSchema = new SchemaRegistryClient.Schema("PROTOBUF",
        ProtoDescriptors.text(fixed.getDependencies().get(0)), List.of());
    client.register(common, commonSchema);
    int id = client.register(topic + "-value", new SchemaRegistryClient.Schema("PROTOBUF",
        ProtoDescriptors.text(fixed), List.of(new SchemaRegistryClient.Reference(common, common, 1))));
    byte[] bytes = serializer.serialize(topic, message);
    assertEquals(id, java.nio.ByteBuffer.wrap(bytes, 1, 4).getInt());
    assertEquals(List.of(1), client.versions(common));
  }
}
