package io.sluice.app.checkconfig;

import io.sluice.alerts.AlertRouter;
import io.sluice.app.cli.ExitCode;
import io.sluice.app.config.ConfigDefinitions;
import io.sluice.app.config.ConfigKey;
import io.sluice.app.config.SluiceConfig;
import io.sluice.app.up.DataPlane;
import io.sluice.app.up.Ports;
import io.sluice.app.up.WebSurfaces;
import io.sluice.client.HttpConfig;
import io.sluice.connect.ConnectRuntime;
import io.sluice.connect.TransactionPermissions;
import io.sluice.kafka.EmbeddedKafka;
import io.sluice.metrics.MetricsServer;
import io.sluice.topics.KafkaCluster;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code sluice check-config FILE}: a whole {@code sluice.yaml} checked as {@code sluice up} would read it, without
 * starting, binding or connecting to anything. Each part is checked by the code that reads it at start (every value by
 * its entry in {@link ConfigDefinitions}, as {@code sluice up} refuses it; the web configurations by
 * {@link WebSurfaces}, the metrics server's prometheus.yml and rule files by {@link MetricsServer#checkConfig}, the
 * router's alertmanager.yml by {@link AlertRouter#checkConfig}),
 * and every problem is listed, not only the first. With {@code --connect}, and only then, it also asks the Kafka
 * cluster a file names ({@code kafka.bootstrap.servers}) whether its login ({@code kafka.client.*}) has the
 * permissions exactly-once sources need, as the Connect worker asks at its start ({@link TransactionPermissions}).
 */
@Command(name = "check-config", mixinStandardHelpOptions = true,
    description = "Check sluice.yaml files without starting anything: settings, ports, heap sizes, the web "
        + "configuration and roles files, the metrics server's prometheus.yml and rule files, the alert router's "
        + "alertmanager.yml. Exit 0 when every file is usable, 1 listing each problem.")
public final class CheckConfigCommand implements Callable<Integer> {
  @Parameters(arity = "1..*", paramLabel = "FILE", description = "sluice.yaml files")
  List<Path> files;

  @Option(names = "--connect", description = "Also contact the Kafka cluster a file names (kafka.bootstrap.servers) "
      + "and check that its login (kafka.client.*) has the permissions exactly-once sources need: each one missing is "
      + "named with the kafka-acls command that grants it. Without it nothing is contacted.")
  boolean connect;

  @Override
  public Integer call() {
    boolean failed = false;
    for (Path file : files) {
      List<String> problems = problems(file, connect);
      if (problems.isEmpty()) {
        System.out.println(file + ": OK");
      } else {
        failed = true;
        System.out.println(file + ": " + problems.size() + (problems.size() == 1 ? " problem" : " problems"));
        problems.forEach(p -> System.out.println("  " + p));
      }
    }
    return (failed ? ExitCode.NO : ExitCode.OK).code();
  }

  /** Every problem of one file; relative paths in it are taken from the working directory, as sluice up does. */
  static List<String> problems(Path file) {
    return problems(file, false);
  }

  /** With {@code connect}, also what the cluster the file names says of its login's permissions. */
  static List<String> problems(Path file, boolean connect) {
    List<String> problems = new ArrayList<>();
    Map<String, String> set;
    try {
      set = SluiceConfig.readYaml(file);
    } catch (SluiceConfig.ConfigException e) {
      return List.of(e.getMessage());
    }
    set.keySet().stream().filter(k -> !ConfigDefinitions.known(k)).forEach(k -> problems.add(unknown(k)));
    SluiceConfig config = SluiceConfig.load(Optional.of(file), Map.of());

    // Each value by its entry in the table, as sluice up refuses them; then what one value cannot say alone.
    problems.addAll(config.problems());
    checkHost(config, problems);
    problems.addAll(Ports.clashes(config));
    checkDataDir(config, problems);
    find(config, ConfigDefinitions.PLUGIN_PATH).filter(p -> !Files.isDirectory(p))
        .ifPresent(p -> problems.add(ConfigDefinitions.PLUGIN_PATH.name() + ": the folder " + p + " does not exist"));
    checkKafkaClients(config, problems);

    problems.addAll(WebSurfaces.check(config));
    find(config, ConfigDefinitions.METRICS_CONFIG).ifPresent(f -> MetricsServer.checkConfig(f)
        .forEach(p -> problems.add(ConfigDefinitions.METRICS_CONFIG.name() + " " + f + ": " + p)));
    find(config, ConfigDefinitions.ALERTS_CONFIG).ifPresent(f -> {
      List<String> found = Files.isRegularFile(f) ? AlertRouter.checkConfig(f) : List.of("no such file");
      found.forEach(p -> problems.add(ConfigDefinitions.ALERTS_CONFIG.name() + " " + f + ": " + p));
    });
    for (ConfigKey<Path> key : List.of(ConfigDefinitions.CONSOLE_METRICS_HTTP_CONFIG_FILE,
        ConfigDefinitions.CONSOLE_ALERTS_HTTP_CONFIG_FILE)) {
      find(config, key).ifPresent(f -> {
        try {
          HttpConfig.load(f);
        } catch (IllegalArgumentException e) {
          problems.add(key.name() + " " + f + ": " + e.getMessage());
        }
      });
    }
    if (connect) {
      checkTransactionPermissions(config, problems);
    }
    return problems;
  }

  /**
   * What the Connect worker asks of the cluster at its start, asked now: a node's own broker does not exist until
   * {@code sluice up} starts it, so only a cluster the file names is asked.
   */
  private static void checkTransactionPermissions(SluiceConfig config, List<String> problems) {
    Optional<String> bootstrap = config.externalKafka();
    if (bootstrap.isEmpty()) {
      return;
    }
    KafkaCluster cluster;
    try {
      cluster = config.kafkaCluster(bootstrap.get());
    } catch (SluiceConfig.ConfigException e) {
      // Listed already by checkKafkaClients.
      return;
    }
    Map<String, String> worker = config.withPrefix(ConfigDefinitions.CONNECT_WORKER);
    TransactionPermissions permissions = TransactionPermissions.of(cluster,
        config.get(ConfigDefinitions.CONNECT_GROUP),
        worker.getOrDefault("offset.storage.topic", ConnectRuntime.OFFSETS_TOPIC),
        worker.getOrDefault(ConnectRuntime.EXACTLY_ONCE_SOURCE_SUPPORT, "enabled"));
    TransactionPermissions.Report report = permissions.check(Duration.ofSeconds(15));
    String where = ConfigDefinitions.KAFKA_BOOTSTRAP.name() + " " + bootstrap.get() + ": ";
    report.unasked().forEach(u -> problems.add(where + "could not check what exactly-once sources need: " + u));
    permissions.sentences(report).forEach(s -> problems.add(where + s));
  }

  /**
   * A path key's value; absent when not set, or when the table refused it (a problem listed already), so that the
   * file checks go on with the rest.
   */
  private static Optional<Path> find(SluiceConfig config, ConfigKey<Path> key) {
    try {
      return config.find(key);
    } catch (SluiceConfig.ConfigException e) {
      return Optional.empty();
    }
  }

  private static void checkHost(SluiceConfig config, List<String> problems) {
    try {
      InetAddress.getByName(config.host());
    } catch (UnknownHostException e) {
      problems.add(ConfigDefinitions.HOST.name() + ": " + config.host() + " is no address of this machine's resolver");
    }
  }

  /** The data directory, or the nearest folder above it that exists, must be a folder this user can write. */
  private static void checkDataDir(SluiceConfig config, List<String> problems) {
    Path dir = config.dataDir().toAbsolutePath();
    Path existing = dir;
    while (existing != null && !Files.exists(existing)) {
      existing = existing.getParent();
    }
    if (existing == null) {
      return;
    }
    if (!Files.isDirectory(existing)) {
      problems.add(ConfigDefinitions.DATA_DIR.name() + ": " + existing + " is not a folder");
    } else if (!Files.isWritable(existing)) {
      problems.add(ConfigDefinitions.DATA_DIR.name() + ": " + existing + " cannot be written by this user"
          + (existing.equals(dir) ? "" : " (to make " + dir + " in it)"));
    }
  }

  /** kafka.client.*: what every Kafka client of Sluice will use, and the embedded broker's SASL login. */
  private static void checkKafkaClients(SluiceConfig config, List<String> problems) {
    check(problems, () -> config.kafkaCluster(config.externalKafka()
        .orElse(config.host() + ":" + config.get(ConfigDefinitions.KAFKA_PORT))));
    if (config.externalKafka().isEmpty()) {
      check(problems, () -> DataPlane.requireSasl(config, EmbeddedKafka.builder()));
    }
  }

  private static void check(List<String> problems, Runnable check) {
    try {
      check.run();
    } catch (SluiceConfig.ConfigException e) {
      if (!problems.contains(e.getMessage())) {
        problems.add(e.getMessage());
      }
    }
  }

  /** A key Sluice does not read, with the known key it most likely meant. */
  private static String unknown(String key) {
    String message = key + ": not a setting of Sluice's, so it would be ignored";
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (ConfigKey<?> k : ConfigDefinitions.keys()) {
      int d = distance(key, k.name());
      if (d < bestDistance) {
        bestDistance = d;
        best = k.name();
      }
    }
    return best != null && bestDistance <= 3 ? message + " (did you mean " + best + "?)" : message;
  }

  /** Levenshtein distance. */
  private static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}
