package io.sluice.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Holds a source's topic against a {@link ChangeHistory}: reads the topic as a consumer does, reading committed records
 * only (as every consumer Sluice runs, and as a user's consumer must) or, to count what a consumer left at Kafka's
 * default sees, uncommitted ones too; as far as it has come since the last read; and counts, per change of the history, how often it arrived; per key, whether its changes arrived in commit order; and
 * whether anything arrived that no committed transaction wrote. {@link #tally} then says, for a range of sequence
 * values, how many changes were written, delivered once, duplicated, missing and out of order.
 */
final class DeliveryCheck {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** What one range of the history came to. */
  record Tally(long written, long once, long duplicated, long missing, long outOfOrder, long fromAborted) {
    /** 0 duplicated, 0 missing, 0 out of order, nothing of a rolled back transaction. */
    boolean exact() {
      return duplicated == 0 && missing == 0 && outOfOrder == 0 && fromAborted == 0;
    }

    @Override
    public String toString() {
      return String.format("%,d written, %,d delivered once, %,d duplicated, %,d missing, %,d out of order"
          + ", %,d of rolled back transactions", written, once, duplicated, missing, outOfOrder, fromAborted);
    }
  }

  private final ChangeHistory history;
  private final String bootstrap;
  private final String topic;
  private final String isolation;
  /** Where the next read of each partition starts. */
  private final Map<Integer, Long> next = new HashMap<>();
  /** By sequence value: how many times it arrived, and whether its first arrival came after a later change of its key. */
  private int[] arrivals = new int[1 << 16];
  private boolean[] late = new boolean[1 << 16];
  /** Per key, the highest sequence value that arrived so far. */
  private final Map<Integer, Long> newest = new HashMap<>();
  /** Records of changes whose sequence value the history never wrote, or whose key is not the one it changed. */
  private long unknown;
  private long highest;
  private long records;

  /**
   * A check of {@code topic} against {@code history}, reading as a consumer of {@code isolation} level does:
   * {@code read_committed}, or {@code read_uncommitted} (Kafka's default) to count what a consumer left at the default
   * would see.
   */
  DeliveryCheck(ChangeHistory history, String bootstrap, String topic, String isolation) {
    this.history = history;
    this.bootstrap = bootstrap;
    this.topic = topic;
    this.isolation = isolation;
  }

  /**
   * Reads what the topic holds past the last read, up to the end a consumer of this isolation level reaches now (for
   * {@code read_committed}: the last stable offset, before any transaction still open); returns the records read.
   */
  synchronized long read() {
    long before = records;
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of("bootstrap.servers", bootstrap,
        "isolation.level", isolation, "enable.auto.commit", "false", "client.id", "delivery-check-" + isolation,
        "max.poll.records", "10000"), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(30));
      if (infos == null || infos.isEmpty()) {
        return 0;
      }
      List<TopicPartition> partitions = infos.stream().map(i -> new TopicPartition(topic, i.partition())).toList();
      consumer.assign(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
      for (TopicPartition p : partitions) {
        consumer.seek(p, next.getOrDefault(p.partition(), 0L));
      }
      long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
      while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("reading " + topic + " took over 2 minutes");
        }
        consumer.poll(Duration.ofMillis(200)).forEach(this::take);
      }
      for (TopicPartition p : partitions) {
        next.put(p.partition(), consumer.position(p));
      }
    }
    return records - before;
  }

  private void take(ConsumerRecord<byte[], byte[]> r) {
    if (r.value() == null) {
      return; // a tombstone: the history deletes nothing
    }
    records++;
    JsonNode after;
    try {
      after = JSON.readTree(r.value()).path("payload").path("after");
    } catch (IOException e) {
      unknown++;
      return;
    }
    long seq = after.path("seq").asLong(-1);
    int key = after.path("k").asInt(-1);
    if (seq > 0 && !history.awaitEnded(seq)) {
      unknown++;
      return;
    }
    if (seq <= 0 || history.key(seq) != key) {
      unknown++;
      return;
    }
    while (seq >= arrivals.length) {
      arrivals = Arrays.copyOf(arrivals, arrivals.length * 2);
      late = Arrays.copyOf(late, late.length * 2);
    }
    int seen = arrivals[(int) seq]++;
    highest = Math.max(highest, seq);
    if (seen > 0) {
      return; // a duplicate: counted as such, not as out of order too
    }
    Long newer = newest.get(key);
    if (newer != null && newer > seq) {
      late[(int) seq] = true;
    } else {
      newest.put(key, seq);
    }
  }

  /**
   * Reads until a change at or past sequence value {@code seq} has arrived (with one partition and changes in commit
   * order, everything before it has then arrived or never will), or until the topic has not grown for
   * {@code quiet}; true if it arrived.
   */
  boolean awaitDelivered(long seq, Duration quiet) throws InterruptedException {
    long stillSince = System.nanoTime();
    while (true) {
      long got;
      try {
        got = read();
      } catch (RuntimeException e) {
        got = 0; // the topic not there yet, or a broker away: read again
      }
      synchronized (this) {
        if (highest >= seq) {
          return true;
        }
      }
      if (got > 0) {
        stillSince = System.nanoTime();
      } else if (System.nanoTime() - stillSince > quiet.toNanos()) {
        return false;
      }
      Thread.sleep(500);
    }
  }

  /** The changes of sequence values {@code from} to {@code to}, both included, as they arrived so far. */
  synchronized Tally tally(long from, long to) {
    long written = 0;
    long once = 0;
    long duplicated = 0;
    long missing = 0;
    long outOfOrder = 0;
    long fromAborted = 0;
    for (long seq = from; seq <= to; seq++) {
      int n = seq < arrivals.length ? arrivals[(int) seq] : 0;
      if (history.committed(seq)) {
        written++;
        if (n == 0) {
          missing++;
        } else if (n == 1) {
          once++;
        } else {
          duplicated++;
        }
        if (n > 0 && late[(int) seq]) {
          outOfOrder++;
        }
      } else if (n > 0) {
        fromAborted++;
      }
    }
    return new Tally(written, once, duplicated, missing, outOfOrder, fromAborted);
  }

  /**
   * Where in {@code from}..{@code to} the changes went wrong: the first and last sequence value missing, duplicated
   * and out of order, so that a failure says whether they cluster around a fault or a start; empty when none did.
   */
  synchronized String where(long from, long to) {
    long[][] spans = {{-1, -1}, {-1, -1}, {-1, -1}};
    for (long seq = from; seq <= to; seq++) {
      if (!history.committed(seq)) {
        continue;
      }
      int n = seq < arrivals.length ? arrivals[(int) seq] : 0;
      int kind = n == 0 ? 0 : n > 1 ? 1 : late[(int) seq] ? 2 : -1;
      if (kind >= 0) {
        spans[kind][0] = spans[kind][0] < 0 ? seq : spans[kind][0];
        spans[kind][1] = seq;
      }
    }
    List<String> out = new java.util.ArrayList<>();
    String[] names = {"missing", "duplicated", "out of order"};
    for (int i = 0; i < 3; i++) {
      if (spans[i][0] >= 0) {
        out.add(names[i] + " " + spans[i][0] + ".." + spans[i][1]);
      }
    }
    return String.join(", ", out);
  }

  /** Records that matched no change of the history (a sequence value it never wrote, or under another key). */
  synchronized long unknown() {
    return unknown;
  }

  /** Records read so far. */
  synchronized long records() {
    return records;
  }
}
