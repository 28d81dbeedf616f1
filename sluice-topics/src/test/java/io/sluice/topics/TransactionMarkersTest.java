package io.sluice.topics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.kafka.testing.SharedKafka;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

class TransactionMarkersTest {
  @Test
  void aLagOfMarkersAndAbortedRecordsOnlyIsNoLagAndOneWithARecordIs() throws Exception {
    String topic = SharedKafka.unique("markers");
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", SharedKafka.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get();
    }
    TopicPartition caughtUp = new TopicPartition(topic, 0);
    TopicPartition behind = new TopicPartition(topic, 1);
    try (KafkaProducer<String, String> p = new KafkaProducer<>(Map.of("bootstrap.servers",
        SharedKafka.bootstrapServers(), "transactional.id", SharedKafka.unique("markers-producer")),
        new StringSerializer(), new StringSerializer())) {
      p.initTransactions();
      p.beginTransaction();
      p.send(new ProducerRecord<>(topic, 0, "k", "read")).get(); // offset 0, its marker at 1
      p.send(new ProducerRecord<>(topic, 1, "k", "read")).get(); // offset 0, its marker at 1
      p.commitTransaction();
      p.beginTransaction();
      p.send(new ProducerRecord<>(topic, 0, "k", "aborted")).get(); // offset 2, its marker at 3
      p.abortTransaction();
      p.beginTransaction();
      p.send(new ProducerRecord<>(topic, 1, "k", "not read yet")).get(); // offset 2, its marker at 3
      p.commitTransaction();
    }
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(KafkaCluster.of(SharedKafka.bootstrapServers())
        .consumerConfig(Map.of()), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      Map<TopicPartition, Long> end = consumer.endOffsets(List.of(caughtUp, behind));
      assertEquals(Map.of(caughtUp, 4L, behind, 4L), end);
      // Both consumers took offset 0 and committed 1.
      Map<TopicPartition, Long> committed = Map.of(caughtUp, 1L, behind, 1L);
      assertEquals(Set.of(caughtUp), TransactionMarkers.only(consumer, committed, end, 100, Duration.ofSeconds(10)));
      assertEquals(Set.of(), TransactionMarkers.only(consumer, committed, end, 2, Duration.ofSeconds(10)),
          "a gap over the limit is not read");
      assertEquals(Set.of(), consumer.assignment());
    }
  }
}
