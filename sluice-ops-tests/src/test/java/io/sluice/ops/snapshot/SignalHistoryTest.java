package io.sluice.ops.snapshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.kafka.testing.CheckedSends;
import io.sluice.kafka.testing.SharedKafka;
import io.sluice.topics.KafkaCluster;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** What {@code sluice snapshot status} reads back from a signal topic, on the shared broker. */
class SignalHistoryTest {
  private static final KafkaCluster CLUSTER = KafkaCluster.of(SharedKafka.bootstrapServers());

  @Test
  void theSourcesJsonSignalsOnPartitionZeroOldestFirst() throws Exception {
    String topic = topic(2);
    try (KafkaProducer<String, String> producer = producer();
        CheckedSends<String, String> sends = CheckedSends.through(producer)) {
      sends.send(new ProducerRecord<>(topic, 0, 1000L, "shop", "{\"id\":\"a\",\"type\":\"execute-snapshot\"}"));
      sends.send(new ProducerRecord<>(topic, 0, 2000L, "other", "{\"id\":\"b\",\"type\":\"execute-snapshot\"}"));
      sends.send(new ProducerRecord<>(topic, 0, 3000L, "shop", "not json"));
      sends.send(new ProducerRecord<>(topic, 0, 4000L, "shop", (String) null));
      sends.send(new ProducerRecord<>(topic, 1, 5000L, "shop", "{\"id\":\"c\",\"type\":\"stop-snapshot\"}"));
      sends.send(new ProducerRecord<>(topic, 0, 6000L, "shop", "{\"id\":\"d\",\"type\":\"pause-snapshot\"}"));
    }
    List<AdHocSnapshot.Signal> signals = AdHocSnapshot.signals(CLUSTER, topic, "shop");
    assertEquals(List.of("a", "d"), signals.stream().map(s -> s.value().path("id").asText()).toList());
    assertEquals(List.of("execute-snapshot", "pause-snapshot"), signals.stream().map(AdHocSnapshot.Signal::type)
        .toList());
    assertEquals(6000L, signals.get(1).at().toEpochMilli());
  }

  @Test
  void onlyTheLastRecordsAreRead() throws Exception {
    String topic = topic(1);
    try (KafkaProducer<String, String> producer = producer();
        CheckedSends<String, String> sends = CheckedSends.through(producer)) {
      for (int i = 0; i < 600; i++) {
        sends.send(new ProducerRecord<>(topic, 0, null, "shop", "{\"id\":\"" + i + "\"}"));
      }
    }
    List<AdHocSnapshot.Signal> signals = AdHocSnapshot.signals(CLUSTER, topic, "shop");
    assertEquals(500, signals.size());
    assertEquals("100", signals.get(0).value().path("id").asText());
    assertEquals("599", signals.get(499).value().path("id").asText());
  }

  @Test
  void anEmptyOrMissingTopicHasNoSignals() throws Exception {
    assertTrue(AdHocSnapshot.signals(CLUSTER, topic(1), "shop").isEmpty());
    // A source no snapshot was asked of yet: its signal topic was never made.
    assertTrue(AdHocSnapshot.signals(CLUSTER, SharedKafka.unique("no-signals"), "shop").isEmpty());
  }

  private static String topic(int partitions) throws Exception {
    String name = SharedKafka.unique("signals");
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", SharedKafka.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get();
    }
    return name;
  }

  private static KafkaProducer<String, String> producer() {
    return new KafkaProducer<>(Map.of("bootstrap.servers", SharedKafka.bootstrapServers()), new StringSerializer(),
        new StringSerializer());
  }
}
