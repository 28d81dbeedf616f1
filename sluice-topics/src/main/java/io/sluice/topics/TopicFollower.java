package io.sluice.topics;

import io.sluice.topics.TopicLog.Reader;
import io.sluice.topics.TopicLog.TopicLogException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.Deserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reading half of a {@link TopicLog}, and all of it where nothing is written: a thread that reads a topic from its
 * beginning and follows it, handing every record to the {@link Reader} once, in offset order per partition, and says
 * how far it has applied. A broker that restarts, or is out of reach for a while, is ridden out: the thread retries
 * until Kafka answers. A topic deleted under it, or a reader that threw, ends it with a {@link TopicLogException}
 * that every later call rethrows.
 *
 * <p>Made by {@link TopicLog.Builder#start} (which has read to the end when it returns) or
 * {@link TopicLog.Builder#follow} (which returns at once and waits for a topic someone else creates).
 */
public final class TopicFollower<K, V> implements AutoCloseable {
  // Logged under TopicLog, whose follower this has always been.
  private static final Logger log = LoggerFactory.getLogger(TopicLog.class);
  /** How often the follower checks that its topic still exists while nothing arrives. */
  private static final long TOPIC_CHECK_MS = 5_000;
  /** How often a follower that waits for its topic asks whether it exists yet. */
  private static final long TOPIC_WAIT_MS = 1_000;

  private final String topic;
  private final String what;
  private final Duration timeout;
  private final Reader<K, V> reader;
  private final KafkaConsumer<K, V> follower;
  /** Asks where the topic ends; the follower's consumer belongs to its thread. */
  private final KafkaConsumer<K, V> ends;
  private final Map<TopicPartition, Long> applied = new HashMap<>();
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition progressed = lock.newCondition();
  private final Thread thread;
  private volatile boolean running = true;
  private volatile TopicLogException failure;
  /** Whether the follower has its topic's partitions; only a follower that waits for its topic starts without. */
  private boolean assigned;

  TopicFollower(KafkaCluster cluster, String topic, String what, Duration timeout, String clientId,
                Deserializer<K> keys, Deserializer<V> values, Reader<K, V> reader) {
    this.topic = topic;
    this.what = what;
    this.timeout = timeout;
    this.reader = reader;
    this.follower = consumer(cluster, clientId + "-follower", keys, values);
    this.ends = consumer(cluster, clientId + "-ends", keys, values);
    this.thread = new Thread(this::follow, "sluice-topic-log-" + topic);
    thread.setDaemon(true);
  }

  private static <K, V> KafkaConsumer<K, V> consumer(KafkaCluster cluster, String clientId, Deserializer<K> keys,
                                                     Deserializer<V> values) {
    Properties c = new Properties();
    c.putAll(cluster.consumerConfig(Map.of()));
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    // A quiet topic's fetch is held this long by the broker; a record (or a transaction marker) appended meanwhile
    // answers it at once, so the wait costs no latency. At 100 ms the six followers of an idle sluice up sent 60
    // fetches a second, most of the idle data plane's CPU (a tenth of a core) and some of the control plane's.
    c.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 5_000);
    c.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
    // A deleted topic must stay deleted: asking for its metadata must not create it again, empty.
    c.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    return new KafkaConsumer<>(c, keys, values);
  }

  /**
   * Finds the topic's partitions, starts following and waits until everything the topic holds is applied.
   *
   * @param justEnsured the topic was just created, so a broker may not know it yet
   */
  void begin(boolean justEnsured) {
    List<TopicPartition> partitions = partitionsOf(ends);
    // A topic just created reaches every broker's metadata a moment after the controller accepted it; on a cluster
    // of several, the broker this client asks may not know it yet.
    long deadline = System.nanoTime() + timeout.toNanos();
    while (partitions.isEmpty() && justEnsured && System.nanoTime() < deadline) {
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      partitions = partitionsOf(ends);
    }
    if (partitions.isEmpty()) {
      throw new TopicLogException(what + " " + topic + " does not exist", false, null);
    }
    assign(partitions);
    thread.start();
    awaitCaughtUp();
    log.info("{} {} read to its end ({})", what, topic, positions());
  }

  /** Starts following without waiting: the thread first waits for the topic to exist, as long as it takes. */
  void beginWhenPresent() {
    thread.start();
  }

  private void assign(List<TopicPartition> partitions) {
    follower.assign(partitions);
    follower.seekToBeginning(partitions);
    // Never polled; assigned only so that its end-offset lookups update the partitions' state instead of warning.
    synchronized (ends) {
      ends.assign(partitions);
    }
    lock.lock();
    try {
      partitions.forEach(tp -> applied.put(tp, 0L));
    } finally {
      lock.unlock();
    }
    assigned = true;
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
          if (!assigned) {
            awaitTopic();
          } else {
            boolean checkDue = System.nanoTime() - lastCheck > TimeUnit.MILLISECONDS.toNanos(TOPIC_CHECK_MS);
            if (followOnce(checkDue)) {
              lastCheck = System.nanoTime();
            }
          }
          if (unreachable) {
            unreachable = false;
            log.warn("{} {}: Kafka answers again; following it", what, topic);
          }
        } catch (RetriableException e) {
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

  /** One look for a topic someone else creates: its partitions assigned once it exists, else a pause. */
  private void awaitTopic() {
    List<TopicPartition> partitions = partitionsOf(follower);
    if (!partitions.isEmpty()) {
      assign(partitions);
      return;
    }
    try {
      Thread.sleep(TOPIC_WAIT_MS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      running = false;
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

  /** What ended the follower, or null while it follows. */
  TopicLogException failure() {
    return failure;
  }

  void checkHealthy() {
    TopicLogException f = failure;
    if (f != null) {
      throw new TopicLogException(f.getMessage(), f.timedOut(), f);
    }
  }

  /**
   * Waits until the reader has applied everything the topic holds now (nothing, for a follower still waiting for its
   * topic to exist).
   */
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
      // Without waiting: the follower commits nothing, and a close that waits sends the broker a last fetch to end the
      // fetch session, which queues behind the fetch still held (up to fetch.max.wait.ms) on the same connection.
      quietly(() -> follower.close(Duration.ZERO));
    }
    synchronized (ends) {
      quietly(() -> ends.close(Duration.ofSeconds(5)));
    }
  }

  static void quietly(Runnable close) {
    try {
      close.run();
    } catch (RuntimeException e) {
      log.debug("closing a client of a topic log failed", e);
    }
  }
}
