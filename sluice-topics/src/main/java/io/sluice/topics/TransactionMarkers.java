package io.sluice.topics;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Lag that is no records. Every transaction leaves a marker (commit or abort) in each partition it wrote, which takes
 * an offset and is never delivered; a consumer commits the offset after the last record it took. So a consumer that
 * has read everything of a topic written in transactions (every source's, under exactly-once support) stays an offset
 * or a few short of the end, and "end offset minus committed offset" says it lags when it does not.
 *
 * <pre>{@code
 * Set<TopicPartition> caughtUp = TransactionMarkers.only(consumer, committed, lastStable, 100, Duration.ofSeconds(1));
 * }</pre>
 */
public final class TransactionMarkers {
  private TransactionMarkers() {}

  /**
   * The partitions whose offsets from {@code from} up to {@code end} hold no committed record, among those where the
   * two are at most {@code maxGap} apart (a larger gap is not read and not returned). Reads as a consumer of committed
   * records does, from {@code from} until a record or the end, for at most {@code timeout} in all; {@code consumer}
   * must read committed records ({@link KafkaCluster#READ_COMMITTED}), and is left with no partitions assigned.
   *
   * @param end the last stable offsets ({@code endOffsets} of a consumer reading committed records)
   */
  public static Set<TopicPartition> only(Consumer<?, ?> consumer, Map<TopicPartition, Long> from,
      Map<TopicPartition, Long> end, long maxGap, Duration timeout) {
    List<TopicPartition> asked = from.keySet().stream().filter(tp -> end.get(tp) != null
        && end.get(tp) > from.get(tp) && end.get(tp) - from.get(tp) <= maxGap).toList();
    Set<TopicPartition> out = new HashSet<>();
    if (asked.isEmpty()) {
      return out;
    }
    try {
      consumer.assign(asked);
      asked.forEach(tp -> consumer.seek(tp, from.get(tp)));
      Set<TopicPartition> open = new HashSet<>(asked);
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!open.isEmpty() && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(50)).forEach(r -> open.remove(new TopicPartition(r.topic(), r.partition())));
        for (TopicPartition tp : List.copyOf(open)) {
          if (consumer.position(tp) >= end.get(tp)) {
            out.add(tp);
            open.remove(tp);
          }
        }
      }
    } finally {
      consumer.assign(List.of());
    }
    return out;
  }
}
