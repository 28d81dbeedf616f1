package io.sluice.app;

import io.sluice.app.cli.ExitCode;
import io.sluice.alerts.AlertRouter;
import io.sluice.app.config.SluiceConfig;
import io.sluice.http.client.HttpClientConfig;
import io.sluice.kafka.EmbeddedKafka;
import io.sluice.metrics.MetricsServer;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code sluice check-config FILE}: a whole {@code sluice.yaml} checked as {@code sluice up} would read it, without
 * starting, binding or connecting to anything. Each part is checked by the code that reads it at start (the ports and
 * sizes by {@link SluiceConfig}, the web configurations by {@link WebSurfaces}, the metrics server's prometheus.yml and
 * rule files by {@link MetricsServer#checkConfig}, the router's alertmanager.yml by {@link AlertRouter#checkConfig}),
 * and every problem is listed, not only the first.
 */
@Command(name = "check-config", mixinStandardHelpOptions = true,
    description = "Check sluice.yaml files without starting anything: settings, ports, heap sizes, the web "
        + "configuration and roles files, the metrics server's prometheus.yml and rule files, the alert router's "
        + "alertmanager.yml. Exit 0 when every file is usable, 1 listing each problem.")
final class CheckConfigCommand implements Callable<Integer> {
  @Parameters(arity = "1..*", paramLabel = "FILE", description = "sluice.yaml files")
  List<Path> files;

  @Override
  public Integer call() {
    boolean failed = false;
    for (Path file : files) {
      List<String> problems = problems(file);
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
    List<String> problems = new ArrayList<>();
    Map<String, String> set;
    try {
      set = SluiceConfig.readYaml(file);
    } catch (SluiceConfig.ConfigException e) {
      return List.of(e.getMessage());
    }
    set.keySet().stream().filter(k -> !SluiceConfig.known(k)).forEach(k -> problems.add(unknown(k)));
    SluiceConfig config = SluiceConfig.load(Optional.of(file), Map.of());

    checkHost(config, problems);
    checkPorts(config, problems);
    for (String heap : List.of(SluiceConfig.DATA_PLANE_HEAP, SluiceConfig.CONTROL_PLANE_HEAP)) {
      check(problems, () -> config.heap(heap));
    }
    for (String size : List.of(SluiceConfig.REGISTRY_MAX_REQUEST, SluiceConfig.REGISTRY_SCHEMA_CACHE,
        SluiceConfig.METRICS_MAX_REQUEST, SluiceConfig.ALERTS_MAX_REQUEST, SluiceConfig.EXPORTER_MAX_REQUEST)) {
      check(problems, () -> config.bytes(size));
    }
    check(problems, () -> config.count(SluiceConfig.METRICS_QUERY_MAX_SAMPLES));
    check(problems, () -> config.nice(SluiceConfig.DATA_PLANE_NICE));
    check(problems, () -> config.duration(SluiceConfig.EXPORTER_MOVE_HOLD));
    check(problems, () -> {
      try {
        MetricsServer.builder().retention(config.get(SluiceConfig.METRICS_RETENTION));
      } catch (IllegalArgumentException e) {
        throw new SluiceConfig.ConfigException(SluiceConfig.METRICS_RETENTION + ": " + e.getMessage());
      }
    });
    checkDataDir(config, problems);
    config.find(SluiceConfig.PLUGIN_PATH).map(Path::of).filter(p -> !Files.isDirectory(p))
        .ifPresent(p -> problems.add(SluiceConfig.PLUGIN_PATH + ": the folder " + p + " does not exist"));
    checkKafkaClients(config, problems);

    problems.addAll(WebSurfaces.check(config));
    config.find(SluiceConfig.METRICS_CONFIG).map(Path::of).ifPresent(f ->
        MetricsServer.checkConfig(f).forEach(p -> problems.add(SluiceConfig.METRICS_CONFIG + " " + f + ": " + p)));
    config.find(SluiceConfig.ALERTS_CONFIG).map(Path::of).ifPresent(f -> {
      List<String> found = Files.isRegularFile(f) ? AlertRouter.checkConfig(f) : List.of("no such file");
      found.forEach(p -> problems.add(SluiceConfig.ALERTS_CONFIG + " " + f + ": " + p));
    });
    for (String key : List.of(SluiceConfig.UI_METRICS_HTTP_CONFIG_FILE, SluiceConfig.UI_ALERTS_HTTP_CONFIG_FILE)) {
      config.find(key).map(Path::of).ifPresent(f -> {
        try {
          HttpClientConfig.load(f);
        } catch (IllegalArgumentException e) {
          problems.add(key + " " + f + ": " + e.getMessage());
        }
      });
    }
    return problems;
  }

  /** Each port valid, and no two components on the same one (0, a free port chosen at start, excepted). */
  private static void checkPorts(SluiceConfig config, List<String> problems) {
    Map<Integer, String> taken = new LinkedHashMap<>();
    for (String key : Ports.KEYS) {
      if (key.equals(SluiceConfig.KAFKA_PORT) && config.externalKafka().isPresent()) {
        continue;   // No embedded broker: nothing binds it.
      }
      int port;
      try {
        port = config.port(key);
      } catch (SluiceConfig.ConfigException e) {
        problems.add(e.getMessage());
        continue;
      }
      String other = port == 0 ? null : taken.putIfAbsent(port, key);
      if (other != null) {
        problems.add(other + " and " + key + " are both " + port + ": each component needs a port of its own");
      }
    }
  }

  private static void checkHost(SluiceConfig config, List<String> problems) {
    try {
      InetAddress.getByName(config.host());
    } catch (UnknownHostException e) {
      problems.add(SluiceConfig.HOST + ": " + config.host() + " is no address of this machine's resolver");
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
      problems.add(SluiceConfig.DATA_DIR + ": " + existing + " is not a folder");
    } else if (!Files.isWritable(existing)) {
      problems.add(SluiceConfig.DATA_DIR + ": " + existing + " cannot be written by this user"
          + (existing.equals(dir) ? "" : " (to make " + dir + " in it)"));
    }
  }

  /** kafka.client.*: what every Kafka client of Sluice will use, and the embedded broker's SASL login. */
  private static void checkKafkaClients(SluiceConfig config, List<String> problems) {
    check(problems, () -> config.kafkaCluster(config.externalKafka()
        .orElse(config.host() + ":" + config.port(SluiceConfig.KAFKA_PORT))));
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
    for (String k : SluiceConfig.KEYS) {
      int d = distance(key, k);
      if (d < bestDistance) {
        bestDistance = d;
        best = k;
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
