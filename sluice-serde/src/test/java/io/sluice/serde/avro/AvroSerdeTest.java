package io.sluice.serde.avro;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.kafka.testing.SharedKafka;
import io.sluice.serde.testing.SharedRegistry;
import io.sluice.serde.SerdeConfig;
import io.sluice.registry.client.RegistryApiException;
import io.sluice.registry.client.SchemaRegistryClient;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The Avro serializer and deserializer against Sluice's registry and a real broker. */
class AvroSerdeTest {
  private static final Schema ORDER = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"Order\","
      + "\"namespace\":\"shop\",\"fields\":[{\"name\":\"id\",\"type\":\"int\"},{\"name\":\"item\",\"type\":\"string\"}]}");
  private static SchemaRegistryClient client;

  @BeforeAll
  static void start() {
    client = SharedRegistry.client();
  }


  private static GenericRecord order(int id, String item) {
    GenericRecord r = new GenericData.Record(ORDER);
    r.put("id", id);
    r.put("item", item);
    return r;
  }

  private static Map<String, Object> config(Object... pairs) {
    Map<String, Object> c = new java.util.HashMap<>();
    c.put(SerdeConfig.REGISTRY_URL, SharedRegistry.url());
    for (int i = 0; i < pairs.length; i += 2) {
      c.put((String) pairs[i], pairs[i + 1]);
    }
    return c;
  }

  private static AvroSerializer serializer(boolean isKey, Object... pairs) {
    AvroSerializer s = new AvroSerializer();
    s.configure(config(pairs), isKey);
    return s;
  }

  @Test
  void bytesAreTheWireFormatWithAvrosBinaryEncoding() {
    byte[] bytes = serializer(false).serialize("wire-orders", order(1, "a"));
    int id = client.lookup("wire-orders-value", new SchemaRegistryClient.Schema("AVRO", ORDER.toString(), List.of()))
        .orElseThrow().id();
    // 0, the id big-endian, then id=1 as zig-zag varint (0x02), "a" as length 1 (0x02) and its byte.
    ByteBuffer expected = ByteBuffer.allocate(8).put((byte) 0).putInt(id).put(new byte[] {2, 2, 'a'});
    assertArrayEquals(expected.array(), bytes);
  }

  @Test
  void roundTripThroughABrokerWithEveryPrimitiveToo() {
    String topic = SharedKafka.unique("avro-orders");
    Map<String, Object> producer = config("bootstrap.servers", SharedKafka.bootstrapServers(),
        "key.serializer", AvroSerializer.class.getName(), "value.serializer", AvroSerializer.class.getName());
    try (KafkaProducer<Object, Object> p = new KafkaProducer<>(producer)) {
      p.send(new ProducerRecord<>(topic, 0, "k1", order(7, "kettle"))).get();
      p.send(new ProducerRecord<>(topic, 0, "k2", null)).get();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    Map<String, Object> consumer = config("bootstrap.servers", SharedKafka.bootstrapServers(),
        "key.deserializer", AvroDeserializer.class.getName(), "value.deserializer", AvroDeserializer.class.getName());
    List<ConsumerRecord<Object, Object>> got = new ArrayList<>();
    try (KafkaConsumer<Object, Object> c = new KafkaConsumer<>(consumer)) {
      TopicPartition tp = new TopicPartition(topic, 0);
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (got.size() < 2 && System.nanoTime() < deadline) {
        c.poll(Duration.ofMillis(200)).forEach(got::add);
      }
    }
    assertEquals(2, got.size());
    assertEquals("k1", got.get(0).key());
    assertEquals(order(7, "kettle"), got.get(0).value());
    assertEquals("k2", got.get(1).key());
    assertEquals(null, got.get(1).value(), "a null value stays a tombstone");
    assertEquals(List.of(1), client.versions(topic + "-key"), "the key's schema under <topic>-key");
    assertEquals(List.of(1), client.versions(topic + "-value"));

    AvroDeserializer d = new AvroDeserializer(client);
    AvroSerializer s = serializer(false);
    for (Object v : List.of("text", 1, 2L, 1.5f, 2.5d, true)) {
      assertEquals(v, d.deserialize("prims", s.serialize("prims-" + v.getClass().getSimpleName(), v)));
    }
    assertArrayEquals(new byte[] {1, 2}, (byte[]) d.deserialize("b", s.serialize("prims-bytes", new byte[] {1, 2})));
  }

  @Test
  void subjectNameStrategies() {
    serializer(false, SerdeConfig.VALUE_STRATEGY, "io.confluent.kafka.serializers.subject.RecordNameStrategy")
        .serialize("t1", order(1, "a"));
    assertTrue(client.subjects().contains("shop.Order"));
    serializer(false, SerdeConfig.VALUE_STRATEGY, "TopicRecordNameStrategy").serialize("t2", order(1, "a"));
    assertTrue(client.subjects().contains("t2-shop.Order"));
    serializer(true, SerdeConfig.KEY_STRATEGY, "TopicNameStrategy").serialize("t3", order(1, "a"));
    assertTrue(client.subjects().contains("t3-key"));
    assertThrows(org.apache.kafka.common.config.ConfigException.class,
        () -> serializer(false, SerdeConfig.VALUE_STRATEGY, "NoSuchStrategy"));
    assertThrows(org.apache.kafka.common.config.ConfigException.class, () -> new AvroSerializer().configure(Map.of(),
        false));
  }

  @Test
  void aRegistryOutOfReachIsSaidSoAndAnAnswerThatIsNotJsonIsTheRegistrysError() throws Exception {
    AvroSerializer nowhere = new AvroSerializer();
    nowhere.configure(Map.of(SerdeConfig.REGISTRY_URL, "http://127.0.0.1:1"), false);
    SerializationException down = assertThrows(SerializationException.class,
        () -> nowhere.serialize("orders", order(1, "a")));
    assertTrue(down.getMessage().startsWith("Error reaching the schema registry"), down.getMessage());
    assertTrue(down.getCause() instanceof io.sluice.client.HttpTransport.UnreachableException, down.toString());

    // Reached, but not speaking the protocol: the registry's error, not "out of reach".
    com.sun.net.httpserver.HttpServer html = com.sun.net.httpserver.HttpServer.create(
        new java.net.InetSocketAddress("127.0.0.1", 0), 0);
    html.createContext("/", x -> {
      byte[] body = "<html>a proxy's page</html>".getBytes(java.nio.charset.StandardCharsets.UTF_8);
      x.sendResponseHeaders(200, body.length);
      x.getResponseBody().write(body);
      x.close();
    });
    html.start();
    try {
      AvroSerializer proxied = new AvroSerializer();
      proxied.configure(Map.of(SerdeConfig.REGISTRY_URL, "http://127.0.0.1:" + html.getAddress().getPort()), false);
      SerializationException e = assertThrows(SerializationException.class,
          () -> proxied.serialize("orders", order(1, "a")));
      assertTrue(e.getMessage().startsWith("Error registering Avro schema") && e.getMessage().contains("not JSON"),
          e.getMessage());
      assertTrue(e.getCause() instanceof RegistryApiException, e.toString());
    } finally {
      html.stop(0);
    }
  }

  @Test
  void withoutAutoRegisterOnlyRegisteredSchemasAreWritten() {
    String topic = SharedKafka.unique("fixed");
    AvroSerializer strict = serializer(false, SerdeConfig.AUTO_REGISTER, "false");
    SerializationException e = assertThrows(SerializationException.class, () -> strict.serialize(topic, order(1, "a")));
    assertTrue(e.getMessage().contains("Schema not found"), e.getMessage());
    int id = client.register(topic + "-value", new SchemaRegistryClient.Schema("AVRO", ORDER.toString(), List.of()));
    assertEquals(id, ByteBuffer.wrap(strict.serialize(topic, order(1, "a"))).getInt(1));
  }

  @Test
  void useLatestVersionWritesWithTheSubjectsNewestId() {
    String topic = SharedKafka.unique("latest");
    serializer(false).serialize(topic, order(1, "a"));
    Schema v2 = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"Order\",\"namespace\":\"shop\",\"fields\":["
        + "{\"name\":\"id\",\"type\":\"int\"},{\"name\":\"item\",\"type\":\"string\"},"
        + "{\"name\":\"note\",\"type\":\"string\",\"default\":\"\"}]}");
    int id2 = client.register(topic + "-value", new SchemaRegistryClient.Schema("AVRO", v2.toString(), List.of()));
    GenericRecord r = new GenericData.Record(v2);
    r.put("id", 2);
    r.put("item", "b");
    r.put("note", "n");
    byte[] bytes = serializer(false, SerdeConfig.USE_LATEST_VERSION, "true", SerdeConfig.AUTO_REGISTER, "false")
        .serialize(topic, r);
    assertEquals(id2, ByteBuffer.wrap(bytes).getInt(1));
    assertEquals(r, new AvroDeserializer(client).deserialize(topic, bytes));
  }

  @Test
  void notFramedIsRefused() {
    assertEquals("Unknown magic byte!", assertThrows(SerializationException.class,
        () -> new AvroDeserializer(client).deserialize("t", new byte[] {'{', '}', 0, 0, 0})).getMessage());
  }
}
