package io.sluice.exporter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.prometheus.metrics.model.snapshots.ClassicHistogramBucket;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot.HistogramDataPointSnapshot;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.junit.jupiter.api.Test;

/**
 * The write freshness histogram as the exporter builds it from sink tasks' plugin metrics in Connect's registry: the
 * tasks of a connector summed, cumulative buckets with the sum and count, and a task's restart (Connect removes its
 * metrics, the new task publishes new ones from 0) leaving the exported series as cumulative as before.
 */
class WriteFreshnessTest {
  private static final String[] LE = {"0.5", "1.0", "+Inf"};

  /** One task's histogram published as Sluice's JDBC sink publishes it: cumulative counts by bound, and a sum. */
  private static final class PublishedTask {
    final AtomicLongArray cumulative = new AtomicLongArray(LE.length);
    volatile double sum;
    final PluginMetricsImpl plugin;

    PublishedTask(Metrics registry, String connector, String task) {
      plugin = new PluginMetricsImpl(registry, Map.of("connector", connector, "task", task));
      for (int i = 0; i < LE.length; i++) {
        int bucket = i;
        LinkedHashMap<String, String> tags = new LinkedHashMap<>(Map.of("le", LE[i]));
        plugin.addMetric(plugin.metricName(WriteFreshness.BUCKET, "", tags), (c, now) -> cumulative.get(bucket));
      }
      plugin.addMetric(plugin.metricName(WriteFreshness.SUM, "", new LinkedHashMap<>()), (c, now) -> sum);
    }

    void observe(double seconds) {
      for (int i = 0; i < LE.length; i++) {
        if (LE[i].equals("+Inf") || seconds <= Double.parseDouble(LE[i])) {
          cumulative.incrementAndGet(i);
        }
      }
      sum += seconds;
    }
  }

  private static Map<String, Long> buckets(HistogramDataPointSnapshot p) {
    Map<String, Long> out = new LinkedHashMap<>();
    long cumulative = 0;
    for (ClassicHistogramBucket b : p.getClassicBuckets()) {
      cumulative += b.getCount();
      out.put(b.getUpperBound() == Double.POSITIVE_INFINITY ? "+Inf" : Double.toString(b.getUpperBound()), cumulative);
    }
    return out;
  }

  private static HistogramDataPointSnapshot point(WriteFreshness f, String connector) {
    HistogramSnapshot s = (HistogramSnapshot) f.collect();
    return s.getDataPoints().stream().filter(p -> connector.equals(p.getLabels().get("connector"))).findFirst()
        .orElseThrow(() -> new AssertionError("no series of " + connector));
  }

  @Test
  void tasksAreSummedAndARestartedTaskGoesOnFromWhereItWas() throws Exception {
    try (Metrics registry = new Metrics()) {
      WriteFreshness freshness = new WriteFreshness(registry);
      Map<String, String> pipelines = Map.of("orders-sink", "orders-source");
      PublishedTask t0 = new PublishedTask(registry, "orders-sink", "0");
      PublishedTask t1 = new PublishedTask(registry, "orders-sink", "1");
      freshness.reindex(pipelines);
      t0.observe(0.2);
      t0.observe(0.8);
      t1.observe(3);
      HistogramDataPointSnapshot p = point(freshness, "orders-sink");
      assertEquals(Map.of("0.5", 1L, "1.0", 2L, "+Inf", 3L), buckets(p));
      assertEquals(3, p.getCount());
      assertEquals(4.0, p.getSum(), 1e-9);
      assertEquals("orders-source", p.getLabels().get("pipeline"));

      // Task 0 restarts: Connect closes its plugin metrics, the new task counts from 0. A scrape before the next
      // bookkeeping pass still reads the ended task's last values; after it, they are the connector's base.
      t0.plugin.close();
      PublishedTask again = new PublishedTask(registry, "orders-sink", "0");
      assertEquals(3, point(freshness, "orders-sink").getCount());
      freshness.reindex(pipelines);
      again.observe(0.1);
      p = point(freshness, "orders-sink");
      assertEquals(Map.of("0.5", 2L, "1.0", 3L, "+Inf", 4L), buckets(p));
      assertEquals(4.1, p.getSum(), 1e-9);

      // Task 1 leaves this worker (a rebalance): what it counted stays.
      t1.plugin.close();
      freshness.reindex(pipelines);
      assertEquals(4, point(freshness, "orders-sink").getCount());

      // The connector deleted: its series ends.
      again.plugin.close();
      freshness.reindex(Map.of());
      assertTrue(((HistogramSnapshot) freshness.collect()).getDataPoints().isEmpty());
    }
  }

  @Test
  void metricsOfOtherShapesAreLeftOut() throws Exception {
    try (Metrics registry = new Metrics()) {
      // A plugin metric of the same name without +Inf or a sum is not a histogram; neither is one without a task.
      PluginMetricsImpl partial = new PluginMetricsImpl(registry, Map.of("connector", "partial", "task", "0"));
      partial.addMetric(partial.metricName(WriteFreshness.BUCKET, "", new LinkedHashMap<>(Map.of("le", "1.0"))),
          (c, now) -> 1.0);
      PluginMetricsImpl connectorLevel = new PluginMetricsImpl(registry, Map.of("connector", "whole"));
      connectorLevel.addMetric(connectorLevel.metricName(WriteFreshness.BUCKET, "",
          new LinkedHashMap<>(Map.of("le", "+Inf"))), (c, now) -> 1.0);
      connectorLevel.addMetric(connectorLevel.metricName(WriteFreshness.SUM, "", new LinkedHashMap<>()),
          (c, now) -> 1.0);
      WriteFreshness freshness = new WriteFreshness(registry);
      freshness.reindex(Map.of("partial", "partial", "whole", "whole"));
      assertEquals(List.of(), ((HistogramSnapshot) freshness.collect()).getDataPoints());
      assertEquals(null, WriteFreshness.bound("NaN"));
      assertEquals(null, WriteFreshness.bound("one"));
      assertEquals(Double.POSITIVE_INFINITY, WriteFreshness.bound("+Inf"));
    }
  }
}
