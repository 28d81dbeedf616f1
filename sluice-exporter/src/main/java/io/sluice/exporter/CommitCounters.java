package io.sluice.exporter;

import java.util.Map;
import org.apache.kafka.common.metrics.MeasurableStat;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.CumulativeSum;

/**
 * Offset commit counts and the time of the last successful commit per task, which Connect records but exposes only
 * as windowed percentages. Connect records every commit attempt of a task on one sensor ({@code 1} for success,
 * {@code 0} for failure); this adds three cumulative stats to that sensor, so they see exactly the commits Connect
 * sees, for source and sink tasks alike.
 *
 * <p>The stats are added when a task first shows up (the exporter's refresh, once a second at most), so commits before
 * that are not counted; they go when Connect removes the task's sensors, and Prometheus sees a counter reset.
 */
final class CommitCounters {
  static final String GROUP = "sluice-offset-commit";
  static final String FAILURES = "failure-total";
  static final String SUCCESSES = "success-total";
  static final String LAST_SUCCESS = "last-success-timestamp-ms";

  private final Metrics metrics;

  CommitCounters(Metrics metrics) {
    this.metrics = metrics;
  }

  /** Adds the stats to the commit sensor of a running task, once; false when the task has no sensor (yet). */
  boolean attach(String connector, String task) {
    Map<String, String> tags = Map.of("connector", connector, "task", task);
    if (metrics.metric(metrics.metricName(SUCCESSES, GROUP, tags)) != null) {
      return true;
    }
    // The name Connect gives the sensor: "connect-sensor-group: " + group id + ";" + sensor name, the group id being
    // the group name followed by ";key=value" per tag in declaration order.
    Sensor sensor = metrics.getSensor("connect-sensor-group: connector-task-metrics;connector=" + connector + ";task="
        + task + ";offset-commit-completion");
    if (sensor == null) {
      return false;
    }
    // Two counters rather than attempts and successes: a scrape reads them one after the other, and a difference
    // of two counters read a commit apart could go backwards.
    sensor.add(metrics.metricName(SUCCESSES, GROUP, "successful offset commits", tags), new CumulativeSum());
    sensor.add(metrics.metricName(FAILURES, GROUP, "failed offset commits", tags), new Failures());
    sensor.add(metrics.metricName(LAST_SUCCESS, GROUP, "time of the last successful commit", tags), new LastSuccess());
    return true;
  }

  /** Counts the recordings of a failure (0). */
  private static final class Failures implements MeasurableStat {
    private double failures;

    @Override
    public void record(MetricConfig config, double value, long timeMs) {
      if (value <= 0) {
        failures++;
      }
    }

    @Override
    public double measure(MetricConfig config, long now) {
      return failures;
    }
  }

  /** The wall-clock time (ms) of the last recording of a success, NaN before the first. */
  private static final class LastSuccess implements MeasurableStat {
    private double lastMs = Double.NaN;

    @Override
    public void record(MetricConfig config, double value, long timeMs) {
      if (value > 0) {
        lastMs = timeMs;
      }
    }

    @Override
    public double measure(MetricConfig config, long now) {
      return lastMs;
    }
  }
}
