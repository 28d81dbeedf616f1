package io.sluice.topics;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;

/**
 * How Sluice replicates the topics it keeps state in: on up to three brokers, as many as the cluster has, with two
 * replicas in sync required once there are three, so that one broker can be lost without losing a write or stopping
 * them. {@link #weak} finds the topics that were created (by hand, or before the cluster grew) with less.
 */
public final class Replication {
  private Replication() {}

  /** A topic replicated less than {@link #replicas} and {@link #inSync} ask for on this cluster. */
  public record Weak(String topic, int replicas, int minInSync, int wantedReplicas, int wantedInSync) {
    @Override
    public String toString() {
      return topic + " has " + replicas + " replica(s) and min.insync.replicas=" + minInSync + "; with this cluster's "
          + "brokers it should have " + wantedReplicas + " and " + wantedInSync;
    }
  }

  public static int replicas(int brokers) {
    return Math.min(3, Math.max(1, brokers));
  }

  public static int inSync(int brokers) {
    return brokers >= 3 ? 2 : 1;
  }

  /** Topic settings for a new state topic on a cluster of {@code brokers}: its {@code min.insync.replicas}. */
  public static Map<String, String> topicConfigs(int brokers) {
    return Map.of(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, String.valueOf(inSync(brokers)));
  }

  /** Those of {@code topics} that exist and are replicated less than the cluster allows. */
  public static List<Weak> weak(Admin admin, Collection<String> topics, long timeoutMs)
      throws ExecutionException, InterruptedException, TimeoutException {
    int brokers = admin.describeCluster().nodes().get(timeoutMs, TimeUnit.MILLISECONDS).size();
    List<String> existing = new ArrayList<>(admin.listTopics(new org.apache.kafka.clients.admin.ListTopicsOptions()
        .listInternal(true)).names().get(timeoutMs, TimeUnit.MILLISECONDS));
    existing.retainAll(topics);
    if (existing.isEmpty()) {
      return List.of();
    }
    Map<String, TopicDescription> described = admin.describeTopics(existing).allTopicNames()
        .get(timeoutMs, TimeUnit.MILLISECONDS);
    List<ConfigResource> resources = existing.stream()
        .map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t)).toList();
    Map<ConfigResource, Config> configs = admin.describeConfigs(resources).all().get(timeoutMs, TimeUnit.MILLISECONDS);
    List<Weak> out = new ArrayList<>();
    for (String t : existing) {
      int rf = described.get(t).partitions().stream().mapToInt(p -> p.replicas().size()).min().orElse(0);
      var entry = configs.get(new ConfigResource(ConfigResource.Type.TOPIC, t))
          .get(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG);
      int minIsr = entry == null ? 1 : Integer.parseInt(entry.value());
      if (rf < replicas(brokers) || minIsr < inSync(brokers)) {
        out.add(new Weak(t, rf, minIsr, replicas(brokers), inSync(brokers)));
      }
    }
    out.sort((a, b) -> a.topic().compareTo(b.topic()));
    return out;
  }
}
