package io.sluice.sink.jdbc;

import io.debezium.connector.jdbc.DefaultRecordWriter;
import io.debezium.connector.jdbc.JdbcChangeEventSink;
import io.debezium.connector.jdbc.JdbcSinkConnectorConfig;
import io.debezium.connector.jdbc.QueryBinderResolver;
import io.debezium.connector.jdbc.dialect.DatabaseDialect;
import io.debezium.openlineage.ConnectorContext;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.hibernate.SessionFactory;
import org.hibernate.StatelessSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sink's writes once the database has refused one: a put is written whole if it can be, else one record at a
 * time, so that a record the database cannot take (a value its column's type refuses, a type the sink has no column
 * for) goes to the sink's dead letter queue, naming its table and the database's words, and the rest are written.
 *
 * <p>Debezium's sink task keeps a failed put's error and throws it at every later put, failing the task for one bad
 * record and stopping every table the connector writes. Once that has happened, this writer, with a session and a
 * dialect of its own, takes over the task's writes. A failure the record did not cause (the database unreachable, a
 * deadlock, a lack of resources) still fails the task, as it always has, and Connect reads the put again after the
 * restart; so does a refused record where the sink has no dead letter queue, with a message that names it.
 *
 * <p>Only for upserts ({@code insert.mode=upsert}): the refused put may have been written in part, and written again
 * record by record in its order it ends as it would have; plain inserts would meet their own rows.
 */
final class RecordByRecordWriter implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RecordByRecordWriter.class);
  /** SQLSTATE classes of failures no record causes: connection, transaction rollback, resources, operator, system. */
  private static final Set<String> TRANSIENT_CLASSES = Set.of("08", "40", "53", "57", "58", "XX", "HY");

  private final JdbcSinkConnectorConfig config;
  private final SessionFactory sessions;
  private final JdbcChangeEventSink sink;
  private final ErrantRecordReporter dlq;
  private final String connector;
  private long refused;

  private RecordByRecordWriter(JdbcSinkConnectorConfig config, SessionFactory sessions, JdbcChangeEventSink sink,
      ErrantRecordReporter dlq, String connector) {
    this.config = config;
    this.sessions = sessions;
    this.sink = sink;
    this.dlq = dlq;
    this.connector = connector;
  }

  /**
   * What the sink does with a record the database refuses: {@code dlq} (the default) sends it to the dead letter
   * queue and writes the rest; {@code fail} fails the task on it, as Debezium's sink does.
   */
  static final String REFUSED = "sluice.sink.refused";

  /** Whether a put that failed with {@code failure} is one this writer can take on. */
  static boolean takesOver(Map<String, String> props, Throwable failure) {
    return "upsert".equalsIgnoreCase(props.getOrDefault("insert.mode", "insert").trim())
        && !"fail".equalsIgnoreCase(props.getOrDefault(REFUSED, "dlq").trim()) && causedByRecord(failure);
  }

  /**
   * A writer of its own for the task with {@code props}, whose database has the enum types {@code enumTypes}: its
   * failures are not retried, each record is tried once.
   */
  static RecordByRecordWriter open(Map<String, String> props, ErrantRecordReporter dlq, Set<String> enumTypes) {
    Map<String, String> own = new HashMap<>(props);
    own.put(JdbcSinkConnectorConfig.FLUSH_MAX_RETRIES, "0");
    JdbcSinkConnectorConfig config = new JdbcSinkConnectorConfig(own);
    SessionFactory sessions = config.getHibernateConfiguration().buildSessionFactory();
    try {
      StatelessSession session = sessions.openStatelessSession();
      DatabaseDialect dialect = SinkDialects.resolve(config, sessions);
      io.sluice.sink.jdbc.types.EnumTypeOfTarget.know(dialect, enumTypes);
      String name = props.getOrDefault("name", "");
      ConnectorContext context = new ConnectorContext(name, "sluice-jdbc-sink", props.getOrDefault("task.id", "0"),
          "", UUID.randomUUID(), Map.of());
      JdbcChangeEventSink sink = new JdbcChangeEventSink(config, session, dialect,
          new DefaultRecordWriter(session, new QueryBinderResolver(), config, dialect) {}, context);
      return new RecordByRecordWriter(config, sessions, sink, dlq, name);
    } catch (RuntimeException e) {
      sessions.close();
      throw e;
    }
  }

  /** Records this writer sent to the dead letter queue. */
  long refused() {
    return refused;
  }

  /**
   * Writes {@code records}: whole if the database takes them, else one at a time, each refused one to the dead letter
   * queue.
   *
   * @throws ConnectException when a write fails for a cause no record made, or a record is refused and there is no
   *     dead letter queue: nothing of the put counts as written
   */
  void write(Collection<SinkRecord> records) {
    if (records.isEmpty()) {
      return;
    }
    try {
      sink.execute(records);
      return;
    } catch (RuntimeException whole) {
      if (!causedByRecord(whole)) {
        throw new ConnectException("Writing " + records.size() + " records failed: " + ErrorText.reasons(whole), whole);
      }
      if (records.size() > 1) {
        LOG.info("Sink {}: the database refused a put of {} records ({}); writing them one at a time", connector,
            records.size(), ErrorText.reasons(whole));
      }
    }
    for (SinkRecord r : records) {
      try {
        sink.execute(List.of(r));
      } catch (RuntimeException e) {
        if (!causedByRecord(e)) {
          throw new ConnectException("Writing the record at " + RefusedRecords.where(r) + " failed: "
              + ErrorText.reasons(e), e);
        }
        refuse(r, e);
      }
    }
  }

  private void refuse(SinkRecord r, RuntimeException e) {
    String message = "The database refused the record at " + RefusedRecords.where(r) + " for table " + RefusedRecords.table(config, r)
        + ": " + ErrorText.reasons(e);
    RefusedRecords.send(dlq, r, message, e);
    refused++;
    LOG.warn("Sink {}: {}; sent to the dead letter queue", connector, message);
  }


  /**
   * Whether a record caused {@code failure}: the database refused its values or its table (SQLSTATE of a data,
   * integrity, syntax or access class), or the sink could not turn it into SQL at all (no SQL error in the chain).
   */
  static boolean causedByRecord(Throwable failure) {
    for (Throwable c = failure; c != null; c = c.getCause()) {
      if (c instanceof org.hibernate.exception.JDBCConnectionException) {
        return false;
      }
      if (c instanceof SQLException sql) {
        SQLException deepest = sql.getNextException() != null ? sql.getNextException() : sql;
        String state = deepest.getSQLState() != null ? deepest.getSQLState() : sql.getSQLState();
        return state != null && state.length() >= 2 && !TRANSIENT_CLASSES.contains(state.substring(0, 2));
      }
    }
    return true;
  }

  @Override
  public void close() {
    try {
      sink.close();
    } finally {
      sessions.close();
    }
  }
}
