package io.sluice.connect.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The one MariaDB server of a test JVM: Debian's {@code mariadb-server} binaries (installed by {@code .ci/run}),
 * started with a data directory of its own on a free loopback port, as root, with no password. When the binaries
 * are absent, {@link #available()} is false and the tests that need it are skipped, saying why; when they are
 * present, a server that fails to start is a test failure, never a skip.
 */
public final class MariaDbServer {
  private static final List<String> PLACES = List.of("/usr/sbin", "/usr/bin", "/usr/local/bin", "/usr/local/sbin");
  private static Process process;
  private static int port;
  private static String failure;

  private MariaDbServer() {}

  public static Optional<Path> binary(String name) {
    return PLACES.stream().map(p -> Path.of(p, name)).filter(Files::isExecutable).findFirst();
  }

  /**
   * Whether a server runs, starting it on first call. False only where the binaries are absent ({@link #whyNot()}
   * says so); where they are present, a server that does not start fails the test instead of skipping it.
   */
  public static synchronized boolean available() {
    if (process != null) {
      return true;
    }
    Optional<Path> server = binary("mariadbd");
    Optional<Path> install = binary("mariadb-install-db");
    if (server.isEmpty() || install.isEmpty()) {
      failure = "mariadbd / mariadb-install-db not installed (Debian package mariadb-server; .ci/run installs it)";
      System.err.println("[reconcile tests] MariaDB tests SKIPPED: " + failure);
      return false;
    }
    if (failure != null) {
      throw new IllegalStateException(failure);
    }
    try {
      start(server.get(), install.get());
    } catch (IOException | InterruptedException | RuntimeException e) {
      failure = "MariaDB is installed but could not be started: " + e.getMessage();
      throw new IllegalStateException(failure, e);
    }
    return true;
  }

  public static String whyNot() {
    return failure;
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

  /** Creates an empty database and returns its JDBC URL. */
  public static String createDatabase(String name) {
    try (Connection c = DriverManager.getConnection(url("")); Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name + " CHARACTER SET utf8mb4");
    } catch (SQLException e) {
      throw new UncheckedIOException(new IOException("cannot create database " + name, e));
    }
    return url(name);
  }
}
