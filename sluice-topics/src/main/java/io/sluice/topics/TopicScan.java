package io.sluice.topics;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * One read of a whole topic, every partition, from where it starts (or given offsets) to the end offsets taken when the
 * read begins, then done: what a tool needs that looks at a topic once (Connect's offsets topic for a backup or a
 * check), where {@link TopicLog} is for a node that keeps following its state.
 *
 * <pre>{@code
 * Map<Integer, Long> ends = TopicScan.of(bootstrap, "connect-offsets").timeout(Duration.ofMinutes(1))
 *     .progress((done, total) -> bar.update(done, total)).read(record -> keep(record));
 * }</pre>
 */
public final class TopicScan {
  /** Told how far a read got, in records: {@code total} is the sum of the partitions' record ranges. */
  @FunctionalInterface
  public interface Progress {
    void read(long done, long total);
  }

  private final KafkaCluster cluster;
  private final String topic;
  private Map<Integer, Long> from = Map.of();
  private Duration timeout = Duration.ofSeconds(30);
  private Progress progress = (done, total) -> {};
  private String clientId = "sluice-topic-scan";

  private TopicScan(KafkaCluster cluster, String topic) {
    this.cluster = cluster;
    this.topic = topic;
  }

  public static TopicScan of(String bootstrapServers, String topic) {
    return new TopicScan(KafkaCluster.of(bootstrapServers), topic);
  }

  public static TopicScan of(KafkaCluster cluster, String topic) {
    return new TopicScan(cluster, topic);
  }

  /** Start at these offsets (partition → offset) instead of each partition's beginning. */
  public TopicScan from(Map<Integer, Long> offsets) {
    this.from = Map.copyOf(offsets);
    return this;
  }

  public TopicScan timeout(Duration timeout) {
    this.timeout = timeout;
    return this;
  }

  public TopicScan progress(Progress progress) {
    this.progress = progress;
    return this;
  }

  public TopicScan clientId(String clientId) {
    this.clientId = clientId;
    return this;
  }

  /**
   * Hands every record up to the end offsets to {@code each}, in partition order, and returns those end offsets.
   *
   * @throws IllegalStateException when the topic does not exist, or the read takes longer than the timeout
   */
  public Map<Integer, Long> read(Consumer<ConsumerRecord<byte[], byte[]>> each) {
    Map<Integer, Long> endOffsets = new HashMap<>();
    try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
      List<TopicPartition> partitions = partitions(consumer);
      consumer.assign(partitions);
      Map<TopicPartition, Long> begin = consumer.beginningOffsets(partitions, timeout);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
      long total = 0;
      for (TopicPartition tp : partitions) {
        long start = Math.max(begin.get(tp), from.getOrDefault(tp.partition(), 0L));
        consumer.seek(tp, start);
        total += Math.max(0, end.get(tp) - start);
        endOffsets.put(tp.partition(), end.get(tp));
      }
      long done = 0;
      progress.read(0, total);
      long deadline = System.nanoTime() + timeout.toNanos();
      while (end.entrySet().stream().anyMatch(e -> consumer.position(e.getKey()) < e.getValue())) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("timed out after " + timeout.toMillis() + " ms reading " + topic
              + " (" + done + " of " + total + " records read)");
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          if (r.offset() >= end.get(new TopicPartition(r.topic(), r.partition()))) {
            continue;
          }
          done++;
          each.accept(r);
        }
        progress.read(done, total);
      }
    }
    return endOffsets;
  }

  /** The partitions' current end offsets: where records written from now on will start. */
  public Map<Integer, Long> endOffsets() {
    try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
      Map<Integer, Long> out = new HashMap<>();
      consumer.endOffsets(partitions(consumer), timeout).forEach((tp, o) -> out.put(tp.partition(), o));
      return out;
    }
  }

  private KafkaConsumer<byte[], byte[]> consumer() {
    return new KafkaConsumer<>(cluster.clientConfig(Map.of(
        "enable.auto.commit", "false", "client.id", clientId,
        // Large fetches make a read of 100,000 small records a few round trips.
        "max.poll.records", "10000", "fetch.max.bytes", "67108864", "max.partition.fetch.bytes", "16777216")),
        new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  private List<TopicPartition> partitions(KafkaConsumer<byte[], byte[]> consumer) {
    var infos = consumer.partitionsFor(topic, timeout);
    if (infos == null || infos.isEmpty()) {
      throw new IllegalStateException("topic " + topic + " does not exist on " + cluster.bootstrapServers());
    }
    return infos.stream().map(p -> new TopicPartition(topic, p.partition())).toList();
  }
}
