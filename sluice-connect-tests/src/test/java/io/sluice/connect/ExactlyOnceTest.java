package io.sluice.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.connect.testing.ConnectClient;
import io.sluice.connect.testing.Eventually;
import io.sluice.connect.testing.Pipeline;
import io.sluice.connect.testing.TestWorkers;
import io.sluice.kafka.testing.SharedKafka;
import io.sluice.topics.TopicScan;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TransactionListing;
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
import org.junit.jupiter.api.io.TempDir;

/**
 * Exactly once, on by default: a Debezium PostgreSQL source on a Sluice worker writes its change events in producer
 * transactions (its task's transactional id is {@code <group>-<connector>-0}, and each commit leaves a marker in the
 * topic), and the records of an aborted transaction in its topic reach neither the JDBC sink nor Sluice's topic reads,
 * though a consumer reading uncommitted records sees them.
 */
class ExactlyOnceTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SOURCE = "eos-source";
  private static final String SINK = "eos-sink";
  @TempDir static Path dataDir;
  private static String cluster;
  private static ConnectRuntime worker;
  private static ConnectClient rest;
  private static Pipeline pipeline;

  @BeforeAll
  static void start() {
    cluster = SharedKafka.unique("eos");
    worker = TestWorkers.worker(cluster, dataDir).start();
    rest = new ConnectClient(worker.restUrl());
    pipeline = new Pipeline(SharedKafka.unique("eos"));
  }

  @AfterAll
  static void stop() {
    if (worker != null) {
      worker.close();
    }
  }

  @Test
  void aPostgresSourceWritesInTransactionsAndAnAbortedTransactionIsReadByNoSluiceConsumer() throws Exception {
    assertEquals("enabled", worker.workerConfig().get("exactly.once.source.support"));
    assertEquals("read_committed", worker.workerConfig().get("consumer.isolation.level"));

    pipeline.insert(1, 40);
    assertEquals(201, rest.create(SOURCE, pipeline.sourceConfig(pipeline.name + "_slot", Map.of())).status());
    // Sluice asked for exactly once, and Connect accepted it: worker and connector both can.
    JsonNode config = rest.call("GET", "/connectors/" + SOURCE + "/config", null).json();
    assertEquals("required", config.path("exactly.once.support").asText(), config.toString());
    rest.awaitRunning(SOURCE);
    assertEquals(201, rest.create(SINK, pipeline.sinkConfig()).status());
    rest.awaitRunning(SINK);
    assertEquals(40, pipeline.awaitSinkMatchesSource().size());

    // The source task's producer is transactional, under the id Connect gives task 0 of this connector.
    String taskId = cluster + "-" + SOURCE + "-0";
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", SharedKafka.bootstrapServers()))) {
      Set<String> ids = Eventually.await("transactional id " + taskId, Duration.ofSeconds(30), () -> {
        try {
          return admin.listTransactions().all().get(10, TimeUnit.SECONDS).stream()
              .map(TransactionListing::transactionalId).collect(Collectors.toSet());
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }, found -> found.contains(taskId));
      assertTrue(ids.contains(taskId), ids.toString());
    }
    // Each committed transaction ends with a commit marker, which takes an offset but is no record.
    List<ConsumerRecord<byte[], byte[]>> committed = read("read_committed");
    long end = pipeline.endOffset();
    assertTrue(end > committed.size(), "end offset " + end + " for " + committed.size()
        + " records: no transaction markers, the source wrote outside transactions");

    // A transaction that writes a change for id 999 into the source's topic, then aborts.
    ConsumerRecord<byte[], byte[]> model = committed.stream().filter(r -> text(r.key()).contains("\"id\":7}"))
        .findFirst().orElseThrow();
    byte[] key = text(model.key()).replace("\"id\":7", "\"id\":999").getBytes(StandardCharsets.UTF_8);
    byte[] value = text(model.value()).replace("\"id\":7", "\"id\":999").getBytes(StandardCharsets.UTF_8);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
        "bootstrap.servers", SharedKafka.bootstrapServers(), "transactional.id", SharedKafka.unique("aborter")),
        new ByteArraySerializer(), new ByteArraySerializer())) {
      producer.initTransactions();
      producer.beginTransaction();
      producer.send(new ProducerRecord<>(pipeline.topic(), 0, key, value)).get();
      producer.flush();
      producer.abortTransaction();
    }
    pipeline.insert(41, 50);

    // Written to the log: a consumer reading uncommitted records sees it.
    assertTrue(ids(read("read_uncommitted")).contains(999), "the aborted record is not in the log at all");
    // The sink got past it (41..50 came after it) without writing it: it equals the source, which has no 999.
    assertEquals(50, pipeline.awaitSinkMatchesSource().size());
    // Sluice's reader of whole topics skips it too.
    List<ConsumerRecord<byte[], byte[]>> scanned = new ArrayList<>();
    TopicScan.of(SharedKafka.bootstrapServers(), pipeline.topic()).timeout(Duration.ofSeconds(30)).read(scanned::add);
    Set<Integer> seen = ids(scanned);
    assertFalse(seen.contains(999), "TopicScan read the aborted record");
    assertTrue(seen.containsAll(Set.of(1, 40, 41, 50)), seen.toString());
  }

  /** Every record of the source's topic, read to its end by a consumer of {@code isolation} level. */
  private static List<ConsumerRecord<byte[], byte[]>> read(String isolation) {
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
        "bootstrap.servers", SharedKafka.bootstrapServers(), "isolation.level", isolation,
        "enable.auto.commit", "false"), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      TopicPartition tp = new TopicPartition(pipeline.topic(), 0);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      // The end this consumer can reach: the high watermark, or for read_committed the last stable offset.
      long end = consumer.endOffsets(List.of(tp)).get(tp);
      while (consumer.position(tp) < end) {
        consumer.poll(Duration.ofMillis(200)).forEach(out::add);
      }
    }
    return out;
  }

  private static Set<Integer> ids(List<ConsumerRecord<byte[], byte[]>> records) {
    Set<Integer> out = new TreeSet<>();
    for (ConsumerRecord<byte[], byte[]> r : records) {
      if (r.key() != null) {
        try {
          out.add(JSON.readTree(r.key()).path("payload").path("id").asInt());
        } catch (java.io.IOException e) {
          throw new IllegalStateException(e);
        }
      }
    }
    return out;
  }

  private static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
