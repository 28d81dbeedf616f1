package io.sluice.exporter;

import io.sluice.exporter.CarriedCounts.Write;
import io.sluice.exporter.ConnectorCatalog.Connector;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.Metrics;

/**
 * The metrics of the tasks this worker runs ({@link TaskMetric#ALL}), found in Connect's registry, with every counter
 * continued by {@link CarriedCounts}. Each {@link #reindex} compares what it finds with what it found the time before:
 * a task that started here, one whose metric objects Connect replaced (it restarted here), one that left (stopped,
 * moved), a connector deleted; it tells {@link CarriedCounts}, and sends what that has to write to the counts topic.
 *
 * <p>A task that left is no longer in the index, so its series are gone from the next scrape and the metrics server
 * ends them with staleness markers; the node that runs it next exports them, continued.
 */
final class TaskMetricIndex implements AutoCloseable {
  private final Metrics registry;
  private final CarriedCounts carried;
  private final Consumer<Write> out;
  /** Guarded by {@code this}, with the transitions it went through, so that a scrape never adds a base twice. */
  private Map<TaskKey, KafkaMetric[]> index = Map.of();
  /** The connectors of the last reindex; only its thread reads them. */
  private Set<String> connectors = Set.of();

  TaskMetricIndex(Metrics registry, CarriedCounts carried, Consumer<Write> out) {
    this.registry = registry;
    this.carried = carried;
    this.out = out;
  }

  /**
   * Finds the exported metrics of every task the status store knows ({@code list}); {@code configured} names the
   * connectors in the worker's config, whose leaving is a deletion. Run by the exporter's once-a-second bookkeeping,
   * not by a scrape: a lookup compares tag maps, and 200 tasks need thousands of them. Tasks running on other workers
   * have no metrics here.
   */
  void reindex(List<Connector> list, Set<String> configured) {
    Map<TaskKey, KafkaMetric[]> next = new HashMap<>();
    Set<String> names = Set.copyOf(configured);
    for (Connector c : list) {
      for (ConnectorCatalog.Task t : c.tasks()) {
        String task = Integer.toString(t.id());
        Map<String, String> tags = Map.of("connector", c.name(), "task", task);
        KafkaMetric[] found = new KafkaMetric[TaskMetric.ALL.size()];
        boolean any = false;
        for (int i = 0; i < found.length; i++) {
          TaskMetric m = TaskMetric.ALL.get(i);
          found[i] = registry.metric(new MetricName(m.name(), m.group(), "", tags));
          any |= found[i] != null;
        }
        if (any) {
          next.put(new TaskKey(c.name(), task), found);
        }
      }
    }
    List<Write> writes = new ArrayList<>();
    synchronized (this) {
      for (String gone : connectors) {
        if (!names.contains(gone)) {
          writes.addAll(carried.deleted(gone));
        }
      }
      Map<TaskKey, KafkaMetric[]> before = index;
      next.forEach((task, found) -> {
        KafkaMetric[] old = before.get(task);
        if (old == null) {
          carried.started(task);
          return;
        }
        for (int i = 0; i < found.length; i++) {
          // An object Connect removed keeps its last value: what it counted goes into the base, exactly.
          if (TaskMetric.ALL.get(i).carried() && old[i] != null && old[i] != found[i]) {
            Double last = value(old[i]);
            if (last != null && !last.isNaN()) {
              carried.replaced(task, TaskMetric.ALL.get(i).exported(), last);
            }
          }
        }
      });
      before.forEach((task, old) -> {
        if (!next.containsKey(task) && names.contains(task.connector())) {
          writes.addAll(carried.left(task, counts(old)));
        }
      });
      index = next;
      writes.addAll(carried.changed(counts(next)));
    }
    connectors = names;
    // Sent outside the lock: a send may wait for Kafka's metadata, and a scrape must not wait for it.
    writes.forEach(out);
  }

  /**
   * Current values by task, in {@link TaskMetric#ALL} order, counters with their base added; null where the task has no
   * such metric, and for every counter while its base is not known yet.
   */
  synchronized Map<TaskKey, Double[]> values() {
    Map<TaskKey, Double[]> values = new HashMap<>();
    index.forEach((task, found) -> {
      Map<String, Double> base = carried.base(task);
      Double[] v = new Double[found.length];
      for (int i = 0; i < found.length; i++) {
        TaskMetric m = TaskMetric.ALL.get(i);
        Double own = found[i] == null ? null : value(found[i]);
        if (!m.carried()) {
          v[i] = own;
        } else if (base != null) {
          // A counter whose object Connect has not made again yet (a restart in progress) shows its base alone.
          Double b = base.get(m.exported());
          if (own == null || b == null) {
            v[i] = own == null ? b : own;
          } else {
            v[i] = own + b;
          }
        }
      }
      values.put(task, v);
    });
    return values;
  }

  /** Ends the runs of every task here (their worker stopped them before), writing their totals marked ended. */
  @Override
  public void close() {
    List<Write> writes;
    synchronized (this) {
      Map<TaskKey, Map<String, Double>> current = new HashMap<>();
      index.forEach((task, found) -> current.put(task, counts(found)));
      writes = carried.endAll(current);
      index = Map.of();
    }
    writes.forEach(out);
  }

  private static Double value(KafkaMetric m) {
    return m.metricValue() instanceof Number n ? n.doubleValue() : null;
  }

  /** Connect's counters of one task by exported series name. */
  private static Map<String, Double> counts(KafkaMetric[] found) {
    Map<String, Double> out = new HashMap<>();
    for (int i = 0; i < found.length; i++) {
      TaskMetric m = TaskMetric.ALL.get(i);
      Double v = m.carried() && found[i] != null ? value(found[i]) : null;
      if (v != null && !v.isNaN()) {
        out.put(m.exported(), v);
      }
    }
    return out;
  }

  private static Map<TaskKey, Map<String, Double>> counts(Map<TaskKey, KafkaMetric[]> index) {
    Map<TaskKey, Map<String, Double>> out = new HashMap<>();
    index.forEach((task, found) -> out.put(task, counts(found)));
    return out;
  }
}
