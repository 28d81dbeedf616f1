package io.sluice.exporter;

import java.util.List;

/** One metric of a task in Connect's registry (group and name) and the series it is exported as. */
record TaskMetric(String group, String name, Shape shape, boolean withPipeline, String exported, String help) {

  /** How a Connect metric becomes a sample: milliseconds are served in seconds, Prometheus' base unit. */
  enum Shape { COUNTER, GAUGE, MILLIS_GAUGE, MILLIS_TIMESTAMP }

  /** Counters go on from what the task counted before (CarriedCounts); gauges are the task's own. */
  boolean carried() {
    return shape == Shape.COUNTER;
  }

  /** Every exported task metric: one entry each. */
  static final List<TaskMetric> ALL = List.of(
      new TaskMetric("source-task-metrics", "source-record-poll-total", Shape.COUNTER, true,
          "svc_connect_source_connector_metrics_source_record_poll", "Records polled from the source."),
      new TaskMetric("source-task-metrics", "source-record-write-total", Shape.COUNTER, true,
          "svc_connect_source_connector_metrics_source_record_write", "Records written to Kafka."),
      new TaskMetric("sink-task-metrics", "sink-record-send-total", Shape.COUNTER, true,
          "svc_connect_sink_connector_metrics_sink_record_send", "Records sent to the sink."),
      new TaskMetric("sink-task-metrics", "sink-record-read-total", Shape.COUNTER, true,
          "svc_connect_sink_connector_metrics_sink_record_read", "Records read from Kafka."),
      new TaskMetric("task-error-metrics", "total-errors-logged", Shape.COUNTER, false,
          "svc_connect_connector_task_metrics_total_errors_logged",
          "Errors logged by the task (Connect counts them when errors.log.enable=true)."),
      new TaskMetric("task-error-metrics", "total-record-errors", Shape.COUNTER, false,
          "svc_connect_task_error_metrics_total_record_errors", "Records that hit an error, whether tolerated or not."),
      new TaskMetric("task-error-metrics", "total-record-failures", Shape.COUNTER, false,
          "svc_connect_task_error_metrics_total_record_failures", "Failed attempts to process a record."),
      new TaskMetric("task-error-metrics", "deadletterqueue-produce-requests", Shape.COUNTER, false,
          "svc_connect_task_error_metrics_deadletterqueue_produce_requests",
          "Records the task sent to its dead letter queue."),
      new TaskMetric("connector-task-metrics", "running-ratio", Shape.GAUGE, false,
          "svc_connect_connector_task_metrics_running_ratio", "Share of time the task spent running."),
      new TaskMetric("source-task-metrics", "poll-batch-avg-time-ms", Shape.MILLIS_GAUGE, false,
          "svc_connect_source_task_metrics_poll_batch_avg_time_seconds",
          "Average time to poll and convert a batch of source records, in seconds."),
      new TaskMetric("source-task-metrics", "poll-batch-max-time-ms", Shape.MILLIS_GAUGE, false,
          "svc_connect_source_task_metrics_poll_batch_max_time_seconds",
          "Longest time to poll and convert a batch of source records, in seconds."),
      // Kept by Connect for a task that writes in transactions (exactly-once source support): records per transaction.
      new TaskMetric("source-task-metrics", "transaction-size-avg", Shape.GAUGE, false,
          "svc_connect_source_task_metrics_transaction_size_avg",
          "Average number of records in the task's transactions (exactly-once sources only)."),
      new TaskMetric("source-task-metrics", "transaction-size-max", Shape.GAUGE, false,
          "svc_connect_source_task_metrics_transaction_size_max",
          "Most records in one of the task's transactions (exactly-once sources only)."),
      new TaskMetric("sink-task-metrics", "put-batch-avg-time-ms", Shape.MILLIS_GAUGE, false,
          "svc_connect_sink_task_metrics_put_batch_avg_time_seconds",
          "Average time to put a batch into the sink, in seconds."),
      new TaskMetric("sink-task-metrics", "put-batch-max-time-ms", Shape.MILLIS_GAUGE, false,
          "svc_connect_sink_task_metrics_put_batch_max_time_seconds",
          "Longest time to put a batch into the sink, in seconds."),
      new TaskMetric(CommitCounters.GROUP, CommitCounters.SUCCESSES, Shape.COUNTER, false,
          "svc_connect_task_offset_commit_success", "Successful offset commits."),
      new TaskMetric(CommitCounters.GROUP, CommitCounters.FAILURES, Shape.COUNTER, false,
          "svc_connect_task_offset_commit_failure", "Failed offset commits."),
      new TaskMetric(CommitCounters.GROUP, CommitCounters.LAST_SUCCESS, Shape.MILLIS_TIMESTAMP, false,
          "svc_connect_task_last_offset_commit_timestamp_seconds",
          "Unix time of the task's last successful offset commit."));
}
