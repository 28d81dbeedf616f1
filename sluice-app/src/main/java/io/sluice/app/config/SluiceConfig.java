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
 *
 * <p>Keys are dotted paths; the file may nest them ({@code kafka: {bootstrap.servers: …}}) or write them flat
 * ({@code kafka.bootstrap.servers: …}), both mean the same. Defaults bind everything to 127.0.0.1.
 */
public record SluiceConfig(Map<String, String> values) {
  public static final String DATA_DIR = "data.dir";
  public static final String HOST = "host";
  public static final String KAFKA_BOOTSTRAP = "kafka.bootstrap.servers";
  public static final String KAFKA_PORT = "kafka.port";
  /** {@code sluice kafka}: this node's id in a multi-node KRaft quorum. */
  public static final String KAFKA_NODE_ID = "kafka.node.id";
  /** {@code sluice kafka}: every controller of the quorum, {@code id@host:port[,...]}, the same on every node. */
  public static final String KAFKA_VOTERS = "kafka.voters";
  /** {@code sluice kafka}: the cluster id to format with; derived from the voters when absent. */
  public static final String KAFKA_CLUSTER_ID = "kafka.cluster.id";
  public static final String CONNECT_PORT = "connect.port";
  public static final String CONNECT_GROUP = "connect.group.id";
  public static final String PLUGIN_PATH = "connect.plugin.path";
  public static final String REGISTRY_PORT = "registry.port";
  public static final String REGISTRY_TOPIC = "registry.topic";
  public static final String METRICS_PORT = "metrics.port";
  /** A prometheus.yml; without it the server scrapes Sluice's exporter and itself and alerts to Sluice's router. */
  public static final String METRICS_CONFIG = "metrics.config";
  public static final String METRICS_RETENTION = "metrics.retention";
  /**
   * The most samples one PromQL query may hold (Prometheus's {@code --query.max-samples}); past it the query fails
   * with Prometheus's error. Each sample held takes 16 bytes, so the default of 5,000,000 (80 MB) leaves the control
   * plane's heap for everything else; Prometheus's own default, 50,000,000, would take 800 MB.
   */
  public static final String METRICS_QUERY_MAX_SAMPLES = "metrics.query.max.samples";
  public static final String ALERTS_PORT = "alerts.port";
  /** Port of the metrics exporter ({@code /metrics} of the Connect worker, Debezium and Kafka). */
  public static final String EXPORTER_PORT = "exporter.port";
  /**
   * How long the series of a task that moved to a node from another stay away there: at least the longest scrape
   * interval of whatever scrapes the exporters, so that no scrape sees the task on both nodes (and a sum over a
   * pipeline counts it twice).
   */
  public static final String EXPORTER_MOVE_HOLD = "exporter.move.hold";
  /** Port of the dashboard. */
  public static final String UI_PORT = "ui.port";
  /**
   * The Prometheus and Alertmanager APIs the dashboard draws from (default: this platform's metrics server and
   * router); a real Prometheus and Alertmanager work the same.
   */
  public static final String UI_METRICS_URL = "ui.metrics.url";
  public static final String UI_ALERTS_URL = "ui.alerts.url";
  /**
   * How the dashboard reaches {@code ui.metrics.url} and {@code ui.alerts.url} when they are secured: a file each,
   * in the keys of Prometheus' {@code http_config} ({@code basic_auth}, {@code authorization}, {@code tls_config},
   * with their {@code *_file} forms).
   */
  public static final String UI_METRICS_HTTP_CONFIG_FILE = "ui.metrics.http.config.file";
  public static final String UI_ALERTS_HTTP_CONFIG_FILE = "ui.alerts.http.config.file";
  public static final String REGISTRY_MAX_REQUEST = "registry.max.request.bytes";
  /**
   * Heap the registry's parsed schemas may take (estimated from their text): it keeps every schema as text and the
   * most recently used parsed forms for compatibility checks, parsing the others again when a check needs them.
   */
  public static final String REGISTRY_SCHEMA_CACHE = "registry.schema.cache.bytes";
  public static final String METRICS_MAX_REQUEST = "metrics.max.request.bytes";
  public static final String ALERTS_MAX_REQUEST = "alerts.max.request.bytes";
  public static final String EXPORTER_MAX_REQUEST = "exporter.max.request.bytes";
  /** An alertmanager.yml; without it the bundled CDC routing runs. */
  public static final String ALERTS_CONFIG = "alerts.config";
  /**
   * The web configuration file (the Prometheus tools' format) for every HTTP surface Sluice serves; each component
   * may have its own, {@code <component>.web.config.file} ({@code registry}, {@code metrics}, {@code alerts},
   * {@code exporter}).
   */
  public static final String WEB_CONFIG_FILE = "web.config.file";
  /**
   * A file of its own for {@code sluice_roles}, so that the web configuration stays valid for Prometheus and
   * Alertmanager (whose parser refuses keys it does not know); {@code <component>.web.roles.file} for one component.
   */
  public static final String WEB_ROLES_FILE = "web.roles.file";
  /** Compacted topic holding the router's silences and notification log, shared by every node of a cluster. */
  public static final String ALERTS_STATE_TOPIC = "alerts.state.topic";
  /**
   * Compacted topic in which every node announces itself and its components' addresses: the cluster's membership,
   * from which each node's metrics server finds every exporter and router.
   */
  public static final String CLUSTER_TOPIC = "cluster.topic";
  /**
   * The heap of each of {@code sluice up}'s two processes ({@code -Xmx} sizes: {@code 1g}, {@code 512m}): the data
   * plane (broker, Connect, exporter) and the control plane (router, metrics server, registry, dashboard).
   */
  public static final String DATA_PLANE_HEAP = "dataplane.heap";
  public static final String CONTROL_PLANE_HEAP = "controlplane.heap";
  /** More JVM options of each plane, separated by spaces (the defaults pick the garbage collector). */
  public static final String DATA_PLANE_JAVA_OPTIONS = "dataplane.java.options";
  public static final String CONTROL_PLANE_JAVA_OPTIONS = "controlplane.java.options";
  /**
   * The data plane's nice value (0–19): when connectors keep every core busy, the control plane, at 0, is served
   * first, so the router, the metrics server and the dashboard keep answering about them.
   */
  public static final String DATA_PLANE_NICE = "dataplane.nice";
  /** Prefix of raw Kafka Connect worker properties, e.g. {@code connect.worker.producer.linger.ms}. */
  public static final String CONNECT_WORKER_PREFIX = "connect.worker.";
  /**
   * Prefix of the Kafka client security settings every Kafka client of Sluice uses, under Kafka's names
   * ({@code kafka.client.security.protocol}, {@code kafka.client.sasl.mechanism}, {@code kafka.client.ssl.*}), with
   * one shorthand of Sluice's: {@code kafka.client.sasl.username} and {@code kafka.client.sasl.password.file} make
   * the {@code sasl.jaas.config} of the mechanism, so the password stays in a file of its own.
   */
  public static final String KAFKA_CLIENT_PREFIX = "kafka.client.";
  /** Prefix of raw broker properties for the embedded broker. */
  public static final String KAFKA_BROKER_PREFIX = "kafka.broker.";

  /** The components with an HTTP surface, each of which may have {@code <component>.web.config.file} of its own. */
  public static final List<String> WEB_COMPONENTS = List.of("connect", "registry", "metrics", "alerts", "exporter",
      "ui");
  /** Prefixes of raw settings handed to Kafka as they are. */
  public static final List<String> PREFIXES = List.of(CONNECT_WORKER_PREFIX, KAFKA_CLIENT_PREFIX, KAFKA_BROKER_PREFIX);
  /** Every other key Sluice reads, besides {@code <component>.web.config.file} and {@code .web.roles.file}. */
  public static final List<String> KEYS = List.of(DATA_DIR, HOST, KAFKA_BOOTSTRAP, KAFKA_PORT, KAFKA_NODE_ID,
      KAFKA_VOTERS, KAFKA_CLUSTER_ID, CONNECT_PORT, CONNECT_GROUP, PLUGIN_PATH, REGISTRY_PORT, REGISTRY_TOPIC,
      REGISTRY_MAX_REQUEST, REGISTRY_SCHEMA_CACHE, METRICS_PORT, METRICS_CONFIG, METRICS_RETENTION,
      METRICS_MAX_REQUEST, METRICS_QUERY_MAX_SAMPLES, ALERTS_PORT, ALERTS_CONFIG, ALERTS_STATE_TOPIC,
      ALERTS_MAX_REQUEST, EXPORTER_PORT, EXPORTER_MAX_REQUEST, EXPORTER_MOVE_HOLD, UI_PORT, UI_METRICS_URL,
      UI_ALERTS_URL, UI_METRICS_HTTP_CONFIG_FILE, UI_ALERTS_HTTP_CONFIG_FILE, WEB_CONFIG_FILE, WEB_ROLES_FILE,
      CLUSTER_TOPIC, DATA_PLANE_HEAP, DATA_PLANE_JAVA_OPTIONS, DATA_PLANE_NICE, CONTROL_PLANE_HEAP,
      CONTROL_PLANE_JAVA_OPTIONS);

  private static final Map<String, String> DEFAULTS = Map.ofEntries(
      Map.entry(DATA_DIR, "./data"),
      Map.entry(HOST, "127.0.0.1"),
      Map.entry(KAFKA_PORT, "9092"),
      Map.entry(CONNECT_PORT, "8083"),
      Map.entry(CONNECT_GROUP, "sluice"),
      Map.entry(REGISTRY_PORT, "8081"),
      Map.entry(REGISTRY_TOPIC, "_schemas"),
      Map.entry(ALERTS_PORT, "9093"),
      Map.entry(ALERTS_STATE_TOPIC, "sluice-alerts-state"),
      Map.entry(CLUSTER_TOPIC, "sluice-cluster"),
      Map.entry(METRICS_PORT, "9090"),
      Map.entry(METRICS_RETENTION, "15d"),
      Map.entry(METRICS_QUERY_MAX_SAMPLES, "5000000"),
      Map.entry(EXPORTER_PORT, "5556"),
      Map.entry(EXPORTER_MOVE_HOLD, "15s"),
      Map.entry(UI_PORT, "3000"),
      // The data plane: what the single process had, for the same throughput. The parallel collector moves about 20%
      // more change events per second than G1 on 2 cores; a young generation of half the heap lets change events in
      // flight die young; start-up loads ~150 MB of classes, past the first metaspace threshold (bench/).
      Map.entry(DATA_PLANE_HEAP, "1g"),
      Map.entry(DATA_PLANE_JAVA_OPTIONS, "-XX:+UseParallelGC -XX:NewRatio=1 -XX:MetaspaceSize=192m"),
      // Under contention a thread at 0 weighs about nine times one at 10 (the kernel's table of weights); without
      // contention a nice value changes nothing.
      Map.entry(DATA_PLANE_NICE, "10"),
      // The control plane holds series, rules, alerts and schemas, mostly idle between scrapes and evaluations: the
      // serial collector keeps its footprint small.
      Map.entry(CONTROL_PLANE_HEAP, "512m"),
      Map.entry(CONTROL_PLANE_JAVA_OPTIONS, "-XX:+UseSerialGC"),
      // One request must not fill the heap the broker and Connect share; each API's largest real request fits.
      Map.entry(REGISTRY_MAX_REQUEST, "8MiB"),
      // About 1,500 parsed Avro records of 20 fields: a FULL_TRANSITIVE subject of 1,000 such versions stays parsed.
      Map.entry(REGISTRY_SCHEMA_CACHE, "32MiB"),
      Map.entry(METRICS_MAX_REQUEST, "10MiB"),
      Map.entry(ALERTS_MAX_REQUEST, "4MiB"),
      Map.entry(EXPORTER_MAX_REQUEST, "64KiB"));

  /** The default of every key that has one. */
  public static Map<String, String> defaults() {
    return DEFAULTS;
  }

  /**
   * Whether Sluice reads {@code key}: one of {@link #KEYS}, a component's web configuration or roles file, or a raw
   * setting under one of {@link #PREFIXES}. Any other key in a file is ignored, most likely a typo.
   */
  public static boolean known(String key) {
    if (KEYS.contains(key) || PREFIXES.stream().anyMatch(p -> key.startsWith(p) && key.length() > p.length())) {
      return true;
    }
    int dot = key.indexOf('.');
    return dot > 0 && WEB_COMPONENTS.contains(key.substring(0, dot))
        && List.of(WEB_CONFIG_FILE, WEB_ROLES_FILE).contains(key.substring(dot + 1));
  }

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
    return List.of(get(REGISTRY_TOPIC), get(ALERTS_STATE_TOPIC), get(CLUSTER_TOPIC));
  }

  /** Puts a flag's value among the overrides under {@code key}, when the flag was given. */
  public static void putGiven(Map<String, String> flags, String key, Object value) {
    if (value != null) {
      flags.put(key, value.toString());
    }
  }

  /** The defaults, then the file (if any), then the overrides (flags) on top. */
  public static SluiceConfig load(Optional<Path> file, Map<String, String> overrides) {
    Map<String, String> merged = new TreeMap<>(DEFAULTS);
    file.ifPresent(f -> merged.putAll(readYaml(f)));
    merged.putAll(overrides);
    return new SluiceConfig(merged);
  }

  /** The keys a file sets, flattened to dotted paths, without the defaults. */
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

  public String get(String key) {
    String v = values.get(key);
    if (v == null) {
      throw new ConfigException("missing configuration " + key);
    }
    return v;
  }

  public Optional<String> find(String key) {
    return Optional.ofNullable(values.get(key)).filter(v -> !v.isBlank());
  }

  public int port(String key) {
    String v = get(key);
    try {
      int p = Integer.parseInt(v.trim());
      if (p < 0 || p > 65535) {
        throw new NumberFormatException();
      }
      return p;
    } catch (NumberFormatException e) {
      throw new ConfigException(key + " must be a port number (0-65535), not '" + v + "'");
    }
  }

  /** A duration in Go's notation, as in Prometheus' configuration: {@code 15s}, {@code 1m30s}. */
  public java.time.Duration duration(String key) {
    String v = get(key).trim();
    try {
      return io.sluice.gofmt.GoDuration.parse(v);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(key + " must be a duration such as 15s or 1m, not '" + v + "'");
    }
  }

  /** A size in bytes: a number, optionally with a unit (B, KB, MB, GB, KiB, MiB, GiB), e.g. {@code 8MiB}. */
  public long bytes(String key) {
    String v = get(key).trim();
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d+)\\s*([KMG]i?B|B)?").matcher(v);
    if (!m.matches()) {
      throw new ConfigException(key + " must be a size such as 4MiB or 1048576, not '" + v + "'");
    }
    long unit = switch (m.group(2) == null ? "B" : m.group(2)) {
      case "KB" -> 1_000L;
      case "MB" -> 1_000_000L;
      case "GB" -> 1_000_000_000L;
      case "KiB" -> 1L << 10;
      case "MiB" -> 1L << 20;
      case "GiB" -> 1L << 30;
      default -> 1L;
    };
    try {
      long n = Math.multiplyExact(Long.parseLong(m.group(1)), unit);
      if (n <= 0) {
        throw new ConfigException(key + " must be more than 0 bytes, not '" + v + "'");
      }
      return n;
    } catch (ArithmeticException | NumberFormatException e) {
      throw new ConfigException(key + " is too large: '" + v + "'");
    }
  }

  /** A whole number of at least 1. */
  public long count(String key) {
    return whole(key, 1, Long.MAX_VALUE, "a whole number of at least 1");
  }

  /** A heap size as {@code -Xmx} takes it: a number with an optional k, m or g. */
  public String heap(String key) {
    String v = get(key).trim();
    if (!v.matches("\\d+[kKmMgG]?")) {
      throw new ConfigException(key + " must be a heap size such as 512m or 1g, not '" + v + "'");
    }
    return v;
  }

  /** A nice value, 0 (the default priority) to 19 (the lowest). */
  public int nice(String key) {
    return (int) whole(key, 0, 19, "a nice value from 0 to 19");
  }

  /** {@code key}'s value as a whole number from {@code min} to {@code max}; else it must be {@code what}. */
  private long whole(String key, long min, long max, String what) {
    String v = get(key).trim();
    try {
      long n = Long.parseLong(v);
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // said below
    }
    throw new ConfigException(key + " must be " + what + ", not '" + v + "'");
  }

  public Path dataDir() {
    return Path.of(get(DATA_DIR));
  }

  public String host() {
    return get(HOST);
  }

  /** Set when Sluice joins an existing Kafka cluster instead of running its own broker. */
  public Optional<String> externalKafka() {
    return find(KAFKA_BOOTSTRAP);
  }

  /**
   * Sluice's Kafka login from the {@code kafka.client} shorthand ({@code sasl.username} with
   * {@code sasl.password.file}): what its clients present and, when the broker is the embedded one, the user that
   * broker requires. Empty without the shorthand.
   */
  public Optional<KafkaLogin> kafkaLogin() {
    Map<String, String> client = withPrefix(KAFKA_CLIENT_PREFIX);
    String user = client.get("sasl.username");
    String passwordFile = client.get("sasl.password.file");
    if (user == null && passwordFile == null) {
      return Optional.empty();
    }
    if (user == null || passwordFile == null) {
      throw new ConfigException(KAFKA_CLIENT_PREFIX + "sasl.username and " + KAFKA_CLIENT_PREFIX
          + "sasl.password.file go together");
    }
    if (client.containsKey("sasl.jaas.config")) {
      throw new ConfigException("give either " + KAFKA_CLIENT_PREFIX + "sasl.jaas.config or "
          + KAFKA_CLIENT_PREFIX + "sasl.username with sasl.password.file, not both");
    }
    String mechanism = client.getOrDefault("sasl.mechanism", "GSSAPI");
    if (!List.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512").contains(mechanism)) {
      throw new ConfigException(KAFKA_CLIENT_PREFIX + "sasl.username works with sasl.mechanism PLAIN, "
          + "SCRAM-SHA-256 or SCRAM-SHA-512, not " + mechanism + "; give sasl.jaas.config instead");
    }
    String password;
    try {
      password = Files.readString(Path.of(passwordFile)).strip();
    } catch (IOException e) {
      throw new ConfigException("cannot read " + KAFKA_CLIENT_PREFIX + "sasl.password.file " + passwordFile + ": "
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
    Map<String, String> security = new TreeMap<>(withPrefix(KAFKA_CLIENT_PREFIX));
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
