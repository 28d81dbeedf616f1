package io.sluice.topics;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * A topic Sluice keeps its own state in: one partition, so every node reads every write in one order, and compaction
 * instead of deletion, so nothing in it expires by age (the newest record per key is kept forever).
 *
 * <pre>{@code
 * CompactedTopic.ensure(bootstrapServers, "_schemas", "registry topic", Duration.ofSeconds(30));
 * }</pre>
 */
public final class CompactedTopic {
  private CompactedTopic() {}

  /** Creating or checking the topic failed; {@link #timedOut()} when Kafka did not answer in time. */
  public static final class TopicException extends IllegalStateException {
    private final boolean timedOut;

    TopicException(String message, boolean timedOut, Throwable cause) {
      super(message, cause);
      this.timedOut = timedOut;
    }

    public boolean timedOut() {
      return timedOut;
    }
  }

  /**
   * Creates the topic unless it exists (replicated as {@link Replication} says: up to three brokers, two in sync once
   * there are three) and checks that
   * it has exactly one partition. {@code what} names it in errors ("registry topic").
   */
  public static void ensure(String bootstrapServers, String topic, String what, Duration timeout) {
    ensure(KafkaCluster.of(bootstrapServers), topic, what, timeout);
  }

  /** As {@link #ensure(String, String, String, Duration)}, on a cluster that may ask for credentials. */
  public static void ensure(KafkaCluster cluster, String topic, String what, Duration timeout) {
    ensure(cluster, topic, what, timeout, Map.of());
  }

  /**
   * As {@link #ensure(KafkaCluster, String, String, Duration)}, creating the topic with {@code settings} too (such as
   * a {@code segment.ms} for a topic rewritten often, so that compaction keeps its tail short). A topic that exists
   * keeps the settings it has.
   */
  public static void ensure(KafkaCluster cluster, String topic, String what, Duration timeout,
      Map<String, String> settings) {
    long ms = timeout.toMillis();
    // The client's own timeouts follow the caller's, so an unreachable cluster costs the timeout, not the client's
    // 60 s default on top of it while it closes.
    int clientMs = (int) Math.max(1, Math.min(Integer.MAX_VALUE, ms));
    try (Admin admin = Admin.create(cluster.clientConfig(Map.of(
        CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG, clientMs,
        CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, Math.min(clientMs, 30_000))))) {
      int brokers = admin.describeCluster().nodes().get(ms, TimeUnit.MILLISECONDS).size();
      Map<String, String> configs = new java.util.HashMap<>(settings);
      configs.putAll(Replication.topicConfigs(brokers));
      configs.put(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT);
      NewTopic t = new NewTopic(topic, 1, (short) Replication.replicas(brokers)).configs(configs);
      try {
        admin.createTopics(List.of(t)).all().get(ms, TimeUnit.MILLISECONDS);
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof TopicExistsException)) {
          throw e;
        }
      }
      int partitions = describeOnceKnown(admin, topic, timeout).partitions().size();
      if (partitions != 1) {
        throw new TopicException(what + " " + topic + " has " + partitions + " partitions; it must have exactly one"
            + " so that every node reads writes in one order", false, null);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TopicException("interrupted while creating " + what + " " + topic, false, e);
    } catch (TimeoutException e) {
      throw new TopicException("Kafka did not answer within " + timeout + " creating " + what + " " + topic, true, e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof org.apache.kafka.common.errors.TimeoutException) {
        // the client gave up first, its own timeouts being the caller's
        throw new TopicException("Kafka did not answer within " + timeout + " creating " + what + " " + topic, true, e);
      }
      throw new TopicException("cannot create or describe " + what + " " + topic + ": " + e.getCause(), false, e);
    }
  }

  /**
   * Describes the topic, waiting while the broker does not know it yet: a topic just created (by this node or another)
   * reaches the broker's metadata a moment after the controller accepted it.
   */
  private static TopicDescription describeOnceKnown(Admin admin, String topic, Duration timeout)
      throws InterruptedException, ExecutionException, TimeoutException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      try {
        return admin.describeTopics(List.of(topic)).allTopicNames()
            .get(timeout.toMillis(), TimeUnit.MILLISECONDS).get(topic);
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof UnknownTopicOrPartitionException) || System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(100);
      }
    }
  }
}
