package io.sluice.registry.store;

import io.sluice.schema.ComparisonBudgetExceededException;
import io.sluice.topics.KafkaCluster;
import io.sluice.topics.TopicLog;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
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
  private static final Logger LOG = LoggerFactory.getLogger(KafkaLogStore.class);
  private static final int MAX_ATTEMPTS = 200;

  private final String topic;
  private final TopicPartition partition;
  private final RegistryState state;
  private final long timeoutMs;
  private TopicLog<byte[], byte[]> topicLog;
  private final ReentrantLock writeLock = new ReentrantLock(true);
  private final String node = UUID.randomUUID().toString();
  private final AtomicLong attempts = new AtomicLong();
  private final AtomicLong lostRaces = new AtomicLong();

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

  private KafkaLogStore(String topic, RegistryState state, long timeoutMs) {
    this.topic = topic;
    this.partition = new TopicPartition(topic, 0);
    this.state = state;
    this.timeoutMs = timeoutMs;
  }

  /** Creates the topic if needed, reads it to its end into {@code state}, and keeps following it. */
  public static KafkaLogStore start(String bootstrapServers, String topic, RegistryState state, Duration timeout) {
    return start(KafkaCluster.of(bootstrapServers), topic, state, timeout);
  }

  public static KafkaLogStore start(KafkaCluster cluster, String topic, RegistryState state, Duration timeout) {
    KafkaLogStore store = new KafkaLogStore(topic, state, timeout.toMillis());
    try {
      store.topicLog = TopicLog.builder(cluster, topic, Serdes.ByteArray(), Serdes.ByteArray())
          .describedAs("registry topic").clientId("sluice-registry").timeout(timeout)
          .start(new TopicLog.Reader<>() {
            @Override
            public void apply(ConsumerRecord<byte[], byte[]> r) {
              store.apply(r);
            }

            @Override
            public void reached(TopicPartition partition, long position) {
              // Offsets without a record (transaction markers, compacted records) count as read too.
              state.advanceTo(position);
            }
          });
    } catch (TopicLog.TopicLogException e) {
      throw new StoreException(e.getMessage(), e.timedOut(), e);
    }
    LOG.info("registry log {} read to offset {}", topic, state.nextOffset());
    return store;
  }

  private void apply(ConsumerRecord<byte[], byte[]> r) {
    if (r.value() == null) {
      state.advanceTo(r.offset() + 1);
      return;
    }
    LogCodec.Decoded d;
    try {
      d = LogCodec.decode(r.value());
    } catch (RuntimeException e) {
      LOG.warn("unreadable record at {}@{}: {}", topic, r.offset(), e.toString());
      state.advanceTo(r.offset() + 1);
      return;
    }
    state.apply(r.offset(), d.expectedOffset(), d.event());
  }

  /** Waits until the state holds everything in the log as of now. Call with {@link #writeLock} held or at start. */
  private void catchUp() {
    try {
      topicLog.awaitCaughtUp();
    } catch (TopicLog.TopicLogException e) {
      throw new StoreException(e.getMessage(), e.timedOut(), e);
    }
  }

  private void awaitApplied(long offset) {
    try {
      topicLog.awaitApplied(Map.of(partition, offset));
    } catch (TopicLog.TopicLogException e) {
      throw new StoreException(e.getMessage(), e.timedOut(), e);
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
        LOG.debug("write to {} lost a race (expected offset {}, landed at {}); deciding again", topic, expected[0], landed);
      }
      throw new StoreException("could not order a write in the registry log " + topic + " in time", true, null);
    } finally {
      writeLock.unlock();
    }
  }

  private long append(LogEvent event, long expectedOffset) {
    try {
      return topicLog.append(LogCodec.key(event, node + "-" + expectedOffset + "-" + attempts.get()),
          LogCodec.value(event, expectedOffset)).offset();
    } catch (TopicLog.TopicLogException e) {
      throw new StoreException(e.getMessage(), e.timedOut(), e);
    }
  }

  /** How many records this node appended, including those that lost a race. */
  public long appendAttempts() {
    return attempts.get();
  }

  @Override
  public void close() {
    LOG.info("registry log {}: this node appended {} records, {} of them lost a race and were decided again",
        topic, attempts.get(), lostRaces.get());
    if (topicLog != null) {
      topicLog.close();
    }
  }
}
