package io.sluice.exporter;

import io.prometheus.metrics.model.registry.Collector;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot.HistogramDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.Metrics;

/**
 * {@value #NAME}: seconds from a change's commit in the source database to the sink's write of it, by sink connector
 * and pipeline, summed over the connector's tasks on this worker.
 *
 * <p>The sink task measures it (Sluice's JDBC sink: the {@code put} that wrote the record returned without error) and
 * publishes a cumulative histogram as its Kafka Connect plugin metrics (KIP-877): group {@value #GROUP}, names
 * {@value #BUCKET} (tag {@code le}) and {@value #SUM}, tagged {@code connector} and {@code task} by the worker. The
 * plugin lives in its own class loader, so Connect's metrics registry is the one place both see. Any sink that
 * publishes the same names is exported alike; one that does not has no series here.
 *
 * <p>A task's metrics end with it (restart, rebalance, deletion). The metric objects keep their last values after
 * Connect removes them, so what an ended task counted moves into its connector's base exactly, and the exported
 * histogram stays cumulative on this worker, as Prometheus expects, across the task's restarts here.
 */
final class WriteFreshness implements Collector {
  static final String NAME = "svc_cdc_freshness_write_seconds";
  static final String GROUP = "plugins";
  static final String BUCKET = "sink-write-freshness-seconds-bucket";
  static final String SUM = "sink-write-freshness-seconds-sum";
  private static final MetricMetadata METADATA = new MetricMetadata(NAME, "Seconds from a change's commit in the"
      + " source database (Debezium source.ts_ms) to the sink's write of it (the sink task's put returned).");

  /** One task's histogram: its bucket metrics by upper bound ({@code +Inf} included) and its sum. */
  private record Task(TreeMap<Double, KafkaMetric> buckets, KafkaMetric sum) {
    boolean sameObjects(Task other) {
      return other != null && other.sum == sum && other.buckets.equals(buckets);
    }
  }

  /** Cumulative counts by upper bound, and the sum: a task's reading, or what ended tasks counted. */
  private record Counted(TreeMap<Double, Double> cumulative, double[] sum) {
    Counted() {
      this(new TreeMap<>(), new double[1]);
    }

    /** The count at or under {@code bound}: that of the largest bound not above it (0 under the first). */
    double at(double bound) {
      Map.Entry<Double, Double> e = cumulative.floorEntry(bound);
      return e == null ? 0 : e.getValue();
    }

    void add(Counted other) {
      TreeSet<Double> bounds = new TreeSet<>(cumulative.keySet());
      bounds.addAll(other.cumulative.keySet());
      TreeMap<Double, Double> merged = new TreeMap<>();
      for (double b : bounds) {
        merged.put(b, at(b) + other.at(b));
      }
      cumulative.clear();
      cumulative.putAll(merged);
      sum[0] += other.sum[0];
    }
  }

  private final Metrics registry;
  /** The task metrics found by the last {@link #reindex}; guarded by {@code this}. */
  private Map<TaskKey, Task> tasks = Map.of();
  /** By connector: what its tasks that ended here counted. Guarded by {@code this}. */
  private final Map<String, Counted> ended = new HashMap<>();
  private Map<String, String> pipelines = Map.of();

  WriteFreshness(Metrics registry) {
    this.registry = registry;
  }

  /**
   * Finds the tasks' histograms in Connect's registry; {@code pipelines} maps each existing connector to its pipeline.
   * A task whose metric objects went or were replaced adds its last reading to its connector's base; a connector
   * that no longer exists loses its series. Run by the exporter's once-a-second bookkeeping, not by a scrape.
   */
  void reindex(Map<String, String> pipelines) {
    Map<TaskKey, TreeMap<Double, KafkaMetric>> buckets = new HashMap<>();
    Map<TaskKey, KafkaMetric> sums = new HashMap<>();
    for (Map.Entry<MetricName, KafkaMetric> e : registry.metrics().entrySet()) {
      MetricName n = e.getKey();
      if (!GROUP.equals(n.group()) || !(BUCKET.equals(n.name()) || SUM.equals(n.name()))) {
        continue;
      }
      String connector = n.tags().get("connector");
      String task = n.tags().get("task");
      if (connector == null || task == null) {
        continue;
      }
      TaskKey key = new TaskKey(connector, task);
      if (SUM.equals(n.name())) {
        sums.put(key, e.getValue());
      } else {
        Double bound = bound(n.tags().get("le"));
        if (bound != null) {
          buckets.computeIfAbsent(key, k -> new TreeMap<>()).put(bound, e.getValue());
        }
      }
    }
    Map<TaskKey, Task> next = new HashMap<>();
    buckets.forEach((key, b) -> {
      // Without +Inf there is no count, without the sum no _sum: not a histogram this exporter can show.
      if (b.containsKey(Double.POSITIVE_INFINITY) && sums.containsKey(key)) {
        next.put(key, new Task(b, sums.get(key)));
      }
    });
    synchronized (this) {
      tasks.forEach((key, before) -> {
        if (!before.sameObjects(next.get(key)) && pipelines.containsKey(key.connector())) {
          ended.computeIfAbsent(key.connector(), c -> new Counted()).add(read(before));
        }
      });
      ended.keySet().retainAll(pipelines.keySet());
      tasks = next;
      this.pipelines = Map.copyOf(pipelines);
    }
  }

  /** {@code le} as a number; null when it is not one. */
  static Double bound(String le) {
    if (le == null) {
      return null;
    }
    if (le.equals("+Inf")) {
      return Double.POSITIVE_INFINITY;
    }
    try {
      double d = Double.parseDouble(le);
      return Double.isNaN(d) ? null : d;
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** A task's reading, buckets in ascending order: a write between two reads can only raise the later, larger one. */
  private static Counted read(Task t) {
    Counted out = new Counted();
    double floor = 0;
    for (Map.Entry<Double, KafkaMetric> e : t.buckets.entrySet()) {
      floor = Math.max(floor, value(e.getValue()));
      out.cumulative.put(e.getKey(), floor);
    }
    out.sum[0] = value(t.sum);
    return out;
  }

  private static double value(KafkaMetric m) {
    return m.metricValue() instanceof Number n && !Double.isNaN(n.doubleValue()) ? n.doubleValue() : 0;
  }

  @Override
  public MetricSnapshot collect() {
    Map<String, Counted> byConnector = new TreeMap<>();
    Map<String, String> labels;
    synchronized (this) {
      labels = pipelines;
      ended.forEach((connector, counted) -> byConnector.computeIfAbsent(connector, c -> new Counted()).add(counted));
      tasks.forEach((key, task) -> {
        if (labels.containsKey(key.connector())) {
          byConnector.computeIfAbsent(key.connector(), c -> new Counted()).add(read(task));
        }
      });
    }
    List<HistogramDataPointSnapshot> points = new ArrayList<>();
    byConnector.forEach((connector, counted) -> {
      if (!counted.cumulative.containsKey(Double.POSITIVE_INFINITY)) {
        return;
      }
      double[] bounds = new double[counted.cumulative.size()];
      long[] counts = new long[bounds.length];
      int i = 0;
      long below = 0;
      for (Map.Entry<Double, Double> e : counted.cumulative.entrySet()) {
        long cumulative = Math.max(below, Math.round(e.getValue()));
        bounds[i] = e.getKey();
        counts[i++] = cumulative - below; // the client's buckets are per bucket, written out cumulative
        below = cumulative;
      }
      points.add(HistogramDataPointSnapshot.builder()
          .classicHistogramBuckets(ClassicHistogramBuckets.of(bounds, counts))
          .sum(counted.sum[0])
          .labels(Labels.of("connector", connector, "pipeline",
              Objects.requireNonNullElse(labels.get(connector), connector)))
          .build());
    });
    return new HistogramSnapshot(METADATA, points);
  }

  @Override
  public String getPrometheusName() {
    return NAME;
  }
}
