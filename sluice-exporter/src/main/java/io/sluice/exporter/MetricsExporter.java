package io.sluice.exporter;

import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.Collector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.sluice.connect.ConnectRuntime;
import io.sluice.exporter.ConnectorCatalog.Connector;
import io.sluice.http.HttpResponse;
import io.sluice.http.HttpServer;
import io.sluice.http.MetricsPage;
import io.sluice.http.ServerOptions;
import io.sluice.topics.KafkaCluster;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.connect.runtime.Herder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves the running Connect worker's metrics at {@code /metrics} in the Prometheus text format (0.0.4), or
 * OpenMetrics when the scraper asks for it, with the official Prometheus Java client's writers.
 *
 * <pre>{@code
 * ConnectRuntime connect = ConnectRuntime.builder()...consumerInterceptor(MetricsExporter.FRESHNESS).start();
 * MetricsExporter exporter = MetricsExporter.builder(connect).port(5556).start();
 * }</pre>
 *
 * <p>Two freshness histograms, both from a change's commit in the source database: {@value WriteFreshness#NAME} to
 * the sink's write of it, which the sink task measures (Sluice's JDBC sink does) and publishes as its plugin metrics,
 * and {@value #COMMIT_FRESHNESS} to the sink's offset commit that covers it, which needs {@link #FRESHNESS} on the
 * worker's consumers (without it that histogram stays empty).
 *
 * <p>A scrape reads only memory: the worker's metrics registry, its connector configs and statuses, restart counts
 * followed from the status topic, and the last reading of the slow values (end offsets, consumer lag, source log
 * retention), which a background thread refreshes every {@link Builder#refreshInterval}.
 *
 * <p>Task counters go on across a task's restarts and moves between nodes ({@link CarriedCounts}), through the
 * cluster's counts topic ({@link #COUNTS_TOPIC}). Stop the worker before its exporter, as {@code sluice up} does: the
 * exporter then writes each task's final total, and the node that takes the task next continues from it exactly.
 */
public final class MetricsExporter implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(MetricsExporter.class);
  /** The consumer interceptor a worker needs for {@value #COMMIT_FRESHNESS}; give it to the worker's builder. */
  public static final Class<?> FRESHNESS = FreshnessInterceptor.class;
  /** Seconds from a change's commit in the source to the sink's offset commit that covers it. */
  public static final String COMMIT_FRESHNESS = "svc_cdc_freshness_commit_seconds";
  /** Seconds from a change's commit in the source to the sink's write of it. */
  public static final String WRITE_FRESHNESS = WriteFreshness.NAME;
  /**
   * The commit-based histogram's name before the write-based one came: the same series under both names, so that
   * dashboards and rules written against it go on working. Deprecated; {@value #COMMIT_FRESHNESS} replaces it.
   */
  public static final String OLD_COMMIT_FRESHNESS = "svc_cdc_freshness_seconds";
  /**
   * The series every node of a cluster writes alike, read from the cluster's shared state (the status topic, topic
   * end offsets, consumer groups, the source databases) rather than from the tasks this worker runs. A view that
   * scrapes every node has each of them once per node: take them with max (or min) over the nodes, never sum or
   * count.
   */
  public static final Set<String> CLUSTER_WIDE = Set.of("svc_connect_connector_status",
      "svc_connect_connector_status_info", "svc_connect_connector_exactly_once", "svc_connect_connector_task_metrics_total_restarts_total",
      "svc_connect_dlq_records_total", "svc_connect_dlq_records_total_timestamp_seconds",
      "svc_topic_partition_current_offset", "svc_connect_sink_consumer_lag",
      "svc_postgres_replication_slot_retained_wal_bytes", "svc_postgres_replication_slot_wal_status",
      "svc_postgres_max_slot_wal_keep_size_bytes", "svc_mysql_binlog_oldest_age_seconds",
      "svc_mysql_binlog_retention_seconds", "svc_connect_task_transaction_open_seconds",
      "svc_connect_task_transaction_timeout_seconds");

  /** How often the exporter looks for tasks that started, restarted, left or were deleted. */
  private static final Duration PASS = Duration.ofSeconds(1);
  /** The compacted topic through which task counters go on when their tasks move between nodes. */
  public static final String COUNTS_TOPIC = CountsTopic.DEFAULT;
  /** How often the totals of this node's tasks are written while they change: what a node killed -9 may lose. */
  static final Duration COUNTS_INTERVAL = Duration.ofSeconds(5);
  /**
   * How long the series of a task that came from another node stay away by default: Sluice's and Prometheus' default
   * scrape interval, so that no scrape sees the task on both nodes.
   */
  public static final Duration MOVE_HOLD = Duration.ofSeconds(15);

  private final HttpServer http;
  private final PrometheusRegistry registry;
  private final CountsTopic counts;
  private final TaskMetricIndex tasks;
  private final RestartCounter restarts;
  private final SlowReadings slow;
  private final ScheduledExecutorService background;
  private final String worker;
  private final FreshnessInterceptor.Recorder recorder;

  private MetricsExporter(Builder b) {
    Herder herder = b.connect.herder();
    Map<String, String> workerConfig = b.connect.workerConfig();
    ConnectorCatalog catalog = new ConnectorCatalog(herder);
    Metrics metrics = herder.connectMetrics().metrics();
    CommitCounters commits = new CommitCounters(metrics);
    worker = b.connect.restUrl().replaceFirst("^https?://", "");
    // Held a second longer than a scrape interval: the node a task left drops its series at its next pass, within
    // a second of the stop, and the task may start here before that.
    CarriedCounts carried = new CarriedCounts(worker, b.clock, COUNTS_INTERVAL, b.moveHold.plus(PASS));
    counts = CountsTopic.start(KafkaCluster.from(workerConfig), b.countsTopic, carried);
    tasks = new TaskMetricIndex(metrics, carried, counts::write);
    restarts = new RestartCounter(KafkaCluster.from(workerConfig), workerConfig.get("status.storage.topic"));
    slow = new SlowReadings(catalog, herder, workerConfig, b.clock);
    Freshness freshness = new Freshness();
    WriteFreshness written = new WriteFreshness(metrics);
    recorder = freshness::observe;
    FreshnessInterceptor.register(worker, recorder);
    if (!workerConfig.getOrDefault("consumer.interceptor.classes", "").contains(FreshnessInterceptor.class.getName())) {
      log.warn("worker {} runs without the freshness interceptor: change-event freshness will not be measured", worker);
    }

    registry = new PrometheusRegistry();
    RuntimeCollector collector = new RuntimeCollector(catalog, tasks, restarts, slow);
    registry.register(collector);
    registry.register(freshness.histogram);
    registry.register(freshness.oldName());
    registry.register(written);

    background = Executors.newScheduledThreadPool(2, r -> {
      Thread t = new Thread(r, "sluice-exporter-refresh");
      t.setDaemon(true);
      return t;
    });
    background.scheduleWithFixedDelay(() -> guarded("slow values", slow::refresh), 0,
        b.refreshInterval.toMillis(), TimeUnit.MILLISECONDS);
    // Once a second: commit counters and the metrics index for tasks that started, restarted, left or were deleted
    // (with the counts topic's writes that follows), freshness series of deleted connectors, and the sink tasks'
    // write freshness histograms.
    background.scheduleWithFixedDelay(() -> guarded("task bookkeeping", () -> {
      List<Connector> connectors = catalog.connectors();
      Map<String, String> pipelines = new HashMap<>();
      for (Connector c : connectors) {
        pipelines.put(c.name(), c.pipeline());
        c.tasks().forEach(t -> commits.attach(c.name(), Integer.toString(t.id())));
      }
      tasks.reindex(connectors, catalog.configured());
      freshness.keep(pipelines);
      written.reindex(pipelines);
    }), 0, PASS.toMillis(), TimeUnit.MILLISECONDS);

    http = HttpServer.builder("metrics exporter", b.serverOptions()).maxThreads(8)
        .get("/metrics", MetricsPage.serving(registry))
        .get("/", req -> HttpResponse.text(200, "text/html; charset=utf-8",
            "<html><body><a href=\"/metrics\">/metrics</a></body></html>\n"))
        .start();
  }

  /** Starts building an exporter of the given worker. */
  public static Builder builder(ConnectRuntime connect) {
    return new Builder(connect);
  }

  /** Base URL, e.g. {@code http://127.0.0.1:5556}. */
  public String url() {
    return http.url();
  }

  public int port() {
    return http.port();
  }



  private static void guarded(String what, Runnable r) {
    try {
      r.run();
    } catch (RuntimeException e) {
      // The next run tries again; a scheduled task that threw would never run again.
      log.warn("metrics exporter: {} failed: {}", what, e.toString());
    }
  }

  @Override
  public void close() {
    http.close();
    FreshnessInterceptor.unregister(worker, recorder);
    background.shutdownNow();
    try {
      background.awaitTermination(15, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    // The worker stopped first (sluice up stops Connect before the exporter): each task's total is final.
    tasks.close();
    counts.close();
    restarts.close();
    slow.close();
  }

  /** The commit-based freshness histogram, labelled by sink connector and its pipeline. */
  private static final class Freshness {
    /** The sink's write freshness histogram's bounds (the JDBC sink's), so that the two read side by side. */
    final Histogram histogram = Histogram.builder()
        .name(COMMIT_FRESHNESS)
        .help("Seconds from a change's commit in the source database (Debezium ts_ms) to the sink's offset commit"
            + " that covers it.")
        .labelNames("connector", "pipeline")
        .classicOnly()
        .classicUpperBounds(0.05, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600)
        .build();

    /** The same series under {@link #OLD_COMMIT_FRESHNESS}: one collection, written out twice. */
    Collector oldName() {
      MetricMetadata old = new MetricMetadata(OLD_COMMIT_FRESHNESS, "Deprecated: the same as " + COMMIT_FRESHNESS
          + "; seconds from a change's commit in the source database to the sink's offset commit that covers it.");
      return new Collector() {
        @Override
        public MetricSnapshot collect() {
          return new HistogramSnapshot(old, histogram.collect().getDataPoints());
        }

        @Override
        public String getPrometheusName() {
          return OLD_COMMIT_FRESHNESS;
        }
      };
    }
    private volatile Map<String, String> pipelines = Map.of();
    private final Set<List<String>> seen = ConcurrentHashMap.newKeySet();

    void observe(String connector, double seconds) {
      String pipeline = pipelines.getOrDefault(connector, connector);
      seen.add(List.of(connector, pipeline));
      histogram.labelValues(connector, pipeline).observe(seconds);
    }

    /** Drops the series of connectors that no longer exist or moved to another pipeline. */
    void keep(Map<String, String> current) {
      pipelines = Map.copyOf(current);
      seen.removeIf(labels -> {
        boolean gone = !labels.get(1).equals(current.get(labels.get(0)));
        if (gone) {
          histogram.remove(labels.get(0), labels.get(1));
        }
        return gone;
      });
    }
  }

  /**
   * Where to listen (127.0.0.1:5556 unless told otherwise, request bodies up to 64 KiB) and how often to read the slow
   * values.
   */
  public static final class Builder extends ServerOptions.Settings<Builder> {
    private final ConnectRuntime connect;
    private Duration refreshInterval = Duration.ofSeconds(10);
    private Clock clock = Clock.systemUTC();
    private String countsTopic = COUNTS_TOPIC;
    private Duration moveHold = MOVE_HOLD;

    private Builder(ConnectRuntime connect) {
      super(ServerOptions.loopback(5556, 64L << 10));
      this.connect = connect;
    }

    /** How often end offsets, consumer lag and source log retention are read (default 10 s). */
    public Builder refreshInterval(Duration refreshInterval) {
      this.refreshInterval = refreshInterval;
      return this;
    }

    /** The compacted topic of the cluster's task totals (default {@code sluice-task-counters}), made when missing. */
    public Builder countsTopic(String countsTopic) {
      this.countsTopic = countsTopic;
      return this;
    }

    /**
     * How long the counters of a task that moved here from another node stay away (default 15 s): at least the longest
     * scrape interval of whatever scrapes the exporters. The node it left drops its series within a second, and each
     * scraper ends them at its next scrape there; a series shown here before that would count the task twice.
     */
    public Builder moveHold(Duration moveHold) {
      this.moveHold = moveHold;
      return this;
    }

    public Builder clock(Clock clock) {
      this.clock = clock;
      return this;
    }

    public MetricsExporter start() {
      MetricsExporter exporter = new MetricsExporter(this);
      log.info("metrics exporter serving {}/metrics", exporter.url());
      return exporter;
    }
  }
}
