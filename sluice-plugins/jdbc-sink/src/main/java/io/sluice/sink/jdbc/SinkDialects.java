package io.sluice.sink.jdbc;

import io.debezium.connector.jdbc.JdbcSinkConnectorConfig;
import io.debezium.connector.jdbc.dialect.DatabaseDialect;
import io.debezium.connector.jdbc.dialect.TypeRebinding;
import io.debezium.connector.jdbc.type.SharedTypes;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the sink tasks of one worker from writing with each other's column types.
 *
 * <p>Debezium's JDBC sink keeps its column types as singletons of the plugin's class loader, and each task's dialect,
 * as the task starts, configures every one of them with itself ({@code AbstractType.configure}): the DDL type names,
 * the timestamp precision, the database time zone and the PostGIS schema they answer with are those of the sink task
 * that started last. A PostgreSQL sink that creates a table after a MariaDB sink started would write MariaDB's
 * {@code longtext} into its {@code CREATE TABLE}; two sinks with different {@code database.time_zone}s would bind
 * each other's zone.
 *
 * <p>Tasks whose dialects answer alike (the same kind of database, time zone and PostGIS schema) start and write at
 * once, as they always have: one stuck on a lock in its database holds up no other. While tasks that answer
 * differently are live in the worker, each write is made alone, with the types pointed back at the writing task's
 * dialect first (one pass over the types when the writer changes), and so is the start of a task that differs from
 * those live, since making its dialect reconfigures the types. Debezium's own {@code JdbcSinkConnector} tasks in the
 * same worker start and write without this gate: a start of theirs points the types at their dialect, which the next
 * write here notices and puts right, alone; their own writes are not covered.
 */
final class SinkDialects {
  private static final Logger LOG = LoggerFactory.getLogger(SinkDialects.class);
  /** One start at a time, so that the dialect a start leaves the types with is the one it made. */
  private static final Object STARTS = new Object();
  /** Read: a write or start among tasks that answer alike. Write: one that must be alone. */
  private static final ReentrantReadWriteLock LOCK = new ReentrantReadWriteLock();
  /** The live tasks and what their dialects answer; under {@link #STARTS}. */
  private static final Map<Binding, Signature> LIVE = new HashMap<>();
  /** Whether live tasks answer differently. */
  private static volatile boolean mixed;
  /** The dialect the shared types answer for now, as far as a write alone needs to know. */
  private static volatile DatabaseDialect bound;

  private SinkDialects() {}

  /**
   * What a task's dialect makes the shared types answer: its database (by the JDBC URL's scheme, known before the
   * start, and by Debezium's dialect, known after it), time zone and PostGIS schema.
   */
  record Signature(String scheme, Class<?> dialect, String timeZone, String postgisSchema) {
    boolean sameBefore(Signature other) {
      return scheme.equals(other.scheme) && Objects.equals(timeZone, other.timeZone)
          && Objects.equals(postgisSchema, other.postgisSchema);
    }
  }

  /** One task's place at the gate. */
  static final class Binding {
    private final DatabaseDialect dialect;

    private Binding(DatabaseDialect dialect) {
      this.dialect = dialect;
    }

    /** Runs {@code write}, which may use Debezium's types, with them answering for this task's dialect. */
    void write(Runnable write) {
      if (!mixed) {
        LOCK.readLock().lock();
        try {
          // A task that answers differently starts only under the write lock, so this holds for the whole write;
          // unless the types were pointed elsewhere outside the gate (a Debezium JdbcSinkConnector task starting in
          // this worker), which the write alone below puts right.
          if (!mixed && SharedTypes.boundDialect() == bound) {
            write.run();
            return;
          }
        } finally {
          LOCK.readLock().unlock();
        }
      }
      LOCK.writeLock().lock();
      try {
        // What the types answer for now, not what this gate last made them: a start outside it changes them too.
        if (dialect != null && SharedTypes.boundDialect() != dialect) {
          TypeRebinding.bind(dialect);
          bound = dialect;
        }
        write.run();
      } finally {
        LOCK.writeLock().unlock();
      }
    }

    /** The dialect the task's start made; null where it cannot be pointed at again. */
    DatabaseDialect dialect() {
      return dialect;
    }

    /** Leaves the gate: the task stopped, and its dialect no longer counts. */
    void close() {
      synchronized (STARTS) {
        if (LIVE.remove(this) != null) {
          mixed = differ();
        }
      }
    }
  }

  /**
   * Starts a task through {@code debeziumStart} (Debezium's own start, which makes the task's dialect) and takes the
   * dialect it made; alone when the task answers differently from those live, else beside their writes.
   */
  static Binding start(JdbcSinkConnectorConfig config, String jdbcUrl, String name, Runnable debeziumStart) {
    Signature expected = new Signature(scheme(jdbcUrl), null, config.useTimeZone(), config.getPostgresPostgisSchema());
    synchronized (STARTS) {
      boolean alone = mixed || LIVE.values().stream().anyMatch(s -> !s.sameBefore(expected));
      Lock lock = alone ? LOCK.writeLock() : LOCK.readLock();
      lock.lock();
      try {
        try {
          debeziumStart.run();
        } finally {
          // However far the start got, the types now answer for the last dialect made.
          bound = SharedTypes.boundDialect();
        }
        DatabaseDialect made = bound;
        if (made != null && TypeRebinding.supports(made)) {
          TypeRebinding.extend(made);
        }
        if (made == null || !TypeRebinding.supports(made)) {
          LOG.warn("Sink {}: its dialect {} cannot be pointed at again; where sinks of other databases run in this"
              + " worker, its column types may answer for theirs", name, made == null ? null : made.getClass());
          return new Binding(null);
        }
        Binding b = new Binding(made);
        Signature signature = new Signature(expected.scheme(), made.getClass(), expected.timeZone(),
            expected.postgisSchema());
        boolean before = mixed;
        LIVE.put(b, signature);
        mixed = differ();
        if (mixed && !before) {
          LOG.info("Sink {} writes with {} (time zone {}) where other sinks of this worker write to another kind of"
              + " database or zone: from now on such sinks write one at a time, each with its own column types", name,
              made.getClass().getSimpleName(), signature.timeZone());
        }
        return b;
      } finally {
        lock.unlock();
      }
    }
  }

  /** Whether the live tasks answer differently; under {@link #STARTS}. */
  private static boolean differ() {
    return new HashSet<>(LIVE.values()).size() > 1;
  }

  /** {@code jdbc:postgresql} of {@code jdbc:postgresql://host/db}: the driver, and so the kind of database. */
  static String scheme(String jdbcUrl) {
    String url = jdbcUrl == null ? "" : jdbcUrl;
    int colon = url.indexOf(':', url.startsWith("jdbc:") ? 5 : 0);
    return colon < 0 ? url : url.substring(0, colon);
  }

  /** For tests: whether writes are made one at a time now. */
  static boolean oneAtATime() {
    return mixed;
  }

  /** For tests: how many tasks are at the gate. */
  static int live() {
    synchronized (STARTS) {
      return LIVE.size();
    }
  }
}
