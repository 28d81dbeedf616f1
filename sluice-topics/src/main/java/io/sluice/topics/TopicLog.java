package io.sluice.topics;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
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
 * calls wait up to their timeout. Where a node only reads a topic, {@link Builder#follow} gives the follower alone
 * ({@link TopicFollower}).
 */
public final class TopicLog<K, V> implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TopicLog.class);

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
  private final KafkaProducer<K, V> producer;
  private final TopicFollower<K, V> follower;
  /** Failed {@link #appendLater} writes since the last that succeeded. */
  private final AtomicInteger laterFailures = new AtomicInteger();

  private TopicLog(Builder<K, V> b, Reader<K, V> reader) {
    this.topic = b.topic;
    this.what = b.what;
    this.timeout = b.timeout;
    String id = b.uniqueClientId();
    Properties p = new Properties();
    p.putAll(b.cluster.clientConfig());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) Math.max(timeout.toMillis(), 1000));
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.min(Math.max(timeout.toMillis(), 1000), 30_000));
    p.put(ProducerConfig.CLIENT_ID_CONFIG, id + "-writer");
    this.producer = new KafkaProducer<>(p, b.keys.serializer(), b.values.serializer());
    this.follower = b.follower(id, reader);
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
    private final Map<String, String> settings = new java.util.LinkedHashMap<>();

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

    /**
     * A topic setting {@link #start} gives the topic when it creates it ({@code segment.ms} for a topic rewritten
     * often); an existing topic keeps its own.
     */
    public Builder<K, V> topicSetting(String key, String value) {
      settings.put(key, value);
      return this;
    }

    /** Kafka registers a client's metrics under its id: two logs of one process must not share one. */
    private String uniqueClientId() {
      return clientId + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private TopicFollower<K, V> follower(String clientId, Reader<K, V> reader) {
      return new TopicFollower<>(cluster, topic, what, timeout, clientId, keys.deserializer(), values.deserializer(),
          reader);
    }

    /**
     * Follows the topic into {@code reader} without writing to it, and returns at once: for a topic someone else
     * creates (Connect's status topic), which is never created here. Until the topic exists the follower asks every
     * second, and while Kafka does not answer it retries, before the topic is found as after.
     */
    public TopicFollower<K, V> follow(Reader<K, V> reader) {
      TopicFollower<K, V> follower = follower(uniqueClientId(), reader);
      follower.beginWhenPresent();
      return follower;
    }

    /** Checks (or creates) the topic, reads it to its end into {@code reader}, and keeps following it. */
    public TopicLog<K, V> start(Reader<K, V> reader) {
      if (create) {
        try {
          CompactedTopic.ensure(cluster, topic, what, timeout, settings);
        } catch (CompactedTopic.TopicException e) {
          throw new TopicLogException(e.getMessage(), e.timedOut(), e);
        }
      }
      TopicLog<K, V> log = new TopicLog<>(this, reader);
      try {
        log.follower.begin(create);
        return log;
      } catch (RuntimeException e) {
        log.close();
        throw e;
      }
    }
  }

  public String topic() {
    return topic;
  }

  /** Per partition, the offset below which every record has been applied. */
  public Map<TopicPartition, Long> positions() {
    return follower.positions();
  }

  /** Waits until the reader has applied everything the topic holds now. */
  public void awaitCaughtUp() {
    follower.awaitCaughtUp();
  }

  /** Waits until the reader has applied every offset below the given ones. */
  public void awaitApplied(Map<TopicPartition, Long> offsets) {
    follower.awaitApplied(offsets);
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
    follower.checkHealthy();
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

  /** Where one record of {@link #appendAll} landed, or why it did not: exactly one of the two is set. */
  public record Appended(RecordMetadata metadata, TopicLogException failure) {}

  /**
   * Appends records to partition 0 in this order without waiting between them, so that the producer carries them in
   * as few requests as it can (one round trip for many writes), then waits until Kafka has each. The idempotent
   * producer keeps them in order; each one's outcome is in the answer, in the same order. A failure of one does not
   * stop the others from being tried, so a caller that needs all-or-nothing checks where each landed.
   */
  public List<Appended> appendAll(List<Map.Entry<K, V>> records) {
    follower.checkHealthy();
    List<Future<RecordMetadata>> sent = new ArrayList<>(records.size());
    List<Appended> out = new ArrayList<>(records.size());
    for (Map.Entry<K, V> r : records) {
      try {
        sent.add(producer.send(new ProducerRecord<>(topic, 0, r.getKey(), r.getValue())));
      } catch (RuntimeException e) {
        sent.add(CompletableFuture.failedFuture(e));
      }
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    for (Future<RecordMetadata> f : sent) {
      try {
        out.add(new Appended(f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS), null));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        out.add(new Appended(null, new TopicLogException("interrupted writing to " + what + " " + topic, false, e)));
      } catch (ExecutionException e) {
        out.add(new Appended(null, new TopicLogException("cannot write to " + what + " " + topic + ": " + e.getCause(),
            false, e.getCause())));
      } catch (TimeoutException e) {
        out.add(new Appended(null, new TopicLogException("timed out after " + timeout + " writing to " + what + " "
            + topic, true, e)));
      }
    }
    return out;
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
    TopicLogException f = follower.failure();
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
    follower.close();
    TopicFollower.quietly(() -> producer.close(Duration.ofSeconds(5)));
  }
}
