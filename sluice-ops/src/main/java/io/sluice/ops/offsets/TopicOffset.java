package io.sluice.ops.offsets;

import org.apache.kafka.common.TopicPartition;

/** One place in a Kafka topic: a record's address, or a consumer group's position on a partition. */
public record TopicOffset(String topic, int partition, long offset) {
  public TopicOffset {
    if (topic == null || topic.isBlank()) {
      throw new IllegalArgumentException("a topic is needed");
    }
    if (partition < 0) {
      throw new IllegalArgumentException("a partition is not negative: " + partition);
    }
    if (offset < 0) {
      throw new IllegalArgumentException("an offset is not negative: " + offset);
    }
  }

  public TopicPartition topicPartition() {
    return new TopicPartition(topic, partition);
  }

  @Override
  public String toString() {
    return topic + " partition " + partition + " offset " + offset;
  }
}
