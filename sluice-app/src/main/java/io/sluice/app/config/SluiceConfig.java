package io.sluice.app.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.sluice.topics.KafkaCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Everything {@code sluice up} needs to know: one YAML file ({@code sluice.yaml}), every key overridable by a flag.
 * Which keys there are, their types, defaults and flags is {@link ConfigDefinitions}' table; this is the values of one
 * run, read through it.
 *
 * <p>Keys are dotted paths; the file may nest them ({@code kafka: {bootstrap.servers: …}}) or write them flat
 * ({@code kafka.bootstrap.servers: …}), both mean the same. An older name of a key means the key. Defaults bind
 * everything to 127.0.0.1.
 */
public record SluiceConfig(Map<String, String> values) {

  public SluiceConfig {
    values = Map.copyOf(values);
  }

  /**
   * The topics Sluice keeps its state in: Connect's internal ones, the secrets, the task counts, the registry, alerts
   * and cluster.
   */
  public List<String> stateTopics() {
    List<String> all = new java.util.ArrayList<>(dataTopics());
    all.addAll(controlTopics());
    return all;
  }

  /**
   * The state topics of the data plane: the Connect worker's offsets, configs and statuses, the connectors' secrets,
   * and the exporter's task counts.
   */
  public List<String> dataTopics() {
    return List.of(io.sluice.connect.ConnectRuntime.OFFSETS_TOPIC, io.sluice.connect.ConnectRuntime.CONFIGS_TOPIC,
        io.sluice.connect.ConnectRuntime.STATUS_TOPIC, io.sluice.connect.ConnectRuntime.SECRETS_TOPIC,
        io.sluice.exporter.MetricsExporter.COUNTS_TOPIC);
  }

  /** The state topics of the registry, the alert router and the cluster membership. */
  public List<String> controlTopics() {
    return List.of(get(ConfigDefinitions.REGISTRY_TOPIC), get(ConfigDefinitions.ALERTS_STATE_TOPIC),
        get(ConfigDefinitions.CLUSTER_TOPIC));
  }

  /**
   * The defaults, then the file (if any), then the overrides (flags) on top; older names of keys read as the keys.
   * The values are not judged here ({@link #problems()}): a command that needs a few addresses is not stopped by a
   * setting it never reads.
   */
  public static SluiceConfig load(Optional<Path> file, Map<String, String> overrides) {
    Map<String, String> merged = new TreeMap<>(ConfigDefinitions.defaults());
    file.ifPresent(f -> merged.putAll(ConfigDefinitions.canonical(readYaml(f))));
    merged.putAll(ConfigDefinitions.canonical(overrides));
    return new SluiceConfig(merged);
  }

  /**
   * Every value the table refuses, each naming the key, the value and what is allowed: what {@code sluice up} refuses
   * to start with and {@code sluice check-config} lists.
   */
  public List<String> problems() {
    return ConfigDefinitions.problems(values);
  }

  /** The keys a file sets, flattened to dotted paths, as it names them, without the defaults. */
  public static Map<String, String> readYaml(Path file) {
    if (!Files.isRegularFile(file)) {
      throw new ConfigException("config file " + file + " does not exist");
    }
    try {
      JsonNode root = new ObjectMapper(new YAMLFactory()).readTree(file.toFile());
      Map<String, String> flat = new LinkedHashMap<>();
      if (root != null && !root.isNull() && !root.isMissingNode()) {
        if (!root.isObject()) {
          throw new ConfigException(file + ": expected a mapping of keys to values at the top level");
        }
        flatten("", root, flat, file);
      }
      return flat;
    } catch (IOException e) {
      throw new ConfigException(file + " is not valid YAML: " + e.getMessage());
    }
  }

  private static void flatten(String prefix, JsonNode node, Map<String, String> out, Path file) {
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String key = prefix + e.getKey();
      JsonNode v = e.getValue();
      if (v.isObject()) {
        flatten(key + ".", v, out, file);
      } else if (v.isArray()) {
        throw new ConfigException(file + ": " + key + " must be a single value, not a list");
      } else if (!v.isNull()) {
        out.put(key, v.asText());
      }
    }
  }

  /** The raw value of {@code key}, for keys outside the table's single keys (a component's own, say). */
  public String get(String key) {
    String v = values.get(key);
    if (v == null) {
      throw new ConfigException("missing configuration " + key);
    }
    return v;
  }

  /** The raw value of {@code key}, absent when not set or blank. */
  public Optional<String> find(String key) {
    return Optional.ofNullable(values.get(key)).filter(v -> !v.isBlank());
  }

  /** The value of {@code key}, read as its type; a {@link ConfigException} saying what is allowed otherwise. */
  public <T> T get(ConfigKey<T> key) {
    return key.parse(get(key.name()));
  }

  /** The value of {@code key} when set and not blank, read as its type. */
  public <T> Optional<T> find(ConfigKey<T> key) {
    return find(key.name()).map(key::parse);
  }

  /** {@code component}'s own value of {@code keys}, else the value of their base key. */
  public <T> Optional<T> find(ComponentKeys<T> keys, String component) {
    String own = keys.name(component);
    return find(own).map(v -> keys.parse(own, v)).or(() -> find(keys.base()));
  }

  public Path dataDir() {
    return get(ConfigDefinitions.DATA_DIR);
  }

  public String host() {
    return get(ConfigDefinitions.HOST);
  }

  /** Set when Sluice joins an existing Kafka cluster instead of running its own broker. */
  public Optional<String> externalKafka() {
    return find(ConfigDefinitions.KAFKA_BOOTSTRAP);
  }

  /**
   * Sluice's Kafka login from the {@code kafka.client} shorthand ({@code sasl.username} with
   * {@code sasl.password.file}): what its clients present and, when the broker is the embedded one, the user that
   * broker requires. Empty without the shorthand.
   */
  public Optional<KafkaLogin> kafkaLogin() {
    String prefix = ConfigDefinitions.KAFKA_CLIENT.prefix();
    Map<String, String> client = withPrefix(ConfigDefinitions.KAFKA_CLIENT);
    String user = client.get("sasl.username");
    String passwordFile = client.get("sasl.password.file");
    if (user == null && passwordFile == null) {
      return Optional.empty();
    }
    if (user == null || passwordFile == null) {
      throw new ConfigException(prefix + "sasl.username and " + prefix + "sasl.password.file go together");
    }
    if (client.containsKey("sasl.jaas.config")) {
      throw new ConfigException("give either " + prefix + "sasl.jaas.config or "
          + prefix + "sasl.username with sasl.password.file, not both");
    }
    String mechanism = client.getOrDefault("sasl.mechanism", "GSSAPI");
    if (!List.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512").contains(mechanism)) {
      throw new ConfigException(prefix + "sasl.username works with sasl.mechanism PLAIN, "
          + "SCRAM-SHA-256 or SCRAM-SHA-512, not " + mechanism + "; give sasl.jaas.config instead");
    }
    String password;
    try {
      password = Files.readString(Path.of(passwordFile)).strip();
    } catch (IOException e) {
      throw new ConfigException("cannot read " + prefix + "sasl.password.file " + passwordFile + ": "
          + e.getMessage());
    }
    return Optional.of(new KafkaLogin(client.getOrDefault("security.protocol", "SASL_PLAINTEXT"), mechanism, user,
        password));
  }

  /** A SASL login; {@link #toString()} leaves the password out. */
  public record KafkaLogin(String protocol, String mechanism, String user, String password) {
    public String jaasConfig() {
      String module = mechanism.equals("PLAIN") ? "org.apache.kafka.common.security.plain.PlainLoginModule"
          : "org.apache.kafka.common.security.scram.ScramLoginModule";
      return module + " required username=\"" + jaasQuoted(user) + "\" password=\"" + jaasQuoted(password) + "\";";
    }

    @Override
    public String toString() {
      return protocol + "/" + mechanism + " as " + user;
    }
  }

  /** The cluster at {@code bootstrapServers} with the client security settings of {@code kafka.client.*}. */
  public KafkaCluster kafkaCluster(String bootstrapServers) {
    Map<String, String> security = new TreeMap<>(withPrefix(ConfigDefinitions.KAFKA_CLIENT));
    security.remove("sasl.username");
    security.remove("sasl.password.file");
    kafkaLogin().ifPresent(login -> security.put("sasl.jaas.config", login.jaasConfig()));
    try {
      return KafkaCluster.of(bootstrapServers, security);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
  }

  private static String jaasQuoted(String value) {
    return value.replace("\\", "\\\\").replace("\"", "\\\"");
  }

  /** Every key under {@code prefix}, with the prefix removed. */
  public Map<String, String> withPrefix(ConfigPrefix prefix) {
    return withPrefix(prefix.prefix());
  }

  /** Every key under {@code prefix}, with the prefix removed. */
  public Map<String, String> withPrefix(String prefix) {
    Map<String, String> out = new TreeMap<>();
    values.forEach((k, v) -> {
      if (k.startsWith(prefix)) {
        out.put(k.substring(prefix.length()), v);
      }
    });
    return out;
  }

  /** A configuration that cannot be used, with a message for the operator. */
  public static final class ConfigException extends RuntimeException {
    public ConfigException(String message) {
      super(message);
    }
  }
}
