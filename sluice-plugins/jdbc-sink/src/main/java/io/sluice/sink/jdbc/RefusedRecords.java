package io.sluice.sink.jdbc;

import io.debezium.connector.jdbc.JdbcKafkaSinkRecord;
import io.debezium.connector.jdbc.JdbcSinkConnectorConfig;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Where a record the sink does not write goes: to the sink's dead letter queue, the reason in its
 * {@code __connect.errors.exception.message} header; where the sink has none, the task fails with that reason.
 */
final class RefusedRecords {
  private RefusedRecords() {}

  /**
   * Sends {@code record} to {@code dlq} with {@code reason}, waiting until it is written.
   *
   * @throws ConnectException naming the record and the reason, where {@code dlq} is null or the send fails
   */
  static void send(ErrantRecordReporter dlq, SinkRecord record, String reason, Throwable cause) {
    if (dlq == null) {
      throw new ConnectException(reason + " (the sink has no dead letter queue: set errors.tolerance=all and"
          + " errors.deadletterqueue.topic.name to keep such records and go on)", cause);
    }
    try {
      dlq.report(record, new ConnectException(reason, cause)).get();
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      throw new ConnectException("Interrupted while sending a refused record to the dead letter queue", interrupted);
    } catch (ExecutionException notSent) {
      throw new ConnectException(reason + "; and it could not be sent to the dead letter queue: "
          + ErrorText.reasons(notSent.getCause()), cause);
    }
  }

  /** The sink table of a record, as the sink names it; the topic where it cannot be named. */
  static String table(JdbcSinkConnectorConfig config, SinkRecord r) {
    try {
      return config.getCollectionNamingStrategy()
          .resolveCollectionName(new JdbcKafkaSinkRecord(r, config), config.getCollectionNameFormat());
    } catch (RuntimeException e) {
      return "(of topic " + r.topic() + ")";
    }
  }

  /** Where a record is: its topic, partition and offset as the worker read them. */
  static String where(SinkRecord r) {
    return r.originalTopic() + "-" + r.originalKafkaPartition() + "@" + r.originalKafkaOffset();
  }
}
