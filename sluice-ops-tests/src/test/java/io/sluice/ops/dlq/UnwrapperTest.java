package io.sluice.ops.dlq;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.kafka.testing.CheckedSends;
import io.sluice.kafka.testing.SharedKafka;
import io.sluice.ops.progress.Progress;
import io.sluice.registry.SchemaRegistry;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Dead-letter records some other producer wrote (JSON wrappers, registry-framed Avro, plain bytes), unwrapped and
 * replayed; the registry is Sluice's own on the shared broker, asked over loopback HTTP.
 */
class UnwrapperTest {
  private static final String AVRO = "{\"type\":\"record\",\"name\":\"Order\",\"fields\":[{\"name\":\"id\",\"type\":\"int\"},"
      + "{\"name\":\"item\",\"type\":[\"null\",\"string\"],\"default\":null}]}";
  private static SchemaRegistry registry;
  private static DeadLetterQueue dlq;
  private static int schemaId;

  @BeforeAll
  static void start() throws Exception {
    registry = SchemaRegistry.builder().bootstrapServers(SharedKafka.bootstrapServers())
        .topic(SharedKafka.unique("_schemas")).port(0).start();
    String body = new ObjectMapper().writeValueAsString(Map.of("schema", AVRO));
    HttpResponse<String> created = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            URI.create(registry.url() + "/subjects/orders-value/versions"))
        .header("Content-Type", "application/vnd.schemaregistry.v1+json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, created.statusCode(), created.body());
    schemaId = new ObjectMapper().readTree(created.body()).path("id").asInt();
    dlq = DeadLetterQueue.builder().bootstrapServers(SharedKafka.bootstrapServers()).registryUrl(registry.url())
        .build();
  }

  @AfterAll
  static void stop() {
    if (registry != null) {
      registry.close();
    }
  }

  static byte[] framedAvro(int id, int orderId, String item) throws Exception {
    Schema schema = new Schema.Parser().parse(AVRO);
    GenericRecord record = new GenericData.Record(schema);
    record.put("id", orderId);
    record.put("item", item);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(0);
    out.write(ByteBuffer.allocate(4).putInt(id).array());
    BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
    new GenericDatumWriter<GenericRecord>(schema).write(record, encoder);
    encoder.flush();
    return out.toByteArray();
  }

  private static String topicWith(List<ProducerRecord<byte[], byte[]>> records) {
    String topic = SharedKafka.unique("foreign-dlq");
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(
        Map.of("bootstrap.servers", SharedKafka.bootstrapServers()), new ByteArraySerializer(),
        new ByteArraySerializer());
        CheckedSends<byte[], byte[]> sends = CheckedSends.through(producer)) {
      for (ProducerRecord<byte[], byte[]> r : records) {
        sends.send(new ProducerRecord<>(topic, 0, r.key(), r.value(), r.headers()));
      }
    }
    return topic;
  }

  private static ProducerRecord<byte[], byte[]> record(String value) {
    return record(value.getBytes(StandardCharsets.UTF_8));
  }

  private static ProducerRecord<byte[], byte[]> record(byte[] value) {
    return new ProducerRecord<>("ignored", null, value);
  }

  @Test
  void theOriginalComesFromTheFirstJsonPathPresentThenFromTheRegistry() throws Exception {
    byte[] avro = framedAvro(schemaId, 7, "book");
    byte[] binary = {(byte) 0xff, (byte) 0xfe, 1, 2};
    String topic = topicWith(List.of(
        record("{\"value\":2,\"original\":{\"value\":{\"a\":1}}}"),
        record("{\"record\":{\"value\":\"plain text\"},\"value\":3}"),
        record("{\"value\":{\"b\":2}}"),
        record("{\"payload\":{\"original\":{\"value\":{\"c\":3}},\"record\":{\"value\":0}}}"),
        record("{\"payload\":{\"record\":{\"value\":{\"d\":4}}}}"),
        record("{\"other\":1}"),
        record(binary),
        record(avro),
        record(framedAvro(999_999, 1, null)),
        record(("{\"schema\":" + AVRO + "}").getBytes(StandardCharsets.UTF_8))));
    List<Unwrapped> all = dlq.unwrap(topic, ReadOptions.all());
    assertEquals(10, all.size());
    assertEquals(".original.value", all.get(0).path());
    assertEquals("{\"a\":1}", all.get(0).text());
    assertEquals(".record.value", all.get(1).path());
    assertEquals("plain text", all.get(1).text());
    assertEquals("text", all.get(1).encoding());
    assertEquals(".value", all.get(2).path());
    assertEquals("{\"b\":2}", all.get(2).text());
    assertEquals(".payload.original.value", all.get(3).path());
    assertEquals("{\"c\":3}", all.get(3).text());
    assertEquals(".payload.record.value", all.get(4).path());
    assertEquals("{\"d\":4}", all.get(4).text());
    assertEquals("raw", all.get(5).source());
    assertEquals("{\"other\":1}", all.get(5).text());
    assertEquals("base64", all.get(6).encoding());
    assertArrayEquals(binary, all.get(6).bytes());

    Unwrapped decoded = all.get(7);
    assertEquals("registry", decoded.source());
    assertEquals(schemaId, decoded.schemaId());
    assertEquals("AVRO", decoded.schemaType());
    assertEquals(Map.of("id", 7, "item", "book"), new ObjectMapper().readValue(decoded.text(), Map.class));
    assertArrayEquals(avro, decoded.bytes(), "replay keeps the framing the consumer's converter needs");
    assertNull(decoded.note());

    Unwrapped unknown = all.get(8);
    assertEquals(999_999, unknown.schemaId());
    assertEquals("base64", unknown.encoding());
    assertTrue(unknown.note().contains("not found"), unknown.note());

    assertEquals(schemaId, dlq.inspect(topic, ReadOptions.all()).records().get(7).valueSchemaId());
  }

  @Test
  void registryFramedJsonSchemaPayloadsAreShownAsTheirJsonText() throws Exception {
    String jsonSchema = "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"}}}";
    String body = new ObjectMapper().writeValueAsString(Map.of("schemaType", "JSON", "schema", jsonSchema));
    HttpResponse<String> created = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            URI.create(registry.url() + "/subjects/orders-json-value/versions"))
        .header("Content-Type", "application/vnd.schemaregistry.v1+json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, created.statusCode(), created.body());
    int jsonId = new ObjectMapper().readTree(created.body()).path("id").asInt();
    ByteArrayOutputStream framed = new ByteArrayOutputStream();
    framed.write(0);
    framed.write(ByteBuffer.allocate(4).putInt(jsonId).array());
    framed.write("{\"id\":42}".getBytes(StandardCharsets.UTF_8));

    Unwrapped u = dlq.unwrap(topicWith(List.of(record(framed.toByteArray()))), ReadOptions.all()).get(0);
    assertEquals("registry", u.source());
    assertEquals(jsonId, u.schemaId());
    assertEquals("JSON", u.schemaType());
    assertEquals("{\"id\":42}", u.text());
    assertEquals("json", u.encoding());
    assertArrayEquals(framed.toByteArray(), u.bytes(), "replay keeps the framing");
  }

  @Test
  void replayToATopicProducesTheUnwrappedOriginalAndCountsTheUnroutable() throws Exception {
    String topic = topicWith(List.of(record("{\"original\":{\"value\":{\"id\":1}}}"), record("plain")));
    ReplayResult toOriginal = dlq.replay(ReplayRequest.of(topic), Progress.NONE);
    assertEquals(2, toOriginal.unroutable(), "no error headers: no original topic to go back to");
    assertEquals(0, toOriginal.replayed());

    String target = SharedKafka.unique("replayed");
    IllegalArgumentException missing = assertThrows(IllegalArgumentException.class, () -> dlq.replay(
        ReplayRequest.of(topic).withTarget(new ReplayTarget.Topic(target)), Progress.NONE));
    assertTrue(missing.getMessage().contains("does not exist"), missing.getMessage());
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", SharedKafka.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(target, 1, (short) 1))).all().get();
    }
    ReplayResult result = dlq.replay(ReplayRequest.of(topic).withTarget(new ReplayTarget.Topic(target))
        .withGroup(SharedKafka.unique("to-topic")), Progress.NONE);
    assertEquals(2, result.replayed());
    assertEquals(Map.of(target, 2L), result.perTarget());
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(
        Map.of("bootstrap.servers", SharedKafka.bootstrapServers()), new ByteArrayDeserializer(),
        new ByteArrayDeserializer())) {
      TopicPartition tp = new TopicPartition(target, 0);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      while (values.size() < 2) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          values.add(new String(r.value(), StandardCharsets.UTF_8));
          ReplayMark mark = ReplayMark.from(r.headers());
          assertEquals(topic, mark.topic());
          assertEquals(r.offset(), mark.offset());
        }
      }
    }
    assertEquals(List.of("{\"id\":1}", "plain"), values);
  }
}
