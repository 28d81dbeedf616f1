package io.sluice.console.panels;

import io.sluice.console.panels.Panel.Kind;
import io.sluice.console.panels.Panel.Query;
import java.util.List;

/**
 * The eight panels of a pipeline, as the system description lists them, over the series Sluice's exporter writes.
 * The pipeline is the {@code pipeline} label the exporter puts on a source's series and on the series of the sinks
 * that read its topics. Series read from a cluster's shared state come from every node's exporter alike (see {@code
 * MetricsExporter.CLUSTER_WIDE}); the panels take them with {@code max} over the nodes, never summed.
 */
public final class PipelinePanels {
  private PipelinePanels() {}

  public static final List<Panel> ALL = List.of(
      new Panel("lag", "Replication lag", Kind.GAUGE, "s", List.of(
          // The sink's writes; for a sink that does not measure them, its offset commits. NaN (nothing reached the
          // sink in the window) is dropped by the comparison, so Debezium's own figure for the source side fills in.
          new Query("(histogram_quantile(0.99, sum by (le) (rate(svc_cdc_freshness_write_seconds_bucket{pipeline="
              + "\"$pipeline\"}[5m]))) >= 0) or (histogram_quantile(0.99, sum by (le) (rate("
              + "svc_cdc_freshness_commit_seconds_bucket{pipeline=\"$pipeline\"}[5m]))) >= 0) or "
              + "max(svc_debezium_behind_source_seconds{connector=~\"$connectors\"} >= 0)",
              "p99 commit to sink"),
          new Query("sum(svc_connect_source_connector_metrics_source_record_poll_total{pipeline=\"$pipeline\"}) - "
              + "sum(svc_connect_sink_connector_metrics_sink_record_send_total{pipeline=\"$pipeline\"})",
              "records behind")),
          List.of(60.0, 300.0),
          "Time from a change's commit at the source to its write at the sink (99th percentile over 5 minutes; "
              + "while nothing flows, how far the source connector is behind its database); green under 60 s, "
              + "yellow to 5 minutes, red beyond. Records polled but not yet sent beside it."),
      new Panel("throughput", "Throughput", Kind.TIMESERIES, "records/s", List.of(
          new Query("sum(rate(svc_connect_source_connector_metrics_source_record_poll_total{pipeline=\"$pipeline\"}"
              + "[1m]))", "source"),
          new Query("sum(rate(svc_connect_sink_connector_metrics_sink_record_send_total{pipeline=\"$pipeline\"}[1m]))",
              "sink")),
          List.of(), "Records polled from the source and sent to the sink, per second."),
      new Panel("errors", "Error rate", Kind.TIMESERIES, "errors/s", List.of(
          new Query("sum by (connector) (rate(svc_connect_connector_task_metrics_total_errors_logged_total"
              + "{connector=~\"$connectors\"}[5m]))", "{{connector}}")),
          List.of(), "Errors logged by the tasks; marked when consistently above 0."),
      new Panel("status", "Connector status", Kind.STATUS, "", List.of(
          new Query("max by (connector, state) (svc_connect_connector_status_info{connector=~\"$connectors\"})",
              "{{connector}}")),
          List.of(), "RUNNING, PAUSED, FAILED, STOPPED or UNASSIGNED, and since when."),
      new Panel("dlq", "DLQ volume", Kind.TIMESERIES, "records", List.of(
          new Query("max by (connector) (svc_connect_dlq_records_total{connector=~\"$connectors\"})", "{{connector}}")),
          List.of(), "Records in the dead-letter topics of the pipeline's sinks."),
      new Panel("running", "Task running ratio", Kind.TIMESERIES, "ratio", List.of(
          new Query("avg by (connector) (svc_connect_connector_task_metrics_running_ratio{connector=~\"$connectors\"})",
              "{{connector}}")),
          List.of(), "Share of time the tasks spent running (1 = always)."),
      new Panel("restarts", "Restarts in the last hour", Kind.STAT, "restarts", List.of(
          new Query("sum by (connector) (max by (connector, task) (increase("
              + "svc_connect_connector_task_metrics_total_restarts_total{connector=~\"$connectors\"}[1h])))",
              "{{connector}}")),
          List.of(), "Task and connector restarts over the last hour."),
      new Panel("batch", "Batch processing time", Kind.TIMESERIES, "s", List.of(
          new Query("max by (connector) (svc_connect_source_task_metrics_poll_batch_avg_time_seconds"
              + "{connector=~\"$connectors\"})", "{{connector}} poll"),
          new Query("max by (connector) (svc_connect_sink_task_metrics_put_batch_avg_time_seconds"
              + "{connector=~\"$connectors\"})", "{{connector}} put")),
          List.of(), "Average time a task spends polling a batch (source) or writing one (sink)."));
}
