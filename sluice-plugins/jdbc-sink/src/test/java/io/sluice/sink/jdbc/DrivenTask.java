package io.sluice.sink.jdbc;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;

/**
 * A {@link SluiceJdbcSinkTask} driven as Connect's worker drives one over partition 0 of one topic: initialize,
 * start, open; puts; offsets asked for as at a commit; close and stop. The task's plugin metrics are real, in a
 * registry of their own ({@link #metrics}), tagged as the worker tags them; the rest of the worker's side of the
 * context (pausing, seeking) is not needed by the task and does nothing here.
 */
final class DrivenTask implements AutoCloseable {
  final SluiceJdbcSinkTask task = new SluiceJdbcSinkTask();
  /** The registry the task's plugin metrics go to, as the worker's would hold them. */
  final Metrics metrics = new Metrics();
  private final PluginMetricsImpl pluginMetrics;
  private final TopicPartition partition;
  /**
   * What the task sent to its dead letter queue, where its settings give it one ({@code errors.tolerance=all}), as
   * the worker's reporter would have written it.
   */
  final List<Map.Entry<SinkRecord, Throwable>> deadLetters = new java.util.concurrent.CopyOnWriteArrayList<>();

  DrivenTask(String jdbcUrl, String connector, String topic, String table) {
    this(jdbcUrl, connector, topic, table, Map.of());
  }

  /** A task whose settings are the usual ones and {@code settings}, which win. */
  DrivenTask(String jdbcUrl, String connector, String topic, String table, Map<String, String> settings) {
    this.partition = new TopicPartition(topic, 0);
    Map<String, String> props = new LinkedHashMap<>();
    props.put("name", connector);
    props.put("connector.class", SluiceJdbcSinkConnector.class.getName());
    props.put("tasks.max", "1");
    props.put("topics", topic);
    props.put("connection.url", jdbcUrl);
    props.put("connection.username", TestPostgres.USER);
    props.put("connection.password", TestPostgres.PASSWORD);
    props.put("insert.mode", "upsert");
    props.put("delete.enabled", "true");
    props.put("primary.key.mode", "record_key");
    props.put("schema.evolution", "basic");
    props.put("collection.name.format", table);
    props.putAll(settings);
    pluginMetrics = new PluginMetricsImpl(metrics, Map.of("connector", connector, "task", "0"));
    ErrantRecordReporter reporter = "all".equals(props.get("errors.tolerance")) ? (record, error) -> {
      deadLetters.add(Map.entry(record, error));
      return java.util.concurrent.CompletableFuture.completedFuture(null);
    } : null;
    task.initialize(new Context(props, Set.of(partition), pluginMetrics, reporter));
    task.start(props);
    task.open(List.of(partition));
  }

  /** Puts {@code records} in puts of {@code batch}, as Connect hands over one poll at a time. */
  void put(List<SinkRecord> records, int batch) {
    for (int from = 0; from < records.size(); from += batch) {
      task.put(new ArrayList<>(records.subList(from, Math.min(records.size(), from + batch))));
    }
    if (task.getLastProcessingException() != null) {
      throw new AssertionError("the sink failed", task.getLastProcessingException());
    }
  }

  /** The offset the task would have committed, having been handed every record before {@code next}. */
  long committed(long next) {
    return task.preCommit(Map.of(partition, new OffsetAndMetadata(next))).get(partition).offset();
  }

  @Override
  public void close() {
    task.close(List.of(partition));
    task.stop();
    org.apache.kafka.common.utils.Utils.closeQuietly(pluginMetrics, "plugin metrics");
    metrics.close();
  }

  private record Context(Map<String, String> configs, Set<TopicPartition> assignment, PluginMetrics pluginMetrics,
      ErrantRecordReporter errantRecordReporter) implements SinkTaskContext {
    @Override
    public void offset(Map<TopicPartition, Long> offsets) {}

    @Override
    public void offset(TopicPartition tp, long offset) {}

    @Override
    public void timeout(long timeoutMs) {}

    @Override
    public void pause(TopicPartition... partitions) {}

    @Override
    public void resume(TopicPartition... partitions) {}

    @Override
    public void requestCommit() {}
  }
}
