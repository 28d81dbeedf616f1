package io.sluice.metrics;

import io.sluice.http.HttpServer;
import io.sluice.metrics.config.Config;
import io.sluice.metrics.promql.Engine;
import io.sluice.metrics.scrape.ScrapeManager;
import io.sluice.metrics.scrape.Target;
import io.sluice.metrics.storage.Storage;
import io.sluice.metrics.tsdb.Db;
import io.sluice.metrics.web.Api;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

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
 * Part 2 (rules) uses {@link #storage()} and {@link #engine()} like any other client of the engine.
 */
public final class MetricsServer implements AutoCloseable {
  /** The Prometheus version whose API and semantics we follow; Grafana reads it from buildinfo. */
  public static final String PROMETHEUS_COMPATIBLE_VERSION = "2.53.0";

  private final Db db;
  private final Engine engine;
  private final ScrapeManager scrapes;
  private final HttpServer http;
  private final Config config;
  private volatile boolean ready;

  private MetricsServer(Builder b) {
    // A bad configuration fails before anything is opened or bound.
    Config parsed = b.configYaml != null ? Config.parse(b.configYaml)
        : b.configFile != null ? Config.load(b.configFile) : null;
    this.db = b.dataDir == null ? Db.inMemory() : Db.open(b.dataDir, b.retention);
    try {
      // Prometheus's default subquery step is the global evaluation interval.
      Duration subqueryStep = parsed != null ? parsed.global().evaluationInterval() : Duration.ofSeconds(15);
      this.engine = Engine.builder().timeout(b.queryTimeout).maxSamples(b.maxSamples)
          .lookbackDelta(b.lookbackDelta).defaultSubqueryStep(subqueryStep).build();
      HttpServer.Builder hb = HttpServer.builder("metrics").host(b.host).port(b.port);
      this.scrapes = new ScrapeManager(db, b.clock);
      Api api = new Api(db, engine, b.clock, scrapes::activeTargets, () -> ready, PROMETHEUS_COMPATIBLE_VERSION)
          .selfMetrics(this::selfMetrics);
      this.http = api.register(hb).start();
      this.config = parsed != null ? parsed : Config.defaults(http.port());
      scrapes.apply(config);
      ready = true;
    } catch (RuntimeException e) {
      db.close();
      throw e;
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Settings; every one has a default fit for {@code sluice up}. */
  public static final class Builder {
    private String host = "127.0.0.1";
    private int port = 9090;
    private Path configFile;
    private String configYaml;
    private Path dataDir;
    private Duration retention = Duration.ofDays(15);
    private Duration queryTimeout = Duration.ofMinutes(2);
    private long maxSamples = 50_000_000;
    private Duration lookbackDelta = Duration.ofMinutes(5);
    private Clock clock = Clock.systemUTC();

    private Builder() {}

    public Builder host(String host) {
      this.host = host;
      return this;
    }

    /** 9090 by default; 0 picks a free port (see {@link MetricsServer#port()}). */
    public Builder port(int port) {
      this.port = port;
      return this;
    }

    /** A Prometheus YAML configuration file. */
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

    public Builder queryTimeout(Duration timeout) {
      this.queryTimeout = timeout;
      return this;
    }

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

    public MetricsServer start() {
      return new MetricsServer(this);
    }
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

  private String selfMetrics() {
    Db.Stats s = db.stats();
    return "# HELP prometheus_tsdb_head_series Total number of series in the head block.\n"
        + "# TYPE prometheus_tsdb_head_series gauge\n"
        + "prometheus_tsdb_head_series " + s.headSeries() + "\n"
        + "# HELP prometheus_tsdb_blocks_loaded Number of currently loaded data blocks.\n"
        + "# TYPE prometheus_tsdb_blocks_loaded gauge\n"
        + "prometheus_tsdb_blocks_loaded " + s.blocks() + "\n"
        + "# HELP prometheus_tsdb_out_of_order_samples_total Samples rejected as out of order.\n"
        + "# TYPE prometheus_tsdb_out_of_order_samples_total counter\n"
        + "prometheus_tsdb_out_of_order_samples_total " + db.outOfOrderSamples() + "\n"
        + "# HELP prometheus_ready Whether the server is ready.\n"
        + "# TYPE prometheus_ready gauge\n"
        + "prometheus_ready " + (ready ? 1 : 0) + "\n";
  }

  @Override
  public void close() {
    ready = false;
    scrapes.close();
    http.close();
    db.close();
  }
}
