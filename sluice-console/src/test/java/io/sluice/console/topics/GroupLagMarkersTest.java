package io.sluice.console.topics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.connect.client.ConnectRestClient;
import io.sluice.kafka.testing.SharedKafka;
import io.sluice.topics.KafkaCluster;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * A group that read everything of a topic written in transactions lags by nothing, not by the last marker; a group that
 * reads uncommitted records is told apart while a transaction is open.
 */
class GroupLagMarkersTest {
  @Test
  void aGroupShortOfTheEndByATransactionMarkerOnlyHasNoLag() throws Exception {
    String topic = SharedKafka.unique("lag-txn");
    String group = SharedKafka.unique("lag-txn-group");
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", SharedKafka.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
    }
    try (KafkaProducer<String, String> p = new KafkaProducer<>(Map.of("bootstrap.servers",
        SharedKafka.bootstrapServers(), "transactional.id", SharedKafka.unique("lag-txn-producer")),
        new StringSerializer(), new StringSerializer())) {
      p.initTransactions();
      p.beginTransaction();
      p.send(new ProducerRecord<>(topic, "k", "v")).get(); // offset 0, its commit marker at 1
      p.commitTransaction();
    }
    KafkaCluster cluster = KafkaCluster.of(SharedKafka.bootstrapServers());
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(cluster.consumerConfig(Map.of("group.id", group,
        "auto.offset.reset", "earliest", "enable.auto.commit", "false")), new ByteArrayDeserializer(),
        new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      int read = 0;
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (read == 0 && System.nanoTime() < deadline) {
        read += consumer.poll(Duration.ofMillis(200)).count();
      }
      assertEquals(1, read);
      // As a sink task commits: the offset after the last record it took.
      consumer.commitSync(Map.of(new org.apache.kafka.common.TopicPartition(topic, 0),
          new org.apache.kafka.clients.consumer.OffsetAndMetadata(1)));
    }
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try (KafkaInventory inventory = new KafkaInventory(cluster, new ConnectRestClient("http://127.0.0.1:9"), pool)) {
      JsonNode row = null;
      for (JsonNode g : inventory.consumerGroups().path("groups")) {
        if (g.path("group").asText().equals(group)) {
          row = g;
        }
      }
      assertEquals(2, row.at("/partitions/0/end").asLong(), row.toString());
      assertEquals(1, row.at("/partitions/0/committed").asLong(), row.toString());
      assertEquals(0, row.at("/partitions/0/lag").asLong(), row.toString());
      assertEquals(0, row.path("lag").asLong(), row.toString());
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aGroupThatTookRecordsOfAnOpenTransactionReadsUncommitted() throws Exception {
    String topic = SharedKafka.unique("uncommitted");
    String dirty = SharedKafka.unique("uncommitted-group");
    String clean = SharedKafka.unique("committed-group");
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", SharedKafka.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
    }
    KafkaCluster cluster = KafkaCluster.of(SharedKafka.bootstrapServers());
    try (KafkaProducer<String, String> p = new KafkaProducer<>(Map.of("bootstrap.servers",
        SharedKafka.bootstrapServers(), "transactional.id", SharedKafka.unique("uncommitted-producer")),
        new StringSerializer(), new StringSerializer())) {
      p.initTransactions();
      p.beginTransaction();
      p.send(new ProducerRecord<>(topic, "k", "committed")).get();   // offset 0, its marker at 1
      p.commitTransaction();
      p.beginTransaction();
      p.send(new ProducerRecord<>(topic, "k", "open")).get();        // offset 2, left open
      p.flush();
      commitWhatItReads(cluster, topic, dirty, "read_uncommitted", 2);
      commitWhatItReads(cluster, topic, clean, "read_committed", 1);
      ExecutorService pool = Executors.newFixedThreadPool(2);
      try (KafkaInventory inventory = new KafkaInventory(cluster, new ConnectRestClient("http://127.0.0.1:9"), pool)) {
        Map<String, JsonNode> rows = new java.util.HashMap<>();
        inventory.consumerGroups().path("groups").forEach(g -> rows.put(g.path("group").asText(), g));
        assertEquals(true, rows.get(dirty).path("readsUncommitted").asBoolean(), rows.get(dirty).toString());
        assertEquals(true, rows.get(dirty).at("/partitions/0/uncommitted").asBoolean(), rows.get(dirty).toString());
        assertEquals(false, rows.get(clean).path("readsUncommitted").asBoolean(), rows.get(clean).toString());
        assertEquals(true, rows.get(clean).at("/partitions/0/uncommitted").isMissingNode(), rows.get(clean).toString());
      } finally {
        pool.shutdownNow();
      }
      p.abortTransaction();
    }
  }

  /** A consumer of {@code isolation} in {@code group} reads {@code expected} records and commits after the last. */
  private static void commitWhatItReads(KafkaCluster cluster, String topic, String group, String isolation,
      int expected) {
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(cluster.consumerConfig(Map.of("group.id", group,
        "auto.offset.reset", "earliest", "enable.auto.commit", "false", "isolation.level", isolation)),
        new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      int read = 0;
      long last = -1;
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (read < expected && System.nanoTime() < deadline) {
        for (var r : consumer.poll(Duration.ofMillis(200))) {
          read++;
          last = r.offset();
        }
      }
      assertEquals(expected, read, isolation);
      consumer.commitSync(Map.of(new org.apache.kafka.common.TopicPartition(topic, 0),
          new org.apache.kafka.clients.consumer.OffsetAndMetadata(last + 1)));
    }
  }
}
