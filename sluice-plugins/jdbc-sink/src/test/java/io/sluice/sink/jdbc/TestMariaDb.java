package io.sluice.sink.jdbc;

import io.sluice.kafka.testing.RequiredTool;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;

/**
 * The one MariaDB server of this module's test JVM, as sluice-connect's {@code MariaDbServer} starts one (which this
 * module cannot use: sluice-connect depends on it): Debian's binaries, a data directory of its own, a free loopback
 * port, root without a password. Where the binaries are absent the test fails under CI and is skipped elsewhere
 * ({@link RequiredTool}).
 */
final class TestMariaDb {
  private static int port;
  private static String failure;

  private TestMariaDb() {}

  /** Creates an empty database and returns its JDBC URL, starting the server first. */
  static synchronized String createDatabase(String name) {
    if (port == 0) {
      if (failure != null) {
        throw new IllegalStateException(failure);
      }
      String from = "Debian package mariadb-server, for the tests against MariaDB";
      Path server = RequiredTool.require("mariadbd", from);
      Path install = RequiredTool.require("mariadb-install-db", from);
      try {
        start(server, install);
      } catch (IOException | InterruptedException | RuntimeException e) {
        failure = "MariaDB is installed but could not be started: " + e.getMessage();
        throw new IllegalStateException(failure, e);
      }
    }
    try (Connection c = DriverManager.getConnection(url("")); Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name + " CHARACTER SET utf8mb4");
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create database " + name, e);
    }
    return url(name);
  }

  static String url(String database) {
    return "jdbc:mariadb://127.0.0.1:" + port + "/" + database + "?user=root";
  }

  private static void start(Path server, Path install) throws IOException, InterruptedException {
    Path dir = Files.createTempDirectory("sluice-sink-mariadb");
    Path data = dir.resolve("data");
    Process init = new ProcessBuilder(install.toString(), "--no-defaults", "--datadir=" + data, "--user=root",
        "--auth-root-authentication-method=normal", "--skip-test-db")
        .redirectErrorStream(true).redirectOutput(dir.resolve("install.log").toFile()).start();
    if (!init.waitFor(120, TimeUnit.SECONDS) || init.exitValue() != 0) {
      throw new IllegalStateException("mariadb-install-db failed: " + Files.readString(dir.resolve("install.log")));
    }
    int free;
    try (ServerSocket s = new ServerSocket(0)) {
      free = s.getLocalPort();
    }
    Process started = new ProcessBuilder(server.toString(), "--no-defaults", "--datadir=" + data,
        "--socket=" + dir.resolve("mariadb.sock"), "--port=" + free, "--bind-address=127.0.0.1", "--user=root",
        "--skip-log-bin", "--innodb-buffer-pool-size=64M", "--innodb-flush-log-at-trx-commit=0",
        "--character-set-server=utf8mb4", "--collation-server=utf8mb4_general_ci")
        .redirectErrorStream(true).redirectOutput(dir.resolve("server.log").toFile()).start();
    Runtime.getRuntime().addShutdownHook(new Thread(started::destroy, "test-mariadb-stop"));
    port = free;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (true) {
      try (Connection c = DriverManager.getConnection(url(""))) {
        return;
      } catch (SQLException e) {
        if (!started.isAlive() || System.nanoTime() > deadline) {
          started.destroy();
          port = 0;
          throw new IllegalStateException("mariadbd did not accept connections: "
              + Files.readString(dir.resolve("server.log")), e);
        }
        Thread.sleep(200);
      }
    }
  }
}
