package io.sluice.registry.store;

import io.sluice.schema.ComparisonBudgetExceededException;
import io.sluice.topics.KafkaCluster;
import io.sluice.topics.TopicLog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
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
 * one schema, and no election or forwarding is needed.
 *
 * <p>Writes of one node go through one writer thread, so its own requests never race each other, and are committed in
 * groups (group commit): the writes waiting when the previous append returns that touch nothing in common (different
 * subjects, different schemas) are decided together against one state, each seeing the ids the earlier ones took, and
 * their records appended in one burst stamped {@code E, E+1, ...}. Each record after the group's first takes effect
 * only if it lands at its offset right behind the group's previous record, taken effect ({@link RegistryState#apply}),
 * so a group takes effect as a prefix and the rest is decided again. One round trip to Kafka then answers many
 * writes, where one write at a time waited for its own.
 */
public final class KafkaLogStore implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaLogStore.class);
  private static final int MAX_ATTEMPTS = 200;
  /** Writes decided and appended together at most; the registry's HTTP server runs 64 requests at once. */
  private static final int MAX_GROUP = 64;

  private final String topic;
  private final TopicPartition partition;
  private final RegistryState state;
  private final long timeoutMs;
  private TopicLog<byte[], byte[]> topicLog;
  private final String node = UUID.randomUUID().toString();
  private final AtomicLong attempts = new AtomicLong();
  private final AtomicLong lostRaces = new AtomicLong();
  private final AtomicLong batches = new AtomicLong();
  /** Writes waiting for the writer thread, by arrival; guarded by itself. */
  private final TreeMap<Long, Pending<?>> queue = new TreeMap<>();
  private long arrivals;
  private boolean closed;
  private final Thread writer;

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
    this.writer = new Thread(this::writeLoop, "sluice-registry-writer-" + topic);
    writer.setDaemon(true);
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
    store.writer.start();
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
    state.apply(r.offset(), d.expectedOffset(), d.batch(), d.batchIndex(), d.event());
  }

  /** Waits until the state holds everything in the log as of now. */
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
   * throws (a rejected request) leave the log untouched. The write goes alone: no other write shares its group.
   */
  public <T> T write(Function<RegistryState, Decision<T>> decide) {
    return writeAlone(draft -> decide.apply(draft.state()));
  }

  /** As {@link #write(Function)}, for a decision that takes new ids ({@link Draft#newId}). */
  public <T> T writeAlone(Function<Draft, Decision<T>> decide) {
    return submit(null, decide);
  }

  /**
   * As {@link #write(Function)}, for a write that touches only what {@code claims} name (subjects, schemas: any values
   * with equality): it may be decided together with other writes whose claims are disjoint from its own and appended
   * with them in one round trip. Each decision sees the state as the log has it and takes new ids through
   * {@link Draft#newId}, which counts the ids the group's earlier decisions took. Writes whose claims meet are decided
   * one after the other in the order they came, so a subject's versions keep the order of their requests.
   */
  public <T> T write(Set<?> claims, Function<Draft, Decision<T>> decide) {
    return submit(Set.copyOf(claims), decide);
  }

  /**
   * The state a decision is taken against, plus what the decisions before it in its group took: the group's records
   * take effect in order or not at all past the first that fails, so this is the state each record will meet.
   */
  public static final class Draft {
    private final RegistryState state;
    private int idsTaken;
    private int idsTakenNow;

    private Draft(RegistryState state) {
      this.state = state;
    }

    public RegistryState state() {
      return state;
    }

    /** An id no schema has: above every id in the log and every id an earlier decision of the group took. */
    public int newId() {
      return state.maxId() + 1 + idsTaken + idsTakenNow++;
    }

    /** The decision appends its event: the ids it took stay taken for those after it. */
    private void keep() {
      idsTaken += idsTakenNow;
      idsTakenNow = 0;
    }

    /** The decision appends nothing: the ids it asked for go back. */
    private void discard() {
      idsTakenNow = 0;
    }
  }

  private <T> T submit(Set<Object> claims, Function<Draft, Decision<T>> decide) {
    Pending<T> p = new Pending<>(claims, decide, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs));
    synchronized (queue) {
      if (closed) {
        throw new StoreException("the registry log " + topic + " is closed", false, null);
      }
      p.seq = arrivals++;
      queue.put(p.seq, p);
      queue.notifyAll();
    }
    try {
      // The writer thread answers every write by its deadline; the margin covers a round trip under way then.
      return p.answer.get(timeoutMs + 5_000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      StoreException interrupted = new StoreException("interrupted", false, e);
      p.fail(interrupted);
      throw interrupted;
    } catch (TimeoutException e) {
      StoreException timedOut = new StoreException("timed out waiting for this node's earlier writes", true, null);
      p.fail(timedOut);
      throw timedOut;
    } catch (ExecutionException e) {
      // What the decision threw (a refusal, or a checker's StackOverflowError) goes to the caller as it was.
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw new StoreException(String.valueOf(e.getCause()), false, e.getCause());
    }
  }

  /** A write waiting for its turn: what it touches (null: everything), how to decide it, and its answer. */
  private static final class Pending<T> {
    final Set<Object> claims;
    final Function<Draft, Decision<T>> decide;
    final long deadline;
    final CompletableFuture<T> answer = new CompletableFuture<>();
    long seq;
    int attempts;
    /** Decided against a state read only as far as this node had got: decide again on the log read to its end. */
    boolean needsCatchUp;
    Decision<T> decision;
    long expectedOffset;

    Pending(Set<Object> claims, Function<Draft, Decision<T>> decide, long deadline) {
      this.claims = claims;
      this.decide = decide;
      this.deadline = deadline;
    }

    void decide(Draft draft) {
      decision = decide.apply(draft);
    }

    void answer() {
      answer.complete(decision.result());
    }

    void fail(Throwable e) {
      answer.completeExceptionally(e);
    }
  }

  /** The writer thread: takes the next group of writes and commits it, until closed. */
  private void writeLoop() {
    while (true) {
      List<Pending<?>> group;
      try {
        group = nextGroup();
      } catch (InterruptedException e) {
        return;
      }
      if (group == null) {
        return;
      }
      try {
        commit(group);
      } catch (Throwable e) {
        // The log cannot be read or written: every write of the group answers so (those answered already keep it),
        // and the thread goes on with the next group.
        for (Pending<?> p : group) {
          p.fail(e);
        }
      }
    }
  }

  /**
   * The oldest waiting writes, in the order they came, that touch nothing in common: a write whose claims meet those
   * of a write taken or passed over waits for a later group, so two writes to one subject never swap places. A write
   * that claims everything goes alone, and nothing after it goes before it. Null once closed.
   */
  private List<Pending<?>> nextGroup() throws InterruptedException {
    synchronized (queue) {
      while (queue.isEmpty() && !closed) {
        queue.wait();
      }
      if (closed) {
        return null;
      }
      List<Pending<?>> group = new ArrayList<>();
      Set<Object> touched = new HashSet<>();
      for (Iterator<Pending<?>> it = queue.values().iterator(); it.hasNext() && group.size() < MAX_GROUP; ) {
        Pending<?> p = it.next();
        if (p.answer.isDone()) {
          it.remove();
          continue;
        }
        if (p.claims == null) {
          if (group.isEmpty()) {
            it.remove();
            group.add(p);
          }
          break;
        }
        boolean free = Collections.disjoint(p.claims, touched);
        touched.addAll(p.claims);
        if (free) {
          it.remove();
          group.add(p);
        }
      }
      return group;
    }
  }

  /**
   * Decides every write of the group against one state and appends their events in one burst, each stamped with the
   * offset it must land at. A write's first decision is taken against what this node has read so far, without asking
   * Kafka where the log ends: an event decided against a stale state lands after its expected offset and is ignored,
   * so staleness costs a retry, never a wrong answer. An answer that appends nothing (no change, or a refusal) is only
   * given after reading the log to its end, so a node never refuses what another node has just made valid. Writes to
   * decide again go back to the queue in their places.
   */
  private void commit(List<Pending<?>> group) {
    List<Pending<?>> live = new ArrayList<>();
    long now = System.nanoTime();
    for (Pending<?> p : group) {
      if (p.attempts >= MAX_ATTEMPTS || now > p.deadline) {
        p.fail(new StoreException("could not order a write in the registry log " + topic + " in time", true, null));
      } else {
        live.add(p);
      }
    }
    boolean caughtUp = live.stream().anyMatch(p -> p.needsCatchUp);
    if (caughtUp) {
      catchUp();
    }
    List<Pending<?>> appending = new ArrayList<>();
    List<Pending<?>> answered = new ArrayList<>();
    List<Pending<?>> again = new ArrayList<>();
    state.read(() -> {
      long start = state.nextOffset();
      Draft draft = new Draft(state);
      for (Pending<?> p : live) {
        p.attempts++;
        try {
          p.decide(draft);
        } catch (RuntimeException | StackOverflowError e) {
          draft.discard();
          // A comparison that ran out of its budget (or of stack) would only run out again: answer it now instead of
          // holding this node's writes for a second try.
          if (caughtUp || !(e instanceof RuntimeException) || e instanceof ComparisonBudgetExceededException) {
            p.fail(e);
          } else {
            p.needsCatchUp = true;
            again.add(p);
          }
          continue;
        }
        if (p.decision.event() == null) {
          draft.discard();
          if (caughtUp) {
            answered.add(p);
          } else {
            p.needsCatchUp = true;
            again.add(p);
          }
          continue;
        }
        draft.keep();
        p.expectedOffset = start + appending.size();
        appending.add(p);
      }
      return null;
    });
    answered.forEach(Pending::answer);
    try {
      if (!appending.isEmpty()) {
        append(appending, again);
      }
    } finally {
      if (!again.isEmpty()) {
        synchronized (queue) {
          for (Pending<?> p : again) {
            queue.put(p.seq, p);
          }
        }
      }
    }
  }

  /**
   * Appends the group's events in order and answers those that took effect: a record takes effect where it landed at
   * its expected offset right behind the group's previous one, taken effect (RegistryState#apply rules the same on
   * every node), so from the first that did not, the rest are decided again.
   */
  private void append(List<Pending<?>> appending, List<Pending<?>> again) {
    String batch = appending.size() > 1 ? node + "-" + batches.incrementAndGet() : null;
    List<Map.Entry<byte[], byte[]>> records = new ArrayList<>(appending.size());
    for (int i = 0; i < appending.size(); i++) {
      Pending<?> p = appending.get(i);
      LogEvent event = p.decision.event();
      records.add(Map.entry(LogCodec.key(event, node + "-" + p.expectedOffset + "-" + attempts.incrementAndGet()),
          LogCodec.value(event, p.expectedOffset, batch, i)));
    }
    List<TopicLog.Appended> landed;
    try {
      landed = topicLog.appendAll(records);
    } catch (TopicLog.TopicLogException e) {
      throw new StoreException(e.getMessage(), e.timedOut(), e);
    }
    long end = -1;
    for (TopicLog.Appended a : landed) {
      if (a.metadata() != null) {
        end = Math.max(end, a.metadata().offset() + 1);
      }
    }
    if (end >= 0) {
      // Answer from a state that holds the writes, so a client reads on this node what it has just written.
      awaitApplied(end);
    }
    boolean inPlace = true;
    for (int i = 0; i < appending.size(); i++) {
      Pending<?> p = appending.get(i);
      TopicLog.Appended a = landed.get(i);
      if (a.failure() != null) {
        p.fail(new StoreException(a.failure().getMessage(), a.failure().timedOut(), a.failure()));
        inPlace = false;
      } else if (inPlace && a.metadata().offset() == p.expectedOffset) {
        p.answer();
      } else {
        inPlace = false;
        lostRaces.incrementAndGet();
        LOG.debug("write to {} lost a race (expected offset {}, landed at {}); deciding again", topic,
            p.expectedOffset, a.metadata().offset());
        p.needsCatchUp = true;
        again.add(p);
      }
    }
  }

  /** How many records this node appended, including those that lost a race. */
  public long appendAttempts() {
    return attempts.get();
  }

  @Override
  public void close() {
    synchronized (queue) {
      closed = true;
      queue.notifyAll();
    }
    writer.interrupt();
    try {
      writer.join(timeoutMs + 5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    synchronized (queue) {
      StoreException closing = new StoreException("the registry log " + topic + " is closed", false, null);
      queue.values().forEach(p -> p.fail(closing));
      queue.clear();
    }
    LOG.info("registry log {}: this node appended {} records in {} groups of several, {} of them lost a race and "
        + "were decided again", topic, attempts.get(), batches.get(), lostRaces.get());
    if (topicLog != null) {
      topicLog.close();
    }
  }
}
