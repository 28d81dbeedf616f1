package io.sluice.connect.secrets;

import io.sluice.topics.KafkaCluster;
import io.sluice.topics.TopicLog;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.serialization.Serdes;

/**
 * Connector secrets in a compacted Kafka topic, so every worker of the cluster resolves them and none is kept in a
 * node's memory or disk alone. Key: {@code <connector>/<config key>}; a tombstone forgets it.
 *
 * <p>One instance per (bootstrap servers, topic) in a JVM, shared by the REST filter that writes and the config
 * provider that reads.
 */
public final class SecretStore implements AutoCloseable {
  private static final Map<String, SecretStore> instances = new ConcurrentHashMap<>();

  private final TopicLog<String, String> topicLog;
  private final Map<String, String> secrets = new ConcurrentHashMap<>();

  private SecretStore(KafkaCluster cluster, String topic) {
    this.topicLog = TopicLog.builder(cluster, topic, Serdes.String(), Serdes.String())
        .describedAs("secrets topic").clientId("sluice-secrets").timeout(Duration.ofSeconds(30))
        .start(r -> {
          if (r.key() == null) {
            return;
          }
          if (r.value() == null) {
            secrets.remove(r.key());
          } else {
            secrets.put(r.key(), r.value());
          }
        });
  }

  /** The JVM's store for this cluster and topic, created (with its topic) on first use. */
  public static SecretStore of(String bootstrapServers, String topic) {
    return of(KafkaCluster.of(bootstrapServers), topic);
  }

  public static SecretStore of(KafkaCluster cluster, String topic) {
    return instances.computeIfAbsent(cluster.bootstrapServers() + "|" + topic, k -> new SecretStore(cluster, topic));
  }

  /** Closes every store of this JVM; the runtime calls it on shutdown. */
  public static void closeAll() {
    instances.values().forEach(SecretStore::close);
    instances.clear();
  }

  public void put(String connector, String key, String value) {
    topicLog.appendAndWait(connector + "/" + key, value);
  }

  /** Forgets every secret of a connector. */
  public void forget(String connector) {
    topicLog.awaitCaughtUp();
    String prefix = connector + "/";
    for (String k : List.copyOf(secrets.keySet())) {
      if (k.startsWith(prefix)) {
        topicLog.appendAndWait(k, null);
      }
    }
  }

  /** Reads the topic to its current end first, so a secret written by any worker a moment ago is seen. */
  public Optional<String> get(String connector, String key) {
    topicLog.awaitCaughtUp();
    return Optional.ofNullable(secrets.get(connector + "/" + key));
  }

  @Override
  public void close() {
    topicLog.close();
  }
}
