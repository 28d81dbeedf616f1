package io.sluice.connect.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import io.zonky.test.db.postgres.util.LinuxUtils;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

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
            // The server's own log in the module's target/ (the library hands it to a logger the tests keep quiet):
            // a backend's crash names the statement it ran, which a test's failure alone does not.
            .setServerConfig("logging_collector", "on")
            .setServerConfig("log_directory", logDirectory().toString())
            .setServerConfig("log_filename", "postgres-" + ProcessHandle.current().pid() + ".log")
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

  /** Where the server's log goes: {@code target/postgres/} of the module whose tests run. */
  private static Path logDirectory() throws IOException {
    return Files.createDirectories(Path.of("target", "postgres").toAbsolutePath());
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

  /**
   * Restarts the server as an operator does, {@code pg_ctl restart} in fast mode (every session and replication
   * connection ended, a shutdown checkpoint written, then the postmaster's own command line again, on the same data
   * and port); returns once it accepts connections. Every connection of the JVM breaks, so this is for a test that has
   * the JVM's server to itself (a fault-matrix class, in a JVM of its own). Run as the server was started: under
   * {@code unshare -U} where there is one, as PostgreSQL refuses to run as root, as tests may run here.
   */
  public static synchronized void restart() throws Exception {
    Path data;
    try (Connection c = connect("postgres"); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SHOW data_directory")) {
      rs.next();
      data = Path.of(rs.getString(1));
    }
    long pid = Long.parseLong(Files.readAllLines(data.resolve("postmaster.pid")).get(0).trim());
    Path postgres = Path.of(ProcessHandle.of(pid).flatMap(h -> h.info().command())
        .orElseThrow(() -> new IllegalStateException("no postmaster " + pid)));
    Path log = data.resolveSibling(data.getFileName() + "-restarts.log");
    List<String> command = new ArrayList<>();
    if (LinuxUtils.isUnshareAvailable()) {
      command.addAll(List.of("unshare", "-U"));
    }
    command.addAll(List.of(postgres.resolveSibling("pg_ctl").toString(), "-D", data.toString(), "-m", "fast", "-w",
        "-t", "120", "-l", log.toString(), "restart"));
    Path out = Files.createTempFile("pg_ctl", ".txt");
    Process pgCtl = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    if (!pgCtl.waitFor(180, TimeUnit.SECONDS) || pgCtl.exitValue() != 0) {
      pgCtl.destroyForcibly();
      throw new IllegalStateException(String.join(" ", command) + " failed: " + Files.readString(out));
    }
    Files.delete(out);
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
