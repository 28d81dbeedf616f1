package io.sluice.topics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.kafka.testing.SharedKafka;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;

class CompactedTopicTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private static Admin admin() {
    return Admin.create(Map.of("bootstrap.servers", SharedKafka.bootstrapServers()));
  }

  @Test
  void createsOneCompactedPartitionAndAcceptsItAgain() throws Exception {
    String topic = SharedKafka.unique("state");
    CompactedTopic.ensure(SharedKafka.bootstrapServers(), topic, "state topic", TIMEOUT);
    // A second node starting finds the topic there: no error, nothing changed.
    CompactedTopic.ensure(SharedKafka.bootstrapServers(), topic, "state topic", TIMEOUT);
    try (Admin admin = admin()) {
      TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
      assertEquals(1, d.partitions().size());
      assertEquals(1, d.partitions().get(0).replicas().size(), "one broker: one replica");
      ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
      assertEquals("compact", admin.describeConfigs(List.of(r)).all().get().get(r).get("cleanup.policy").value());
    }
  }

  @Test
  void aNewTopicTakesTheGivenSettingsAndStaysCompacted() throws Exception {
    String topic = SharedKafka.unique("often");
    CompactedTopic.ensure(KafkaCluster.of(SharedKafka.bootstrapServers()), topic, "state topic", TIMEOUT,
        Map.of("segment.ms", "3600000", "cleanup.policy", "delete"));
    try (Admin admin = admin()) {
      ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
      org.apache.kafka.clients.admin.Config c = admin.describeConfigs(List.of(r)).all().get().get(r);
      assertEquals("3600000", c.get("segment.ms").value());
      assertEquals("compact", c.get("cleanup.policy").value(), "a setting cannot undo compaction");
    }
  }

  @Test
  void refusesATopicWithSeveralPartitions() throws Exception {
    String topic = SharedKafka.unique("spread");
    try (Admin admin = admin()) {
      admin.createTopics(List.of(new NewTopic(topic, 3, (short) 1))).all().get();
    }
    CompactedTopic.TopicException e = assertThrows(CompactedTopic.TopicException.class,
        () -> CompactedTopic.ensure(SharedKafka.bootstrapServers(), topic, "registry topic", TIMEOUT));
    assertTrue(e.getMessage().contains("registry topic " + topic + " has 3 partitions"), e.getMessage());
    assertFalse(e.timedOut());
  }

  @Test
  void anUnreachableClusterTimesOut() {
    CompactedTopic.TopicException e = assertThrows(CompactedTopic.TopicException.class,
        () -> CompactedTopic.ensure("127.0.0.1:1", "nowhere", "secrets topic", Duration.ofMillis(500)));
    assertTrue(e.timedOut(), e.getMessage());
    assertTrue(e.getMessage().contains("secrets topic nowhere"), e.getMessage());
  }
}
