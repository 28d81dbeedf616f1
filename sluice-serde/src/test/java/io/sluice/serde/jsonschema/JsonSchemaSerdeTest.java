package io.sluice.serde.jsonschema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.kafka.testing.CheckedSends;
import io.sluice.kafka.testing.SharedKafka;
import io.sluice.serde.testing.SharedRegistry;
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
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The JSON Schema serializer and deserializer through a real broker, on Sluice's registry. */
class JsonSchemaSerdeTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ORDER = "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"title\":\"shop.Order\","
      + "\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"},\"item\":{\"type\":\"string\"}},"
      + "\"required\":[\"id\",\"item\"]}";
  private static SchemaRegistryClient client;

  @BeforeAll
  static void start() {
    client = SharedRegistry.client();
  }


  record Order(long id, String item) {}

  @Test
  void envelopesAndPojosTravelThroughABroker() throws Exception {
    String topic = SharedKafka.unique("orders-json");
    JsonSchemaSerializer envelopes = new JsonSchemaSerializer();
    envelopes.configure(Map.of(SerdeConfig.REGISTRY_URL, SharedRegistry.url(), JsonSchemaSerializer.FAIL_INVALID_SCHEMA,
        "true", SerdeConfig.VALUE_STRATEGY, "TopicRecordNameStrategy"), false);
    JsonSchemaSerializer pojos = new JsonSchemaSerializer();
    pojos.configure(Map.of(SerdeConfig.REGISTRY_URL, SharedRegistry.url(), SerdeConfig.USE_LATEST_VERSION, "true",
        SerdeConfig.VALUE_STRATEGY, "TopicRecordNameStrategy"), false);
    byte[] first = envelopes.serialize(topic, JSON.readTree("{\"schema\":" + ORDER
        + ",\"payload\":{\"id\":1,\"item\":\"pen\"}}"));
    assertTrue(client.subjects().contains(topic + "-shop.Order"), "TopicRecordNameStrategy names by title");
    // Without an envelope the subject's latest version is used; there is no title to name a record subject by, so
    // the record strategies are refused with a clear message.
    SerializationException noSubject = assertThrows(SerializationException.class,
        () -> pojos.serialize(topic, new Order(2, "ink")));
    assertTrue(noSubject.getMessage().contains("needs a named record"), noSubject.getMessage());
    // An envelope whose schema is no JSON Schema is refused with the parser's error, not the naming strategy's.
    SerializationException invalid = assertThrows(SerializationException.class, () -> envelopes.serialize(topic,
        JSON.readTree("{\"schema\":{\"title\":\"shop.Order\",\"type\":12},\"payload\":{\"id\":1}}")));
    assertTrue(invalid.getMessage().startsWith("Invalid JSON Schema"), invalid.getMessage());
    SerializationException notAnObject = assertThrows(SerializationException.class, () -> envelopes.serialize(topic,
        JSON.readTree("{\"schema\":\"shop.Order\",\"payload\":{\"id\":1}}")));
    assertTrue(notAnObject.getMessage().startsWith("Invalid JSON Schema"), notAnObject.getMessage());
    JsonSchemaSerializer byTopic = new JsonSchemaSerializer();
    byTopic.configure(Map.of(SerdeConfig.REGISTRY_URL, SharedRegistry.url()), false);
    byte[] registered = byTopic.serialize(topic, JSON.readTree("{\"schema\":" + ORDER
        + ",\"payload\":{\"id\":3,\"item\":\"cup\"}}"));
    JsonSchemaSerializer latest = new JsonSchemaSerializer();
    latest.configure(Map.of(SerdeConfig.REGISTRY_URL, SharedRegistry.url(), SerdeConfig.USE_LATEST_VERSION, "true"), false);
    byte[] pojo = latest.serialize(topic, new Order(4, "mug"));
    assertEquals(java.nio.ByteBuffer.wrap(registered, 1, 4).getInt(), java.nio.ByteBuffer.wrap(pojo, 1, 4).getInt());

    try (KafkaProducer<String, byte[]> p = new KafkaProducer<>(Map.of("bootstrap.servers",
        SharedKafka.bootstrapServers()), new StringSerializer(),
        new org.apache.kafka.common.serialization.ByteArraySerializer());
        CheckedSends<String, byte[]> sends = CheckedSends.through(p)) {
      for (byte[] b : List.of(first, registered, pojo)) {
        sends.send(new ProducerRecord<>(topic, b));
      }
    }
    JsonSchemaDeserializer deserializer = new JsonSchemaDeserializer();
    deserializer.configure(Map.of(SerdeConfig.REGISTRY_URL, SharedRegistry.url(), JsonSchemaSerializer.FAIL_INVALID_SCHEMA,
        "true"), false);
    List<JsonNode> read = new ArrayList<>();
    try (KafkaConsumer<String, JsonNode> c = new KafkaConsumer<>(Map.of("bootstrap.servers",
        SharedKafka.bootstrapServers()), new StringDeserializer(), deserializer)) {
      TopicPartition tp = new TopicPartition(topic, 0);
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (read.size() < 3 && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, JsonNode> r : c.poll(Duration.ofMillis(500))) {
          read.add(r.value());
        }
      }
    }
    assertEquals(List.of(JSON.readTree("{\"id\":1,\"item\":\"pen\"}"), JSON.readTree("{\"id\":3,\"item\":\"cup\"}"),
        JSON.readTree("{\"id\":4,\"item\":\"mug\"}")), read);
  }
}
