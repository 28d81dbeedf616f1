package io.sluice.kafka.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;

/**
 * The one MariaDB server of a test JVM: Debian's {@code mariadb-server} binaries (installed by {@code .ci/run}),
 * started with a data directory of its own on a free loopback port, as root, with no password. Where the binaries are
 * absent, {@link #require()} fails the test under CI and skips it elsewhere, saying so ({@link RequiredTool}); where
 * they are present, a server that fails to start is a test failure, never a skip.
 */
public final class MariaDbServer {
  private static Process process;
  private static int port;
  private static String failure;

  private MariaDbServer() {}

  /** Starts the server on first call; ends the calling test where MariaDB is absent (see the class). */
  public static synchronized void require() {
    if (process != null) {
      return;
    }
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

  private static void start(Path server, Path install) throws IOException, InterruptedException {
    Path dir = Files.createTempDirectory("sluice-mariadb");
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
        "--skip-log-bin", "--innodb-buffer-pool-size=128M", "--innodb-flush-log-at-trx-commit=0",
        "--character-set-server=utf8mb4", "--collation-server=utf8mb4_general_ci")
        .redirectErrorStream(true).redirectOutput(dir.resolve("server.log").toFile()).start();
    Runtime.getRuntime().addShutdownHook(new Thread(started::destroy, "mariadb-stop"));
    port = free;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (true) {
      try (Connection c = DriverManager.getConnection(url(""))) {
        process = started;
        return;
      } catch (SQLException e) {
        if (!started.isAlive() || System.nanoTime() > deadline) {
          started.destroy();
          throw new IllegalStateException("mariadbd did not accept connections: "
              + Files.readString(dir.resolve("server.log")), e);
        }
        Thread.sleep(200);
      }
    }
  }

  public static String url(String database) {
    return "jdbc:mariadb://127.0.0.1:" + port + "/" + database + "?user=root";
  }

  /** Creates an empty database and returns its JDBC URL, starting the server first ({@link #require()}). */
  public static String createDatabase(String name) {
    require();
    try (Connection c = DriverManager.getConnection(url("")); Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name + " CHARACTER SET utf8mb4");
    } catch (SQLException e) {
      throw new UncheckedIOException(new IOException("cannot create database " + name, e));
    }
    return url(name);
  }
}
