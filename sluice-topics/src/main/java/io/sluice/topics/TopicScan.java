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
  /** The topic to read does not exist: for some readers (a signal topic no signal was sent to yet) that is no error. */
  public static final class NoSuchTopic extends IllegalStateException {
    NoSuchTopic(String message) {
      super(message);
    }
  }

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
   * Hands every record up to the end offsets to {@code each}, in offset order per partition, and returns those end
   * offsets.
   *
   * @throws IllegalStateException when the topic does not exist, or the read takes longer than the timeout
   */
  public Map<Integer, Long> read(Consumer<ConsumerRecord<byte[], byte[]>> each) {
    Map<Integer, Long> endOffsets = new HashMap<>();
    try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
      List<TopicPartition> partitions = partitions(consumer);
      // Assigned before the offsets are asked, so that the answers update the partitions' state instead of warning.
      consumer.assign(partitions);
      Map<TopicPartition, Long> begin = consumer.beginningOffsets(partitions, timeout);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
      Map<TopicPartition, Long> start = new HashMap<>();
      long total = 0;
      for (TopicPartition tp : partitions) {
        start.put(tp, Math.max(begin.get(tp), from.getOrDefault(tp.partition(), 0L)));
        total += Math.max(0, end.get(tp) - start.get(tp));
        endOffsets.put(tp.partition(), end.get(tp));
      }
      progress.read(0, total);
      long all = total;
      long deadline = System.nanoTime() + timeout.toNanos();
      BoundedRead.read(consumer, start, end, Duration.ofMillis(200), new BoundedRead.Sink<>() {
        private long done;

        @Override
        public boolean take(ConsumerRecord<byte[], byte[]> record) {
          done++;
          each.accept(record);
          return true;
        }

        @Override
        public boolean afterPoll(int records, boolean more) {
          progress.read(done, all);
          if (more && System.nanoTime() > deadline) {
            throw new IllegalStateException("timed out after " + timeout.toMillis() + " ms reading " + topic
                + " (" + done + " of " + all + " records read)");
          }
          return true;
        }
      });
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
    return new KafkaConsumer<>(cluster.consumerConfig(Map.of(
        "enable.auto.commit", "false", "client.id", clientId,
        // Large fetches make a read of 100,000 small records a few round trips.
        "max.poll.records", "10000", "fetch.max.bytes", "67108864", "max.partition.fetch.bytes", "16777216")),
        new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  private List<TopicPartition> partitions(KafkaConsumer<byte[], byte[]> consumer) {
    var infos = consumer.partitionsFor(topic, timeout);
    if (infos == null || infos.isEmpty()) {
      throw new NoSuchTopic("topic " + topic + " does not exist on " + cluster.bootstrapServers());
    }
    return infos.stream().map(p -> new TopicPartition(topic, p.partition())).toList();
  }
}
