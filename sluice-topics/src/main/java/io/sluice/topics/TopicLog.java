package io.sluice.topics;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Serde;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A topic read from its beginning to its end, then followed: the one way Sluice keeps state in Kafka. Every record
 * reaches the {@link Reader} once, in offset order per partition, on one thread; {@link #append} waits until Kafka has
 * the record, {@link #appendAndWait} until the reader has applied it, and {@link #awaitCaughtUp} until the reader has
 * applied everything the topic held when it was called, so a node answers only from a state that includes every write
 * acknowledged before the question.
 *
 * <pre>{@code
 * TopicLog<String, byte[]> log = TopicLog.builder(bootstrap, "sluice-alerts-state", Serdes.String(), Serdes.ByteArray())
 *     .describedAs("alert router state topic").start(record -> state.put(record.key(), record.value()));
 * log.appendAndWait("silences", bytes);
 * }</pre>
 *
 * <p>Faults the follower cannot ride out end it with a {@link TopicLogException} that every later call rethrows: the
 * topic deleted under it, or a reader that threw. A broker that restarts is ridden out: the clients reconnect, and
 * calls wait up to their timeout.
 */
public final class TopicLog<K, V> implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TopicLog.class);
  /** How often the follower checks that its topic still exists while nothing arrives. */
  private static final long TOPIC_CHECK_MS = 5_000;

  /** Takes the records of the topic; called on the follower thread only. */
  @FunctionalInterface
  public interface Reader<K, V> {
    void apply(ConsumerRecord<K, V> record);

    /**
     * Everything below {@code position} of the partition has been read, including offsets that hold no record for
     * the reader (transaction markers, compacted-away records).
     */
    default void reached(TopicPartition partition, long position) {}
  }

  /** The log cannot be read or written; {@link #timedOut()} when Kafka did not answer in time. */
  public static final class TopicLogException extends IllegalStateException {
    private final boolean timedOut;

    TopicLogException(String message, boolean timedOut, Throwable cause) {
      super(message, cause);
      this.timedOut = timedOut;
    }

    public boolean timedOut() {
      return timedOut;
    }
  }

  private final String topic;
  private final String what;
  private final Duration timeout;
  private final Reader<K, V> reader;
  private final KafkaProducer<K, V> producer;
  private final KafkaConsumer<K, V> follower;
  /** Asks where the topic ends; the follower's consumer belongs to its thread. */
  private final KafkaConsumer<K, V> ends;
  private final Map<TopicPartition, Long> applied = new HashMap<>();
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition progressed = lock.newCondition();
  private final Thread thread;
  private volatile boolean running = true;
  private volatile TopicLogException failure;
  /** Failed {@link #appendLater} writes since the last that succeeded. */
  private final AtomicInteger laterFailures = new AtomicInteger();

  private TopicLog(Builder<K, V> b, Reader<K, V> reader) {
    this.topic = b.topic;
    this.what = b.what;
    this.timeout = b.timeout;
    this.reader = reader;
    String id = b.clientId + "-" + UUID.randomUUID().toString().substring(0, 8);
    Properties p = new Properties();
    p.putAll(b.cluster.clientConfig());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) Math.max(timeout.toMillis(), 1000));
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.min(Math.max(timeout.toMillis(), 1000), 30_000));
    p.put(ProducerConfig.CLIENT_ID_CONFIG, id + "-writer");
    this.producer = new KafkaProducer<>(p, b.keys.serializer(), b.values.serializer());
    this.follower = consumer(b, id + "-follower");
    this.ends = consumer(b, id + "-ends");
    this.thread = new Thread(this::follow, "sluice-topic-log-" + topic);
    thread.setDaemon(true);
  }

  private static <K, V> KafkaConsumer<K, V> consumer(Builder<K, V> b, String clientId) {
    Properties c = new Properties();
    c.putAll(b.cluster.clientConfig());
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100);
    c.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
    // A deleted topic must stay deleted: asking for its metadata must not create it again, empty.
    c.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    return new KafkaConsumer<>(c, b.keys.deserializer(), b.values.deserializer());
  }

  public static <K, V> Builder<K, V> builder(String bootstrapServers, String topic, Serde<K> keys, Serde<V> values) {
    return new Builder<>(KafkaCluster.of(bootstrapServers), topic, keys, values);
  }

  public static <K, V> Builder<K, V> builder(KafkaCluster cluster, String topic, Serde<K> keys, Serde<V> values) {
    return new Builder<>(cluster, topic, keys, values);
  }

  public static final class Builder<K, V> {
    private final KafkaCluster cluster;
    private final String topic;
    private final Serde<K> keys;
    private final Serde<V> values;
    private String what = "topic";
    private String clientId = "sluice-topic-log";
    private Duration timeout = Duration.ofSeconds(30);
    private boolean create = true;

    private Builder(KafkaCluster cluster, String topic, Serde<K> keys, Serde<V> values) {
      this.cluster = cluster;
      this.topic = topic;
      this.keys = keys;
      this.values = values;
    }

    /** What the topic is, for errors and logs: "registry topic". */
    public Builder<K, V> describedAs(String what) {
      this.what = what;
      return this;
    }

    public Builder<K, V> clientId(String clientId) {
      this.clientId = clientId;
      return this;
    }

    /** How long a call waits for Kafka or for the follower before it fails. */
    public Builder<K, V> timeout(Duration timeout) {
      this.timeout = timeout;
      return this;
    }

    /**
     * Whether {@link #start} creates the topic when it is missing, as a compacted single-partition topic
     * ({@link CompactedTopic#ensure}); otherwise a missing topic is an error.
     */
    public Builder<K, V> createIfMissing(boolean create) {
      this.create = create;
      return this;
    }

    /** Checks (or creates) the topic, reads it to its end into {@code reader}, and keeps following it. */
    public TopicLog<K, V> start(Reader<K, V> reader) {
      if (create) {
        try {
          CompactedTopic.ensure(cluster, topic, what, timeout);
        } catch (CompactedTopic.TopicException e) {
          throw new TopicLogException(e.getMessage(), e.timedOut(), e);
        }
      }
      TopicLog<K, V> log = new TopicLog<>(this, reader);
      try {
        return log.begin(create);
      } catch (RuntimeException e) {
        log.close();
        throw e;
      }
    }
  }

  private TopicLog<K, V> begin(boolean justEnsured) {
    List<TopicPartition> assigned = partitionsOf(ends);
    // A topic just created reaches every broker's metadata a moment after the controller accepted it; on a cluster
    // of several, the broker this client asks may not know it yet.
    long deadline = System.nanoTime() + timeout.toNanos();
    while (assigned.isEmpty() && justEnsured && System.nanoTime() < deadline) {
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      assigned = partitionsOf(ends);
    }
    if (assigned.isEmpty()) {
      throw new TopicLogException(what + " " + topic + " does not exist", false, null);
    }
    follower.assign(assigned);
    follower.seekToBeginning(assigned);
    // Never polled; assigned only so that its end-offset lookups update the partitions' state instead of warning.
    synchronized (ends) {
      ends.assign(assigned);
    }
    lock.lock();
    try {
      assigned.forEach(tp -> applied.put(tp, 0L));
    } finally {
      lock.unlock();
    }
    thread.start();
    awaitCaughtUp();
    log.info("{} {} read to its end ({})", what, topic, positions());
    return this;
  }

  private List<TopicPartition> partitionsOf(KafkaConsumer<K, V> consumer) {
    List<PartitionInfo> infos;
    synchronized (consumer) {
      infos = consumer.partitionsFor(topic, timeout);
    }
    return infos == null ? List.of() : infos.stream().map(p -> new TopicPartition(topic, p.partition())).toList();
  }

  public String topic() {
    return topic;
  }

  /** Per partition, the offset below which every record has been applied. */
  public Map<TopicPartition, Long> positions() {
    lock.lock();
    try {
      return Map.copyOf(applied);
    } finally {
      lock.unlock();
    }
  }

  private void follow() {
    long lastCheck = System.nanoTime();
    boolean unreachable = false;
    try {
      while (running) {
        try {
          boolean checkDue = System.nanoTime() - lastCheck > TimeUnit.MILLISECONDS.toNanos(TOPIC_CHECK_MS);
          if (followOnce(checkDue)) {
            lastCheck = System.nanoTime();
          }
          if (unreachable) {
            unreachable = false;
            log.warn("{} {}: Kafka answers again; following it", what, topic);
          }
        } catch (org.apache.kafka.common.errors.RetriableException e) {
          // A broker restarting, or every broker out of reach for a while: the node keeps serving what it has read and
          // reads on once Kafka answers, instead of failing for good (a control plane outlives its data plane).
          if (!unreachable) {
            unreachable = true;
            log.warn("{} {}: Kafka does not answer ({}); serving what was read and retrying", what, topic,
                e.toString());
          }
        }
        if (failure != null) {
          return;
        }
      }
    } catch (WakeupException e) {
      if (running) {
        fail(new TopicLogException(what + " " + topic + ": follower woken up", false, e));
      }
    } catch (RuntimeException | Error e) {
      fail(new TopicLogException("stopped following " + what + " " + topic + ": " + e, false, e));
    }
  }

  /**
   * One poll, applied; when {@code checkDue} and the topic is quiet, a check that it still exists (asked briefly: an
   * unanswered check is retried, and must not hold the follower up once Kafka is back). True when it checked.
   */
  private boolean followOnce(boolean checkDue) {
    var records = follower.poll(Duration.ofMillis(500));
    for (ConsumerRecord<K, V> r : records) {
      reader.apply(r);
    }
    Map<TopicPartition, Long> now = new HashMap<>();
    for (TopicPartition tp : follower.assignment()) {
      long position = follower.position(tp, timeout);
      reader.reached(tp, position);
      now.put(tp, position);
    }
    lock.lock();
    try {
      applied.putAll(now);
      progressed.signalAll();
    } finally {
      lock.unlock();
    }
    if (!records.isEmpty() || !checkDue) {
      return false;
    }
    if (follower.partitionsFor(topic, Duration.ofSeconds(5)).isEmpty()) {
      fail(new TopicLogException(what + " " + topic + " was deleted while this node followed it; "
          + "restart the node to create it again", false, null));
    }
    return true;
  }

  private void fail(TopicLogException e) {
    failure = e;
    log.error("{}", e.getMessage(), e.getCause());
    lock.lock();
    try {
      progressed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private void checkHealthy() {
    TopicLogException f = failure;
    if (f != null) {
      throw new TopicLogException(f.getMessage(), f.timedOut(), f);
    }
  }

  /** Waits until the reader has applied everything the topic holds now. */
  public void awaitCaughtUp() {
    long deadline = System.nanoTime() + timeout.toNanos();
    Map<TopicPartition, Long> end = null;
    // Asked in short rounds: where a topic was deleted the question is never answered, and the follower's finding
    // (said within TOPIC_CHECK_MS) is the clearer error.
    while (end == null) {
      checkHealthy();
      try {
        synchronized (ends) {
          end = ends.endOffsets(partitions(), Duration.ofSeconds(1));
        }
      } catch (org.apache.kafka.common.errors.TimeoutException e) {
        if (System.nanoTime() > deadline) {
          throw new TopicLogException("Kafka did not say within " + timeout + " where " + what + " " + topic
              + " ends", true, e);
        }
      }
    }
    awaitApplied(end);
  }

  private List<TopicPartition> partitions() {
    lock.lock();
    try {
      return List.copyOf(applied.keySet());
    } finally {
      lock.unlock();
    }
  }

  /** Waits until the reader has applied every offset below the given ones. */
  public void awaitApplied(Map<TopicPartition, Long> offsets) {
    long deadline = System.nanoTime() + timeout.toNanos();
    lock.lock();
    try {
      while (!reached(offsets)) {
        checkHealthy();
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new TopicLogException("timed out after " + timeout + " reading " + what + " " + topic + " to "
              + offsets + " (read to " + applied + ")", true, null);
        }
        progressed.awaitNanos(left);
      }
      checkHealthy();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TopicLogException("interrupted reading " + what + " " + topic, false, e);
    } finally {
      lock.unlock();
    }
  }

  private boolean reached(Map<TopicPartition, Long> offsets) {
    for (Map.Entry<TopicPartition, Long> e : offsets.entrySet()) {
      if (applied.getOrDefault(e.getKey(), 0L) < e.getValue()) {
        return false;
      }
    }
    return true;
  }

  /** Appends a record to partition 0 and waits until Kafka has it (all in-sync replicas); returns where it landed. */
  public RecordMetadata append(K key, V value) {
    return append(new ProducerRecord<>(topic, 0, key, value));
  }

  /** Appends a record with headers to partition 0; see {@link #append(Object, Object)}. */
  public RecordMetadata append(K key, V value, Headers headers) {
    return append(new ProducerRecord<>(topic, 0, key, value, headers));
  }

  private RecordMetadata append(ProducerRecord<K, V> record) {
    checkHealthy();
    try {
      return producer.send(record).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TopicLogException("interrupted writing to " + what + " " + topic, false, e);
    } catch (ExecutionException e) {
      throw new TopicLogException("cannot write to " + what + " " + topic + ": " + e.getCause(), false, e.getCause());
    } catch (TimeoutException e) {
      throw new TopicLogException("timed out after " + timeout + " writing to " + what + " " + topic, true, e);
    }
  }

  /** Appends a record and waits until the reader has applied it; returns where it landed. */
  public RecordMetadata appendAndWait(K key, V value) {
    RecordMetadata m = append(key, value);
    awaitApplied(Map.of(new TopicPartition(topic, m.partition()), m.offset() + 1));
    return m;
  }

  /**
   * Appends without waiting a record that is rewritten on a timer (a heartbeat), so that the next write makes up for a
   * lost one. A failure is not thrown but logged: the first of a row at WARN, with its cause and {@code meaning} (what
   * it does to the cluster when the writes keep failing), and the first success after it at INFO.
   */
  public void appendLater(K key, V value, Headers headers, String meaning) {
    TopicLogException f = failure;
    if (f != null) {
      laterFailed(f, meaning);
      return;
    }
    try {
      producer.send(new ProducerRecord<>(topic, 0, key, value, headers), (m, e) -> {
        if (e != null) {
          laterFailed(e, meaning);
        } else {
          int failed = laterFailures.getAndSet(0);
          if (failed > 0) {
            log.info("writing to {} {} again, after {} failed write(s)", what, topic, failed);
          }
        }
      });
    } catch (RuntimeException e) {
      laterFailed(e, meaning);
    }
  }

  private void laterFailed(Exception e, String meaning) {
    if (laterFailures.getAndIncrement() == 0) {
      log.warn("cannot write to {} {}: {}; {} (said once until a write succeeds again)", what, topic, e.getMessage(),
          meaning);
    }
  }

  @Override
  public void close() {
    running = false;
    follower.wakeup();
    if (thread.isAlive()) {
      try {
        thread.join(Math.min(timeout.toMillis(), 10_000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (!thread.isAlive()) {
      quietly(() -> follower.close(Duration.ofSeconds(5)));
    }
    synchronized (ends) {
      quietly(() -> ends.close(Duration.ofSeconds(5)));
    }
    quietly(() -> producer.close(Duration.ofSeconds(5)));
  }

  private static void quietly(Runnable close) {
    try {
      close.run();
    } catch (RuntimeException e) {
      log.debug("closing a client of a topic log failed", e);
    }
  }
}
