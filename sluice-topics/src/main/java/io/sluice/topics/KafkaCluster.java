package io.sluice.topics;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.utils.Utils;

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

  /**
   * What every consumer Sluice runs is given: it reads committed records only. Sources write in transactions
   * (Connect's exactly-once source support), so a consumer left at Kafka's default, {@code read_uncommitted}, would
   * read the records of a transaction that is later aborted, and read again what the source writes once more after
   * the abort. A consumer reading committed records stops before a transaction still open, and its end offsets are
   * the last stable offsets: a read "to the end" ends there.
   */
  public static final Map<String, String> READ_COMMITTED = Map.of("isolation.level", "read_committed");

  /** A consumer's configuration: the client configuration, {@link #READ_COMMITTED}, then {@code more} on top. */
  public Map<String, Object> consumerConfig(Map<String, ?> more) {
    Map<String, Object> c = clientConfig(READ_COMMITTED);
    c.putAll(more);
    return c;
  }

  /**
   * Waits until one of the bootstrap servers accepts connections, at most {@code timeout}; false if none did. A Kafka
   * client that finds no broker backs off for up to a second between attempts, so one made while the broker starts
   * (the embedded broker of a node starting) would begin up to a second after the broker could answer it; asking the
   * port first, every few milliseconds, lets it begin at once. A broker binds its client port once it serves.
   */
  public boolean awaitListening(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      for (String server : bootstrapServers.split(",")) {
        String host = Utils.getHost(server.trim());
        Integer port = Utils.getPort(server.trim());
        if (host == null || port == null) {
          // Not host:port; the client's own error says so.
          return false;
        }
        try (Socket s = new Socket()) {
          s.connect(new InetSocketAddress(host, port), 250);
          return true;
        } catch (IOException notYet) {
          // Refused or unreachable: try the next, then again.
        }
      }
      if (System.nanoTime() > deadline) {
        return false;
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
  }

  /** Names the settings, never their values (a JAAS configuration carries a password). */
  @Override
  public String toString() {
    return "KafkaCluster[" + bootstrapServers + (security.isEmpty() ? "" : ", " + new TreeMap<>(security).keySet())
        + "]";
  }
}
