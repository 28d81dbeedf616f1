package io.sluice.app.up;

import io.sluice.alerts.AlertRouter;
import io.sluice.alerts.state.KafkaStateStore;
import io.sluice.app.config.ConfigDefinitions;
import io.sluice.app.config.ConfigKey;
import io.sluice.app.config.SluiceConfig;
import io.sluice.client.ClientOptions;
import io.sluice.client.HttpConfig;
import io.sluice.console.ConsoleServer;
import io.sluice.metrics.MetricsServer;
import io.sluice.registry.SchemaRegistry;
import io.sluice.topics.KafkaCluster;
import io.sluice.topics.membership.FileSdTargets;
import io.sluice.topics.membership.Membership;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The part of {@code sluice up} that watches: the alert router, the metrics server with its rules, the schema registry
 * and the console, and this node's place in the cluster. Its memory grows with configuration (series, rules,
 * subjects), never with the data a connector moves, and it lives in a process of its own, so a connector that exhausts
 * the {@link DataPlane}'s heap, or a worker killed outright, leaves it up to page about it.
 *
 * <p>Order: what needs Kafka (the router's state, the registry's schemas, the cluster's membership) waits for the broker
 * in threads of its own, each reading its topic beside the others, while the servers that need no Kafka (the metrics
 * server, the console) start; then the router, once its state is read, and the node announces itself last, once every
 * component answers. Kafka may still be starting: the data plane starts it beside this plane.
 */
final class ControlPlane implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ControlPlane.class);
  /** file_sd lists of the other nodes' exporters and routers, under the data directory. */
  static final String EXPORTER_TARGETS = "cluster/exporters.json";
  static final String ROUTER_TARGETS = "cluster/alertmanagers.json";
  /** How long the Kafka-side starts wait for the embedded broker's port before their clients try on their own. */
  private static final Duration BROKER_WAIT = Duration.ofSeconds(60);
  /** How long each Kafka-side start waits for Kafka to create and read its topic. */
  private static final Duration KAFKA_TIMEOUT = Duration.ofSeconds(60);

  private final Deque<Stoppable> started = new ArrayDeque<>();
  private final Map<String, String> urls = new LinkedHashMap<>();
  private final KafkaCluster cluster;
  private final WebSurfaces web;

  /**
   * {@code dataUrls}: where the data plane answers (broker, Connect, exporter), announced to the cluster with this
   * plane's own.
   */
  private ControlPlane(SluiceConfig config, WebSurfaces web, KafkaCluster cluster, Map<String, String> dataUrls) {
    this.web = web;
    this.cluster = cluster;
    String host = config.host();
    Path dataDir = config.dataDir().toAbsolutePath();
    String routerUrl = routerUrl(config, web.scheme());
    // A client made before the embedded broker listens backs off up to a second between attempts; a look at the port
    // every few milliseconds lets the Kafka-side starts begin as soon as it does.
    CompletableFuture<Void> broker = config.externalKafka().isPresent() ? CompletableFuture.completedFuture(null)
        : CompletableFuture.runAsync(() -> cluster.awaitListening(BROKER_WAIT), runnable -> {
          Thread t = new Thread(runnable, "sluice-broker-wait");
          t.setDaemon(true);
          t.start();
        });
    // Silences and the notification log live in Kafka so that every node of a cluster shares them.
    Starting<KafkaStateStore> state = Starting.after(broker, "sluice-alerts-state-start",
        () -> KafkaStateStore.start(cluster, config.get(ConfigDefinitions.ALERTS_STATE_TOPIC), KAFKA_TIMEOUT),
        KafkaStateStore::close);
    Starting<SchemaRegistry> registry = Starting.after(broker, "sluice-registry-start",
        () -> startRegistry(config, host), SchemaRegistry::close);
    Starting<Membership> membership = Starting.after(broker, "sluice-cluster-start",
        () -> Membership.open(cluster, config.get(ConfigDefinitions.CLUSTER_TOPIC), KAFKA_TIMEOUT), Membership::close);
    try {
      startMetricsServer(config, host, dataDir, routerUrl);
      startConsole(config, host, dataDir, routerUrl);
      startAlertRouter(config, host, dataDir, state.join());
      SchemaRegistry r = registry.join();
      started.push(r::close);
      urls.put("registry", r.url());
      Map<String, String> all = new LinkedHashMap<>(dataUrls);
      all.putAll(urls);
      Membership m = membership.join();
      started.push(m::close);
      announce(m, dataDir, all);
    } catch (RuntimeException e) {
      state.abandon();
      registry.abandon();
      membership.abandon();
      close();
      throw e;
    }
    WeakTopics.reportLater(cluster, config.controlTopics());
  }

  /**
   * The address the router will answer on, known from the configuration alone (every port given): the metrics server
   * alerts it and the console reaches it from before it has started.
   */
  static String routerUrl(SluiceConfig config, String scheme) {
    return scheme + "://" + config.host() + ":" + config.get(ConfigDefinitions.ALERTS_PORT);
  }

  static ControlPlane start(SluiceConfig config, WebSurfaces web, KafkaCluster cluster, Map<String, String> dataUrls) {
    return new ControlPlane(config, web, cluster, dataUrls);
  }

  /** Each component's address, in the order of the ready line (the router first), whatever order they started in. */
  Map<String, String> urls() {
    Map<String, String> ordered = new LinkedHashMap<>();
    for (String c : List.of("alerts", "metrics", "ui", "registry")) {
      if (urls.containsKey(c)) {
        ordered.put(c, urls.get(c));
      }
    }
    return java.util.Collections.unmodifiableMap(ordered);
  }

  /**
   * The router, over its state read from Kafka. It stops after the metrics server and the console, which reach it,
   * and before its state store, to which it writes as it stops: both go to the far end of the stop order.
   */
  private void startAlertRouter(SluiceConfig config, String host, Path dataDir, KafkaStateStore state) {
    int port = config.get(ConfigDefinitions.ALERTS_PORT);
    AlertRouter.Builder b = AlertRouter.builder()
        .host(host)
        .port(port)
        .maxRequestBytes(config.get(ConfigDefinitions.ALERTS_MAX_REQUEST))
        .dataDir(dataDir.resolve("alerts"))
        .webConfig(web.of("alerts"))
        .stateStore(state)
        .reloadOnSighup();
    config.find(ConfigDefinitions.ALERTS_CONFIG).ifPresent(b::configFile);
    AlertRouter router;
    try {
      router = b.start();
    } catch (IllegalArgumentException e) {
      state.close();
      throw new SluiceConfig.ConfigException("alert router configuration: " + e.getMessage());
    } catch (RuntimeException e) {
      state.close();
      throw e;
    }
    started.addLast(router::close);
    started.addLast(state::close);
    urls.put("alerts", router.url());
    URI api = URI.create(router.url());
    state.advertise(api.getHost() + ":" + api.getPort());
  }

  private void startMetricsServer(SluiceConfig config, String host, Path dataDir, String routerUrl) {
    MetricsServer.Builder b = MetricsServer.builder()
        .host(host)
        .port(config.get(ConfigDefinitions.METRICS_PORT))
        .maxRequestBytes(config.get(ConfigDefinitions.METRICS_MAX_REQUEST))
        .maxSamples(config.get(ConfigDefinitions.METRICS_QUERY_MAX_SAMPLES))
        .dataDir(dataDir.resolve("metrics"))
        .webConfig(web.of("metrics"))
        .exporter("127.0.0.1:" + config.get(ConfigDefinitions.EXPORTER_PORT))
        .internalClient(web.scheme(), web.internalClient());
    b.retention(config.get(ConfigDefinitions.METRICS_RETENTION));
    // The default configuration (no metrics.config) alerts this node's router, wherever it listens.
    URI router = URI.create(routerUrl);
    b.alertmanager(router.getHost() + ":" + router.getPort());
    // The other nodes' exporters and routers, as the cluster membership finds them (announce writes the files).
    b.discoveryFiles(dataDir.resolve(EXPORTER_TARGETS), dataDir.resolve(ROUTER_TARGETS));
    config.find(ConfigDefinitions.METRICS_CONFIG).ifPresent(b::configFile);
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
   * Announces this node and its components in the cluster topic, and keeps the file_sd lists of the other nodes'
   * exporters and routers current for this node's metrics server. The node id is kept in the data directory, so a
   * node started again is the same node.
   */
  private void announce(Membership membership, Path dataDir, Map<String, String> addresses) {
    Map<String, String> components = new LinkedHashMap<>();
    addresses.forEach((k, v) -> components.put(k, advertised(v)));
    Membership.Node self = new Membership.Node(nodeId(dataDir), Instant.now(), components);
    membership.announce(self);
    membership.onChange(nodes -> {
      List<Membership.Node> others = nodes.stream().filter(n -> !n.id().equals(self.id())).toList();
      try {
        FileSdTargets.write(dataDir.resolve(EXPORTER_TARGETS), others, "exporter");
        FileSdTargets.write(dataDir.resolve(ROUTER_TARGETS), others, "alerts");
      } catch (IOException e) {
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
      String name = InetAddress.getLocalHost().getHostName();
      return url.replace("0.0.0.0", name).replace("[::]", name);
    } catch (UnknownHostException e) {
      return url;
    }
  }

  private static String nodeId(Path dataDir) {
    Path file = dataDir.resolve("cluster").resolve("node.id");
    try {
      if (Files.isRegularFile(file)) {
        String id = Files.readString(file).strip();
        if (!id.isEmpty()) {
          return id;
        }
      }
      Files.createDirectories(file.getParent());
      String id = UUID.randomUUID().toString();
      Files.writeString(file, id + "\n");
      return id;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot keep the node id in " + file, e);
    }
  }

  /**
   * The console. Its accounts stay in {@code ui/} of the data directory, and it answers as {@code ui} in the ready
   * line and in the cluster's membership: the names the console had before, which existing data directories, scripts
   * and nodes of an older version use.
   */
  private void startConsole(SluiceConfig config, String host, Path dataDir, String routerUrl) {
    ConsoleServer console = console(config, web, host, dataDir, urls.get("metrics"), routerUrl)
        .kafka(cluster)
        .start();
    started.push(console::close);
    urls.put("ui", console.url());
  }

  /**
   * The console as this plane configures it, but for Kafka: which APIs it reads and acts on and how it reaches each.
   * An API of the operator's ({@code console.metrics.url}, {@code console.alerts.url}) is reached with everything its
   * {@code http_config} file says, for reading and, on the alerts API, for silencing alike.
   */
  static ConsoleServer.Builder console(SluiceConfig config, WebSurfaces web, String host, Path dataDir,
      String metricsUrl, String routerUrl) {
    ClientOptions alertsClient = consoleClient(config, web, ConfigDefinitions.CONSOLE_ALERTS_URL,
        ConfigDefinitions.CONSOLE_ALERTS_HTTP_CONFIG_FILE);
    Optional<String> operatorAlerts = config.find(ConfigDefinitions.CONSOLE_ALERTS_URL);
    return ConsoleServer.builder()
        .host(host)
        .port(config.get(ConfigDefinitions.CONSOLE_PORT))
        .dataDir(dataDir.resolve("ui"))
        .metricsUrl(config.find(ConfigDefinitions.CONSOLE_METRICS_URL).orElse(metricsUrl))
        .alertsUrl(operatorAlerts.orElse(routerUrl))
        .upstream(
            consoleClient(config, web, ConfigDefinitions.CONSOLE_METRICS_URL,
                ConfigDefinitions.CONSOLE_METRICS_HTTP_CONFIG_FILE),
            alertsClient)
        .webConfig(web.of("console"))
        .connect(web.scheme() + "://" + host + ":" + config.get(ConfigDefinitions.CONNECT_PORT),
            web.ownSurface("connect"))
        .silences(operatorAlerts.orElse(routerUrl),
            operatorAlerts.isPresent() ? alertsClient : web.ownSurface("alerts"))
        .auditDir(dataDir)
        // The registry starts beside the console (it waits for Kafka); its address is known from the configuration.
        .registry(web.scheme() + "://" + host + ":" + config.get(ConfigDefinitions.REGISTRY_PORT),
            web.ownSurface("registry"));
  }

  /**
   * How the console reads one of its two APIs: Sluice's own as the internal user; one elsewhere with the
   * {@code http_config} file given for it, if any (Sluice's internal user is for Sluice's own servers only).
   */
  private static ClientOptions consoleClient(SluiceConfig config, WebSurfaces web, ConfigKey<String> urlKey,
      ConfigKey<Path> fileKey) {
    if (config.find(urlKey).isEmpty()) {
      return web.internalClient();
    }
    try {
      return config.find(fileKey).map(HttpConfig::load).orElse(HttpConfig.none());
    } catch (IllegalArgumentException e) {
      throw new SluiceConfig.ConfigException(fileKey + ": " + e.getMessage());
    }
  }

  private SchemaRegistry startRegistry(SluiceConfig config, String host) {
    return SchemaRegistry.builder()
        .cluster(cluster)
        .topic(config.get(ConfigDefinitions.REGISTRY_TOPIC))
        .host(host)
        .port(config.get(ConfigDefinitions.REGISTRY_PORT))
        .maxRequestBytes(config.get(ConfigDefinitions.REGISTRY_MAX_REQUEST))
        .schemaCacheBytes(config.get(ConfigDefinitions.REGISTRY_SCHEMA_CACHE))
        .webConfig(web.of("registry"))
        .start();
  }

  @Override
  public synchronized void close() {
    // What was stopped has left the deque: a second close finds it empty.
    Stoppable.stopAll(started, log);
  }
}
