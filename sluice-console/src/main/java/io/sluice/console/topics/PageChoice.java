package io.sluice.console.topics;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which of the records read from each partition make a page, and where the next page starts, so that paging on
 * neither skips a matching record nor shows one twice. Each partition gives at most a page of matching records (the
 * first ones after its start reading forward, the last ones before its end reading backward); the page merges them by
 * timestamp, as the consoles of Kafka order a topic's partitions side by side, but takes from each partition in
 * offset order (a producer's timestamps may go back), so that what a partition gave is taken up to a point and the
 * next page starts there.
 */
final class PageChoice {
  private PageChoice() {}

  /** What a record must tell for the choice. */
  interface Positioned {
    int partition();

    long offset();

    long timestamp();
  }

  /** The page, in the order shown, and where the next page starts in each partition. */
  record Choice<R extends Positioned>(List<R> page, Map<Integer, Long> next) {}

  private static final Comparator<Positioned> OLDEST_FIRST = Comparator.comparingLong(Positioned::timestamp)
      .thenComparingInt(Positioned::partition).thenComparingLong(Positioned::offset);

  /**
   * Reading forward: the earliest {@code limit} records; a partition goes on after the last record taken from it, at
   * its first record not taken, or, when it gave none, where its read stopped.
   *
   * @param kept each partition's matching records, in offset order
   * @param readTo each partition's offset after the last one read (its next offset to read)
   */
  static <R extends Positioned> Choice<R> forward(Map<Integer, List<R>> kept, Map<Integer, Long> readTo, int limit) {
    List<R> page = merge(kept, limit, true);
    Map<Integer, Long> next = new HashMap<>(readTo);
    for (Map.Entry<Integer, List<R>> e : kept.entrySet()) {
      if (!e.getValue().isEmpty()) {
        // Until shown otherwise, the partition starts again at its first record kept but not taken.
        next.put(e.getKey(), e.getValue().get(0).offset());
      }
    }
    for (R r : page) {
      next.merge(r.partition(), r.offset() + 1, Math::max);
    }
    return new Choice<>(page, next);
  }

  /**
   * Reading backward: the newest {@code limit} records, newest first; a partition goes on (older) from the oldest
   * record taken from it, from just after its newest record not taken, or, when it gave none, from where its read
   * began.
   *
   * @param kept each partition's newest matching records of what was read, in offset order
   * @param readFrom each partition's first offset read
   */
  static <R extends Positioned> Choice<R> backward(Map<Integer, List<R>> kept, Map<Integer, Long> readFrom,
      int limit) {
    List<R> page = merge(kept, limit, false);
    Map<Integer, Long> next = new HashMap<>(readFrom);
    for (Map.Entry<Integer, List<R>> e : kept.entrySet()) {
      if (!e.getValue().isEmpty()) {
        next.put(e.getKey(), e.getValue().get(e.getValue().size() - 1).offset() + 1);
      }
    }
    for (R r : page) {
      next.merge(r.partition(), r.offset(), Math::min);
    }
    return new Choice<>(page, next);
  }

  /**
   * Up to {@code limit} records: each partition's list taken from its first record on (forward) or from its last one
   * back (backward), the next record always the partition head with the earliest (latest) timestamp.
   */
  private static <R extends Positioned> List<R> merge(Map<Integer, List<R>> kept, int limit, boolean forward) {
    Comparator<Positioned> order = forward ? OLDEST_FIRST : OLDEST_FIRST.reversed();
    Map<Integer, Integer> taken = new HashMap<>();
    List<R> page = new ArrayList<>();
    while (page.size() < limit) {
      R best = null;
      for (Map.Entry<Integer, List<R>> e : kept.entrySet()) {
        List<R> list = e.getValue();
        int n = taken.getOrDefault(e.getKey(), 0);
        if (n < list.size()) {
          R head = list.get(forward ? n : list.size() - 1 - n);
          if (best == null || order.compare(head, best) < 0) {
            best = head;
          }
        }
      }
      if (best == null) {
        break;
      }
      page.add(best);
      taken.merge(best.partition(), 1, Integer::sum);
    }
    return List.copyOf(page);
  }
}
