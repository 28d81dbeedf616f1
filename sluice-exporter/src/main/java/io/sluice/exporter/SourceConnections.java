package io.sluice.exporter;

import io.sluice.source.Engine;
import io.sluice.source.SourceConnection;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.connect.runtime.Herder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The exporter's connections to source databases, kept open between refresh passes: one per server, database and
 * user, however many connectors reach the database that way. Opening one costs a TCP handshake, the server a new
 * backend (PostgreSQL forks one) and the client its password exchange (SCRAM's key stretching is CPU by design), so
 * doing it per connector and pass made the pass's cost grow with the fleet.
 */
final class SourceConnections implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SourceConnections.class);
  /** Both drivers wait this long at most to connect and for any answer: a hung database holds a pass that long. */
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  /**
   * How long a server that could not be reached is left alone: a server that drops packets costs one connect timeout
   * per this interval rather than per pass, and the readings of the other servers keep their pace.
   */
  static final Duration RETRY_AFTER = Duration.ofSeconds(30);

  /**
   * Where a probe connects. Connectors with equal ones share a connection; the password is part of it so that a
   * connector with a wrong one gets no readings through another's session.
   */
  record Server(SourceConnection source) {
    String url() {
      return source.jdbcUrl();
    }

    /** The user and URL; never the password. */
    @Override
    public String toString() {
      return source.user() + "@" + url();
    }
  }

  /** Work on a connection; a failure is retried once on a new connection when the old one turns out dead. */
  @FunctionalInterface
  interface Work<T> {
    T on(Connection db) throws SQLException;
  }

  private final Herder herder;
  private final Clock clock;
  private final Map<String, Driver> drivers = new ConcurrentHashMap<>();
  private final Map<Server, Connection> open = new ConcurrentHashMap<>();
  private final Map<Server, Long> failedAtMs = new ConcurrentHashMap<>();

  SourceConnections(Herder herder, Clock clock) {
    this.herder = herder;
    this.clock = clock;
  }

  /**
   * Runs {@code work} on the server's connection, opening it with the connector class's driver when there is none. A
   * failure on a connection that no longer answers (the server restarted, the backend was terminated, the network
   * dropped it) closes it and runs the work once more on a new one.
   */
  <T> T run(Server server, String connectorClass, Work<T> work) throws Exception {
    Connection db = open.get(server);
    if (db != null) {
      try {
        return work.on(db);
      } catch (SQLException e) {
        if (answers(db)) {
          throw e;
        }
        log.debug("connection to {} lost ({}); reconnecting", server, e.toString());
        discard(server, db);
      }
    }
    return work.on(connect(server, connectorClass));
  }

  /** Closes the connections of servers no connector reaches any more. */
  void keepOnly(Set<Server> used) {
    for (Map.Entry<Server, Connection> e : open.entrySet()) {
      if (!used.contains(e.getKey())) {
        discard(e.getKey(), e.getValue());
      }
    }
    failedAtMs.keySet().retainAll(used);
  }

  @Override
  public void close() {
    open.forEach(this::discard);
  }

  /** A connection whose socket timed out is closed by the driver already; one that answers does so at once. */
  private static boolean answers(Connection db) {
    try {
      return db.isValid(2);
    } catch (SQLException e) {
      return false;
    }
  }

  private void discard(Server server, Connection db) {
    open.remove(server, db);
    try {
      db.close();
    } catch (SQLException e) {
      log.debug("closing the connection to {}: {}", server, e.toString());
    }
  }

  private Connection connect(Server server, String connectorClass) throws Exception {
    Long failed = failedAtMs.get(server);
    if (failed != null && clock.millis() - failed < RETRY_AFTER.toMillis()) {
      throw new IllegalStateException(server + " unreachable at the last attempt; next one "
          + RETRY_AFTER.toSeconds() + " s after it");
    }
    try {
      Driver driver = driverFor(connectorClass, server.url());
      // User, password and the TLS settings the connector's config gives the driver.
      Properties props = server.source().properties();
      boolean mysql = server.source().engine() != Engine.POSTGRESQL;
      // PostgreSQL's driver takes seconds for these, MySQL's and MariaDB's milliseconds.
      String timeout = Long.toString(mysql ? TIMEOUT.toMillis() : TIMEOUT.toSeconds());
      props.setProperty("connectTimeout", timeout);
      props.setProperty("socketTimeout", timeout);
      if (!mysql) {
        // The session shows as the exporter's in pg_stat_activity.
        props.setProperty("ApplicationName", "sluice-exporter");
      }
      Connection db = driver.connect(server.url(), props);
      if (db == null) {
        throw new IllegalStateException("driver " + driver.getClass().getName() + " refused " + server.url());
      }
      failedAtMs.remove(server);
      open.put(server, db);
      return db;
    } catch (Exception e) {
      failedAtMs.put(server, clock.millis());
      throw e;
    }
  }

  /**
   * The JDBC driver the connector itself uses: its plugin folder brings it, the exporter's classpath does not. Found
   * once per connector class; plugins do not change while the worker runs.
   */
  private Driver driverFor(String connectorClass, String url) throws Exception {
    Driver known = drivers.get(connectorClass);
    if (known != null && known.acceptsURL(url)) {
      return known;
    }
    // Connect's delegating loader hands out the connector class from its plugin folder; that class's loader sees the
    // folder's jars, the driver among them.
    ClassLoader loader = herder.plugins().delegatingLoader().loadClass(connectorClass).getClassLoader();
    for (Driver d : ServiceLoader.load(Driver.class, loader)) {
      if (d.acceptsURL(url)) {
        drivers.put(connectorClass, d);
        return d;
      }
    }
    throw new IllegalStateException("no JDBC driver for " + url + " in the plugin of " + connectorClass);
  }
}
