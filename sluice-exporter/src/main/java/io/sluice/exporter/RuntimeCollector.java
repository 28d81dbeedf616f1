package io.sluice.exporter;

import io.sluice.connect.defaults.ExactlyOnce;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.sluice.exporter.ConnectorCatalog.Connector;
import io.sluice.exporter.ConnectorCatalog.Kind;
import io.sluice.exporter.SlowReadings.Readings;
import io.sluice.exporter.SlowReadings.Timed;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.common.TopicPartition;

/**
 * Builds one scrape from what the worker holds in memory: its tasks' metrics (counters continued across restarts and
 * moves by {@link TaskMetricIndex}), its config snapshot and status store (connector states), the restart counts
 * followed from the status topic, Debezium's streaming MBeans, and the last {@link Readings} of the slow values.
 * Nothing here waits for Kafka or a database.
 */
final class RuntimeCollector implements MultiCollector {
  private static final MBeanServer MBEANS = ManagementFactory.getPlatformMBeanServer();

  private final ConnectorCatalog catalog;
  private final TaskMetricIndex tasks;
  private final RestartCounter restarts;
  private final SlowReadings slow;

  RuntimeCollector(ConnectorCatalog catalog, TaskMetricIndex tasks, RestartCounter restarts, SlowReadings slow) {
    this.catalog = catalog;
    this.tasks = tasks;
    this.restarts = restarts;
    this.slow = slow;
  }

  @Override
  public MetricSnapshots collect() {
    List<Connector> connectors = catalog.connectors();
    Map<String, Connector> byName = new HashMap<>();
    connectors.forEach(c -> byName.put(c.name(), c));
    Families f = new Families();
    declareRequired(f);
    connectorSeries(f, connectors);
    taskSeries(f, byName, tasks.values());
    restartSeries(f, connectors);
    debeziumLag(f, connectors);
    transactionSeries(f, connectors);
    snapshotSeries(f, connectors, slow.last());
    slowSeries(f, connectors, slow.last());
    return new MetricSnapshots(f.snapshots());
  }

  private static void declareRequired(Families f) {
    f.declare("svc_connect_source_connector_metrics_source_record_poll", true, "Records polled from the source.");
    f.declare("svc_connect_sink_connector_metrics_sink_record_send", true, "Records sent to the sink.");
    f.declare("svc_connect_connector_task_metrics_total_errors_logged", true, "Errors logged by the task.");
    f.declare("svc_connect_connector_task_metrics_total_restarts", true, "Task restarts, from the status topic.");
  }

  private static void connectorSeries(Families f, List<Connector> connectors) {
    for (Connector c : connectors) {
      // A connector Connect calls RUNNING whose task failed moves no data: it counts as FAILED, so that a sink whose
      // database went away is down. `pipeline` comes from the config, known even when the tasks (and their series)
      // are gone: the router inhibits a pipeline's lag alerts while its sink is down on it.
      boolean taskFailed = c.tasks().stream().anyMatch(t -> "FAILED".equals(t.state()));
      String state = "RUNNING".equals(c.state()) && taskFailed ? "FAILED" : c.state();
      f.gauge("svc_connect_connector_status", "Connector state: 1 when RUNNING with no failed task, else 0.",
          "RUNNING".equals(state) ? 1 : 0, "connector", c.name(), "pipeline", c.pipeline());
      f.gauge("svc_connect_connector_status_info", "Connector state name (FAILED when a task failed); always 1.", 1,
          "connector", c.name(), "pipeline", c.pipeline(), "state", state);
      f.gauge("svc_connect_connector_exactly_once", "1 when the connector delivers exactly once into Kafka (a source "
          + "whose config requires it, checked by Connect), 0 when at least once.",
          ExactlyOnce.guarantee(c.config()) == ExactlyOnce.Guarantee.EXACTLY_ONCE ? 1 : 0,
          "connector", c.name(), "pipeline", c.pipeline());
    }
  }

  private static void taskSeries(Families f, Map<String, Connector> connectors, Map<TaskKey, Double[]> tasks) {
    tasks.forEach((key, values) -> {
      Connector c = connectors.get(key.connector());
      if (c == null) {
        return;
      }
      String[] labels = {"connector", key.connector(), "task", key.task()};
      String[] withPipeline = {"connector", key.connector(), "task", key.task(), "pipeline", c.pipeline()};
      for (int i = 0; i < values.length; i++) {
        TaskMetric m = TaskMetric.ALL.get(i);
        Double v = values[i];
        if (v == null) {
          continue;
        }
        String[] l = m.withPipeline() ? withPipeline : labels;
        switch (m.shape()) {
          case COUNTER -> {
            if (!v.isNaN()) {
              f.counter(m.exported(), m.help(), v, l);
            }
          }
          case GAUGE -> f.gauge(m.exported(), m.help(), v, l);
          case MILLIS_GAUGE -> f.gauge(m.exported(), m.help(), v / 1000.0, l);
          case MILLIS_TIMESTAMP -> {
            // NaN until the first commit: no series rather than a time in 1970.
            if (!v.isNaN()) {
              f.gauge(m.exported(), m.help(), v / 1000.0, l);
            }
          }
        }
      }
    });
  }

  private void restartSeries(Families f, List<Connector> connectors) {
    Map<RestartCounter.Key, Long> counts = restarts.restarts();
    for (Connector c : connectors) {
      Set<String> tasks = new TreeSet<>();
      tasks.add(RestartCounter.CONNECTOR_TASK);
      c.tasks().forEach(t -> tasks.add(Integer.toString(t.id())));
      counts.keySet().stream().filter(k -> k.connector().equals(c.name())).forEach(k -> tasks.add(k.task()));
      for (String task : tasks) {
        f.counter("svc_connect_connector_task_metrics_total_restarts",
            "Restarts of a task (task=\"connector\": of the connector instance), derived from the status topic.",
            counts.getOrDefault(new RestartCounter.Key(c.name(), task), 0L), "connector", c.name(), "task", task);
      }
    }
  }

  /** Debezium registers one streaming MBean per source ({@code server} = its topic prefix) in this JVM. */
  private static void debeziumLag(Families f, List<Connector> connectors) {
    Map<String, String> prefixToConnector = new HashMap<>();
    for (Connector c : connectors) {
      if (c.kind() == Kind.SOURCE && c.connectorClass().startsWith("io.debezium.") && c.config().get("topic.prefix")
          != null) {
        prefixToConnector.put(c.config().get("topic.prefix"), c.name());
      }
    }
    if (prefixToConnector.isEmpty()) {
      return;
    }
    Set<String> seen = new HashSet<>();
    try {
      for (ObjectName n : MBEANS.queryNames(new ObjectName("debezium.*:type=connector-metrics,context=streaming,*"),
          null)) {
        String connector = prefixToConnector.get(n.getKeyProperty("server"));
        if (connector == null || !seen.add(connector)) {
          continue;
        }
        Object v = MBEANS.getAttribute(n, "MilliSecondsBehindSource");
        if (v instanceof Number num) {
          f.gauge("svc_debezium_behind_source_seconds",
              "Time between the source's last event and its processing by Debezium, in seconds.",
              num.doubleValue() / 1000.0, "connector", connector);
        }
      }
    } catch (JMException e) {
      // An MBean that went away between the query and the read: its connector is stopping.
    }
  }

  /**
   * The transaction times of each source task's producer, from its MBean ({@code client-id}
   * {@code connector-producer-<connector>-<task>}): Kafka's producer keeps the time spent committing and aborting
   * transactions, which grow with every commit and abort of a task that writes in transactions (exactly-once support).
   * A task's producer is made again when the task restarts, and its totals start again from 0.
   */
  private static void transactionSeries(Families f, List<Connector> connectors) {
    Set<String> sources = new HashSet<>();
    for (Connector c : connectors) {
      if (c.kind() == Kind.SOURCE) {
        sources.add(c.name());
      }
    }
    if (sources.isEmpty()) {
      return;
    }
    try {
      for (ObjectName n : MBEANS.queryNames(new ObjectName("kafka.producer:type=producer-metrics,client-id="
          + TASK_PRODUCER + "*"), null)) {
        String id = n.getKeyProperty("client-id").substring(TASK_PRODUCER.length());
        int dash = id.lastIndexOf('-');
        if (dash <= 0 || !sources.contains(id.substring(0, dash)) || !id.substring(dash + 1).matches("\\d+")) {
          continue;
        }
        String[] labels = {"connector", id.substring(0, dash), "task", id.substring(dash + 1)};
        for (String[] m : TRANSACTION_TIMES) {
          Object v = MBEANS.getAttribute(n, m[0]);
          if (v instanceof Number num && !Double.isNaN(num.doubleValue())) {
            f.counter(m[1], m[2], num.doubleValue() / 1e9, labels);
          }
        }
      }
    } catch (JMException e) {
      // A producer that went away between the query and the read: its task is stopping.
    }
  }

  /** Connect's client id of a source task's producer, before {@code <connector>-<task>}. */
  private static final String TASK_PRODUCER = "connector-producer-";
  /** The producer's transaction times: its metric, the series, the help. */
  private static final String[][] TRANSACTION_TIMES = {
      {"txn-commit-time-ns-total", "svc_kafka_producer_txn_commit_time_seconds",
          "Time the source task's producer spent committing transactions, in seconds (exactly-once sources)."},
      {"txn-abort-time-ns-total", "svc_kafka_producer_txn_abort_time_seconds",
          "Time the source task's producer spent aborting transactions, in seconds: it grows only when one aborts."},
      {"txn-begin-time-ns-total", "svc_kafka_producer_txn_begin_time_seconds",
          "Time the source task's producer spent beginning transactions, in seconds (exactly-once sources)."}};

  /**
   * Where each Debezium source's snapshot stands (initial, blocking or incremental), and while one runs or is paused,
   * its tables' estimated sizes: what {@code sluice snapshot status} and the dashboard draw their progress from.
   */
  private static void snapshotSeries(Families f, List<Connector> connectors, Readings r) {
    if (connectors.stream().noneMatch(c -> c.kind() == Kind.SOURCE)) {
      return;
    }
    Map<String, SnapshotProgress> all = SnapshotProgress.read();
    for (Connector c : connectors) {
      SnapshotProgress p = c.kind() == Kind.SOURCE ? all.get(c.config().get("topic.prefix")) : null;
      if (p == null) {
        continue;
      }
      String n = c.name();
      f.gauge("svc_debezium_snapshot_running", "1 while the source snapshots (initial, blocking or incremental).",
          p.running() ? 1 : 0, "connector", n);
      f.gauge("svc_debezium_snapshot_paused", "1 while the source's incremental snapshot is paused.",
          p.paused() ? 1 : 0, "connector", n);
      f.gauge("svc_debezium_snapshot_completed", "1 once the source's last snapshot completed.",
          p.completed() ? 1 : 0, "connector", n);
      f.gauge("svc_debezium_snapshot_aborted", "1 when the source's last snapshot was aborted or stopped.",
          p.aborted() ? 1 : 0, "connector", n);
      f.gauge("svc_debezium_snapshot_tables", "Tables of the source's snapshots since its task started.",
          p.totalTables(), "connector", n);
      f.gauge("svc_debezium_snapshot_remaining_tables", "Tables the source's snapshot has still to read.",
          p.remainingTables(), "connector", n);
      f.gauge("svc_debezium_snapshot_duration_seconds", "How long the source's last snapshot ran (or runs).",
          p.durationSeconds(), "connector", n);
      p.rowsScanned().forEach((table, rows) -> f.gauge("svc_debezium_snapshot_rows_scanned",
          "Rows the source's snapshot read of a table (an incremental one counts after each chunk).", rows,
          "connector", n, "table", table));
      Timed<Map<String, Long>> estimates = p.inProgress() ? r.rowEstimates().get(n) : null;
      if (estimates != null) {
        estimates.value().forEach((table, rows) -> f.timedGauge("svc_debezium_snapshot_table_rows_estimate",
            "Rows the source database estimates a table of a snapshot in progress holds (its statistics).", rows,
            estimates.readAt(), "connector", n, "table", table));
      }
    }
  }

  private static void slowSeries(Families f, List<Connector> connectors, Readings r) {
    Map<String, String> dlqOwner = new HashMap<>();
    for (Connector c : connectors) {
      if (c.dlqTopic() != null) {
        dlqOwner.put(c.dlqTopic(), c.name());
      }
    }
    Timed<Map<TopicPartition, Long>> ends = r.endOffsets();
    Map<String, Long> dlqTotals = new HashMap<>();
    ends.value().forEach((tp, end) -> {
      String owner = dlqOwner.get(tp.topic());
      String[] labels = owner == null
          ? new String[] {"topic", tp.topic(), "partition", Integer.toString(tp.partition())}
          : new String[] {"topic", tp.topic(), "partition", Integer.toString(tp.partition()), "connector", owner};
      f.timedGauge("svc_topic_partition_current_offset", "End offset of a topic partition.", end, ends.readAt(),
          labels);
      if (owner != null) {
        dlqTotals.merge(tp.topic(), end, Long::sum);
      }
    });
    if (ends.readAt() > 0) {
      // A DLQ topic that has had no record yet does not exist; its count is then 0, so rate() works from the start.
      dlqOwner.forEach((topic, owner) -> {
        f.counter("svc_connect_dlq_records", "Records in the connector's dead letter queue topic.",
            dlqTotals.getOrDefault(topic, 0L), "connector", owner, "topic", topic);
        f.gauge("svc_connect_dlq_records_total_timestamp_seconds",
            "Unix time at which svc_connect_dlq_records_total was last read.", ends.readAt(), "connector", owner,
            "topic", topic);
      });
    }
    Timed<Map<TaskKey, SlowReadings.Transaction>> txns = r.transactions();
    txns.value().forEach((task, t) -> {
      f.timedGauge("svc_connect_task_transaction_open_seconds", "How long the exactly-once source task's open "
          + "transaction has been open, from its coordinator; 0 when none is open.", t.openSeconds(), txns.readAt(),
          "connector", task.connector(), "task", task.task());
      f.timedGauge("svc_connect_task_transaction_timeout_seconds", "The transaction timeout of the source task's "
          + "producer: its coordinator aborts a transaction open longer.", t.timeoutSeconds(), txns.readAt(),
          "connector", task.connector(), "task", task.task());
    });
    for (Connector c : connectors) {
      Timed<Map<TopicPartition, Long>> lag = r.sinkLag().get(c.name());
      if (lag != null) {
        lag.value().forEach((tp, records) -> f.timedGauge("svc_connect_sink_consumer_lag",
            "Records of the partition the sink's consumer group has not committed yet.", records, lag.readAt(),
            "connector", c.name(), "group", c.consumerGroup(), "topic", tp.topic(),
            "partition", Integer.toString(tp.partition())));
      }
      Timed<SourceRetention.Reading> ret = r.retention().get(c.name());
      if (ret == null) {
        continue;
      }
      if (ret.value() instanceof SourceRetention.PostgresReading pg) {
        f.timedGauge("svc_postgres_replication_slot_retained_wal_bytes",
            "WAL the connector's replication slot keeps on the server, bytes.", pg.retainedBytes(), ret.readAt(),
            "connector", c.name(), "slot", pg.slot());
        f.timedGauge("svc_postgres_replication_slot_wal_status",
            "wal_status of the connector's replication slot; always 1.", 1, ret.readAt(), "connector", c.name(),
            "slot", pg.slot(), "wal_status", pg.walStatus());
        f.timedGauge("svc_postgres_max_slot_wal_keep_size_bytes",
            "The server's max_slot_wal_keep_size in bytes, -1 when unlimited.", pg.maxKeepBytes(), ret.readAt(),
            "connector", c.name());
      } else if (ret.value() instanceof SourceRetention.MySqlReading my) {
        f.timedGauge("svc_mysql_binlog_oldest_age_seconds", "Age of the oldest binary log the server keeps.",
            my.oldestAgeSeconds(), ret.readAt(), "connector", c.name());
        f.timedGauge("svc_mysql_binlog_retention_seconds", "How long the server keeps binary logs.",
            my.retentionSeconds(), ret.readAt(), "connector", c.name());
      }
    }
  }
}
