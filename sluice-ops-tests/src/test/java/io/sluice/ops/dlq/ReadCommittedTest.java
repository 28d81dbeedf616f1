package io.sluice.ops.dlq;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.kafka.testing.SharedKafka;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** The DLQ tools read committed records only: an aborted record is never shown, an open transaction never waited for. */
class ReadCommittedTest {
  @Test
  void inspectShowsCommittedRecordsOnly() throws Exception {
    String topic = SharedKafka.unique("dlq-txn");
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", SharedKafka.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
    }
    try (KafkaProducer<String, String> done = producer(); KafkaProducer<String, String> open = producer()) {
      done.beginTransaction();
      done.send(new ProducerRecord<>(topic, "k", "kept")).get();
      done.commitTransaction();
      done.beginTransaction();
      done.send(new ProducerRecord<>(topic, "k", "aborted")).get();
      done.abortTransaction();
      open.beginTransaction();
      open.send(new ProducerRecord<>(topic, "k", "open")).get();
      open.flush();

      DeadLetterQueue dlq = DeadLetterQueue.builder().bootstrapServers(SharedKafka.bootstrapServers()).build();
      List<String> values = dlq.inspect(topic, ReadOptions.all()).records().stream()
          .map(r -> new String(r.value(), StandardCharsets.UTF_8)).toList();
      assertEquals(List.of("kept"), values);
      open.abortTransaction();
    }
  }

  private static KafkaProducer<String, String> producer() {
    KafkaProducer<String, String> p = new KafkaProducer<>(Map.of("bootstrap.servers", SharedKafka.bootstrapServers(),
        "transactional.id", SharedKafka.unique("dlq-txn-producer")), new StringSerializer(), new StringSerializer());
    p.initTransactions();
    return p;
  }
}
