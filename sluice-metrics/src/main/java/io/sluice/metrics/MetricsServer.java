package io.sluice.metrics;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.sluice.gofmt.GoDuration;
import io.sluice.http.HttpResponse;
import io.sluice.http.HttpServer;
import io.sluice.http.ServerOptions;
import io.sluice.client.ClientOptions;
import io.sluice.client.HttpConfig;
import io.sluice.http.web.Role;
import io.sluice.metrics.config.Config;
import io.sluice.metrics.promql.Engine;
import io.sluice.metrics.scrape.ScrapeManager;
import io.sluice.metrics.scrape.Target;
import io.sluice.metrics.storage.Storage;
import io.sluice.metrics.tsdb.Db;
import io.sluice.metrics.model.Labels;
import io.sluice.metrics.discovery.FileDiscovery;
import io.sluice.metrics.notifier.Notifier;
import io.sluice.metrics.rules.RuleFile;
import io.sluice.metrics.rules.Ruler;
import io.sluice.metrics.web.Api;
import io.sluice.metrics.web.RulesApi;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sluice's embedded metrics server: scrapes targets into a local time-series store and answers PromQL over
 * Prometheus's HTTP API.
 *
 * <pre>{@code
 * MetricsServer server = MetricsServer.builder()
 *     .port(9090)
 *     .configFile(Path.of("prometheus.yml"))   // optional: default scrapes 127.0.0.1:5556 and itself every 15 s
 *     .dataDir(Path.of("data/metrics"))        // optional: in memory only when absent
 *     .retention(Duration.ofDays(15))
 *     .start();
 * }</pre>
 *
 * Rules ({@code rule_files}) are evaluated through {@link #engine()} like any other client, and their alerts sent to
 * the routers of {@code alerting.alertmanagers}. Without a configuration file the server loads the bundled CDC alert
 * catalog and sends to {@link Builder#alertmanager(String)}.
 */
public final class MetricsServer implements AutoCloseable {
  /** The Prometheus version whose API and semantics we follow; Grafana reads it from buildinfo. */
  public static final String PROMETHEUS_COMPATIBLE_VERSION = "2.53.0";
  /** The bundled CDC alert catalog (a Prometheus rule file) and its promtool unit tests, as class-path resources. */
  public static final String BUNDLED_RULES = "/io/sluice/metrics/rules/cdc-alerts.rules.yml";
  public static final String BUNDLED_RULE_TESTS = "/io/sluice/metrics/rules/cdc-alerts.test.yml";
  private static final Logger log = LoggerFactory.getLogger(MetricsServer.class);
  private static final long DISCOVERY_MS = 2_000;

  private final Db db;
  private final Engine engine;
  private final ScrapeManager scrapes;
  private final Notifier notifier;
  private final Ruler ruler;
  private final HttpServer http;
  private final Path configFile;
  private final String configYaml;
  private final Path bundledRulesDir;
  private final boolean deleteBundledRules;
  private final String alertmanager;
  private final String exporter;
  private final ClientOptions internalClient;
  private final String internalScheme;
  private final List<String> exporterFiles;
  private final List<String> alertmanagerFiles;
  private final FileDiscovery discovery = new FileDiscovery();
  private final ScheduledExecutorService discoveryTimer;
  private volatile Config config;
  private volatile Config running;
  private volatile boolean ready;

  private MetricsServer(Builder b) {
    // A bad configuration (or rule file) fails before anything is opened or bound.
    Config parsed = b.configYaml != null ? Config.parse(b.configYaml)
        : b.configFile != null ? Config.load(b.configFile) : null;
    this.configFile = b.configYaml != null ? null : b.configFile;
    this.configYaml = b.configYaml;
    this.alertmanager = b.alertmanager;
    this.exporter = b.exporter;
    this.internalClient = b.internalClient;
    this.internalScheme = b.internalScheme;
    this.exporterFiles = b.exporterFiles;
    this.alertmanagerFiles = b.alertmanagerFiles;
    if (parsed != null) {
      Ruler.loadGroups(ruleFiles(parsed), parsed.global().evaluationInterval());
    }
    this.bundledRulesDir = b.dataDir != null ? b.dataDir.resolve("rules") : null;
    this.deleteBundledRules = b.dataDir == null;
    this.db = b.dataDir == null ? Db.inMemory() : Db.open(b.dataDir, b.retention);
    int ended = db.endOpenSeries(b.clock.millis(), b.lookbackDelta);
    if (ended > 0) {
      log.info("metrics store: ended {} series that the last run, which did not stop cleanly, left open", ended);
    }
    Notifier n = null;
    Ruler r = null;
    ScrapeManager sm = null;
    try {
      // Prometheus's default subquery step is the global evaluation interval.
      Duration subqueryStep = parsed != null ? parsed.global().evaluationInterval() : Duration.ofSeconds(15);
      this.engine = Engine.builder().timeout(b.queryTimeout).maxSamples(b.maxSamples)
          .lookbackDelta(b.lookbackDelta).defaultSubqueryStep(subqueryStep).build();
      HttpServer.Builder hb = HttpServer.builder("metrics", b.serverOptions()).access(MetricsServer::requiredRole)
          .refusal((status, message) -> HttpResponse.json(status, Map.of("status", "error",
              "errorType", status == 401 ? "unauthorized" : "forbidden", "error", message)));
      sm = new ScrapeManager(db, b.clock);
      this.scrapes = sm;
      n = Notifier.builder().retries(b.notifierRetries, Duration.ofMillis(500)).build();
      this.notifier = n;
      r = Ruler.builder().storage(db).engine(engine).clock(b.clock).resendDelay(b.resendDelay)
          .sender(notifier::send).build();
      this.ruler = r;
      Api api = new Api(db, engine, b.clock, scrapes::activeTargets, () -> ready, PROMETHEUS_COMPATIBLE_VERSION)
          .selfMetrics(selfMetrics());
      new RulesApi(ruler, this::reload, notifier::endpoints).register(hb);
      this.http = api.register(hb).start();
      ruler.externalUrl(b.externalUrl != null ? b.externalUrl : http.url());
      this.config = parsed != null ? parsed : defaultConfig();
      apply(config);
      // Prometheus watches file_sd files; a look every few seconds is as prompt for targets that come and go.
      this.discoveryTimer = Executors.newSingleThreadScheduledExecutor(t -> {
        Thread th = new Thread(t, "sluice-metrics-discovery");
        th.setDaemon(true);
        return th;
      });
      discoveryTimer.scheduleWithFixedDelay(this::rediscover, DISCOVERY_MS, DISCOVERY_MS,
          TimeUnit.MILLISECONDS);
      ready = true;
    } catch (RuntimeException e) {
      if (r != null) {
        r.close();
      }
      if (n != null) {
        n.close();
      }
      if (sm != null) {
        sm.close();
      }
      db.close();
      throw e;
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Reading needs {@code read}: every GET, and the query API's POSTs (a long query is posted as a form); a reload,
   * the admin API and anything else need {@code admin}. Health and readiness stay open.
   */
  static Role requiredRole(String method, String path) {
    if (path.equals("/-/healthy") || path.equals("/-/ready")) {
      return null;
    }
    if (method.equals("GET") || method.equals("HEAD")) {
      return Role.READ;
    }
    return path.matches("/api/v1/(query|query_range|series|labels|query_exemplars|format_query|parse_query)/?")
        ? Role.READ : Role.ADMIN;
  }

  /**
   * Settings; every one has a default fit for {@code sluice up}. The server listens on 127.0.0.1:9090 (0 picks a free
   * port, see {@link MetricsServer#port()}) and reads request bodies up to 10 MiB unless told otherwise.
   */
  public static final class Builder extends ServerOptions.Settings<Builder> {
    private Path configFile;
    private String configYaml;
    private Path dataDir;
    private Duration retention = Duration.ofDays(15);
    private Duration queryTimeout = Duration.ofMinutes(2);
    private long maxSamples = 50_000_000;
    private Duration lookbackDelta = Duration.ofMinutes(5);
    private Clock clock = Clock.systemUTC();
    private String alertmanager = "127.0.0.1:9093";
    private String exporter = "127.0.0.1:5556";
    private ClientOptions internalClient = HttpConfig.none();
    private String internalScheme = "http";
    private Duration resendDelay = Duration.ofMinutes(1);
    private int notifierRetries = 2;
    private String externalUrl;
    private List<String> exporterFiles = List.of();
    private List<String> alertmanagerFiles = List.of();

    private Builder() {
      super(ServerOptions.loopback(9090, 10L << 20));
    }

    /** A Prometheus YAML configuration file; {@code rule_files} are relative to its directory. */
    public Builder configFile(Path file) {
      this.configFile = file;
      return this;
    }

    /** The configuration as YAML text; wins over {@link #configFile}. */
    public Builder configYaml(String yaml) {
      this.configYaml = yaml;
      return this;
    }

    /** Where blocks and the WAL live; without it the store is in memory only. */
    public Builder dataDir(Path dir) {
      this.dataDir = dir;
      return this;
    }

    /** How long samples are kept ({@code --storage.retention}); 15 days by default. */
    public Builder retention(Duration retention) {
      this.retention = retention;
      return this;
    }

    /** The retention as Prometheus' {@code --storage.tsdb.retention.time} takes it ({@code 15d}, {@code 12h}). */
    public Builder retention(String retention) {
      try {
        this.retention = GoDuration.parse(retention);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("retention must be a duration such as 15d, not '" + retention + "'", e);
      }
      return this;
    }

    public Builder queryTimeout(Duration timeout) {
      this.queryTimeout = timeout;
      return this;
    }

    /**
     * The most samples one query may hold, Prometheus's {@code --query.max-samples} (default its 50,000,000); a query
     * past it fails with Prometheus's error before it decodes them. Sluice counts every sample a query holds, at 16
     * bytes each: an instant selector's whole lookback window where Prometheus counts one sample a step, a range
     * selector's samples once where Prometheus counts them at every step whose window holds them.
     */
    public Builder maxSamples(long maxSamples) {
      this.maxSamples = maxSamples;
      return this;
    }

    public Builder lookbackDelta(Duration lookbackDelta) {
      this.lookbackDelta = lookbackDelta;
      return this;
    }

    public Builder clock(Clock clock) {
      this.clock = clock;
      return this;
    }

    /**
     * The alert router ({@code host:port}) of the default configuration, which also loads the bundled CDC rules;
     * {@code 127.0.0.1:9093} by default. A configuration file names its own routers.
     */
    public Builder alertmanager(String hostPort) {
      this.alertmanager = hostPort;
      return this;
    }

    /**
     * {@code file_sd} files of further exporters and routers for the default configuration: the other nodes of a
     * Sluice cluster, written by its membership. Ignored when a configuration file is given.
     */
    public Builder discoveryFiles(Path exporters, Path alertmanagers) {
      this.exporterFiles = List.of(exporters.toAbsolutePath().toString());
      this.alertmanagerFiles = List.of(alertmanagers.toAbsolutePath().toString());
      return this;
    }

    /** Sluice's metrics exporter ({@code host:port}) that the default configuration scrapes; 127.0.0.1:5556 by default. */
    public Builder exporter(String hostPort) {
      this.exporter = hostPort;
      return this;
    }

    /**
     * How the default configuration reaches the exporter, this server and the router when their surfaces are secured:
     * the scheme and the client config (credentials, TLS). A configuration file says its own.
     */
    public Builder internalClient(String scheme, ClientOptions http) {
      this.internalScheme = scheme;
      this.internalClient = http;
      return this;
    }

    /** How often firing alerts are sent again ({@code --rules.alert.resend-delay}); 1 minute by default. */
    public Builder resendDelay(Duration delay) {
      this.resendDelay = delay;
      return this;
    }

    /** How many times a failed post to a router is retried before the batch counts as dropped; 2 by default. */
    public Builder notifierRetries(int retries) {
      this.notifierRetries = retries;
      return this;
    }

    /** The URL users reach this server at ({@code --web.external-url}), for alerts' links; the bound URL by default. */
    public Builder externalUrl(String url) {
      this.externalUrl = url;
      return this;
    }

    public MetricsServer start() {
      return new MetricsServer(this);
    }
  }

  /**
   * Validates a configuration file and every rule file it names, as {@code promtool check config} does, without
   * opening or binding anything: the list of problems (each rule file's with its path), empty when the server would
   * start with it.
   */
  public static List<String> checkConfig(Path file) {
    Config config;
    List<Path> rules;
    try {
      config = Config.load(file);
      rules = Ruler.resolve(config.ruleFiles(), file.toAbsolutePath().getParent());
    } catch (IllegalArgumentException | RuleFile.RuleFileException e) {
      return List.of(e.getMessage());
    }
    List<String> problems = new ArrayList<>();
    for (Path rule : rules) {
      try {
        Ruler.loadGroups(List.of(rule), config.global().evaluationInterval());
      } catch (RuleFile.RuleFileException e) {
        e.errors().forEach(error -> problems.add(rule + ": " + error));
      } catch (IllegalArgumentException e) {
        problems.add(rule + ": " + e.getMessage());
      }
    }
    return problems;
  }

  /** The bundled CDC alert rules, as a Prometheus rule file. */
  public static String bundledRules() {
    return resource(BUNDLED_RULES);
  }

  /** The bundled rules' unit tests in promtool's format (they name the rules file as {@code cdc-alerts.rules.yml}). */
  public static String bundledRuleTests() {
    return resource(BUNDLED_RULE_TESTS);
  }

  private static String resource(String name) {
    try (InputStream in = MetricsServer.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The default configuration: the bundled rules, written out so that the same file can be taken elsewhere. */
  private Config defaultConfig() {
    try {
      Path dir = bundledRulesDir != null ? bundledRulesDir : Files.createTempDirectory("sluice-metrics-rules");
      Files.createDirectories(dir);
      Path file = dir.resolve("cdc-alerts.rules.yml");
      Files.writeString(file, bundledRules());
      return Config.defaults(http.port(), alertmanager, List.of(file.toString()), exporterFiles, alertmanagerFiles)
          .reachedAs(exporter, internalScheme, internalClient);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the bundled rule file", e);
    }
  }

  private List<Path> ruleFiles(Config c) {
    Path dir = configFile != null ? configFile.toAbsolutePath().getParent() : null;
    return Ruler.resolve(c.ruleFiles(), dir);
  }

  private synchronized void apply(Config c) {
    Labels external = Labels.fromMap(c.global().externalLabels());
    // Rules first: they are the part that can still be refused.
    ruler.apply(ruleFiles(c), c.global().evaluationInterval(), external);
    this.config = c;
    run(c.resolved(discovery::read), external);
  }

  /** Points the notifier and the scrapes at a configuration's targets, file_sd entries already read. */
  private void run(Config resolved, Labels external) {
    notifier.apply(resolved.alertmanagers(), resolved.alertmanagerHttp(), external);
    scrapes.apply(resolved);
    this.running = resolved;
  }

  /** Takes in what the file_sd files say now, when it changed: targets and routers that came or went. */
  private synchronized void rediscover() {
    Config c = config;
    if (c.discoveryFiles().isEmpty()) {
      return;
    }
    try {
      Config resolved = c.resolved(discovery::read);
      if (resolved.scrapeConfigs().equals(running.scrapeConfigs())
          && resolved.alertmanagers().equals(running.alertmanagers())) {
        return;
      }
      run(resolved, Labels.fromMap(c.global().externalLabels()));
      log.info("metrics server: discovered {} targets, {} alertmanagers", ScrapeManager.targetsOf(resolved).size(),
          resolved.alertmanagers().size());
    } catch (RuntimeException e) {
      log.warn("metrics server: file discovery failed", e);
    }
  }

  /**
   * Re-reads the configuration file (if any) and every rule file ({@code POST /-/reload}). A broken file is refused
   * with an exception saying why, and the running configuration and rules stay as they were.
   */
  public synchronized void reload() {
    Config fresh = configYaml != null ? Config.parse(configYaml)
        : configFile != null ? Config.load(configFile) : config;
    // Parse every rule file before changing anything.
    Ruler.loadGroups(ruleFiles(fresh), fresh.global().evaluationInterval());
    apply(fresh);
    log.info("metrics server: configuration and rules reloaded");
  }

  public int port() {
    return http.port();
  }

  public String url() {
    return http.url();
  }

  /** The store: the engine's {@code Queryable} and the appender recording rules write through. */
  public Storage storage() {
    return db;
  }

  public Engine engine() {
    return engine;
  }

  public Config config() {
    return config;
  }

  public List<Target> targets() {
    return scrapes.activeTargets();
  }

  /** The rule groups and their alerts. */
  public Ruler rules() {
    return ruler;
  }

  public Notifier.Stats notifications() {
    return notifier.stats();
  }

  /**
   * The server's own metrics, named as Prometheus names them. One collector reads the store's and the notifier's
   * statistics once per scrape (the store's walk every head series) and writes every family from that reading.
   */
  private PrometheusRegistry selfMetrics() {
    PrometheusRegistry r = new PrometheusRegistry();
    r.register((MultiCollector) () -> {
      Db.Stats s = db.stats();
      Notifier.Stats n = notifier.stats();
      return new MetricSnapshots(
          gauge("prometheus_tsdb_head_series", "Total number of series in the head block.", s.headSeries()),
          gauge("prometheus_tsdb_blocks_loaded", "Number of currently loaded data blocks.", s.blocks()),
          counter("prometheus_tsdb_out_of_order_samples", "Samples rejected as out of order.",
              db.outOfOrderSamples()),
          counter("prometheus_notifications_sent", "Total number of alerts sent.", n.sent()),
          counter("prometheus_notifications_errors", "Total number of errors sending alert notifications.",
              n.errors()),
          counter("prometheus_notifications_dropped", "Total number of alerts dropped.", n.dropped()),
          gauge("prometheus_notifications_queue_length", "The number of alert notifications in the queue.",
              n.queueLength()),
          gauge("prometheus_ready", "Whether the server is ready.", ready ? 1 : 0));
    });
    return r;
  }

  private static GaugeSnapshot gauge(String name, String help, double value) {
    return GaugeSnapshot.builder().name(name).help(help)
        .dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().value(value).build()).build();
  }

  /** {@code name} without {@code _total}: the writer adds it. */
  private static CounterSnapshot counter(String name, String help, double value) {
    return CounterSnapshot.builder().name(name).help(help)
        .dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().value(value).build()).build();
  }

  @Override
  public void close() {
    ready = false;
    discoveryTimer.shutdownNow();
    ruler.close();
    notifier.close();
    scrapes.close();
    http.close();
    db.close();
    if (deleteBundledRules) {
      for (Path p : Ruler.resolve(config.ruleFiles(), null)) {
        if (p.getFileName().toString().equals("cdc-alerts.rules.yml")
            && p.getParent().getFileName().toString().startsWith("sluice-metrics-rules")) {
          try {
            Files.deleteIfExists(p);
            Files.deleteIfExists(p.getParent());
          } catch (IOException e) {
            log.debug("could not delete {}", p, e);
          }
        }
      }
    }
  }
}
