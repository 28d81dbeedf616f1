package io.sluice.topics;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * How Sluice's Kafka clients reach a cluster: its bootstrap servers and the client security settings every client
 * needs there ({@code security.protocol}, {@code sasl.*}, {@code ssl.*}, under Kafka's own names). One value, read
 * once from {@code sluice.yaml}'s {@code kafka.client} section, handed to every client Sluice makes: the Connect
 * worker and its tasks, the registry's log, the alert state, the secrets topic, the exporter and the CLI's tools.
 *
 * <pre>{@code
 * KafkaCluster cluster = KafkaCluster.of("broker:9093", Map.of("security.protocol", "SASL_SSL",
 *     "sasl.mechanism", "SCRAM-SHA-512", "sasl.jaas.config", jaas));
 * Admin admin = Admin.create(cluster.clientConfig());
 * }</pre>
 *
 * @param security client properties beyond the address; their values never appear in {@link #toString()}
 */
public record KafkaCluster(String bootstrapServers, Map<String, String> security) {
  public KafkaCluster {
    if (bootstrapServers == null || bootstrapServers.isBlank()) {
      throw new IllegalArgumentException("no Kafka bootstrap servers given");
    }
    security = Map.copyOf(security);
    for (String key : security.keySet()) {
      if (!isSecurityKey(key)) {
        throw new IllegalArgumentException("kafka.client." + key + " is not a client security setting (security"
            + ".protocol, sasl.*, ssl.*)");
      }
    }
  }

  /** A cluster reached without security settings. */
  public static KafkaCluster of(String bootstrapServers) {
    return new KafkaCluster(bootstrapServers, Map.of());
  }

  public static KafkaCluster of(String bootstrapServers, Map<String, String> security) {
    return new KafkaCluster(bootstrapServers, security);
  }

  /**
   * The cluster a Kafka client configuration names: its {@code bootstrap.servers} and its security settings (a
   * Connect worker's configuration, for instance, whose REST keys under {@code listeners.https.} are not taken).
   */
  public static KafkaCluster from(Map<String, ?> clientConfig) {
    Map<String, String> security = new HashMap<>();
    clientConfig.forEach((k, v) -> {
      if (v != null && isSecurityKey(k)) {
        security.put(k, v instanceof org.apache.kafka.common.config.types.Password p ? p.value() : v.toString());
      }
    });
    Object bootstrap = clientConfig.get("bootstrap.servers");
    return new KafkaCluster(bootstrap == null ? null : bootstrap.toString(), security);
  }

  public static boolean isSecurityKey(String key) {
    return key.equals("security.protocol") || key.startsWith("sasl.") || key.startsWith("ssl.");
  }

  /** {@code bootstrap.servers} and the security settings, to which a client adds its own. */
  public Map<String, Object> clientConfig() {
    Map<String, Object> c = new HashMap<>(security);
    c.put("bootstrap.servers", bootstrapServers);
    return c;
  }

  /** The client configuration with {@code more} on top. */
  public Map<String, Object> clientConfig(Map<String, ?> more) {
    Map<String, Object> c = clientConfig();
    c.putAll(more);
    return c;
  }

  /** Names the settings, never their values (a JAAS configuration carries a password). */
  @Override
  public String toString() {
    return "KafkaCluster[" + bootstrapServers + (security.isEmpty() ? "" : ", " + new TreeMap<>(security).keySet())
        + "]";
  }
}
