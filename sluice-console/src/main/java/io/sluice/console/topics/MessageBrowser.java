package io.sluice.console.topics;

import io.sluice.serde.view.PayloadDecoder;
import io.sluice.serde.view.PayloadDecoder.Decoded;
import io.sluice.topics.BoundedRead;
import io.sluice.topics.KafkaCluster;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The console's message browser: one page of a topic's records from a {@link BrowsePosition}, keys and values decoded
 * ({@link PayloadDecoder}), filtered by a text in the key or in the value. It streams: a read holds one poll of
 * records and at most a page of matching records per partition, each shown value cut at {@link #SHOWN_BYTES}; a
 * filter that matches little reads at most {@link #SCAN_BUDGET} records per page and says where to go on. No consumer
 * group: browsing never moves anyone's position.
 */
public final class MessageBrowser implements AutoCloseable {
  /** Records read (matching or not) for one page at most, so that a rare filter answers in bounded time. */
  static final int SCAN_BUDGET = 20_000;
  /** How much of one key, value or header is shown; the rest is cut, and the record says so. */
  static final int SHOWN_BYTES = 64 << 10;
  private static final Duration POLL = Duration.ofMillis(200);
  /** How long a page may wait for records that the end offsets promise (a broker slow to answer). */
  private static final Duration IDLE = Duration.ofSeconds(10);

  /**
   * Consumers kept between pages: a new one costs a connection and a metadata round trip (tens of milliseconds, far
   * more on a busy machine), and closing one waits for its last fetch. Each holds no records between pages (its
   * assignment is dropped), so what is kept is a few idle clients, whatever the topics hold.
   */
  static final int IDLE_CONSUMERS = 2;

  private final KafkaCluster cluster;
  private final PayloadDecoder decoder;
  private final java.util.concurrent.BlockingQueue<KafkaConsumer<byte[], byte[]>> idle =
      new java.util.concurrent.ArrayBlockingQueue<>(IDLE_CONSUMERS);
  private volatile boolean closed;

  public MessageBrowser(KafkaCluster cluster, PayloadDecoder decoder) {
    this.cluster = cluster;
    this.decoder = decoder;
  }

  /** What a page shows of one record. */
  public record Message(int partition, long offset, long timestamp, String timestampType, Decoded key, Decoded value,
      List<Map.Entry<String, String>> headers, int size, boolean cut) implements PageChoice.Positioned {}

  /** A filter: a text the decoded key or value must contain; empty matches everything. */
  public record Filter(String key, String value) {
    public Filter {
      key = key == null ? "" : key;
      value = value == null ? "" : value;
    }

    boolean none() {
      return key.isEmpty() && value.isEmpty();
    }

    boolean matches(Message m) {
      return (key.isEmpty() || m.key().text() != null && m.key().text().contains(key))
          && (value.isEmpty() || m.value().text() != null && m.value().text().contains(value));
    }
  }

  /**
   * One page.
   *
   * @param next where the following page starts: {@code at} positions reading forward, {@code before} positions
   *     reading backward; empty when there is nothing further
   * @param scanned records read for this page
   * @param budgetSpent whether the read stopped at {@link #SCAN_BUDGET} before the page filled
   */
  public record Page(String topic, List<Integer> partitions, List<Message> messages, boolean forward,
      Map<Integer, Long> next, boolean more, long scanned, boolean budgetSpent, Map<Integer, long[]> bounds) {}

  /**
   * Reads a page of {@code limit} records.
   *
   * @throws IllegalArgumentException for a topic or partition that does not exist
   */
  public Page read(String topic, BrowsePosition position, Filter filter, int limit) {
    KafkaConsumer<byte[], byte[]> consumer = idle.poll();
    if (consumer == null) {
      consumer = consumer();
    }
    boolean reusable = false;
    try {
      Page page = read(consumer, topic, position, filter, limit);
      reusable = true;
      return page;
    } finally {
      giveBack(consumer, reusable);
    }
  }

  /** Keeps a consumer that read cleanly (its assignment dropped, so it holds no records) or closes it. */
  private void giveBack(KafkaConsumer<byte[], byte[]> consumer, boolean reusable) {
    if (reusable && !closed) {
      try {
        consumer.assign(List.of());
        if (idle.offer(consumer)) {
          if (closed && idle.remove(consumer)) {
            consumer.close(Duration.ZERO);
          }
          return;
        }
      } catch (RuntimeException e) {
        // not reusable after all: closed below
      }
    }
    consumer.close(Duration.ZERO);
  }

  private Page read(KafkaConsumer<byte[], byte[]> consumer, String topic, BrowsePosition position, Filter filter,
      int limit) {
    {
      List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(15));
      if (infos == null || infos.isEmpty()) {
        throw new IllegalArgumentException("topic " + topic + " does not exist");
      }
      List<TopicPartition> tps = infos.stream().map(i -> new TopicPartition(topic, i.partition()))
          .filter(tp -> position.partition() == null || tp.partition() == position.partition())
          .sorted(Comparator.comparingInt(TopicPartition::partition)).toList();
      if (tps.isEmpty()) {
        throw new IllegalArgumentException("topic " + topic + " has no partition " + position.partition()
            + " (it has " + infos.size() + ")");
      }
      Map<TopicPartition, Long> begin = consumer.beginningOffsets(tps);
      Map<TopicPartition, Long> end = consumer.endOffsets(tps);
      Map<Integer, long[]> bounds = new TreeMap<>();
      tps.forEach(tp -> bounds.put(tp.partition(), new long[] {begin.get(tp), end.get(tp)}));
      return position.forward() ? forward(consumer, topic, tps, begin, end, starts(consumer, position, tps, begin, end),
          filter, limit, bounds)
          : backward(consumer, topic, tps, begin, end, position, filter, limit, bounds);
    }
  }

  /** Where a forward read starts in each partition, within what the partition holds. */
  private static Map<TopicPartition, Long> starts(KafkaConsumer<byte[], byte[]> consumer, BrowsePosition position,
      List<TopicPartition> tps, Map<TopicPartition, Long> begin, Map<TopicPartition, Long> end) {
    Map<TopicPartition, Long> start = new HashMap<>();
    Map<TopicPartition, OffsetAndTimestamp> byTime = null;
    if (position.from() == BrowsePosition.From.TIME) {
      Map<TopicPartition, Long> query = new HashMap<>();
      tps.forEach(tp -> query.put(tp, position.time().toEpochMilli()));
      byTime = consumer.offsetsForTimes(query);
    }
    for (TopicPartition tp : tps) {
      long s = switch (position.from()) {
        case START -> begin.get(tp);
        case OFFSET -> position.offset();
        case TIME -> byTime.get(tp) == null ? end.get(tp) : byTime.get(tp).offset();
        // A partition the positions do not name has not been read yet.
        case AT -> position.positions().getOrDefault(tp.partition(), begin.get(tp));
        default -> throw new IllegalStateException("not a forward position: " + position.from());
      };
      start.put(tp, Math.max(begin.get(tp), Math.min(end.get(tp), s)));
    }
    return start;
  }

  private Page forward(KafkaConsumer<byte[], byte[]> consumer, String topic, List<TopicPartition> tps,
      Map<TopicPartition, Long> begin, Map<TopicPartition, Long> end, Map<TopicPartition, Long> start, Filter filter,
      int limit, Map<Integer, long[]> bounds) {
    // Without a filter a page needs at most `limit` records of each partition, which lie within twice as many
    // offsets: a transaction's commit marker takes an offset of its own, one at most per record (every source
    // writes in transactions). Read no further; the page ends once each partition has its records.
    Map<TopicPartition, Long> stop = new HashMap<>();
    tps.forEach(tp -> stop.put(tp, filter.none() ? Math.min(end.get(tp), start.get(tp) + 2L * limit)
        : end.get(tp)));
    Map<Integer, List<Message>> kept = new TreeMap<>();
    Map<Integer, Long> readTo = new HashMap<>();
    tps.forEach(tp -> {
      kept.put(tp.partition(), new ArrayList<>());
      readTo.put(tp.partition(), start.get(tp));
    });
    long[] scanned = {0};
    boolean[] spent = {false};
    BoundedRead.read(consumer, start, stop, POLL, new Budgeted(() -> {
      // Every partition has a page or has been read to its end: the page is known.
      return tps.stream().allMatch(tp -> kept.get(tp.partition()).size() >= limit
          || readTo.get(tp.partition()) >= stop.get(tp));
    }) {
      @Override
      public boolean take(ConsumerRecord<byte[], byte[]> record) {
        if (scanned[0] >= SCAN_BUDGET) {
          spent[0] = true;
          return false;
        }
        scanned[0]++;
        List<Message> mine = kept.get(record.partition());
        if (mine.size() < limit) {
          Message m = message(record);
          if (filter.matches(m)) {
            mine.add(m);
          }
          readTo.put(record.partition(), record.offset() + 1);
        }
        return !done.getAsBoolean();
      }

      @Override
      public void finished(TopicPartition partition) {
        readTo.put(partition.partition(), stop.get(partition));
      }
    });
    PageChoice.Choice<Message> choice = PageChoice.forward(kept, readTo, limit);
    boolean more = tps.stream().anyMatch(tp -> choice.next().get(tp.partition()) < end.get(tp));
    return new Page(topic, tps.stream().map(TopicPartition::partition).toList(), choice.page(), true,
        more ? choice.next() : Map.of(), more, scanned[0], spent[0], bounds);
  }

  private Page backward(KafkaConsumer<byte[], byte[]> consumer, String topic, List<TopicPartition> tps,
      Map<TopicPartition, Long> begin, Map<TopicPartition, Long> end, BrowsePosition position, Filter filter,
      int limit, Map<Integer, long[]> bounds) {
    // Each partition is read in a window below its end: a page without a filter (twice its records in offsets, room
    // for a commit marker after each), its share of the budget with one.
    long window = filter.none() ? 2L * limit : Math.max(limit, SCAN_BUDGET / tps.size());
    Map<TopicPartition, Long> stop = new HashMap<>();
    Map<TopicPartition, Long> start = new HashMap<>();
    Map<Integer, Long> readFrom = new HashMap<>();
    Map<Integer, Deque<Message>> newest = new TreeMap<>();
    for (TopicPartition tp : tps) {
      long e = position.from() == BrowsePosition.From.BEFORE
          ? Math.max(begin.get(tp), Math.min(end.get(tp), position.positions().getOrDefault(tp.partition(),
              begin.get(tp))))
          : end.get(tp);
      stop.put(tp, e);
      start.put(tp, Math.max(begin.get(tp), e - window));
      readFrom.put(tp.partition(), start.get(tp));
      newest.put(tp.partition(), new ArrayDeque<>());
    }
    long[] scanned = {0};
    BoundedRead.read(consumer, start, stop, POLL, new Budgeted(() -> false) {
      @Override
      public boolean take(ConsumerRecord<byte[], byte[]> record) {
        scanned[0]++;
        Message m = message(record);
        if (filter.matches(m)) {
          Deque<Message> q = newest.get(record.partition());
          q.addLast(m);
          if (q.size() > limit) {
            q.removeFirst();
          }
        }
        return true;
      }
    });
    Map<Integer, List<Message>> kept = new TreeMap<>();
    newest.forEach((p, q) -> kept.put(p, new ArrayList<>(q)));
    PageChoice.Choice<Message> choice = PageChoice.backward(kept, readFrom, limit);
    boolean more = tps.stream().anyMatch(tp -> choice.next().get(tp.partition()) > begin.get(tp));
    // A filtered read that found less than a page in its window has more to look at below it.
    boolean spent = !filter.none() && choice.page().size() < limit && more;
    return new Page(topic, tps.stream().map(TopicPartition::partition).toList(), choice.page(), false,
        more ? choice.next() : Map.of(), more, scanned[0], spent, bounds);
  }

  /** A read that ends when {@code done} says so or when nothing has arrived for {@link #IDLE}. */
  private abstract static class Budgeted implements BoundedRead.Sink<byte[], byte[]> {
    final java.util.function.BooleanSupplier done;
    private long idleSince = System.nanoTime();

    Budgeted(java.util.function.BooleanSupplier done) {
      this.done = done;
    }

    @Override
    public boolean afterPoll(int records, boolean more) {
      if (records > 0) {
        idleSince = System.nanoTime();
      }
      return !done.getAsBoolean() && System.nanoTime() - idleSince <= IDLE.toNanos();
    }
  }

  Message message(ConsumerRecord<byte[], byte[]> r) {
    boolean cut = false;
    byte[] key = r.key();
    byte[] value = r.value();
    Decoded k = shown(decoder.decode(key, r.topic(), true));
    Decoded v = shown(decoder.decode(value, r.topic(), false));
    cut = k != null && k.text() != null && k.text().endsWith(CUT) || v.text() != null && v.text().endsWith(CUT);
    List<Map.Entry<String, String>> headers = new ArrayList<>();
    for (Header h : r.headers()) {
      headers.add(Map.entry(h.key(), headerText(h.value())));
    }
    int size = (key == null ? 0 : key.length) + (value == null ? 0 : value.length);
    return new Message(r.partition(), r.offset(), r.timestamp(), r.timestampType().name, k, v, headers, size, cut);
  }

  static final String CUT = "…[cut]";

  /** A decoded payload cut to what is shown. */
  static Decoded shown(Decoded d) {
    if (d.text() == null || d.text().length() <= SHOWN_BYTES) {
      return d;
    }
    return new Decoded(d.format(), d.text().substring(0, SHOWN_BYTES) + CUT, d.schemaId(), d.schemaType(),
        d.subject(), d.version(), d.note());
  }

  /** A header's value as UTF-8 text, or hex when it is not text; null stays null. */
  static String headerText(byte[] value) {
    if (value == null) {
      return null;
    }
    byte[] shown = value.length > SHOWN_BYTES ? java.util.Arrays.copyOf(value, SHOWN_BYTES) : value;
    try {
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(shown)).toString();
    } catch (CharacterCodingException e) {
      return "0x" + HexFormat.of().formatHex(shown);
    }
  }

  /** Closes the consumers kept between pages. */
  @Override
  public void close() {
    closed = true;
    for (KafkaConsumer<byte[], byte[]> c; (c = idle.poll()) != null; ) {
      c.close(Duration.ZERO);
    }
  }

  private KafkaConsumer<byte[], byte[]> consumer() {
    Map<String, Object> c = cluster.consumerConfig(Map.of(
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false",
        ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false",
        ConsumerConfig.CLIENT_ID_CONFIG, "sluice-console-browser",
        ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "500",
        // A page that reads to a partition's end leaves a fetch at the end in flight; closing the consumer waits for
        // it, and the broker holds such a fetch for fetch.max.wait.ms (500 by default): half a second on every page
        // from the end. A page knows its ends; it never needs a long poll.
        ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "20",
        // One poll is what a read holds: a few MiB, whatever the topic holds.
        ConsumerConfig.FETCH_MAX_BYTES_CONFIG, String.valueOf(8 << 20),
        ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, String.valueOf(1 << 20),
        ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "15000",
        ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, "15000"));
    return new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }
}
