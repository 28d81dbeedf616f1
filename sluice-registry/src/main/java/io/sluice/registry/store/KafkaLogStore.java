package io.sluice.registry.store;

import io.sluice.registry.schema.ComparisonBudgetExceededException;
import io.sluice.topics.CompactedTopic;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The registry's log: a compacted single-partition topic that every node reads to its end into a
 * {@link RegistryState}, and the only place writes are ordered.
 *
 * <p>A write is optimistic: the node reads the log to its end, decides against its state at offset {@code E}, and
 * appends the event stamped {@code expectedOffset = E}. The event takes effect only if it lands at offset {@code E},
 * that is, if nothing was appended in between; every node applies that same rule to the same record. A writer whose
 * record landed later lost a race: its record is ignored by everyone, and it reads the winner's record and decides
 * again (the same schema may now already have an id). So no two nodes hand out one id for two schemas, nor two ids for
 * one schema, and no election or forwarding is needed. Writes of one node are serialised locally so that its own
 * threads do not race each other.
 */
public final class KafkaLogStore implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(KafkaLogStore.class);
  private static final int MAX_ATTEMPTS = 200;

  private final String topic;
  private final TopicPartition partition;
  private final RegistryState state;
  private final long timeoutMs;
  private final KafkaProducer<byte[], byte[]> producer;
  private final KafkaConsumer<byte[], byte[]> offsets;
  private final KafkaConsumer<byte[], byte[]> reader;
  private final Thread readerThread;
  private final ReentrantLock writeLock = new ReentrantLock(true);
  private final String node = UUID.randomUUID().toString();
  private final AtomicLong attempts = new AtomicLong();
  private final AtomicLong lostRaces = new AtomicLong();
  private volatile boolean running = true;
  private volatile Throwable readerFailure;

  /** A decision taken against the state: an event to append (or none: nothing to change) and the caller's answer. */
  public record Decision<T>(LogEvent event, T result) {
    public static <T> Decision<T> noChange(T result) {
      return new Decision<>(null, result);
    }
  }

  /** The log could not be read or written in time. */
  public static final class StoreException extends RuntimeException {
    public final boolean timeout;

    StoreException(String message, boolean timeout, Throwable cause) {
      super(message, cause);
      this.timeout = timeout;
    }
  }

  private KafkaLogStore(String bootstrapServers, String topic, RegistryState state, long timeoutMs) {
    this.topic = topic;
    this.partition = new TopicPartition(topic, 0);
    this.state = state;
    this.timeoutMs = timeoutMs;
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) Math.max(timeoutMs, 1000));
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.min(timeoutMs, 30_000));
    p.put(ProducerConfig.CLIENT_ID_CONFIG, "sluice-registry-producer-" + node);
    this.producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    this.offsets = consumer(bootstrapServers, "offsets");
    this.reader = consumer(bootstrapServers, "reader");
    this.readerThread = new Thread(this::readLoop, "sluice-registry-log-" + topic);
    readerThread.setDaemon(true);
  }

  private KafkaConsumer<byte[], byte[]> consumer(String bootstrapServers, String role) {
    Properties c = new Properties();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100);
    c.put(ConsumerConfig.CLIENT_ID_CONFIG, "sluice-registry-" + role + "-" + node);
    return new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  /** Creates the topic if needed, reads it to its end into {@code state}, and keeps following it. */
  public static KafkaLogStore start(String bootstrapServers, String topic, RegistryState state, Duration timeout) {
    ensureTopic(bootstrapServers, topic, timeout);
    KafkaLogStore store = new KafkaLogStore(bootstrapServers, topic, state, timeout.toMillis());
    try {
      store.reader.assign(List.of(store.partition));
      store.reader.seekToBeginning(List.of(store.partition));
      store.readerThread.start();
      store.catchUp();
      log.info("registry log {} read to offset {}", topic, state.nextOffset());
      return store;
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
  }

  private static void ensureTopic(String bootstrapServers, String topic, Duration timeout) {
    try {
      CompactedTopic.ensure(bootstrapServers, topic, "registry topic", timeout);
    } catch (CompactedTopic.TopicException e) {
      throw new StoreException(e.getMessage(), e.timedOut(), e);
    }
  }

  private void readLoop() {
    try {
      while (running) {
        ConsumerRecords<byte[], byte[]> records = reader.poll(Duration.ofMillis(500));
        for (ConsumerRecord<byte[], byte[]> r : records) {
          if (r.value() == null) {
            state.advanceTo(r.offset() + 1);
            continue;
          }
          LogCodec.Decoded d;
          try {
            d = LogCodec.decode(r.value());
          } catch (RuntimeException e) {
            log.warn("unreadable record at {}@{}: {}", topic, r.offset(), e.toString());
            state.advanceTo(r.offset() + 1);
            continue;
          }
          state.apply(r.offset(), d.expectedOffset(), d.event());
        }
        // Offsets the consumer skipped (transaction markers, compacted records) count as read too.
        state.advanceTo(reader.position(partition));
      }
    } catch (WakeupException e) {
      if (running) {
        readerFailure = e;
      }
    } catch (Throwable e) {
      readerFailure = e;
      log.error("registry log reader for {} stopped", topic, e);
    }
  }

  private long endOffset() {
    return offsets.endOffsets(List.of(partition), Duration.ofMillis(timeoutMs)).get(partition);
  }

  /** Waits until the state holds everything in the log as of now. Call with {@link #writeLock} held or at start. */
  private void catchUp() {
    awaitApplied(endOffset());
  }

  private void awaitApplied(long offset) {
    try {
      if (readerFailure != null) {
        throw new StoreException("registry log reader failed: " + readerFailure, false, readerFailure);
      }
      if (!state.awaitApplied(offset, timeoutMs)) {
        throw new StoreException("timed out reading the registry log " + topic + " to offset " + offset, true, null);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreException("interrupted", false, e);
    }
  }

  /**
   * Reads the log to its end, asks {@code decide} what to do against that state, and appends the resulting event so
   * that it takes effect only against that same state; on a lost race, decides again. Exceptions {@code decide}
   * throws (a rejected request) leave the log untouched.
   */
  public <T> T write(Function<RegistryState, Decision<T>> decide) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    try {
      if (!writeLock.tryLock(timeoutMs, TimeUnit.MILLISECONDS)) {
        throw new StoreException("timed out waiting for this node's earlier writes", true, null);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreException("interrupted", false, e);
    }
    try {
      // The first attempt decides against what this node has read so far, without asking Kafka where the log ends:
      // an event decided against a stale state lands after its expected offset and is ignored, so staleness costs a
      // retry, never a wrong answer. An answer that appends nothing (no change, or a refusal) is only given after
      // reading the log to its end, so a node never refuses what another node has just made valid.
      boolean caughtUp = false;
      for (int attempt = 0; attempt < MAX_ATTEMPTS && System.nanoTime() < deadline; attempt++) {
        if (attempt > 0) {
          catchUp();
          caughtUp = true;
        }
        long[] expected = new long[1];
        Decision<T> decision;
        try {
          decision = state.read(() -> {
            expected[0] = state.nextOffset();
            return decide.apply(state);
          });
        } catch (RuntimeException e) {
          // A comparison that ran out of its budget would only run out again: answer it now instead of holding this
          // node's writes for a second budget.
          if (caughtUp || e instanceof ComparisonBudgetExceededException) {
            throw e;
          }
          continue;
        }
        if (decision.event() == null) {
          if (caughtUp) {
            return decision.result();
          }
          continue;
        }
        attempts.incrementAndGet();
        long landed = append(decision.event(), expected[0]);
        awaitApplied(landed + 1);
        if (landed == expected[0]) {
          return decision.result();
        }
        lostRaces.incrementAndGet();
        log.debug("write to {} lost a race (expected offset {}, landed at {}); deciding again", topic, expected[0], landed);
      }
      throw new StoreException("could not order a write in the registry log " + topic + " in time", true, null);
    } finally {
      writeLock.unlock();
    }
  }

  private long append(LogEvent event, long expectedOffset) {
    ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic, 0,
        LogCodec.key(event, node + "-" + expectedOffset + "-" + attempts.get()), LogCodec.value(event, expectedOffset));
    try {
      RecordMetadata m = producer.send(record).get(timeoutMs, TimeUnit.MILLISECONDS);
      return m.offset();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreException("interrupted", false, e);
    } catch (ExecutionException e) {
      throw new StoreException("cannot write to the registry log " + topic + ": " + e.getCause(), false, e.getCause());
    } catch (TimeoutException e) {
      throw new StoreException("timed out writing to the registry log " + topic, true, e);
    }
  }

  /** How many records this node appended, including those that lost a race. */
  public long appendAttempts() {
    return attempts.get();
  }

  @Override
  public void close() {
    log.info("registry log {}: this node appended {} records, {} of them lost a race and were decided again",
        topic, attempts.get(), lostRaces.get());
    running = false;
    reader.wakeup();
    try {
      readerThread.join(TimeUnit.MILLISECONDS.toMillis(Math.min(timeoutMs, 10_000)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (!readerThread.isAlive()) {
      closeQuietly(reader);
    }
    closeQuietly(offsets);
    closeQuietly(producer);
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception e) {
      log.debug("closing {} failed", c, e);
    }
  }
}
