package io.sluice.connect.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The one PostgreSQL server of a test JVM (binaries from Maven, no system install), with logical replication on so
 * Debezium can stream from it. Tests isolate themselves with a database each ({@link #createDatabase}).
 */
public final class SharedPostgres {
  public static final String USER = "postgres";
  public static final String PASSWORD = "postgres";
  private static EmbeddedPostgres pg;

  private SharedPostgres() {}

  public static synchronized EmbeddedPostgres get() {
    if (pg == null) {
      try {
        pg = EmbeddedPostgres.builder()
            .setServerConfig("wal_level", "logical")
            .setServerConfig("max_replication_slots", "32")
            .setServerConfig("max_wal_senders", "32")
            .setServerConfig("max_connections", "200")
            .start();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot start embedded PostgreSQL", e);
      }
      EmbeddedPostgres started = pg;
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        try {
          started.close();
        } catch (IOException ignored) {
          // The JVM is ending; the temp directory goes with it.
        }
      }, "shared-postgres-stop"));
    }
    return pg;
  }

  public static int port() {
    return get().getPort();
  }

  /** Creates an empty database and returns its JDBC URL. */
  public static String createDatabase(String name) {
    try (Connection c = connect("postgres"); Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create database " + name, e);
    }
    return jdbcUrl(name);
  }

  public static String jdbcUrl(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port() + "/" + database;
  }

  public static Connection connect(String database) throws SQLException {
    return DriverManager.getConnection(jdbcUrl(database), USER, PASSWORD);
  }

  /** Runs {@code sql} in {@code database}; a failure names the statement. */
  public static void execute(String database, String sql) {
    try (Connection c = connect(database); Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  /** The number in the first column of the first row {@code sql} gives: a {@code count(*)}, a {@code max(...)}. */
  public static long number(String database, String sql) {
    try (Connection c = connect(database); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }
}
