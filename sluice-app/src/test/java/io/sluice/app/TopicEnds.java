package io.sluice.app;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * How many records a topic holds, read by one consumer kept open for a test class: a wait on a topic's records asks
 * the broker for two offsets a probe, where a consumer made per probe (or a CLI command, a JVM of its own) costs a
 * connection and its metadata each time. Not thread-safe, as its consumer.
 */
final class TopicEnds implements AutoCloseable {
  private final KafkaConsumer<byte[], byte[]> consumer;

  TopicEnds(String bootstrap) {
    consumer = new KafkaConsumer<>(Map.of("bootstrap.servers", bootstrap, "client.id", "test-topic-ends",
        // A wait on a topic not yet there must not create it, with the broker's defaults.
        "allow.auto.create.topics", "false"),
        new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  /** End minus beginning offset over the topic's partitions (transaction markers included); 0 while it is missing. */
  long records(String topic) {
    try {
      List<PartitionInfo> parts = consumer.partitionsFor(topic, Duration.ofSeconds(10));
      if (parts == null || parts.isEmpty()) {
        return 0;
      }
      List<TopicPartition> tps = parts.stream().map(p -> new TopicPartition(topic, p.partition())).toList();
      Map<TopicPartition, Long> begin = consumer.beginningOffsets(tps, Duration.ofSeconds(10));
      return consumer.endOffsets(tps, Duration.ofSeconds(10)).entrySet().stream()
          .mapToLong(e -> e.getValue() - begin.get(e.getKey())).sum();
    } catch (KafkaException e) {
      return 0;
    }
  }

  @Override
  public void close() {
    consumer.close(Duration.ofSeconds(5));
  }
}
