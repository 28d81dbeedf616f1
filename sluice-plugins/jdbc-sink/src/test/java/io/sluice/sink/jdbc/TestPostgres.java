package io.sluice.sink.jdbc;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/** The one PostgreSQL server of this module's test JVM (binaries from Maven); a database per test. */
final class TestPostgres {
  static final String USER = "postgres";
  static final String PASSWORD = "postgres";
  private static EmbeddedPostgres pg;

  private TestPostgres() {}

  /** Creates an empty database and returns its JDBC URL. */
  static synchronized String createDatabase(String name) {
    if (pg == null) {
      try {
        pg = EmbeddedPostgres.builder().start();
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
      }, "test-postgres-stop"));
    }
    try (Connection c = connect(url("postgres")); Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create database " + name, e);
    }
    return url(name);
  }

  static Connection connect(String url) throws SQLException {
    return DriverManager.getConnection(url, USER, PASSWORD);
  }

  private static String url(String database) {
    return "jdbc:postgresql://127.0.0.1:" + pg.getPort() + "/" + database;
  }
}
