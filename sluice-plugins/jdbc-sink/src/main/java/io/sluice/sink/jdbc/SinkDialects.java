package io.sluice.sink.jdbc;

import io.debezium.connector.jdbc.JdbcSinkConnectorConfig;
import io.debezium.connector.jdbc.dialect.DatabaseDialect;
import io.debezium.connector.jdbc.dialect.DatabaseDialectResolver;
import io.debezium.connector.jdbc.dialect.OwnTypes;
import io.debezium.connector.jdbc.type.SharedTypes;
import org.hibernate.SessionFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives each sink task of a worker column types of its own, so that sinks of different databases, time zones or
 * PostGIS schemas never write with each other's, and never wait for each other.
 *
 * <p>Debezium's JDBC sink keeps its column types as singletons of the plugin's class loader, and each task's dialect,
 * as the task starts, configures every one of them with itself ({@code AbstractType.configure}): the DDL type names,
 * the timestamp precision, the database time zone and the PostGIS schema they answer with are those of the sink task
 * that started last. A PostgreSQL sink that creates a table after a MariaDB sink started would write MariaDB's
 * {@code longtext} into its {@code CREATE TABLE}; two sinks with different {@code database.time_zone}s would bind
 * each other's zone.
 *
 * <p>So once Debezium's start has made a task's dialect, {@link OwnTypes} replaces every type in that dialect's
 * registry with an instance of its own, configured with that dialect alone, and adds Sluice's types likewise. Writes
 * then share nothing: a put stuck on a lock in its database (a MariaDB row lock held by another transaction) holds up
 * no other sink of the worker. Only starts take turns ({@link #start}), so that the dialect a start leaves Debezium's
 * shared types with is the one it made: a start waiting on a database out of reach delays the next start, never a
 * write. Debezium's own {@code JdbcSinkConnector} tasks in the same worker keep
 * Debezium's shared types, which a later start of any sink points elsewhere, as upstream.
 */
final class SinkDialects {
  private static final Logger LOG = LoggerFactory.getLogger(SinkDialects.class);
  /** One start at a time, so that the dialect a start leaves the shared types with is the one it made. */
  private static final Object STARTS = new Object();

  private SinkDialects() {}

  /**
   * Starts a task through {@code debeziumStart} (Debezium's own start, which makes the task's dialect) and gives the
   * dialect it made types of its own; returns that dialect, or null where it is not one Sluice can give types (its
   * types are then Debezium's shared ones, which answer for whichever sink started last).
   */
  static DatabaseDialect start(String name, Runnable debeziumStart) {
    synchronized (STARTS) {
      debeziumStart.run();
      DatabaseDialect made = SharedTypes.boundDialect();
      if (made == null || !OwnTypes.supports(made)) {
        LOG.warn("Sink {}: its dialect {} cannot have column types of its own; where sinks of other databases run in"
            + " this worker, its column types may answer for theirs", name, made == null ? null : made.getClass());
        return null;
      }
      if (!OwnTypes.give(made)) {
        LOG.warn("Sink {}: where sinks of other databases run in this worker, its column types may answer for theirs",
            name);
      }
      return made;
    }
  }

  /**
   * A dialect of the task's own beside the one its start made ({@link RecordByRecordWriter}'s), with types of its own;
   * made in turn with starts, as making it points Debezium's shared types at it.
   */
  static DatabaseDialect resolve(JdbcSinkConnectorConfig config, SessionFactory sessions) {
    synchronized (STARTS) {
      DatabaseDialect made = DatabaseDialectResolver.resolve(config, sessions);
      OwnTypes.give(made);
      return made;
    }
  }
}
