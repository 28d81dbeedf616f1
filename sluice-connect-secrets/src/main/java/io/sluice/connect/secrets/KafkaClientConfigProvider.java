package io.sluice.connect.secrets;

import io.sluice.topics.KafkaCluster;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.config.ConfigData;
import org.apache.kafka.common.config.provider.ConfigProvider;

/**
 * Resolves {@code ${sluice-kafka:<key>}} to the worker's own Kafka client settings: {@code bootstrap.servers} and the
 * security settings of {@code kafka.client} in {@code sluice.yaml}. A connector that runs Kafka clients of its own (a
 * Debezium source's schema history producer and consumer) reaches the worker's cluster as the worker does, and its
 * config holds references only: no password of the cluster's is written into it, shown by the REST API or logged.
 */
public final class KafkaClientConfigProvider implements ConfigProvider {
  public static final String NAME = "sluice-kafka";

  private Map<String, String> settings = Map.of();

  /** The reference Connect resolves to the worker's value of {@code key}. */
  public static String reference(String key) {
    return "${" + NAME + ":" + key + "}";
  }

  @Override
  public void configure(Map<String, ?> configs) {
    KafkaCluster cluster = KafkaCluster.from(configs);
    Map<String, String> s = new HashMap<>(cluster.security());
    if (cluster.bootstrapServers() != null) {
      s.put("bootstrap.servers", cluster.bootstrapServers());
    }
    settings = Map.copyOf(s);
  }

  @Override
  public ConfigData get(String path) {
    return new ConfigData(settings);
  }

  @Override
  public ConfigData get(String path, Set<String> keys) {
    Map<String, String> data = new HashMap<>();
    for (String key : keys) {
      String v = settings.get(key);
      if (v != null) {
        data.put(key, v);
      }
    }
    return new ConfigData(data);
  }

  @Override
  public void close() {}
}
