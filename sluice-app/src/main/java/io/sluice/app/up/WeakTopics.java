package io.sluice.app.up;

import io.sluice.topics.KafkaCluster;
import io.sluice.topics.Replication;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Says at start which of Sluice's state topics hold fewer replicas than the cluster's brokers allow. */
final class WeakTopics {
  private static final Logger log = LoggerFactory.getLogger(WeakTopics.class);

  private WeakTopics() {}

  /**
   * As {@link #report}, in a thread of its own: a warning about replication is no part of being ready, and the check
   * (an admin client, two questions to the cluster) would hold the plane's ready line up.
   */
  static void reportLater(KafkaCluster cluster, List<String> topics) {
    Thread t = new Thread(() -> report(cluster, topics), "sluice-weak-topics");
    t.setDaemon(true);
    t.start();
  }

  /** Each plane checks the topics it keeps its own state in, once they exist. */
  static void report(KafkaCluster cluster, List<String> topics) {
    try (Admin admin = Admin.create(cluster.clientConfig(Map.of("client.id", "sluice-replication")))) {
      for (Replication.Weak w : Replication.weak(admin, topics, 30_000)) {
        log.warn("under-replicated by configuration: {}", w);
        System.err.println("sluice: warning: " + w);
      }
    } catch (Exception e) {
      log.warn("cannot check the replication of Sluice's topics: {}", e.toString());
    }
  }
}
