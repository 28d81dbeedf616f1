package io.sluice.bench.reconcile;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;

/** A MariaDB server for one benchmark run: Debian's binaries, a temporary data directory, a free loopback port. */
public final class MariaDbProcess implements AutoCloseable {
  private final Process process;
  private final int port;

  private MariaDbProcess(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  public static boolean installed() {
    return Files.isExecutable(Path.of("/usr/sbin/mariadbd")) && Files.isExecutable(Path.of("/usr/bin/mariadb-install-db"));
  }

  public static MariaDbProcess start() throws IOException, InterruptedException {
    Path dir = Files.createTempDirectory("sluice-bench-mariadb");
    Process init = new ProcessBuilder("/usr/bin/mariadb-install-db", "--no-defaults", "--datadir=" + dir.resolve("data"),
        "--user=root", "--auth-root-authentication-method=normal", "--skip-test-db")
        .redirectErrorStream(true).redirectOutput(dir.resolve("install.log").toFile()).start();
    if (!init.waitFor(120, TimeUnit.SECONDS) || init.exitValue() != 0) {
      throw new IOException("mariadb-install-db failed, see " + dir.resolve("install.log"));
    }
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Process p = new ProcessBuilder("/usr/sbin/mariadbd", "--no-defaults", "--datadir=" + dir.resolve("data"),
        "--socket=" + dir.resolve("sock"), "--port=" + port, "--bind-address=127.0.0.1", "--user=root",
        "--skip-log-bin", "--innodb-buffer-pool-size=1G", "--innodb-flush-log-at-trx-commit=0",
        "--character-set-server=utf8mb4")
        .redirectErrorStream(true).redirectOutput(dir.resolve("server.log").toFile()).start();
    MariaDbProcess server = new MariaDbProcess(p, port);
    Runtime.getRuntime().addShutdownHook(new Thread(p::destroy));
    for (int i = 0; i < 600; i++) {
      try (Connection c = DriverManager.getConnection(server.url(""))) {
        return server;
      } catch (SQLException e) {
        Thread.sleep(200);
      }
    }
    p.destroy();
    throw new IOException("mariadbd did not start, see " + dir.resolve("server.log"));
  }

  /** The server's process id (one process: its threads' CPU time is the server's). */
  public long pid() {
    return process.pid();
  }

  public String url(String db) {
    return "jdbc:mariadb://127.0.0.1:" + port + "/" + db + "?user=root";
  }

  @Override
  public void close() {
    process.destroy();
  }
}
