package io.sluice.bench.platform;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;

/**
 * The stack a user assembles by hand instead of {@code sluice up}, each engine its own process, as their own
 * launchers run them: a Kafka broker (KRaft, the same Kafka 4.3.1 jars), a Kafka Connect distributed worker with the
 * same connector plugin folders, Apicurio Registry 3.3.3 (from Maven Central, {@code bench/apicurio}), Debian's
 * Prometheus and Debian's Alertmanager. {@link #start} returns once every one answers; {@link #rssKb} sums their
 * resident memory.
 */
final class AssembledStack implements AutoCloseable {
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private static final Path PROMETHEUS = Path.of("/usr/bin/prometheus");
  private static final Path ALERTMANAGER = Path.of("/usr/bin/prometheus-alertmanager");

  private final List<Process> processes = new ArrayList<>();
  private final Path dir;
  final String connectUrl;
  private final String bootstrap;
  private final int controllerPort;
  private final int connectPort;
  private final int apicurioPort;
  private final int prometheusPort;
  private final int alertmanagerPort;

  private AssembledStack(Path dir) throws IOException {
    this.dir = dir;
    int kafkaPort = PipelineThroughput.freePort();
    this.bootstrap = "127.0.0.1:" + kafkaPort;
    this.controllerPort = PipelineThroughput.freePort();
    this.connectPort = PipelineThroughput.freePort();
    this.connectUrl = "http://127.0.0.1:" + connectPort;
    this.apicurioPort = PipelineThroughput.freePort();
    this.prometheusPort = PipelineThroughput.freePort();
    this.alertmanagerPort = PipelineThroughput.freePort();
  }

  /** Why this machine cannot run the assembled stack, or empty when it can. */
  static java.util.Optional<String> missing(Path root) {
    if (!Files.isExecutable(PROMETHEUS) || !Files.isExecutable(ALERTMANAGER)) {
      return java.util.Optional.of("Debian's prometheus and prometheus-alertmanager are not installed");
    }
    if (apicurioJar(root) == null) {
      return java.util.Optional.of("Apicurio is not unpacked: run bench/apicurio/run --apicurio-only once");
    }
    if (newestTemurin() == null) {
      return java.util.Optional.of("no /usr/lib/jvm/temurin-* JDK for Apicurio (it needs Java 21+)");
    }
    return java.util.Optional.empty();
  }

  private static Path apicurioJar(Path root) {
    try (var dirs = Files.list(root.resolve("bench/apicurio/target"))) {
      return dirs.map(d -> d.resolve("quarkus-run.jar")).filter(Files::isRegularFile).findFirst().orElse(null);
    } catch (IOException e) {
      return null;
    }
  }

  private static Path newestTemurin() {
    File[] jdks = new File("/usr/lib/jvm").listFiles((d, n) -> n.startsWith("temurin-"));
    return jdks == null || jdks.length == 0 ? null
        : Arrays.stream(jdks).map(File::toPath).sorted().reduce((a, b) -> b).orElseThrow().resolve("bin/java");
  }

  /**
   * Starts every engine at once (Connect as soon as its broker answers, as a user's script would wait for it), and
   * returns when all five answer.
   */
  static AssembledStack start(Path root, Path dir, List<String> javaOpts) throws Exception {
    AssembledStack s = new AssembledStack(dir);
    try {
      s.startAll(root, javaOpts);
      return s;
    } catch (Exception | Error e) {
      s.close();
      throw e;
    }
  }

  private void startAll(Path root, List<String> javaOpts) throws Exception {
    String kafkaClasspath = kafkaClasspath(root);
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();

    // Kafka: format the storage (as kafka-storage.sh does), then the broker, as kafka-server-start.sh does.
    Path kafkaDir = Files.createDirectories(dir.resolve("kafka"));
    Properties broker = new Properties();
    broker.putAll(Map.of("process.roles", "broker,controller", "node.id", "1",
        "controller.quorum.voters", "1@127.0.0.1:" + controllerPort,
        "listeners", "PLAINTEXT://" + bootstrap + ",CONTROLLER://127.0.0.1:" + controllerPort,
        "advertised.listeners", "PLAINTEXT://" + bootstrap, "controller.listener.names", "CONTROLLER",
        "listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
        "log.dirs", kafkaDir.resolve("logs").toString(), "offsets.topic.replication.factor", "1",
        "transaction.state.log.replication.factor", "1"));
    broker.put("transaction.state.log.min.isr", "1");
    broker.put("group.initial.rebalance.delay.ms", "0");
    Path brokerFile = kafkaDir.resolve("server.properties");
    try (var out = Files.newOutputStream(brokerFile)) {
      broker.store(out, null);
    }
    long t0 = System.nanoTime();
    List<String> format = new ArrayList<>(List.of(java, "-cp", kafkaClasspath, "kafka.tools.StorageTool", "format",
        "-t", UUID.randomUUID().toString().replace("-", "").substring(0, 22), "-c", brokerFile.toString()));
    Process f = new ProcessBuilder(format).redirectErrorStream(true).redirectOutput(dir.resolve("format.log").toFile())
        .start();
    if (f.waitFor() != 0) {
      throw new IllegalStateException("kafka storage format failed: " + Files.readString(dir.resolve("format.log")));
    }
    processes.add(launch(List.of(java), javaOpts, List.of("-cp", kafkaClasspath, "kafka.Kafka", brokerFile.toString()),
        "kafka"));

    // Prometheus and Alertmanager from Debian, each with the smallest config that makes it useful here.
    Path prom = Files.createDirectories(dir.resolve("prometheus"));
    Files.writeString(prom.resolve("prometheus.yml"), "global: {scrape_interval: 15s}\nscrape_configs:\n"
        + "  - job_name: prometheus\n    static_configs: [{targets: ['127.0.0.1:" + prometheusPort + "']}]\n");
    processes.add(launch(List.of(PROMETHEUS.toString()), List.of(), List.of("--config.file=" + prom.resolve(
        "prometheus.yml"), "--storage.tsdb.path=" + prom.resolve("data"), "--web.listen-address=127.0.0.1:"
        + prometheusPort), "prometheus"));
    Path am = Files.createDirectories(dir.resolve("alertmanager"));
    Files.writeString(am.resolve("alertmanager.yml"), "route: {receiver: hook}\nreceivers:\n  - name: hook\n"
        + "    webhook_configs: [{url: 'http://127.0.0.1:9/hook'}]\n");
    processes.add(launch(List.of(ALERTMANAGER.toString()), List.of(), List.of("--config.file=" + am.resolve(
        "alertmanager.yml"), "--storage.path=" + am.resolve("data"), "--web.listen-address=127.0.0.1:"
        + alertmanagerPort, "--cluster.listen-address="), "alertmanager"));

    // Apicurio Registry 3 (Quarkus) on its own Java 21+ JDK, default in-memory storage.
    processes.add(launch(List.of(newestTemurin().toString()), javaOpts, List.of("-Dquarkus.http.host=127.0.0.1",
        "-Dquarkus.http.port=" + apicurioPort, "-Dquarkus.management.enabled=false",
        "-Dquarkus.http.access-log.enabled=false", "-jar", apicurioJar(root).toString()), "apicurio"));

    await("Kafka", 120, this::kafkaAnswers);
    // Connect distributed, as connect-distributed.sh runs it, with the same plugin folders as Sluice's worker.
    Path connectDir = Files.createDirectories(dir.resolve("connect"));
    Properties worker = new Properties();
    worker.putAll(Map.of("bootstrap.servers", bootstrap, "group.id", "assembled",
        "config.storage.topic", "assembled-configs", "offset.storage.topic", "assembled-offsets",
        "status.storage.topic", "assembled-status", "config.storage.replication.factor", "1",
        "offset.storage.replication.factor", "1", "status.storage.replication.factor", "1",
        "listeners", "http://127.0.0.1:" + connectPort,
        "plugin.path", root.resolve("sluice-app/target/sluice/plugins").toString()));
    worker.put("key.converter", "org.apache.kafka.connect.json.JsonConverter");
    worker.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
    Path workerFile = connectDir.resolve("connect-distributed.properties");
    try (var out = Files.newOutputStream(workerFile)) {
      worker.store(out, null);
    }
    processes.add(launch(List.of(java), javaOpts, List.of("-cp", kafkaClasspath,
        "org.apache.kafka.connect.cli.ConnectDistributed", workerFile.toString()), "connect"));

    await("Connect", 180, () -> answers(connectUrl + "/connectors"));
    await("Apicurio", 180, () -> answers("http://127.0.0.1:" + apicurioPort + "/apis/ccompat/v7/schemas/types"));
    await("Prometheus", 60, () -> answers("http://127.0.0.1:" + prometheusPort + "/-/ready"));
    await("Alertmanager", 60, () -> answers("http://127.0.0.1:" + alertmanagerPort + "/-/ready"));
    readySeconds = (System.nanoTime() - t0) / 1e9;
  }

  /** From the first process started to the last engine answering. */
  double readySeconds;

  /** Kafka's and Connect's jars without Sluice's own, so the worker is plain Connect. */
  private static String kafkaClasspath(Path root) throws IOException {
    String all = Files.readString(root.resolve("bench/target/classpath.txt")).trim();
    return Arrays.stream(all.split(File.pathSeparator)).filter(e -> !e.startsWith(root.toString()))
        .collect(Collectors.joining(File.pathSeparator));
  }

  private Process launch(List<String> command, List<String> opts, List<String> args, String name) throws IOException {
    List<String> all = new ArrayList<>(command);
    all.addAll(opts);
    all.addAll(args);
    return new ProcessBuilder(all).redirectErrorStream(true).redirectOutput(dir.resolve(name + ".log").toFile())
        .start();
  }

  private boolean kafkaAnswers() {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap, "request.timeout.ms", "2000",
        "default.api.timeout.ms", "2000"))) {
      admin.describeCluster().nodes().get();
      return true;
    } catch (Exception e) {
      return false;
    }
  }

  private static boolean answers(String url) {
    try {
      return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2)).build(),
          HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private void await(String what, int seconds, BooleanSupplier ready) throws Exception {
    long deadline = System.nanoTime() + seconds * 1_000_000_000L;
    while (!ready.getAsBoolean()) {
      for (Process p : processes) {
        if (!p.isAlive()) {
          throw new IllegalStateException(what + ": a process of the stack ended (exit " + p.exitValue()
              + "); logs in " + dir);
        }
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(what + " did not answer within " + seconds + " s; logs in " + dir);
      }
      Thread.sleep(100);
    }
  }

  /** The summed resident memory of the five engines (and any process they started). */
  long rssKb() throws Exception {
    long total = 0;
    for (Process p : processes) {
      total += StartupAndMemory.rssKb(p.pid());
      for (ProcessHandle child : p.toHandle().descendants().toList()) {
        total += StartupAndMemory.rssKb(child.pid());
      }
    }
    return total;
  }

  @Override
  public void close() {
    for (Process p : processes) {
      p.destroy();
    }
    for (Process p : processes) {
      try {
        if (!p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        p.destroyForcibly();
      }
    }
  }
}
