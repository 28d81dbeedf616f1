package io.sluice.sink.jdbc;

import io.debezium.connector.jdbc.JdbcSinkConnectorConfig;
import io.debezium.connector.jdbc.dialect.DatabaseDialect;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * A writer of whole puts that ends each row exactly as Debezium's sink would, with fewer statements: {@link CopyWriter}
 * into PostgreSQL, {@link MultiRowWriter} into MariaDB and MySQL. It writes a put only where it can prove that; of any
 * other put it writes nothing and says so, and the task hands the put to Debezium's sink. {@code sluice.sink.copy=false}
 * turns both off.
 */
interface BulkWriter extends AutoCloseable {
  /** The setting that turns the sink's own writers off. */
  String ENABLED = "sluice.sink.copy";

  /** What {@link #write} did with a put. */
  enum Outcome {
    /** Written. */
    WRITTEN,
    /** Nothing written: a table of the put is not there yet, which Debezium's sink makes on the put that needs it. */
    NO_TABLE,
    /** Nothing written: the put holds a change or a value this writer does not provably write as Debezium would. */
    REFUSED
  }

  /**
   * Writes {@code records}, or writes nothing when they are not all changes this writer can write as Debezium would,
   * and says which. A failed write is rolled back and thrown.
   */
  Outcome write(List<SinkRecord> records) throws SQLException;

  /** Rows written (upserted or deleted) by this writer since the task started. */
  long rows();

  /** Reads every table's columns again before the next write: a table was altered outside Debezium's sink. */
  void forgetTables();

  @Override
  void close();

  /** The writer for a sink whose settings one can follow, by its database; empty for any other sink. */
  static Optional<BulkWriter> forSink(JdbcSinkConnectorConfig config, DatabaseDialect dialect,
      Map<String, String> props) {
    if ("false".equalsIgnoreCase(props.getOrDefault(ENABLED, "true").trim())) {
      return Optional.empty();
    }
    Optional<BulkWriter> copy = CopyWriter.forSink(config, dialect, props).map(w -> w);
    return copy.isPresent() ? copy : MultiRowWriter.forSink(config, dialect, props).map(w -> w);
  }
}
