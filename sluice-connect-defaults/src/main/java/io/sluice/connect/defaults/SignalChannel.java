package io.sluice.connect.defaults;

import io.sluice.connect.secrets.KafkaClientConfigProvider;
import io.sluice.source.Engine;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Debezium's Kafka signal channel for a source: the topic through which {@code sluice snapshot} asks a running source
 * for an ad-hoc snapshot, and pauses, resumes or stops it, with no table in the source database and no restart.
 *
 * <p>A Debezium source created or updated through Sluice gets the channel unless its config says anything of its own
 * about it: {@code signal.enabled.channels} with {@code kafka} beside Debezium's default {@code source}, the topic
 * Debezium itself would pick ({@code <topic.prefix>-signal}, written out so that tools need not know the default), and
 * the worker's cluster for the channel's consumer, as references to the worker's own settings
 * ({@link KafkaClientConfigProvider}), so that on a cluster that requires SASL or TLS the consumer connects as the
 * worker does. Debezium reads partition 0 of the topic only, and acts on a record only when its key is the source's
 * {@code topic.prefix}.
 */
public final class SignalChannel {
  public static final String CHANNELS = "signal.enabled.channels";
  public static final String TOPIC = "signal.kafka.topic";
  public static final String BOOTSTRAP = "signal.kafka.bootstrap.servers";
  /** The source channel's table in the source database, which signal-based incremental snapshots need. */
  public static final String DATA_COLLECTION = "signal.data.collection";
  /** Debezium's read-only incremental snapshots: watermarks from the database's own state, nothing written to it. */
  public static final String READ_ONLY = "read.only";
  private static final String CONSUMER = "signal.consumer.";

  private SignalChannel() {}

  /** Whether {@code connectorClass} is a Debezium source Sluice gives a signal channel: one of a known {@link Engine}. */
  public static boolean supports(String connectorClass) {
    return Engine.ofConnectorClass(connectorClass).isPresent();
  }

  /**
   * The keys to add to {@code config}; {@code securityKeys} are the worker's client security settings. Nothing for a
   * config that names channels of its own (an operator's choice, which may leave Kafka out on purpose) or that has no
   * topic prefix yet (Connect refuses it anyway).
   */
  public static Map<String, String> missing(Map<String, String> config, Set<String> securityKeys) {
    Map<String, String> out = new TreeMap<>();
    String prefix = config.get("topic.prefix");
    if (!supports(config.get("connector.class")) || config.containsKey(CHANNELS) || prefix == null
        || prefix.isBlank()) {
      return out;
    }
    out.put(CHANNELS, "source,kafka");
    out.put(TOPIC, defaultTopic(prefix));
    if (!config.containsKey(BOOTSTRAP)) {
      out.put(BOOTSTRAP, KafkaClientConfigProvider.reference("bootstrap.servers"));
      for (String key : securityKeys) {
        out.put(CONSUMER + key, KafkaClientConfigProvider.reference(key));
      }
    }
    out.keySet().removeIf(config::containsKey);
    return out;
  }

  /** The topic Debezium reads signals from when the config names none. */
  public static String defaultTopic(String topicPrefix) {
    return topicPrefix.trim() + "-signal";
  }

  /** The signal topic of a source whose config enables the Kafka channel; empty when it does not. */
  public static Optional<String> topic(Map<String, String> config) {
    String channels = config.getOrDefault(CHANNELS, "source");
    boolean kafka = Arrays.stream(channels.split(",")).map(String::trim).anyMatch("kafka"::equalsIgnoreCase);
    String prefix = config.get("topic.prefix");
    if (!kafka || prefix == null || prefix.isBlank()) {
      return Optional.empty();
    }
    String topic = config.get(TOPIC);
    return Optional.of(topic == null || topic.isBlank() ? defaultTopic(prefix) : topic.trim());
  }
}
