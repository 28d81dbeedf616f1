package io.sluice.sink.jdbc;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.function.LongSupplier;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Measurable;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How fresh each record is when the sink has written it: the seconds from its change's commit in the source database
 * (the Debezium envelope's {@code source.ts_ms}, else its {@code ts_ms}) to the return of the {@code put} that wrote
 * it. Debezium's JDBC sink flushes in {@code put}, so a put that returned without a processing error has the records
 * in the target; a put that failed (Debezium's task keeps the error for the next put) observes nothing.
 *
 * <p>A Prometheus-style histogram with cumulative buckets, published as the task's Kafka Connect plugin metrics
 * (KIP-877, group {@code plugins}, tagged {@code connector} and {@code task} by the worker): {@value #BUCKET} with a
 * tag {@code le} per upper bound ({@code +Inf} last), {@value #SUM} and {@value #COUNT}. Sluice's metrics exporter
 * reads them from the worker's registry (this class lives in the plugin's class loader, so it cannot hand the exporter
 * its own objects); JMX shows them too. Any sink may publish the same three names to be measured alike.
 */
final class WriteFreshness {
  private static final Logger LOG = LoggerFactory.getLogger(WriteFreshness.class);
  static final String BUCKET = "sink-write-freshness-seconds-bucket";
  static final String SUM = "sink-write-freshness-seconds-sum";
  static final String COUNT = "sink-write-freshness-seconds-count";
  /**
   * Fine below a few seconds, where a healthy pipeline is and where its target (p99 within a second) is told apart;
   * coarse above, up to the hour, where an alert only needs the order of magnitude.
   */
  static final double[] UPPER_BOUNDS =
      {0.05, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600};

  private final LongSupplier clock;
  /** Observations per bucket, not cumulative; the last one is above every bound. Guarded by {@code this}. */
  private final long[] counts = new long[UPPER_BOUNDS.length + 1];
  private double sum;
  private final List<MetricName> published = new ArrayList<>();
  private final PluginMetrics metrics;

  private WriteFreshness(PluginMetrics metrics, LongSupplier clock) {
    this.metrics = metrics;
    this.clock = clock;
  }

  /**
   * A histogram published through {@code metrics}, the task context's plugin metrics; with null (a worker before
   * Kafka 4.1, or a test) it counts without publishing. {@code clock} gives the wall-clock time in milliseconds.
   */
  static WriteFreshness publish(PluginMetrics metrics, LongSupplier clock) {
    WriteFreshness out = new WriteFreshness(metrics, clock);
    if (metrics == null) {
      return out;
    }
    try {
      for (int i = 0; i <= UPPER_BOUNDS.length; i++) {
        int bucket = i;
        LinkedHashMap<String, String> tags = new LinkedHashMap<>();
        tags.put("le", i == UPPER_BOUNDS.length ? "+Inf" : bound(UPPER_BOUNDS[i]));
        out.add(metrics.metricName(BUCKET, "Records written within le seconds of their commit in the source",
            tags), (config, now) -> out.cumulative(bucket));
      }
      out.add(metrics.metricName(SUM, "Seconds from commit in the source to the sink's write, summed over records",
          new LinkedHashMap<>()), (config, now) -> out.sum());
      out.add(metrics.metricName(COUNT, "Records written that carry their commit time in the source",
          new LinkedHashMap<>()), (config, now) -> out.cumulative(UPPER_BOUNDS.length));
    } catch (RuntimeException e) {
      // A measurement never fails the sink: it then counts without publishing.
      LOG.warn("The sink's write freshness is not published: {}", e.toString());
      out.unpublish();
    }
    return out;
  }

  private void add(MetricName name, Measurable value) {
    metrics.addMetric(name, value);
    published.add(name);
  }

  /** A bound as Prometheus writes {@code le}: {@code 1.0}, {@code 0.05}, {@code 3600.0}. */
  static String bound(double upper) {
    return Double.toString(upper);
  }

  /** Observes the records of a put that has just returned without error. */
  void written(Collection<SinkRecord> records) {
    long now = clock.getAsLong();
    synchronized (this) {
      for (SinkRecord r : records) {
        long committed = commitTimeMillis(r.value());
        if (committed > 0) {
          observe(Math.max(0, now - committed) / 1000.0);
        }
      }
    }
  }

  private void observe(double seconds) {
    int i = 0;
    // A value equal to a bound belongs to that bound's bucket, as in Prometheus ({@code le}: less or equal).
    while (i < UPPER_BOUNDS.length && seconds > UPPER_BOUNDS[i]) {
      i++;
    }
    counts[i]++;
    sum += seconds;
  }

  /** Observations at or under bound {@code bucket} ({@link #UPPER_BOUNDS} index; its length for {@code +Inf}). */
  synchronized double cumulative(int bucket) {
    long out = 0;
    for (int i = 0; i <= bucket; i++) {
      out += counts[i];
    }
    return out;
  }

  synchronized double sum() {
    return sum;
  }

  /** Takes the metrics away; the worker also drops a task's plugin metrics when the task closes. */
  void unpublish() {
    if (metrics == null) {
      return;
    }
    for (MetricName name : published) {
      try {
        metrics.removeMetric(name);
      } catch (IllegalStateException | IllegalArgumentException alreadyGone) {
        // the worker closed the task's plugin metrics first
      }
    }
    published.clear();
  }

  /**
   * The change's commit time in milliseconds from a Debezium envelope: {@code source.ts_ms}, else the top-level
   * {@code ts_ms}; 0 for a record that has neither (a tombstone, a value flattened by a transform).
   */
  static long commitTimeMillis(Object value) {
    if (!(value instanceof Struct envelope)) {
      return 0;
    }
    Schema schema = envelope.schema();
    Field source = schema.field("source");
    if (source != null && source.schema().type() == Schema.Type.STRUCT) {
      Struct s = envelope.getStruct("source");
      long ts = s == null ? 0 : millis(s, "ts_ms");
      if (ts > 0) {
        return ts;
      }
    }
    return millis(envelope, "ts_ms");
  }

  private static long millis(Struct s, String name) {
    Field f = s.schema().field(name);
    if (f == null || f.schema().type() != Schema.Type.INT64) {
      return 0;
    }
    Object v = s.get(f);
    return v instanceof Long l ? l : 0;
  }
}
