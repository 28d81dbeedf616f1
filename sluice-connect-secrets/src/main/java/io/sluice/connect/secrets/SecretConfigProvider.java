package io.sluice.connect.secrets;

import io.sluice.topics.KafkaCluster;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.config.ConfigData;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.provider.ConfigProvider;

/**
 * Resolves {@code ${sluice:<connector>:<key>}} references from the {@link SecretStore} when Connect starts a
 * connector or task. Connect keeps the reference itself in the stored and displayed configs, which is why secrets
 * never appear in {@code GET /connectors/{name}/config}, {@code …/tasks} or the logs.
 */
public final class SecretConfigProvider implements ConfigProvider {
  public static final String NAME = "sluice";

  private KafkaCluster cluster;
  private String topic;

  /** The reference Connect will resolve through this provider. */
  public static String reference(String connector, String key) {
    // The connector name is the provider "path": ':' and '}' would end it early, so they are percent-encoded.
    return "${" + NAME + ":" + URLEncoder.encode(connector, StandardCharsets.UTF_8) + ":" + key + "}";
  }

  @Override
  public void configure(Map<String, ?> configs) {
    Object bootstrap = configs.get("bootstrap.servers");
    Object topic = configs.get("topic");
    if (bootstrap == null || topic == null) {
      throw new ConfigException("config provider " + NAME + " needs param.bootstrap.servers and param.topic");
    }
    // The worker passes its own client security settings as params too (param.security.protocol, param.sasl.*).
    this.cluster = KafkaCluster.from(configs);
    this.topic = topic.toString();
  }

  /**
   * The JVM's store, reached on first use rather than when the worker configures its providers: the worker configures
   * them before it needs Kafka otherwise (it sets up its REST server while the embedded broker starts), and a worker
   * configuration rarely refers to a secret.
   */
  private SecretStore store() {
    return SecretStore.of(cluster, topic);
  }

  @Override
  public ConfigData get(String path) {
    return new ConfigData(Map.of());
  }

  @Override
  public ConfigData get(String path, Set<String> keys) {
    String connector = URLDecoder.decode(path, StandardCharsets.UTF_8);
    Map<String, String> data = new HashMap<>();
    for (String key : keys) {
      store().get(connector, key).ifPresent(v -> data.put(key, v));
    }
    return new ConfigData(data);
  }

  @Override
  public void close() {
    // The store is shared by the JVM's workers and closed with the runtime.
  }
}
