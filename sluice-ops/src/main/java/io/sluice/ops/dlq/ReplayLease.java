package io.sluice.ops.dlq;

import io.sluice.topics.KafkaCluster;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Keeps a replay group to one run at a time on the whole cluster, with nothing but Kafka: the run is a member of a
 * consumer group of its own ({@link #groupOf}) for as long as it replays. The replay's own consumer is assigned, not
 * subscribed, so it is no member of anything and cannot serve as the lock itself.
 *
 * <p>Taking the lease: describe the lease group and refuse when it has a member; join it; describe it again. Two runs
 * that both found it empty both join, and then both see each other: the one whose member id sorts first waits for the
 * others to leave (at most {@link #SESSION_TIMEOUT}), every other one leaves and is refused. A run goes on only when
 * it sees itself alone in the group after it joined, and stays a member until it ends; so of two runs that went on,
 * the later one's describe would have listed the earlier one. A run killed without leaving is dropped by the
 * coordinator after {@link #SESSION_TIMEOUT}.
 *
 * <p>To be a member the consumer subscribes (to the dead-letter topic, which exists), pauses whatever it is assigned
 * and never commits: it fetches nothing and leaves no offsets. A thread of its own polls it, so a replay that waits
 * (a rate limit, a slow target) keeps its membership; should the coordinator drop it anyway (a pause longer than the
 * session), {@link #check} stops the replay at its next poll.
 */
final class ReplayLease implements AutoCloseable {
  static final Duration SESSION_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration POLL = Duration.ofMillis(200);
  private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(60);

  private final String topic;
  private final String group;
  private final String leaseGroup;
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final Thread thread;
  private final CountDownLatch joined = new CountDownLatch(1);
  private volatile String memberId;
  private volatile boolean lost;
  private volatile boolean closing;
  private volatile RuntimeException failure;
  private boolean closed;

  /**
   * The lease group of a replay group. Default replay groups are named after topics, which cannot hold a ':', so no
   * replay group of another topic can be some topic's lease group; a suffix keeps prefixed group ACLs of the replay
   * group valid for it.
   */
  static String groupOf(String replayGroup) {
    return replayGroup + ":lease";
  }

  /**
   * Holds {@code group} for one replay of {@code topic}, or refuses.
   *
   * @throws ReplayRunning when another run holds it
   */
  static ReplayLease acquire(Map<String, Object> clientProperties, String topic, String group) {
    String leaseGroup = groupOf(group);
    Map<String, Object> adminConfig = new HashMap<>(clientProperties);
    adminConfig.put("client.id", "sluice-dlq-replay-lease");
    try (Admin admin = Admin.create(adminConfig)) {
      List<MemberDescription> holders = members(admin, leaseGroup);
      if (!holders.isEmpty()) {
        throw running(group, holders.get(0));
      }
      ReplayLease lease = new ReplayLease(clientProperties, topic, group, leaseGroup);
      try {
        lease.join();
        lease.settle(admin);
        return lease;
      } catch (RuntimeException e) {
        lease.close();
        throw e;
      }
    }
  }

  private ReplayLease(Map<String, Object> clientProperties, String topic, String group, String leaseGroup) {
    this.topic = topic;
    this.group = group;
    this.leaseGroup = leaseGroup;
    Map<String, Object> c = new HashMap<>(clientProperties);
    // It reads no records (the group is the lease), but every consumer Sluice runs reads committed ones only.
    c.putAll(KafkaCluster.READ_COMMITTED);
    c.put("group.id", leaseGroup);
    // The pid tells which of several runs on one host holds the group; the broker adds the host.
    c.put("client.id", "sluice-dlq-replay-" + ProcessHandle.current().pid());
    c.put("enable.auto.commit", "false");
    c.put("allow.auto.create.topics", "false");
    c.put("auto.offset.reset", "latest");
    c.put("session.timeout.ms", (int) SESSION_TIMEOUT.toMillis());
    c.put("heartbeat.interval.ms", 1_000);
    // Bounds a rebalance that waits for a member gone silent; the thread below polls every 200 ms.
    c.put("max.poll.interval.ms", 30_000);
    c.put("max.poll.records", 1);
    this.consumer = new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    try {
      DlqReader.partitions(consumer, topic);
    } catch (RuntimeException e) {
      consumer.close(Duration.ZERO);
      throw e;
    }
    this.thread = new Thread(this::hold, "sluice-dlq-replay-lease");
    thread.setDaemon(true);
  }

  private void hold() {
    try {
      consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
          consumer.pause(partitions);
          String id = consumer.groupMetadata().memberId();
          if (memberId == null) {
            memberId = id;
          } else if (!memberId.equals(id)) {
            lost = true;
          }
          joined.countDown();
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {}

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
          lost = true;
        }
      });
      while (!closing) {
        consumer.poll(POLL);
      }
    } catch (WakeupException e) {
      // close() asked.
    } catch (RuntimeException e) {
      failure = e;
      lost = true;
    } finally {
      consumer.close(Duration.ofSeconds(10));
      joined.countDown();
    }
  }

  private void join() {
    thread.start();
    try {
      if (!joined.await(JOIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException("could not join consumer group " + leaseGroup + " within "
            + JOIN_TIMEOUT.toSeconds() + " s, which keeps replays of group " + group + " apart; nothing was replayed");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
    if (failure != null) {
      throw new IllegalStateException("could not join consumer group " + leaseGroup + ", which keeps replays of"
          + " group " + group + " apart: " + failure.getMessage() + "; nothing was replayed", failure);
    }
  }

  /** Goes on once this run is the group's only member; refuses when another member was first. */
  private void settle(Admin admin) {
    long deadline = System.nanoTime() + SESSION_TIMEOUT.toNanos();
    while (true) {
      check();
      List<MemberDescription> members = members(admin, leaseGroup);
      List<MemberDescription> others = members.stream().filter(m -> !m.consumerId().equals(memberId)).toList();
      boolean listed = others.size() < members.size();
      if (others.isEmpty() && listed) {
        return;
      }
      MemberDescription before = others.stream().filter(m -> m.consumerId().compareTo(memberId) < 0).findFirst()
          .orElse(null);
      if (before != null) {
        throw running(group, before);
      }
      if (System.nanoTime() - deadline > 0) {
        if (!others.isEmpty()) {
          throw running(group, others.get(0));
        }
        throw new IllegalStateException("joined consumer group " + leaseGroup + " but its description does not list"
            + " this run after " + SESSION_TIMEOUT.toSeconds() + " s; nothing was replayed");
      }
      try {
        Thread.sleep(POLL.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }
  }

  /** Throws when this run is no longer the group's member, so that it stops before a run that took over. */
  void check() {
    if (lost) {
      throw new IllegalStateException("this replay lost its membership of consumer group " + leaseGroup
          + " (no heartbeat for " + SESSION_TIMEOUT.toSeconds() + " s" + (failure == null ? "" : ": "
          + failure.getMessage()) + "), so another run of group " + group + " may have started; stopped here,"
          + " progress up to the last commit is kept");
    }
  }

  private static List<MemberDescription> members(Admin admin, String leaseGroup) {
    try {
      return List.copyOf(admin.describeConsumerGroups(List.of(leaseGroup)).describedGroups().get(leaseGroup)
          .get(30, TimeUnit.SECONDS).members());
    } catch (ExecutionException e) {
      if (e.getCause() instanceof GroupIdNotFoundException) {
        return List.of();
      }
      throw new IllegalStateException("cannot describe consumer group " + leaseGroup + ": "
          + e.getCause().getMessage() + "; nothing was replayed", e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("cannot describe consumer group " + leaseGroup + ": no answer in 30 s;"
          + " nothing was replayed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private static ReplayRunning running(String group, MemberDescription holder) {
    return new ReplayRunning(group, holder.clientId(), holder.host(), SESSION_TIMEOUT);
  }

  /** Leaves the group at once, so that the next run need not wait for the session to lapse. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    closing = true;
    if (thread.getState() == Thread.State.NEW) {
      consumer.close(Duration.ofSeconds(10));
      return;
    }
    consumer.wakeup();
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
