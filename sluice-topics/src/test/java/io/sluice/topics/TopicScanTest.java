package io.sluice.topics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.kafka.testing.SharedKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

class TopicScanTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  @Test
  void readsEveryPartitionToTheEndTakenAtTheStartWithProgress() throws Exception {
    String topic = SharedKafka.unique("scan");
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", SharedKafka.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(topic, 3, (short) 1))).all().get();
    }
    try (KafkaProducer<String, String> p = new KafkaProducer<>(Map.of("bootstrap.servers",
        SharedKafka.bootstrapServers()), new StringSerializer(), new StringSerializer())) {
      for (int i = 0; i < 30; i++) {
        p.send(new ProducerRecord<>(topic, i % 3, "k" + i, "v" + i)).get();
      }
    }
    List<String> seen = new ArrayList<>();
    List<long[]> reports = new ArrayList<>();
    Map<Integer, Long> ends = TopicScan.of(SharedKafka.bootstrapServers(), topic).timeout(TIMEOUT)
        .progress((done, total) -> reports.add(new long[] {done, total}))
        .read(r -> seen.add(new String(r.value(), StandardCharsets.UTF_8)));
    assertEquals(Map.of(0, 10L, 1, 10L, 2, 10L), ends);
    assertEquals(30, seen.size());
    assertEquals(0, reports.get(0)[0]);
    assertEquals(30, reports.get(reports.size() - 1)[0]);
    assertTrue(reports.stream().allMatch(r -> r[1] == 30), "the total is known from the start");

    // From given offsets: only what was written since.
    List<String> since = new ArrayList<>();
    TopicScan.of(SharedKafka.bootstrapServers(), topic).timeout(TIMEOUT).from(Map.of(0, 9L, 1, 10L, 2, 10L))
        .read(r -> since.add(new String(r.value(), StandardCharsets.UTF_8)));
    assertEquals(List.of("v27"), since);
    assertEquals(ends, TopicScan.of(SharedKafka.bootstrapServers(), topic).timeout(TIMEOUT).endOffsets());
  }

  @Test
  void aMissingTopicIsNamed() {
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> TopicScan.of(
        SharedKafka.bootstrapServers(), "no-such-topic-here").timeout(Duration.ofSeconds(2)).read(r -> { }));
    assertTrue(e.getMessage().contains("topic no-such-topic-here does not exist"), e.getMessage());
  }

  @Test
  void readsCommittedRecordsOnlyAndEndsBeforeATransactionStillOpen() throws Exception {
    String topic = SharedKafka.unique("scan-txn");
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", SharedKafka.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
    }
    try (KafkaProducer<String, String> committed = transactional(); KafkaProducer<String, String> aborted =
        transactional(); KafkaProducer<String, String> open = transactional()) {
      committed.beginTransaction();
      committed.send(new ProducerRecord<>(topic, "k", "committed-1")).get();
      committed.commitTransaction();
      aborted.beginTransaction();
      aborted.send(new ProducerRecord<>(topic, "k", "aborted")).get();
      aborted.abortTransaction();
      committed.beginTransaction();
      committed.send(new ProducerRecord<>(topic, "k", "committed-2")).get();
      committed.commitTransaction();
      open.beginTransaction();
      open.send(new ProducerRecord<>(topic, "k", "open")).get();
      open.flush();

      List<String> seen = new ArrayList<>();
      Map<Integer, Long> ends = TopicScan.of(SharedKafka.bootstrapServers(), topic).timeout(TIMEOUT)
          .read(r -> seen.add(new String(r.value(), StandardCharsets.UTF_8)));
      // The aborted record is skipped; the open transaction's is not read, nor waited for: the scan ends at the last
      // stable offset (3 records and 3 markers before it).
      assertEquals(List.of("committed-1", "committed-2"), seen);
      assertEquals(Map.of(0, 6L), ends);
      open.abortTransaction();
    }
  }

  private static KafkaProducer<String, String> transactional() {
    KafkaProducer<String, String> p = new KafkaProducer<>(Map.of("bootstrap.servers", SharedKafka.bootstrapServers(),
        "transactional.id", SharedKafka.unique("scan-txn-producer")), new StringSerializer(), new StringSerializer());
    p.initTransactions();
    return p;
  }
}
