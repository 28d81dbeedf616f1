package io.sluice.serde;

import io.sluice.serde.client.SchemaRegistryClient;
import io.sluice.serde.subject.SubjectNameStrategy;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;

/**
 * The settings every Sluice serializer and deserializer reads, under Confluent's keys so existing client configs
 * work unchanged: {@code schema.registry.url}, {@code auto.register.schemas} (default true),
 * {@code use.latest.version} (default false), {@code key.subject.name.strategy}, {@code value.subject.name.strategy}
 * (default TopicNameStrategy).
 */
public record SerdeConfig(String registryUrl, boolean autoRegister, boolean useLatestVersion,
    SubjectNameStrategy strategy, boolean isKey) {
  public static final String REGISTRY_URL = "schema.registry.url";
  public static final String AUTO_REGISTER = "auto.register.schemas";
  public static final String USE_LATEST_VERSION = "use.latest.version";
  public static final String KEY_STRATEGY = "key.subject.name.strategy";
  public static final String VALUE_STRATEGY = "value.subject.name.strategy";
  /** The one mapper of the serdes: thread-safe once configured, and costly enough to share. */
  public static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();

  public static SerdeConfig of(Map<String, ?> configs, boolean isKey) {
    Object url = configs.get(REGISTRY_URL);
    if (url == null || url.toString().isBlank()) {
      throw new ConfigException("Missing required configuration \"" + REGISTRY_URL + "\" which has no default value.");
    }
    // Several URLs may be listed; the first is used (the registry's nodes agree through their Kafka log).
    String first = url.toString().split(",")[0].trim();
    Object strategy = configs.get(isKey ? KEY_STRATEGY : VALUE_STRATEGY);
    try {
      return new SerdeConfig(first, flag(configs, AUTO_REGISTER, true), flag(configs, USE_LATEST_VERSION, false),
          SubjectNameStrategy.named(strategy == null ? null : strategy instanceof Class<?> c ? c.getName()
              : strategy.toString()), isKey);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
  }

  private static boolean flag(Map<String, ?> configs, String key, boolean dflt) {
    Object v = configs.get(key);
    return v == null ? dflt : Boolean.parseBoolean(v.toString().trim());
  }

  public SchemaRegistryClient client() {
    return new SchemaRegistryClient(registryUrl);
  }
}
