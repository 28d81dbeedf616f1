package io.sluice.topics;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;

/**
 * One read of some partitions, each from a start offset to an end offset taken before the read began, with a consumer
 * the caller owns: the one loop behind {@link TopicScan}, the dead-letter tools and the replay. Records written after
 * the ends were taken are never handed over, however many arrive meanwhile, and a partition that reached its end is
 * paused, so a read holds one poll of records at a time: memory does not grow with the records read.
 *
 * <pre>{@code
 * BoundedRead.read(consumer, start, consumer.endOffsets(start.keySet()), Duration.ofMillis(200), record -> {
 *   keep(record);
 *   return true;
 * });
 * }</pre>
 */
public final class BoundedRead {
  private BoundedRead() {}

  /** Where the records of a read go, and what decides that it ends early. */
  @FunctionalInterface
  public interface Sink<K, V> {
    /**
     * Takes the next record below its partition's end; false ends the read at once (the read keeps no position of
     * its own, so whether the record counts as read is the sink's to say).
     */
    boolean take(ConsumerRecord<K, V> record);

    /**
     * Every offset of the partition below its end has been read, offsets that hold no record included (transaction
     * markers, compacted-away records).
     */
    default void finished(TopicPartition partition) {}

    /**
     * After each poll whose records were taken, with how many records the poll returned (beyond the end or not);
     * {@code more} is whether the read goes on (a partition is short of its end and {@link #take} did not end it).
     * False ends the read here.
     */
    default boolean afterPoll(int records, boolean more) {
      return true;
    }
  }

  /**
   * Assigns {@code consumer} the partitions of {@code start} that are short of their end (its assignment until then is
   * replaced, and nothing is committed), seeks each to its start, and hands every record in [start, end) to
   * {@code sink}, in offset order per partition.
   *
   * @param end where each partition of {@code start} ends (exclusive); it may name more partitions
   * @param poll how long one poll waits for records
   * @return true when every partition was read to its end, false when the sink ended the read
   */
  public static <K, V> boolean read(Consumer<K, V> consumer, Map<TopicPartition, Long> start,
                                    Map<TopicPartition, Long> end, Duration poll, Sink<K, V> sink) {
    List<TopicPartition> pending = new ArrayList<>();
    start.forEach((tp, offset) -> {
      if (offset < end.get(tp)) {
        pending.add(tp);
      }
    });
    if (pending.isEmpty()) {
      return true;
    }
    consumer.assign(pending);
    // Assigned the same partitions again, a consumer keeps them paused from its last read.
    consumer.resume(pending);
    pending.forEach(tp -> consumer.seek(tp, start.get(tp)));
    while (true) {
      ConsumerRecords<K, V> records = consumer.poll(poll);
      if (!takeAll(records, end, sink)) {
        sink.afterPoll(records.count(), false);
        return false;
      }
      for (TopicPartition tp : List.copyOf(pending)) {
        if (consumer.position(tp) >= end.get(tp)) {
          pending.remove(tp);
          sink.finished(tp);
        }
      }
      consumer.pause(consumer.assignment().stream().filter(tp -> !pending.contains(tp)).toList());
      boolean more = !pending.isEmpty();
      if (!sink.afterPoll(records.count(), more) || !more) {
        return !more;
      }
    }
  }

  /** False when the sink ended the read. */
  private static <K, V> boolean takeAll(ConsumerRecords<K, V> records, Map<TopicPartition, Long> end,
                                        Sink<K, V> sink) {
    for (TopicPartition tp : records.partitions()) {
      long stop = end.get(tp);
      for (ConsumerRecord<K, V> r : records.records(tp)) {
        if (r.offset() >= stop) {
          break;
        }
        if (!sink.take(r)) {
          return false;
        }
      }
    }
    return true;
  }
}
