package io.sluice.sink.jdbc;

import io.debezium.connector.jdbc.JdbcSinkConnector;
import org.apache.kafka.connect.connector.Task;

/**
 * Debezium's JDBC sink with one addition: when a source's snapshot of a table has been written, the rows of the sink
 * table that the snapshot no longer holds are removed (see {@link SluiceJdbcSinkTask}). Every setting of Debezium's
 * sink applies unchanged.
 */
public class SluiceJdbcSinkConnector extends JdbcSinkConnector {
  @Override
  public Class<? extends Task> taskClass() {
    return SluiceJdbcSinkTask.class;
  }
}
