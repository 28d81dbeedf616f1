package io.sluice.app.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every setting of {@code sluice.yaml}, defined once, in the spirit of Kafka's {@code ConfigDef}: its name, type,
 * default, what it is for, its command-line flag and older names. {@code sluice up} reads the file through this table
 * ({@link SluiceConfig}), {@code sluice check-config} checks it by the same entries, the flags of {@code sluice up} and
 * {@code sluice kafka} are made from it, and so is the reference in {@code docs/configuration.md}
 * ({@link ConfigReference}). A new setting is one entry here.
 */
public final class ConfigDefinitions {
  private static final List<ConfigDefinition> TABLE = new ArrayList<>();
  /** The table, in the order the reference lists it. */
  public static final List<ConfigDefinition> ALL = Collections.unmodifiableList(TABLE);

  private static final ConfigType<String> TEXT = new ConfigType.Text("VALUE");
  private static final ConfigType<String> TOPIC = new ConfigType.Text("TOPIC");
  private static final ConfigType<String> URL = new ConfigType.Text("URL");
  private static final ConfigType<String> JVM_OPTIONS = new ConfigType.Text("OPTIONS");
  private static final ConfigType<Path> FILE = new ConfigType.FilePath("FILE");
  private static final ConfigType<Path> DIR = new ConfigType.FilePath("DIR");
  private static final ConfigType<Integer> PORT = new ConfigType.Port();
  private static final ConfigType<Long> SIZE = new ConfigType.Size();
  private static final ConfigType<String> HEAP = new ConfigType.HeapSize();
  private static final ConfigType<Duration> DURATION = new ConfigType.Duration();

  public static final ConfigKey<Path> DATA_DIR = define(ConfigKey.of("data.dir", DIR, "./data",
      "The data directory: the embedded broker's log, the metrics store, offset backups, the demo's databases, "
          + "caches.").flag("--data-dir"));
  public static final ConfigKey<String> HOST = define(ConfigKey.of("host", new ConfigType.Text("HOST"), "127.0.0.1",
      "The address every component binds to; `0.0.0.0` for all interfaces.").flag("--host"));

  public static final ConfigKey<Integer> KAFKA_PORT = define(ConfigKey.of("kafka.port", PORT, "9092",
      "The embedded broker's client port.").flag("--kafka-port"));
  public static final ConfigKey<String> KAFKA_BOOTSTRAP = define(ConfigKey.optional("kafka.bootstrap.servers", TEXT,
      "Join this Kafka cluster instead of running an embedded broker; nodes with the same one form one cluster.")
      .flag("--kafka-bootstrap", "HOST:PORT[,...]"));
  /**
   * Prefix of the Kafka client security settings every Kafka client of Sluice uses, under Kafka's names, with one
   * shorthand of Sluice's: {@code kafka.client.sasl.username} and {@code kafka.client.sasl.password.file} make the
   * {@code sasl.jaas.config} of the mechanism ({@link SluiceConfig#kafkaLogin()}).
   */
  public static final ConfigPrefix KAFKA_CLIENT = define(new ConfigPrefix("kafka.client.",
      "How every Kafka client of Sluice connects, under Kafka's own names (`security.protocol`, `ssl.*`, "
          + "`sasl.mechanism`, `sasl.jaas.config`). Sluice's shorthand: `sasl.username` with `sasl.password.file`, so "
          + "that the password stays in a file of its own. With the embedded broker, a SASL protocol here makes the "
          + "broker require that login.", "kafka.client.security.protocol: SASL_SSL"));
  public static final ConfigPrefix KAFKA_BROKER = define(new ConfigPrefix("kafka.broker.",
      "Raw broker properties of the embedded broker.", "kafka.broker.num.partitions: 3"));
  public static final ConfigKey<Long> KAFKA_NODE_ID = define(ConfigKey.optional("kafka.node.id",
      new ConfigType.WholeNumber(0, Integer.MAX_VALUE, "a node id, a whole number of at least 0"),
      "`sluice kafka` only: this node's id among the voters of a multi-node KRaft quorum (1 when alone).")
      .flag("--node-id", "ID"));
  public static final ConfigKey<String> KAFKA_VOTERS = define(ConfigKey.optional("kafka.voters", TEXT,
      "`sluice kafka` only: every controller of the quorum, `id@host:port[,...]`, the same on every node.")
      .flag("--voters", "ID@HOST:PORT[,...]"));
  public static final ConfigKey<String> KAFKA_CLUSTER_ID = define(ConfigKey.optional("kafka.cluster.id", TEXT,
      "`sluice kafka` only: the cluster id to format with; derived from the voters when absent.")
      .flag("--cluster-id", "ID"));

  public static final ConfigKey<Integer> CONNECT_PORT = define(ConfigKey.of("connect.port", PORT, "8083",
      "The Kafka Connect REST port.").flag("--connect-port"));
  public static final ConfigKey<String> CONNECT_GROUP = define(ConfigKey.of("connect.group.id",
      new ConfigType.Text("GROUP"), "sluice",
      "The Connect cluster's group: workers with the same one share their connectors.").flag("--connect-group"));
  public static final ConfigKey<Path> PLUGIN_PATH = define(ConfigKey.optional("connect.plugin.path", DIR,
      "The folder of connector plugin folders; the distribution's `plugins/` when absent.").flag("--plugin-path"));
  public static final ConfigPrefix CONNECT_WORKER = define(new ConfigPrefix("connect.worker.",
      "Raw Kafka Connect worker properties; `connect.worker.sluice.rest.max.request.bytes` (default 4194304) limits "
          + "REST request bodies.", "connect.worker.producer.linger.ms: 5"));

  public static final ConfigKey<Integer> REGISTRY_PORT = define(ConfigKey.of("registry.port", PORT, "8081",
      "The schema registry's port (Confluent Schema Registry REST API).").flag("--registry-port"));
  public static final ConfigKey<String> REGISTRY_TOPIC = define(ConfigKey.of("registry.topic", TOPIC, "_schemas",
      "The compacted topic holding every schema."));
  // One request must not fill the heap; each API's largest real request fits its limit.
  public static final ConfigKey<Long> REGISTRY_MAX_REQUEST = define(ConfigKey.of("registry.max.request.bytes", SIZE,
      "8MiB", "The largest request body the registry takes; larger ones are answered 413, in the API's own error "
          + "shape."));
  // About 1,500 parsed Avro records of 20 fields: a FULL_TRANSITIVE subject of 1,000 such versions stays parsed.
  public static final ConfigKey<Long> REGISTRY_SCHEMA_CACHE = define(ConfigKey.of("registry.schema.cache.bytes", SIZE,
      "32MiB", "Heap for the parsed schemas kept for compatibility checks (estimated from their text). Schemas are "
          + "held as text; the least recently used parsed forms are dropped and parsed again when a check needs "
          + "them."));

  public static final ConfigKey<Integer> METRICS_PORT = define(ConfigKey.of("metrics.port", PORT, "9090",
      "The metrics server's port (Prometheus HTTP API).").flag("--metrics-port"));
  public static final ConfigKey<Path> METRICS_CONFIG = define(ConfigKey.optional("metrics.config", FILE,
      "A `prometheus.yml` (scrape configs, `rule_files` relative to it, alerting); without it the metrics server "
          + "scrapes Sluice's exporter and itself, loads the bundled CDC alert rules and alerts the router.")
      .flag("--metrics-config"));
  public static final ConfigKey<Duration> METRICS_RETENTION = define(ConfigKey.of("metrics.retention", DURATION,
      "15d", "How long the metrics server keeps samples.").flag("--storage.retention"));
  public static final ConfigKey<Long> METRICS_MAX_REQUEST = define(ConfigKey.of("metrics.max.request.bytes", SIZE,
      "10MiB", "The largest request body the metrics server takes."));
  /**
   * Each sample held takes 16 bytes, so the default of 5,000,000 (80 MB) leaves the control plane's heap for
   * everything else; Prometheus's own default, 50,000,000, would take 800 MB.
   */
  public static final ConfigKey<Long> METRICS_QUERY_MAX_SAMPLES = define(ConfigKey.of("metrics.query.max.samples",
      new ConfigType.WholeNumber(1, Long.MAX_VALUE, "a whole number of at least 1"), "5000000",
      "The most samples one query may hold (Prometheus's `--query.max-samples`); past it the query fails with "
          + "Prometheus's error (422, execution). Each takes 16 bytes: 5000000 is 80 MB of the control plane's heap "
          + "(Prometheus's own default, 50000000, would be 800 MB)."));

  public static final ConfigKey<Integer> ALERTS_PORT = define(ConfigKey.of("alerts.port", PORT, "9093",
      "The alert router's port (Alertmanager API).").flag("--alerts-port"));
  public static final ConfigKey<Path> ALERTS_CONFIG = define(ConfigKey.optional("alerts.config", FILE,
      "An `alertmanager.yml`; without it the bundled CDC routing runs.").flag("--alerts-config"));
  public static final ConfigKey<String> ALERTS_STATE_TOPIC = define(ConfigKey.of("alerts.state.topic", TOPIC,
      "sluice-alerts-state", "The compacted topic of the router's silences and notification log, shared by every "
          + "node."));
  public static final ConfigKey<Long> ALERTS_MAX_REQUEST = define(ConfigKey.of("alerts.max.request.bytes", SIZE,
      "4MiB", "The largest request body the alert router takes."));

  public static final ConfigKey<Integer> EXPORTER_PORT = define(ConfigKey.of("exporter.port", PORT, "5556",
      "The metrics exporter's port (`/metrics` of the Connect worker, Debezium, Kafka and the source databases).")
      .flag("--exporter-port"));
  public static final ConfigKey<Long> EXPORTER_MAX_REQUEST = define(ConfigKey.of("exporter.max.request.bytes", SIZE,
      "64KiB", "The largest request body the exporter takes."));
  public static final ConfigKey<Duration> EXPORTER_MOVE_HOLD = define(ConfigKey.of("exporter.move.hold", DURATION,
      "15s", "How long the series of a task that moved here from another node stay away: at least the longest "
          + "scrape interval of whatever scrapes the exporters, so that no scrape sees the task on both nodes (and a "
          + "sum over a pipeline counts it twice)."));

  // The console's keys were ui.* until the console had one name everywhere: a file or flag that says ui.* still works.
  public static final ConfigKey<Integer> CONSOLE_PORT = define(ConfigKey.of("console.port", PORT, "3000",
      "The console's port.").flag("--console-port").oldFlag("--ui-port").alias("ui.port"));
  public static final ConfigKey<String> CONSOLE_METRICS_URL = define(ConfigKey.optional("console.metrics.url", URL,
      "The Prometheus API the console draws from; this node's metrics server when absent (a real Prometheus works "
          + "the same).").alias("ui.metrics.url"));
  public static final ConfigKey<String> CONSOLE_ALERTS_URL = define(ConfigKey.optional("console.alerts.url", URL,
      "The Alertmanager API the console draws from; this node's router when absent (a real Alertmanager works the "
          + "same).").alias("ui.alerts.url"));
  public static final ConfigKey<Path> CONSOLE_METRICS_HTTP_CONFIG_FILE = define(ConfigKey.optional(
      "console.metrics.http.config.file", FILE, "How the console reaches `console.metrics.url` when it is secured: "
          + "the keys of Prometheus' `http_config` (`basic_auth`, `authorization`, `tls_config`, with their `*_file` "
          + "forms).").alias("ui.metrics.http.config.file"));
  public static final ConfigKey<Path> CONSOLE_ALERTS_HTTP_CONFIG_FILE = define(ConfigKey.optional(
      "console.alerts.http.config.file", FILE, "How the console reaches `console.alerts.url` when it is secured, as "
          + "`console.metrics.http.config.file`.").alias("ui.alerts.http.config.file"));

  public static final ConfigKey<String> CLUSTER_TOPIC = define(ConfigKey.of("cluster.topic", TOPIC, "sluice-cluster",
      "The compacted topic in which every node announces itself and its components' addresses: the cluster's "
          + "membership, from which each node's metrics server finds every exporter and router."));

  /** The components with an HTTP surface, each of which may have {@code <component>.web.config.file} of its own. */
  public static final List<String> WEB_COMPONENTS = List.of("connect", "registry", "metrics", "alerts", "exporter",
      "console");
  /** Older names of those components, still read in their keys: the console's were {@code ui.web.*}. */
  private static final Map<String, String> OLD_WEB_COMPONENTS = Map.of("ui", "console");
  public static final ConfigKey<Path> WEB_CONFIG_FILE = define(ConfigKey.optional("web.config.file", FILE,
      "TLS, users (bcrypt hashes) and headers of every HTTP surface, in the format of Prometheus' web configuration "
          + "file. Without it every surface serves plain HTTP to anyone who reaches it.").flag("--web.config.file"));
  public static final ConfigKey<Path> WEB_ROLES_FILE = define(ConfigKey.optional("web.roles.file", FILE,
      "The users' roles (`sluice_roles: {user: read|operate|admin}`) in a file of their own, so that the web "
          + "configuration stays valid for Prometheus and Alertmanager, whose parsers refuse keys they do not know.")
      .flag("--web.roles.file"));
  public static final ComponentKeys<Path> COMPONENT_WEB_CONFIG_FILE = define(new ComponentKeys<>(WEB_CONFIG_FILE,
      WEB_COMPONENTS, "A web configuration file of one component's own, in place of `web.config.file`.",
      OLD_WEB_COMPONENTS));
  public static final ComponentKeys<Path> COMPONENT_WEB_ROLES_FILE = define(new ComponentKeys<>(WEB_ROLES_FILE,
      WEB_COMPONENTS, "A roles file of one component's own, in place of `web.roles.file`.", OLD_WEB_COMPONENTS));

  // The data plane: what the single process had, for the same throughput. The parallel collector moves about 20%
  // more change events per second than G1 on 2 cores; a young generation of half the heap lets change events in
  // flight die young; start-up loads ~150 MB of classes, past the first metaspace threshold (bench/). The first heap
  // is 64 MB, not the JVM's 1/64 of the machine's memory: on 24 GB that was 384 MB, whose young half an idle data plane
  // touched page by page between its collections (RSS 432 MB against 341); the collector grows both generations as a
  // load needs them, up to dataplane.heap.
  public static final ConfigKey<String> DATA_PLANE_HEAP = define(ConfigKey.of("dataplane.heap", HEAP, "1g",
      "The heap (`-Xmx`) of the data plane: the broker, the Connect worker with its connectors, the exporter."));
  public static final ConfigKey<String> DATA_PLANE_JAVA_OPTIONS = define(ConfigKey.of("dataplane.java.options",
      JVM_OPTIONS, "-XX:+UseParallelGC -XX:NewRatio=1 -XX:MetaspaceSize=192m -Xms64m",
      "More JVM options of the data plane, separated by spaces."));
  // Under contention a thread at 0 weighs about nine times one at 10 (the kernel's table of weights); without
  // contention a nice value changes nothing.
  public static final ConfigKey<Long> DATA_PLANE_NICE = define(ConfigKey.of("dataplane.nice",
      new ConfigType.WholeNumber(0, 19, "a nice value from 0 to 19"), "10",
      "The data plane's nice value, 0 (off) to 19: when connectors keep every core busy, the control plane, at 0, is "
          + "served first, so the router, the metrics server and the console keep answering about them."));
  // The control plane holds series, rules, alerts and schemas, mostly idle between scrapes and evaluations: the
  // serial collector keeps its footprint small.
  public static final ConfigKey<String> CONTROL_PLANE_HEAP = define(ConfigKey.of("controlplane.heap", HEAP, "512m",
      "The heap (`-Xmx`) of the control plane: the alert router, the metrics server and its rules, the registry, the "
          + "console."));
  // A young generation of 32 MB: the serial collector let it grow to 100 MB and more, every page of which an idle
  // control plane touches in time (184 against 160 MB of RSS); what it keeps is small, so a young collection stays cheap.
  public static final ConfigKey<String> CONTROL_PLANE_JAVA_OPTIONS = define(ConfigKey.of("controlplane.java.options",
      JVM_OPTIONS, "-XX:+UseSerialGC -Xmn32m", "More JVM options of the control plane, separated by spaces."));

  private ConfigDefinitions() {}

  private static <D extends ConfigDefinition> D define(D definition) {
    TABLE.add(definition);
    return definition;
  }

  /** Every single key of the table (not the prefixes and per-component keys), in its order. */
  public static List<ConfigKey<?>> keys() {
    return keys(ALL);
  }

  /** Every key whose value is a port, in the table's order. */
  public static List<ConfigKey<Integer>> ports() {
    List<ConfigKey<Integer>> out = new ArrayList<>();
    for (ConfigKey<?> k : keys()) {
      if (k.type() instanceof ConfigType.Port) {
        @SuppressWarnings("unchecked") // A key's value is its type's: a Port's is an Integer.
        ConfigKey<Integer> port = (ConfigKey<Integer>) k;
        out.add(port);
      }
    }
    return out;
  }

  /** The prefixes of raw settings handed to Kafka as they are. */
  public static List<ConfigPrefix> prefixes() {
    return ALL.stream().filter(ConfigPrefix.class::isInstance).map(ConfigPrefix.class::cast).toList();
  }

  /** The default of every key that has one. */
  public static Map<String, String> defaults() {
    Map<String, String> out = new LinkedHashMap<>();
    keys().forEach(k -> k.defaultValue().ifPresent(d -> out.put(k.name(), d)));
    return out;
  }

  /**
   * Whether Sluice reads {@code key}: a key of the table or an older name of one, a component's key of its own, or a
   * raw setting under a prefix. Any other key in a file is ignored, most likely a typo.
   */
  public static boolean known(String key) {
    return definitionOf(ALL, canonicalName(ALL, key)).isPresent();
  }

  /** {@code layer} (one file's keys, or the flags) with every older name of a key replaced by the key's name. */
  public static Map<String, String> canonical(Map<String, String> layer) {
    return canonical(ALL, layer);
  }

  /**
   * Every value of {@code values} (keys canonical) that its entry refuses, each as a message naming the key, the value
   * and what is allowed, in the table's order.
   */
  public static List<String> problems(Map<String, String> values) {
    return problems(ALL, values);
  }

  static List<ConfigKey<?>> keys(List<ConfigDefinition> table) {
    List<ConfigKey<?>> out = new ArrayList<>();
    for (ConfigDefinition d : table) {
      if (d instanceof ConfigKey<?> k) {
        out.add(k);
      }
    }
    return out;
  }

  static Optional<ConfigDefinition> definitionOf(List<ConfigDefinition> table, String key) {
    return table.stream().filter(d -> d.covers(key)).findFirst();
  }

  static String canonicalName(List<ConfigDefinition> table, String key) {
    for (ConfigDefinition d : table) {
      if (d instanceof ConfigKey<?> k && k.aliases().contains(key)) {
        return k.name();
      }
      if (d instanceof ComponentKeys<?> c && c.renamed(key).isPresent()) {
        return c.renamed(key).get();
      }
    }
    return key;
  }

  /** An older name gives way to the key's own name when a layer sets both. */
  static Map<String, String> canonical(List<ConfigDefinition> table, Map<String, String> layer) {
    Map<String, String> out = new LinkedHashMap<>();
    layer.forEach((k, v) -> {
      String name = canonicalName(table, k);
      if (name.equals(k) || !layer.containsKey(name)) {
        out.put(name, v);
      }
    });
    return out;
  }

  static List<String> problems(List<ConfigDefinition> table, Map<String, String> values) {
    List<String> problems = new ArrayList<>();
    for (ConfigDefinition d : table) {
      // Java 17: no pattern switch; a ConfigPrefix is handed on as it is, and the engine that takes it judges it.
      if (d instanceof ConfigKey<?> k) {
        String raw = values.get(k.name());
        // A key without a default left blank is off, as if it were not there.
        if (raw != null && (k.defaultValue().isPresent() || !raw.isBlank())) {
          check(problems, () -> k.parse(raw));
        }
      } else if (d instanceof ComponentKeys<?> c) {
        values.forEach((key, raw) -> {
          if (c.covers(key) && !raw.isBlank()) {
            check(problems, () -> c.parse(key, raw));
          }
        });
      }
    }
    return problems;
  }

  private static void check(List<String> problems, Runnable parse) {
    try {
      parse.run();
    } catch (SluiceConfig.ConfigException e) {
      problems.add(e.getMessage());
    }
  }
}
