package io.sluice.ops.dlq;

import io.sluice.topics.BoundedRead;
import io.sluice.topics.KafkaCluster;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Reads a dead-letter topic without a consumer group (reading never moves anyone's position). */
final class DlqReader {
  private static final Comparator<DlqRecord> BY_TIME = Comparator.comparing(DlqRecord::timestamp)
      .thenComparingInt(DlqRecord::partition).thenComparingLong(DlqRecord::offset);
  private static final Duration POLL = Duration.ofMillis(200);
  private final Map<String, Object> clientProperties;

  DlqReader(Map<String, Object> clientProperties) {
    this.clientProperties = clientProperties;
  }

  KafkaConsumer<byte[], byte[]> consumer() {
    Map<String, Object> props = new HashMap<>(clientProperties);
    props.putAll(KafkaCluster.READ_COMMITTED);
    props.put("enable.auto.commit", "false");
    // Asking for a topic's partitions must not create it (brokers auto-create by default).
    props.put("allow.auto.create.topics", "false");
    props.put("max.poll.records", "5000");
    props.putIfAbsent("client.id", "sluice-dlq-reader");
    return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  static List<TopicPartition> partitions(KafkaConsumer<?, ?> consumer, String topic) {
    List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(30));
    if (infos == null || infos.isEmpty()) {
      throw new IllegalArgumentException("topic " + topic + " does not exist");
    }
    return infos.stream().map(p -> new TopicPartition(topic, p.partition()))
        .sorted(Comparator.comparingInt(TopicPartition::partition)).toList();
  }

  /** The records {@code options} choose, in a list: {@link #read(String, ReadOptions, Consumer)} collected. */
  List<DlqRecord> read(String topic, ReadOptions options) {
    List<DlqRecord> out = new ArrayList<>();
    read(topic, options, out::add);
    return out;
  }

  /**
   * Hands the records {@code options} choose to {@code each} as they are read, oldest first (or, for the newest N,
   * sorted by time once the topic's end is reached). What is held at once does not grow with the topic: one poll of
   * records, or partitions × N for the newest N, or N for a sample.
   */
  void read(String topic, ReadOptions options, Consumer<DlqRecord> each) {
    try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
      List<TopicPartition> tps = partitions(consumer, topic);
      Map<TopicPartition, Long> begin = new HashMap<>(consumer.beginningOffsets(tps));
      Map<TopicPartition, Long> end = consumer.endOffsets(tps);
      // A page that goes on from where the last one ended: offsets below the log start are gone, start there.
      options.from().forEach((p, o) -> begin.computeIfPresent(new TopicPartition(topic, p),
          (tp, b) -> Math.min(Math.max(b, o), end.get(tp))));
      if (options.sample() != null) {
        sample(consumer, begin, end, options, each);
        return;
      }
      Integer max = options.maxMessages();
      boolean unfiltered = options.filter().conditions().isEmpty();
      Map<TopicPartition, Long> start = new HashMap<>(begin);
      if (max != null && !options.fromBeginning() && unfiltered) {
        // The newest N overall are among the newest N of each partition: no need to read the rest.
        end.forEach((tp, e) -> start.put(tp, Math.max(begin.get(tp), e - max)));
      }
      if (max == null || options.fromBeginning()) {
        long[] handed = {0};
        scan(consumer, start, end, options.timeout(), r -> {
          if (!options.filter().matches(r)) {
            return true;
          }
          each.accept(r);
          return max == null || ++handed[0] < max;
        });
        return;
      }
      // Newest N: the newest N of each partition are enough, so memory stays bounded by partitions × N.
      Map<Integer, Deque<DlqRecord>> newest = new HashMap<>();
      scan(consumer, start, end, options.timeout(), r -> {
        if (options.filter().matches(r)) {
          Deque<DlqRecord> q = newest.computeIfAbsent(r.partition(), p -> new ArrayDeque<>());
          q.addLast(r);
          if (q.size() > max) {
            q.removeFirst();
          }
        }
        return true;
      });
      List<DlqRecord> out = new ArrayList<>();
      newest.values().forEach(out::addAll);
      out.sort(BY_TIME);
      out.subList(Math.max(0, out.size() - max), out.size()).forEach(each);
    }
  }

  /**
   * Feeds every record in [start, end) of each partition to {@code sink} until it returns false, or until no record
   * has arrived for {@code idleTimeout}: a read that stalls ends with what it has.
   */
  static void scan(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> start,
                   Map<TopicPartition, Long> end, Duration idleTimeout, Predicate<DlqRecord> sink) {
    BoundedRead.read(consumer, start, end, POLL, new BoundedRead.Sink<>() {
      private long idleSince = System.nanoTime();

      @Override
      public boolean take(ConsumerRecord<byte[], byte[]> record) {
        return sink.test(DlqRecord.of(record));
      }

      @Override
      public boolean afterPoll(int records, boolean more) {
        if (records > 0) {
          idleSince = System.nanoTime();
        }
        return System.nanoTime() - idleSince <= idleTimeout.toNanos();
      }
    });
  }

  /**
   * N matching records spread evenly over the topic, in partition and offset order. With a filter the topic is read
   * twice, first to count the matching records and then to hand over the chosen ones, so that only those are held.
   */
  private void sample(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> begin,
                      Map<TopicPartition, Long> end, ReadOptions options, Consumer<DlqRecord> each) {
    int n = options.sample();
    if (!options.filter().conditions().isEmpty()) {
      long[] matching = {0};
      scan(consumer, begin, end, options.timeout(), r -> {
        if (options.filter().matches(r)) {
          matching[0]++;
        }
        return true;
      });
      long count = matching[0];
      if (count == 0) {
        return;
      }
      long[] seen = {0};
      int[] taken = {0};
      scan(consumer, begin, end, options.timeout(), r -> {
        if (!options.filter().matches(r)) {
          return true;
        }
        // The same choice as spread(): the match at ((i + 0.5) * count / n) for each i, every match when count <= n.
        if (count <= n || seen[0] == spreadIndex(taken[0], count, n)) {
          each.accept(r);
          taken[0]++;
        }
        seen[0]++;
        return taken[0] < Math.min(n, count);
      });
      return;
    }
    long total = 0;
    for (TopicPartition tp : begin.keySet()) {
      total += end.get(tp) - begin.get(tp);
    }
    if (total == 0) {
      return;
    }
    // Offsets evenly spaced within each partition, each partition getting its share of n.
    Map<TopicPartition, List<Long>> wanted = new TreeMap<>(Comparator.comparingInt(TopicPartition::partition));
    for (TopicPartition tp : begin.keySet()) {
      long size = end.get(tp) - begin.get(tp);
      long share = Math.min(size, Math.round((double) n * size / total));
      List<Long> offsets = new ArrayList<>();
      for (long i = 0; i < share; i++) {
        offsets.add(begin.get(tp) + (long) ((i + 0.5) * size / share));
      }
      wanted.put(tp, offsets);
    }
    for (var e : wanted.entrySet()) {
      TopicPartition tp = e.getKey();
      long after = -1;
      for (long offset : e.getValue()) {
        if (offset <= after) {
          continue;
        }
        DlqRecord found = first(consumer, tp, offset, end.get(tp), options.timeout());
        if (found == null) {
          break;
        }
        each.accept(found);
        after = found.offset();
      }
    }
  }

  /** The index of the {@code i}-th of {@code n} items spread evenly over {@code count}. */
  static long spreadIndex(long i, long count, int n) {
    return (long) ((i + 0.5) * count / n);
  }

  /** The first record at or after {@code from} and below {@code end}, or null when none arrives within the timeout. */
  private static DlqRecord first(KafkaConsumer<byte[], byte[]> consumer, TopicPartition tp, long from, long end,
                                 Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    DlqRecord[] found = {null};
    BoundedRead.read(consumer, Map.of(tp, from), Map.of(tp, end), POLL, new BoundedRead.Sink<>() {
      @Override
      public boolean take(ConsumerRecord<byte[], byte[]> record) {
        found[0] = DlqRecord.of(record);
        return false;
      }

      @Override
      public boolean afterPoll(int records, boolean more) {
        return System.nanoTime() < deadline;
      }
    });
    return found[0];
  }

  static <T> List<T> spread(List<T> items, int n) {
    if (items.size() <= n) {
      return items;
    }
    List<T> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(items.get((int) spreadIndex(i, items.size(), n)));
    }
    return out;
  }
}
