package io.sluice.connect.rest;

import io.sluice.connect.secrets.KafkaClientConfigProvider;
import io.sluice.source.Engine;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The Kafka clients of a Debezium source's schema history. MySQL, MariaDB, SQL Server, Oracle, Db2 and Informix
 * sources keep the history of their tables' structure in a Kafka topic through a producer and a consumer of their
 * own, configured under {@code schema.history.internal.*}, which Connect's {@code producer.} and {@code consumer.}
 * settings do not reach: on a cluster that requires SASL or TLS such a source fails unless each is configured by hand.
 * Unless the config names a history store or a cluster of its own, they get the worker's cluster: its bootstrap
 * servers and its security settings, as references to the worker's own values ({@link KafkaClientConfigProvider}), and
 * a topic named after the source.
 */
final class SchemaHistoryClients {
  private static final String PREFIX = "schema.history.internal";
  private static final String KAFKA_HISTORY = "io.debezium.storage.kafka.history.KafkaSchemaHistory";
  /** Debezium's sources with a schema history that Sluice has no {@link Engine} for; its own are asked of Engine. */
  private static final Set<String> OTHERS_WITH_HISTORY = Set.of("io.debezium.connector.oracle.OracleConnector",
      "io.debezium.connector.db2.Db2Connector", "io.debezium.connector.informix.InformixConnector");

  private SchemaHistoryClients() {}

  /** The keys to add to {@code config}; {@code securityKeys} are the worker's client security settings. */
  static Map<String, String> missing(Map<String, String> config, Set<String> securityKeys) {
    Map<String, String> out = new TreeMap<>();
    String store = config.get(PREFIX);
    String connectorClass = config.get("connector.class");
    // Set.of refuses to look up null: a config without a class (Connect refuses it itself) gets nothing.
    boolean withHistory = connectorClass != null && Engine.ofConnectorClass(connectorClass)
        .map(Engine::keepsSchemaHistory).orElse(OTHERS_WITH_HISTORY.contains(connectorClass));
    if (!withHistory || (store != null && !store.equals(KAFKA_HISTORY))) {
      return out;
    }
    String topic = config.get("topic.prefix");
    if (!config.containsKey(PREFIX + ".kafka.topic") && topic != null && !topic.isBlank()) {
      out.put(PREFIX + ".kafka.topic", topic.trim() + "-schema-history");
    }
    if (config.containsKey(PREFIX + ".kafka.bootstrap.servers")) {
      return out; // a cluster of the user's choosing, reached as the user says
    }
    out.put(PREFIX + ".kafka.bootstrap.servers", KafkaClientConfigProvider.reference("bootstrap.servers"));
    for (String key : securityKeys) {
      for (String client : new String[] {".producer.", ".consumer."}) {
        out.putIfAbsent(PREFIX + client + key, KafkaClientConfigProvider.reference(key));
      }
    }
    out.keySet().removeIf(config::containsKey);
    return out;
  }
}
