package io.sluice.alerts;

import io.sluice.alerts.api.Api;
import io.sluice.alerts.api.Backend;
import io.sluice.alerts.config.Config;
import io.sluice.alerts.config.ConfigException;
import io.sluice.alerts.config.ConfigLoader;
import io.sluice.alerts.dispatch.Dispatcher;
import io.sluice.alerts.dispatch.Route;
import io.sluice.alerts.inhibit.Inhibitor;
import io.sluice.alerts.nflog.NotificationLog;
import io.sluice.alerts.notify.NotifyMetrics;
import io.sluice.alerts.notify.Pipeline;
import io.sluice.alerts.provider.AlertStore;
import io.sluice.alerts.silence.Silences;
import io.sluice.alerts.state.ClusterStatus;
import io.sluice.alerts.state.FileStateStore;
import io.sluice.alerts.state.StateStore;
import io.sluice.alerts.types.Alert;
import io.sluice.alerts.types.Marker;
import io.sluice.alerts.types.Muter;
import io.sluice.alerts.ui.Ui;
import io.sluice.http.HttpServer;
import io.sluice.http.ServerOptions;
import io.sluice.client.HttpClients;
import io.sluice.http.web.Role;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sluice's alert router: Alertmanager's configuration, API and notification semantics on port 9093.
 *
 * <pre>{@code
 * AlertRouter router = AlertRouter.builder()
 *     .port(9093)
 *     .configFile(Path.of("alertmanager.yml"))   // omit to run the bundled default
 *     .dataDir(Path.of("data/alerts"))           // silences and notification log snapshots
 *     .externalUrl("http://127.0.0.1:9093")
 *     .start();
 * ...
 * router.reload();   // what SIGHUP should call; a broken file is refused and the old config keeps running
 * router.close();
 * }</pre>
 */
public final class AlertRouter implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AlertRouter.class);
  /** The bundled routing for the CDC alert catalog, a valid alertmanager.yml (classpath resource). */
  public static final String BUNDLED_CONFIG = "/io/sluice/alerts/default-alertmanager.yml";
  private static final String BUNDLED = BUNDLED_CONFIG;

  private final Builder opts;
  private final Clock clock;
  private final Instant startedAt;
  private final AlertStore store;
  private final Marker marker = new Marker();
  private final Silences silences;
  private final NotificationLog nflog;
  private final StateStore state;
  private final NotifyMetrics metrics = new NotifyMetrics();
  /** The receivers' clients, one per distinct http_config, kept across reloads. */
  private final HttpClients http;
  private final ExecutorService flushPool;
  private final ScheduledExecutorService ticker;
  private final HttpServer server;
  private volatile boolean closed;
  private volatile Runtime runtime;

  /** Everything that a reload replaces. */
  private record Runtime(Config config, Dispatcher dispatcher, Inhibitor inhibitor) {}

  private AlertRouter(Builder b, Config initial) {
    this.opts = b;
    this.clock = b.clock;
    this.startedAt = clock.instant();
    this.state = b.stateStore != null ? b.stateStore
        : b.dataDir != null ? new FileStateStore(b.dataDir) : StateStore.NONE;
    this.store = new AlertStore(clock);
    this.silences = new Silences(clock, state, b.dataRetention);
    this.nflog = new NotificationLog(clock, state, b.dataRetention);
    // The JDK client starts every request on its executor and completes the answer there: with its default pool that
    // is a hand-off to another thread before the request is written, a wake-up that on a loaded machine waits for a
    // core. Run in place instead, a request is written by the notify thread that sends it, and its answer completed
    // by the client's selector thread; the receivers read answers as strings, which never block.
    this.http = new HttpClients(Duration.ofSeconds(10), Runnable::run);
    // A flush can block for up to a group_interval while a failing receiver is retried, so groups get their own
    // threads up to a bound (Alertmanager gives each group a goroutine); an idle thread is reused, idle threads go away.
    // One more than 32 for the thread that is the timer at the time.
    this.flushPool = b.manualTicks ? null : NotifyThreads.create(33, 2, daemon("sluice-alerts-notify"));
    this.runtime = build(initial);
    store.subscribe(a -> {
      Runtime rt = runtime;
      rt.inhibitor.observe(a);
      rt.dispatcher.process(a);
    });
    HttpServer.Builder hb = HttpServer.builder("alerts", b.serverOptions()).access(AlertRouter::requiredRole);
    Api.routes(hb, new BackendImpl());
    Ui.routes(hb);
    this.server = hb.start();
    if (b.reloadOnSighup) {
      Sighup.onHangup(this::reloadLogged);
    }
    if (b.manualTicks) {
      this.ticker = null;
    } else {
      // One notify thread at a time is the timer: it sleeps until the earliest group deadline (see runTimer).
      flushPool.execute(this::runTimer);
      this.ticker = Executors.newSingleThreadScheduledExecutor(daemon("sluice-alerts-ticker"));
      ticker.scheduleWithFixedDelay(this::snapshotSafely, 5, 5, TimeUnit.SECONDS);
      // Garbage collection walks every alert: every minute is plenty (Alertmanager does it every 30 minutes).
      ticker.scheduleWithFixedDelay(this::maintainSafely, 60, 60, TimeUnit.SECONDS);
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Validates a configuration file like {@code amtool check-config}: the list of problems, empty when the file is
   * usable. For {@code sluice alerts check-config FILE}.
   */
  public static List<String> checkConfig(Path file) {
    try {
      Pipeline.check(ConfigLoader.loadFile(file));
      return List.of();
    } catch (ConfigException e) {
      return e.errors();
    }
  }

  /** The bundled default configuration (CDC alert catalog routing), as YAML text. */
  public static String defaultConfig() {
    try (InputStream in = AlertRouter.class.getResourceAsStream(BUNDLED)) {
      return new String(Objects.requireNonNull(in, "bundled config missing").readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public int port() {
    return server.port();
  }

  public String url() {
    return server.url();
  }

  /**
   * Re-reads the configuration file. A file that does not load is refused with its errors and the running
   * configuration stays; on success alerts are re-routed through the new tree while the notification log keeps
   * receivers from being notified twice.
   */
  public synchronized void reload() throws ConfigException {
    Config c = loadConfig(opts);
    Runtime old = runtime;
    Runtime fresh = build(c);
    // Switch first, then replay: an alert arriving meanwhile reaches the new tree either way, and a duplicate
    // insert of the same alert is harmless.
    runtime = fresh;
    for (Alert a : store.all()) {
      fresh.inhibitor.observe(a);
      fresh.dispatcher.process(a);
    }
    // The timer thread may be waiting on the old tree's deadlines.
    old.dispatcher.wakeUp();
    log.info("configuration reloaded ({} receivers, was {})", c.receivers().size(), old.config.receivers().size());
  }

  private void reloadLogged() {
    try {
      reload();
    } catch (ConfigException e) {
      log.error("SIGHUP reload refused, the running configuration stays: {}", e.getMessage());
    } catch (RuntimeException e) {
      log.error("SIGHUP reload failed", e);
    }
  }

  @Override
  public void close() {
    closed = true;
    if (ticker != null) {
      ticker.shutdownNow();
      runtime.dispatcher.wakeUp();
    }
    server.close();
    if (flushPool != null) {
      flushPool.shutdown();
      try {
        flushPool.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    nflog.maintain();
  }

  /** One timer step: flushes due groups, synchronously when ticks are manual (tests). */
  void tick() {
    runtime.dispatcher.flushDue();
  }

  /** Snapshots and garbage collection, normally every few seconds. */
  void maintain() {
    nflog.gc();
    nflog.maintain();
    silences.gc();
    for (long fp : store.gc(opts.resolvedRetention)) {
      marker.delete(fp);
      runtime.inhibitor.forget(fp);
    }
  }

  NotifyMetrics metrics() {
    return metrics;
  }

  int notificationLogSize() {
    return nflog.size();
  }

  int groupCount() {
    return runtime.dispatcher.groupCount();
  }

  /**
   * The timer, run by one notify thread at a time: it sleeps until the earliest group deadline, and when a flush is
   * due it hands the timer to another notify thread and runs that flush itself. The thread the deadline woke sends
   * the notification: handing the flush to a second thread and the HTTP request to a third cost a wake-up each, and on
   * a loaded machine each wake-up waits for a core (the 22 ms after group_wait was mostly such waits).
   */
  private void runTimer() {
    while (!closed) {
      Runnable flush;
      try {
        // Bounded, so a configuration reload or a clock that jumps is noticed within a second.
        Dispatcher d = runtime.dispatcher;
        d.awaitDue(Duration.ofSeconds(1));
        flush = closed ? null : d.flushDueKeepingOne();
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        log.error("flush failed", e);
        continue;
      }
      if (flush != null) {
        try {
          // With every thread busy the successor waits in the pool's queue, as a flush handed over would have.
          flushPool.execute(this::runTimer);
        } catch (RejectedExecutionException e) {
          // Closing: no successor.
        }
        flush.run();
        return;
      }
    }
  }

  private void snapshotSafely() {
    try {
      nflog.maintain();
    } catch (RuntimeException e) {
      log.error("snapshot failed", e);
    }
  }

  private void maintainSafely() {
    try {
      maintain();
    } catch (RuntimeException e) {
      log.error("maintenance failed", e);
    }
  }

  private Runtime build(Config c) {
    Inhibitor inhibitor = new Inhibitor(c.inhibitRules(), clock, marker);
    List<Muter> muters = List.of(inhibitor, silences.muter(marker));
    Pipeline pipeline = new Pipeline(c, muters, nflog, clock, opts.sleeper, metrics, externalUrl(), opts.maxAttempts,
        http);
    Dispatcher d = new Dispatcher(Route.tree(c.route()), pipeline, clock,
        opts.manualTicks ? Runnable::run : flushPool, () -> opts.peerTimeout.multipliedBy(state.peerPosition()));
    return new Runtime(c, d, inhibitor);
  }

  private String externalUrl() {
    if (opts.externalUrl != null) {
      return opts.externalUrl;
    }
    return "http://" + opts.serverOptions().host() + ":" + opts.serverOptions().port();
  }

  private static Config loadConfig(Builder b) throws ConfigException {
    Config c;
    if (b.configFile != null) {
      c = ConfigLoader.loadFile(b.configFile);
    } else {
      String yaml = b.configYaml != null ? b.configYaml : defaultConfig();
      c = ConfigLoader.parse(yaml, b.dataDir, b.env);
    }
    Pipeline.check(c);
    return c;
  }

  private static ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  private final class BackendImpl implements Backend {
    @Override
    public Clock clock() {
      return clock;
    }

    @Override
    public Config config() {
      return runtime.config;
    }

    @Override
    public Dispatcher dispatcher() {
      return runtime.dispatcher;
    }

    @Override
    public AlertStore alerts() {
      return store;
    }

    @Override
    public Silences silences() {
      return silences;
    }

    @Override
    public Marker marker() {
      return marker;
    }

    @Override
    public void refreshStatus(Map<String, String> labels) {
      runtime.inhibitor.mutes(labels);
      silences.muter(marker).mutes(labels);
    }

    @Override
    public void reload() throws ConfigException {
      AlertRouter.this.reload();
    }

    @Override
    public Instant startedAt() {
      return startedAt;
    }

    @Override
    public NotifyMetrics metrics() {
      return metrics;
    }

    @Override
    public ClusterStatus cluster() {
      return state.clusterStatus();
    }
  }

  /**
   * Reading needs {@code read}; posting alerts (what Prometheus does) and creating or expiring silences need
   * {@code operate}; a reload and anything else needs {@code admin}. Health and readiness stay open.
   */
  static Role requiredRole(String method, String path) {
    if (path.equals("/-/healthy") || path.equals("/-/ready")) {
      return null;
    }
    if (method.equals("GET") || method.equals("HEAD")) {
      return Role.READ;
    }
    if (path.matches("/api/v[12]/alerts/?") || path.matches("/api/v[12]/silences?(/.*)?")) {
      return Role.OPERATE;
    }
    return Role.ADMIN;
  }

  /**
   * Options of {@link AlertRouter}; {@link #start()} loads the configuration and binds the port. It listens on
   * 127.0.0.1:9093 and reads request bodies up to 4 MiB unless told otherwise.
   */
  public static final class Builder extends ServerOptions.Settings<Builder> {
    private Path configFile;
    private String configYaml;
    private Path dataDir;
    private StateStore stateStore;
    private String externalUrl;
    private Clock clock = Clock.systemUTC();
    private Map<String, String> env = System.getenv();
    private Duration dataRetention = Duration.ofHours(120);
    private Duration resolvedRetention = Duration.ofMinutes(30);
    private boolean manualTicks;
    private Pipeline.Sleeper sleeper = d -> Thread.sleep(d.toMillis());
    private int maxAttempts = 10;
    private Duration peerTimeout = Duration.ofSeconds(15);
    private boolean reloadOnSighup;

    private Builder() {
      super(ServerOptions.loopback(9093, 4L << 20));
    }

    /**
     * Alertmanager's {@code --cluster.peer-timeout} (default 15 s): a node at position p among the nodes sharing the
     * state store waits p times this before notifying, so that one node notifies and the others find its log entry.
     */
    public Builder peerTimeout(Duration timeout) {
      this.peerTimeout = timeout;
      return this;
    }

    /**
     * Reloads the configuration file on SIGHUP, as Alertmanager does. The handler chains to any handler installed
     * before it, so other Sluice servers in the same JVM can reload on the same signal.
     */
    public Builder reloadOnSighup() {
      this.reloadOnSighup = true;
      return this;
    }

    /** An Alertmanager YAML file; re-read by {@link AlertRouter#reload()}. Without one the bundled default runs. */
    public Builder configFile(Path file) {
      this.configFile = file;
      return this;
    }

    /** Configuration given as text (relative secret files resolve against the data dir). */
    public Builder configYaml(String yaml) {
      this.configYaml = yaml;
      return this;
    }

    /** Where silences and the notification log are snapshotted when no other {@link #stateStore} is given. */
    public Builder dataDir(Path dir) {
      this.dataDir = dir;
      return this;
    }

    /** Where durable state goes, e.g. the Kafka-backed store in {@code sluice up}. */
    public Builder stateStore(StateStore store) {
      this.stateStore = store;
      return this;
    }

    /** The URL the router is reached at, used in notifications' links. */
    public Builder externalUrl(String url) {
      this.externalUrl = url;
      return this;
    }

    public Builder clock(Clock clock) {
      this.clock = clock;
      return this;
    }

    /** How long expired silences and notification log entries are kept (Alertmanager's --data.retention). */
    public Builder dataRetention(Duration retention) {
      this.dataRetention = retention;
      return this;
    }

    Builder env(Map<String, String> env) {
      this.env = env;
      return this;
    }

    /** Tests drive time: no ticker thread, flushes run in the caller of {@link AlertRouter#tick()}. */
    Builder manualTicks() {
      this.manualTicks = true;
      return this;
    }

    Builder retrySleeper(Pipeline.Sleeper sleeper) {
      this.sleeper = sleeper;
      return this;
    }

    Builder maxAttempts(int attempts) {
      this.maxAttempts = attempts;
      return this;
    }

    public AlertRouter start() throws ConfigException {
      return new AlertRouter(this, loadConfig(this));
    }
  }
}
