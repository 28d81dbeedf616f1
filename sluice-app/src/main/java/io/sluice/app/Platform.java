package io.sluice.app;

import io.sluice.app.config.SluiceConfig;
import io.sluice.connect.ConnectRuntime;
import io.sluice.exporter.MetricsExporter;
import io.sluice.connect.secrets.SecretStore;
import io.sluice.kafka.EmbeddedKafka;
import io.sluice.kafka.ExitControl;
import io.sluice.alerts.AlertRouter;
import io.sluice.alerts.state.KafkaStateStore;
import io.sluice.metrics.MetricsServer;
import io.sluice.registry.SchemaRegistry;
import io.sluice.topics.KafkaCluster;
import io.sluice.topics.Replication;
import org.apache.kafka.clients.admin.Admin;
import io.sluice.topics.membership.FileSdTargets;
import io.sluice.topics.membership.Membership;
import io.sluice.ui.Dashboard;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The whole stack of one {@code sluice up}: started in dependency order, stopped in the reverse order by one thread.
 *
 * <p>Order: the broker (unless Sluice joins an existing cluster), then the alert router, the metrics server and the
 * schema registry, while the Connect worker scans its plugins in parallel and joins its group once the broker answers.
 *
 * <p>Embedded engines are not allowed to end the JVM or install their own shutdown hooks ({@link ExitControl}); the
 * host stops them here, Connect first (so tasks flush their offsets while the broker still runs), then the broker.
 */
public final class Platform implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Platform.class);

  private final Deque<Stoppable> started = new ArrayDeque<>();
  private final Map<String, String> urls = new LinkedHashMap<>();
  private final KafkaCluster cluster;
  /** file_sd lists of the other nodes' exporters and routers, under the data directory. */
  static final String EXPORTER_TARGETS = "cluster/exporters.json";
  static final String ROUTER_TARGETS = "cluster/alertmanagers.json";

  private ConnectRuntime connect;
  private boolean closed;
  private final WebSurfaces web;

  @FunctionalInterface
  private interface Stoppable {
    void stop() throws Exception;
  }

  private Platform(SluiceConfig config, Path pluginPath) {
    String host = config.host();
    WebSurfaces web = WebSurfaces.load(config);
    this.web = web;
    Path dataDir = config.dataDir().toAbsolutePath();
    try {
      ConnectRuntime.Builder connectBuilder = ConnectRuntime.builder()
          .restHost(host)
          .restPort(config.port(SluiceConfig.CONNECT_PORT))
          .groupId(config.get(SluiceConfig.CONNECT_GROUP))
          .pluginPath(pluginPath)
          .dataDir(dataDir)
          .consumerInterceptor(MetricsExporter.FRESHNESS)
          .webConfig(web.of("connect"))
          .workerProperties(config.withPrefix(SluiceConfig.CONNECT_WORKER_PREFIX));
      EmbeddedKafka.Builder kafkaBuilder = config.externalKafka().isPresent() ? null : EmbeddedKafka.builder()
          .dataDir(dataDir.resolve("kafka"))
          .host(host)
          .port(config.port(SluiceConfig.KAFKA_PORT))
          .brokerProperties(config.withPrefix(SluiceConfig.KAFKA_BROKER_PREFIX));
      if (kafkaBuilder != null) {
        requireSasl(config, kafkaBuilder);
      }
      String bootstrap = kafkaBuilder == null ? config.externalKafka().get() : kafkaBuilder.bootstrapServers();
      KafkaCluster cluster = config.kafkaCluster(bootstrap);
      this.cluster = cluster;
      if (kafkaBuilder == null) {
        connectBuilder.workerProperties(connectReplication(config, cluster));
      }
      // Connect's plugin scan and REST set-up need no broker: run them while the broker and the servers start.
      CompletableFuture<ConnectRuntime> connectStart = CompletableFuture.supplyAsync(
          () -> connectBuilder.cluster(cluster).start(), runnable -> {
            Thread t = new Thread(runnable, "sluice-connect-start");
            t.setDaemon(true);
            t.start();
          });
      try {
        if (kafkaBuilder != null) {
          EmbeddedKafka kafka = kafkaBuilder.start();
          started.push(kafka::close);
        }
        urls.put("kafka", bootstrap);
        // These overlap with the worker joining its group, the longest step left.
        startAlertRouter(config, host, dataDir);
        startMetricsServer(config, host, dataDir);
        startRegistry(config, host);
      } catch (RuntimeException e) {
        // The worker cannot be interrupted mid-start; stop it as soon as it returns.
        connectStart.thenAccept(ConnectRuntime::close);
        throw e;
      }
      connect = join(connectStart);
      started.push(SecretStore::closeAll);
      started.push(connect::close);
      urls.put("connect", connect.restUrl());
      MetricsExporter exporter = MetricsExporter.builder(connect).host(host)
          .port(config.port(SluiceConfig.EXPORTER_PORT)).webConfig(web.of("exporter"))
          .maxRequestBytes(config.bytes(SluiceConfig.EXPORTER_MAX_REQUEST)).start();
      started.push(exporter::close);
      urls.put("exporter", exporter.url());
      startDashboard(config, host, dataDir);
      joinCluster(config, dataDir);
      reportWeakTopics(config);
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /**
   * When {@code kafka.client} asks for SASL and the broker is the embedded one, the broker requires it: the login of
   * the {@code sasl.username} shorthand is its one user.
   */
  private static void requireSasl(SluiceConfig config, EmbeddedKafka.Builder kafka) {
    String protocol = config.withPrefix(SluiceConfig.KAFKA_CLIENT_PREFIX).getOrDefault("security.protocol", "PLAINTEXT");
    if (!protocol.startsWith("SASL_")) {
      return;
    }
    SluiceConfig.KafkaLogin login = config.kafkaLogin().orElseThrow(() -> new SluiceConfig.ConfigException(
        "the embedded broker requires SASL when kafka.client.security.protocol is " + protocol + ": give "
            + SluiceConfig.KAFKA_CLIENT_PREFIX + "sasl.username and sasl.password.file, its user"));
    try {
      kafka.requireSasl(protocol, login.mechanism(), login.user(), login.password());
    } catch (IllegalArgumentException e) {
      throw new SluiceConfig.ConfigException(e.getMessage());
    }
  }

  private void startAlertRouter(SluiceConfig config, String host, Path dataDir) {
    int port = config.port(SluiceConfig.ALERTS_PORT);
    // Silences and the notification log live in Kafka so that every node of a cluster shares them.
    KafkaStateStore state = KafkaStateStore.start(cluster, config.get(SluiceConfig.ALERTS_STATE_TOPIC),
        Duration.ofSeconds(60));
    started.push(state::close);
    AlertRouter.Builder b = AlertRouter.builder()
        .host(host)
        .port(port)
        .maxRequestBytes(config.bytes(SluiceConfig.ALERTS_MAX_REQUEST))
        .dataDir(dataDir.resolve("alerts"))
        .webConfig(web.of("alerts"))
        .stateStore(state)
        .reloadOnSighup();
    config.find(SluiceConfig.ALERTS_CONFIG).map(Path::of).ifPresent(b::configFile);
    AlertRouter router;
    try {
      router = b.start();
    } catch (IllegalArgumentException e) {
      throw new SluiceConfig.ConfigException("alert router configuration: " + e.getMessage());
    }
    started.push(router::close);
    urls.put("alerts", router.url());
    java.net.URI api = java.net.URI.create(router.url());
    state.advertise(api.getHost() + ":" + api.getPort());
  }

  private void startMetricsServer(SluiceConfig config, String host, Path dataDir) {
    MetricsServer.Builder b = MetricsServer.builder()
        .host(host)
        .port(config.port(SluiceConfig.METRICS_PORT))
        .maxRequestBytes(config.bytes(SluiceConfig.METRICS_MAX_REQUEST))
        .dataDir(dataDir.resolve("metrics"))
        .webConfig(web.of("metrics"))
        .exporter("127.0.0.1:" + config.port(SluiceConfig.EXPORTER_PORT))
        .internalClient(web.scheme(), web.internalClient());
    try {
      b.retention(config.get(SluiceConfig.METRICS_RETENTION));
    } catch (IllegalArgumentException e) {
      throw new SluiceConfig.ConfigException(SluiceConfig.METRICS_RETENTION + ": " + e.getMessage());
    }
    // The default configuration (no metrics.config) alerts the router started just before, wherever it listens.
    java.net.URI router = java.net.URI.create(urls.get("alerts"));
    b.alertmanager(router.getHost() + ":" + router.getPort());
    // The other nodes' exporters and routers, as the cluster membership finds them (joinCluster writes the files).
    b.discoveryFiles(dataDir.resolve(EXPORTER_TARGETS), dataDir.resolve(ROUTER_TARGETS));
    config.find(SluiceConfig.METRICS_CONFIG).map(Path::of).ifPresent(b::configFile);
    MetricsServer metrics;
    try {
      metrics = b.start();
    } catch (IllegalArgumentException e) {
      throw new SluiceConfig.ConfigException("metrics server configuration: " + e.getMessage());
    }
    started.push(metrics::close);
    urls.put("metrics", metrics.url());
  }

  /**
   * Connect's internal topics on a cluster Sluice joins: replicated as {@link Replication} says for its brokers, where
   * the worker settings do not say otherwise (Connect itself would take the cluster's default replication factor).
   */
  private static Map<String, String> connectReplication(SluiceConfig config, KafkaCluster cluster) {
    int brokers;
    try (Admin admin = Admin.create(cluster.clientConfig(Map.of("client.id", "sluice-replication")))) {
      brokers = admin.describeCluster().nodes().get(60, java.util.concurrent.TimeUnit.SECONDS).size();
    } catch (Exception e) {
      // Connect reports an unreachable cluster itself, in the words operators know.
      return Map.of();
    }
    Map<String, String> worker = config.withPrefix(SluiceConfig.CONNECT_WORKER_PREFIX);
    Map<String, String> out = new LinkedHashMap<>();
    for (String store : List.of("offset", "config", "status")) {
      if (!worker.containsKey(store + ".storage.replication.factor")) {
        out.put(store + ".storage.replication.factor", String.valueOf(Replication.replicas(brokers)));
      }
      if (!worker.containsKey(store + ".storage.min.insync.replicas")) {
        out.put(store + ".storage.min.insync.replicas", String.valueOf(Replication.inSync(brokers)));
      }
    }
    return out;
  }

  /** Says at start which of Sluice's state topics hold fewer replicas than the cluster's brokers allow. */
  private void reportWeakTopics(SluiceConfig config) {
    List<String> topics = config.stateTopics();
    try (Admin admin = Admin.create(cluster.clientConfig(Map.of("client.id", "sluice-replication")))) {
      for (Replication.Weak w : Replication.weak(admin, topics, 30_000)) {
        log.warn("under-replicated by configuration: {}", w);
        System.err.println("sluice: warning: " + w);
      }
    } catch (Exception e) {
      log.warn("cannot check the replication of Sluice's topics: {}", e.toString());
    }
  }

  /**
   * Announces this node and its components in the cluster topic, and keeps the file_sd lists of the other nodes'
   * exporters and routers current for this node's metrics server. The node id is kept in the data directory, so a
   * node started again is the same node.
   */
  private void joinCluster(SluiceConfig config, Path dataDir) {
    Map<String, String> components = new LinkedHashMap<>();
    urls.forEach((k, v) -> components.put(k, advertised(v)));
    Membership.Node self = new Membership.Node(nodeId(dataDir), java.time.Instant.now(), components);
    Membership membership = Membership.join(cluster, config.get(SluiceConfig.CLUSTER_TOPIC), self,
        Duration.ofSeconds(60));
    started.push(membership::close);
    membership.onChange(nodes -> {
      List<Membership.Node> others = nodes.stream().filter(n -> !n.id().equals(self.id())).toList();
      try {
        FileSdTargets.write(dataDir.resolve(EXPORTER_TARGETS), others, "exporter");
        FileSdTargets.write(dataDir.resolve(ROUTER_TARGETS), others, "alerts");
      } catch (java.io.IOException e) {
        log.warn("cannot write the cluster's target lists under {}: {}", dataDir, e.getMessage());
      }
      log.info("cluster: {} node(s) live", nodes.size());
    });
  }

  /** A listening address as other nodes reach it: a wildcard bind is reached by this machine's name. */
  private static String advertised(String url) {
    if (!url.contains("0.0.0.0") && !url.contains("[::]")) {
      return url;
    }
    try {
      String name = java.net.InetAddress.getLocalHost().getHostName();
      return url.replace("0.0.0.0", name).replace("[::]", name);
    } catch (java.net.UnknownHostException e) {
      return url;
    }
  }

  private static String nodeId(Path dataDir) {
    Path file = dataDir.resolve("cluster").resolve("node.id");
    try {
      if (java.nio.file.Files.isRegularFile(file)) {
        String id = java.nio.file.Files.readString(file).strip();
        if (!id.isEmpty()) {
          return id;
        }
      }
      java.nio.file.Files.createDirectories(file.getParent());
      String id = java.util.UUID.randomUUID().toString();
      java.nio.file.Files.writeString(file, id + "\n");
      return id;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("cannot keep the node id in " + file, e);
    }
  }

  private void startDashboard(SluiceConfig config, String host, Path dataDir) {
    Dashboard ui = Dashboard.builder()
        .host(host)
        .port(config.port(SluiceConfig.UI_PORT))
        .dataDir(dataDir.resolve("ui"))
        .metricsUrl(config.find(SluiceConfig.UI_METRICS_URL).orElse(urls.get("metrics")))
        .alertsUrl(config.find(SluiceConfig.UI_ALERTS_URL).orElse(urls.get("alerts")))
        .upstream(dashboardClient(config, SluiceConfig.UI_METRICS_URL, SluiceConfig.UI_METRICS_HTTP_CONFIG_FILE),
            dashboardClient(config, SluiceConfig.UI_ALERTS_URL, SluiceConfig.UI_ALERTS_HTTP_CONFIG_FILE))
        .webConfig(web.of("ui"))
        .start();
    started.push(ui::close);
    urls.put("ui", ui.url());
  }

  /**
   * How the dashboard reaches one of its two APIs: Sluice's own as the internal user; one elsewhere with the
   * {@code http_config} file given for it, if any (Sluice's internal user is for Sluice's own servers only).
   */
  private io.sluice.http.client.HttpClientConfig dashboardClient(SluiceConfig config, String urlKey, String fileKey) {
    if (config.find(urlKey).isEmpty()) {
      return web.internalClient();
    }
    try {
      return config.find(fileKey).map(f -> io.sluice.http.client.HttpClientConfig.load(Path.of(f)))
          .orElse(io.sluice.http.client.HttpClientConfig.none());
    } catch (IllegalArgumentException e) {
      throw new SluiceConfig.ConfigException(fileKey + ": " + e.getMessage());
    }
  }

  private void startRegistry(SluiceConfig config, String host) {
    SchemaRegistry registry = SchemaRegistry.builder()
        .cluster(cluster)
        .topic(config.get(SluiceConfig.REGISTRY_TOPIC))
        .host(host)
        .port(config.port(SluiceConfig.REGISTRY_PORT))
        .maxRequestBytes(config.bytes(SluiceConfig.REGISTRY_MAX_REQUEST))
        .webConfig(web.of("registry"))
        .start();
    started.push(registry::close);
    urls.put("registry", registry.url());
  }

  private static ConnectRuntime join(CompletableFuture<ConnectRuntime> future) {
    try {
      return future.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw e;
    }
  }

  /** Starts every component; returns once each one answers. */
  public static Platform start(SluiceConfig config, Path pluginPath) {
    return new Platform(config, pluginPath);
  }

  /** Component name → the address a client uses. */
  public Map<String, String> urls() {
    return Map.copyOf(urls);
  }

  public String bootstrapServers() {
    return cluster.bootstrapServers();
  }

  /** The Kafka cluster with the client security settings every client of this platform uses. */
  public KafkaCluster cluster() {
    return cluster;
  }

  public ConnectRuntime connect() {
    return connect;
  }

  /** The plugin folders of the distribution this code runs from. */
  public static Path bundledPlugins() {
    String home = System.getProperty("sluice.home");
    if (home != null) {
      return Path.of(home, "plugins");
    }
    try {
      Path jar = Path.of(Platform.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      return jar.getParent().getParent().resolve("plugins");
    } catch (java.net.URISyntaxException e) {
      return Path.of("plugins");
    }
  }
  /** The line printed once everything is ready. */
  public String readyLine() {
    StringBuilder sb = new StringBuilder("sluice ready");
    urls.forEach((k, v) -> sb.append(' ').append(k).append('=').append(v));
    return sb.toString();
  }

  /** Stops the components in the reverse order of their start; each failure is logged, the rest still stop. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    while (!started.isEmpty()) {
      try {
        started.pop().stop();
      } catch (Exception e) {
        log.warn("a component failed to stop cleanly", e);
      }
    }
  }
}
