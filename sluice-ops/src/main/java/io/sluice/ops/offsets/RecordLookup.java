package io.sluice.ops.offsets;

import io.sluice.topics.KafkaCluster;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads the one record an operator names, as its bytes and headers, with the partition's log start and end around it.
 * A record that is not there (no such topic or partition, an offset outside the log, or one compaction removed or a
 * transaction marker holds) refuses the operation with what the partition does hold.
 */
final class RecordLookup {
  /** The record, and the partition's first offset and the offset after its last, read at the same time. */
  record Found(ConsumerRecord<byte[], byte[]> record, long logStart, long logEnd) {}

  private final KafkaCluster cluster;
  private final Duration timeout;

  RecordLookup(KafkaCluster cluster, Duration timeout) {
    this.cluster = cluster;
    this.timeout = timeout;
  }

  Found find(TopicOffset at) {
    TopicPartition tp = at.topicPartition();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(cluster.consumerConfig(Map.of(
        "enable.auto.commit", "false", "allow.auto.create.topics", "false", "client.id", "sluice-offsets-lookup")),
        new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<PartitionInfo> partitions = consumer.listTopics(timeout).get(at.topic());
      if (partitions == null || partitions.isEmpty()) {
        throw OffsetSurgeryException.refused("there is no topic " + at.topic() + " on " + cluster.bootstrapServers()
            + ": the record does not exist");
      }
      if (partitions.stream().noneMatch(p -> p.partition() == at.partition())) {
        throw OffsetSurgeryException.refused("topic " + at.topic() + " has no partition " + at.partition() + " (it has "
            + partitions.size() + "): the record does not exist");
      }
      consumer.assign(List.of(tp));
      long start = consumer.beginningOffsets(List.of(tp), timeout).get(tp);
      long end = consumer.endOffsets(List.of(tp), timeout).get(tp);
      if (at.offset() < start || at.offset() >= end) {
        throw OffsetSurgeryException.refused("there is no record at offset " + at.offset() + " of " + at.topic()
            + " partition " + at.partition() + ": " + (start == end ? "the partition holds none now (its next offset"
            + " is " + end + ")" : "it holds offsets " + start + " to " + (end - 1)));
      }
      consumer.seek(tp, at.offset());
      long deadline = System.nanoTime() + timeout.toNanos();
      while (System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200)).records(tp)) {
          if (r.offset() != at.offset()) {
            throw OffsetSurgeryException.refused("there is no record at offset " + at.offset() + " of " + at.topic()
                + " partition " + at.partition() + " (compaction removed it, or it holds a transaction marker):"
                + " the next record is at offset " + r.offset());
          }
          return new Found(r, start, end);
        }
        if (consumer.position(tp) > at.offset()) {
          throw OffsetSurgeryException.refused("there is no record at offset " + at.offset() + " of " + at.topic()
              + " partition " + at.partition() + " (compaction removed it, or it holds a transaction marker)");
        }
      }
      throw OffsetSurgeryException.failed("could not read offset " + at.offset() + " of " + at.topic() + " partition "
          + at.partition() + " within " + timeout.toSeconds() + " s; nothing was changed", null);
    } catch (org.apache.kafka.common.errors.TimeoutException e) {
      throw OffsetSurgeryException.failed("cannot read " + at.topic() + " on " + cluster.bootstrapServers() + ": "
          + e.getMessage() + "; nothing was changed", e);
    }
  }
}
