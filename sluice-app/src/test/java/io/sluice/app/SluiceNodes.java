package io.sluice.app;

import static io.sluice.app.PackagedSluice.freePort;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.app.PackagedSluice.Up;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Packaged {@code ./sluice up} nodes of one cluster, each in a directory of its own with ports of its own, joined to
 * one Kafka; and the plain HTTP calls the cluster tests make to them.
 */
final class SluiceNodes implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  /** What {@code ./sluice up} writes to standard error, in the node's folder: its log. */
  private static final String STDERR = "up.stderr";

  /** One node: its process and the addresses of its ready line. */
  record Node(String name, Up up, Map<String, String> urls, List<String> args) {
    String url(String component) {
      return urls.get(component);
    }

    String authority(String component) {
      return URI.create(urls.get(component)).getAuthority();
    }
  }

  private final Path dir;
  private final String bootstrap;
  private final List<Node> started = new ArrayList<>();
  /** The nodes' logging: the distribution's, with Connect's rebalances, task moves and resumed offsets. */
  private final Path logConfig;

  SluiceNodes(Path dir, String bootstrap) throws IOException {
    this.dir = dir;
    this.bootstrap = bootstrap;
    try (InputStream config = SluiceNodes.class.getResourceAsStream("/cluster-node-log4j2.xml")) {
      this.logConfig = Files.createDirectories(dir).resolve("node-log4j2.xml");
      Files.copy(config, logConfig, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  /**
   * Starts node {@code name} (its data under {@code dir/name}) with {@code extra} flags, the cluster's bootstrap
   * servers unless they give a {@code --kafka-bootstrap} of the node's own, and free ports for the components whose
   * port they do not give.
   */
  Node start(String name, String... extra) throws Exception {
    for (int attempt = 1; ; attempt++) {
      List<String> args = new ArrayList<>(List.of("--data-dir", dir.resolve(name).resolve("data").toString()));
      if (!List.of(extra).contains("--kafka-bootstrap")) {
        args.addAll(List.of("--kafka-bootstrap", bootstrap));
      }
      for (String port : List.of("--connect-port", "--registry-port", "--metrics-port", "--alerts-port",
          "--exporter-port")) {
        if (!List.of(extra).contains(port)) {
          args.addAll(List.of(port, "" + freePort()));
        }
      }
      args.addAll(List.of(extra));
      try {
        return startWith(name, args);
      } catch (AssertionError e) {
        // A free port can be taken by another test's process before this node binds it: other ports, once.
        if (attempt > 1 || !String.valueOf(e.getMessage()).contains("Address already in use")) {
          throw e;
        }
      }
    }
  }

  /** Starts {@code node} again as it was: same data directory, same ports. */
  Node restart(Node node) throws Exception {
    return startWith(node.name(), node.args());
  }

  private Node startWith(String name, List<String> args) throws Exception {
    Path home = Files.createDirectories(dir.resolve(name));
    // Each start writes up.stderr anew: the runs before it keep theirs as up.stderr.1, .2, … in the order they ran.
    Path stderr = home.resolve(STDERR);
    if (Files.exists(stderr)) {
      int earlier;
      try (Stream<Path> files = Files.list(home)) {
        earlier = (int) files.filter(f -> f.getFileName().toString().startsWith(STDERR + ".")).count();
      }
      Files.move(stderr, home.resolve(STDERR + "." + (earlier + 1)));
    }
    Up up = PackagedSluice.up(PackagedSluice.root().resolve("sluice"), home, args, UpArchives.ready(),
        Map.of("LOG4J_CONFIGURATION_FILE", logConfig.toString()));
    Map<String, String> urls = new LinkedHashMap<>();
    for (String part : up.readyLine().substring("sluice ready ".length()).split(" ")) {
      urls.put(part.substring(0, part.indexOf('=')), part.substring(part.indexOf('=') + 1));
    }
    Node node = new Node(name, up, urls, args);
    started.add(node);
    return node;
  }

  /**
   * Starts {@code ./sluice kafka} as node {@code id} of the quorum {@code voters}, with {@code extra} flags, its data
   * and output under {@code dir/broker-<id>}; {@link #awaitBroker} waits for its ready line.
   */
  static Process broker(Path dir, int id, int port, String voters, String... extra) throws Exception {
    Path home = Files.createDirectories(dir.resolve("broker-" + id));
    List<String> command = new ArrayList<>(List.of(PackagedSluice.root().resolve("sluice").toString(), "kafka",
        "--node-id", "" + id, "--voters", voters, "--kafka-port", "" + port, "--data-dir", home.resolve("data")
        .toString()));
    command.addAll(List.of(extra));
    ProcessBuilder pb = new ProcessBuilder(command).directory(home.toFile()).redirectErrorStream(true).redirectOutput(
        ProcessBuilder.Redirect.appendTo(home.resolve("out.log").toFile()));
    pb.environment().put("SLUICE_JAVA_OPTS", "-Xmx512m -XX:+UseParallelGC");
    Process p = pb.start();
    PidFiles.record(p);
    return p;
  }

  static void awaitBroker(Path dir, int id, Process p) {
    Path log = dir.resolve("broker-" + id).resolve("out.log");
    io.sluice.connect.testing.Eventually.await("broker " + id + " ready", Duration.ofSeconds(120), () -> {
      if (!p.isAlive()) {
        throw new AssertionError("broker " + id + " ended: " + PackagedSluice.read(log));
      }
      return PackagedSluice.read(log).lines().filter(l -> l.startsWith("sluice kafka ready")).count();
    }, n -> n > 0);
  }

  /**
   * Copies every node's logs (each start's {@code up.stderr}, oldest first as {@code up.stderr.1}, …) and every
   * {@code sluice kafka} broker's ({@code out.log}) to {@code into/<node>/}, replacing what an earlier copy left there:
   * what a failed run leaves to read once the test's temporary folder is gone.
   */
  void keepLogs(Path into) throws IOException {
    if (Files.exists(into)) {
      try (Stream<Path> old = Files.walk(into)) {
        for (Path p : old.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
    try (Stream<Path> homes = Files.list(dir)) {
      for (Path home : homes.filter(Files::isDirectory).sorted().toList()) {
        try (Stream<Path> files = Files.list(home)) {
          for (Path log : files.filter(f -> f.getFileName().toString().startsWith(STDERR)
              || f.getFileName().toString().equals("out.log")).toList()) {
            Path to = Files.createDirectories(into.resolve(home.getFileName().toString()));
            Files.copy(log, to.resolve(log.getFileName().toString()), StandardCopyOption.REPLACE_EXISTING);
          }
        }
      }
    }
  }

  /** SIGKILL of the node's every process (the supervisor and both planes), as a machine that dies. */
  static void kill(Node node) throws InterruptedException {
    PackagedSluice.killAll(node.up().process());
  }

  @Override
  public void close() throws Exception {
    for (Node n : started) {
      if (n.up().process().isAlive()) {
        PackagedSluice.down(n.up());
      }
    }
  }

  static JsonNode get(String url) throws Exception {
    return JSON.readTree(askedAgainWhileConnectIsBusy(
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).build()).body());
  }

  static HttpResponse<String> send(String method, String url, Object body) throws Exception {
    return askedAgainWhileConnectIsBusy(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60))
        .header("Content-Type", "application/json")
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body instanceof String s ? s : JSON.writeValueAsString(body)))
        .build());
  }

  /**
   * Connect's herder refuses a request before it changes anything while a rebalance is due or it is behind its config
   * topic (500, "a rebalance is expected": ExactlyOnceFaultsIT's read of a config just created, on a loaded machine);
   * it answers a moment later. Asked again by the rule of Sluice's own client, for up to 10 s.
   */
  private static HttpResponse<String> askedAgainWhileConnectIsBusy(HttpRequest request) throws Exception {
    HttpResponse<String> r = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    for (int attempt = 0; r.statusCode() == 500 && attempt < 40
        && io.sluice.connect.client.ConnectRestClient.rebalancing(r.body()); attempt++) {
      Thread.sleep(250);
      r = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }
    return r;
  }
}
