package io.sluice.ops.offsets;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.connect.testing.TestWorkers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The MySQL retention check against a real server: Debian's MariaDB, started by the test with binary logging on. The
 * test is skipped, saying so, where {@code mariadbd} is not installed.
 */
class MySqlRetentionTest {
  private static final Path MARIADBD = Path.of("/usr/sbin/mariadbd");
  private static final Path INSTALL_DB = Path.of("/usr/bin/mariadb-install-db");
  @TempDir static Path dir;
  private static Process server;
  private static int port;

  @BeforeAll
  static void start() throws Exception {
    assumeTrue(Files.isExecutable(MARIADBD) && Files.isExecutable(INSTALL_DB),
        "Debian's mariadb-server is not installed: MySQL retention check not run against a server");
    Path data = dir.resolve("data");
    List<String> asRoot = "root".equals(System.getProperty("user.name")) ? List.of("--user=root") : List.of();
    List<String> install = new ArrayList<>(List.of(INSTALL_DB.toString(), "--no-defaults", "--datadir=" + data,
        "--skip-test-db", "--auth-root-authentication-method=normal"));
    install.addAll(asRoot);
    Process p = new ProcessBuilder(install).redirectErrorStream(true).redirectOutput(dir.resolve("install.log").toFile())
        .start();
    assertTrue(p.waitFor(120, TimeUnit.SECONDS) && p.exitValue() == 0, Files.readString(dir.resolve("install.log")));
    port = TestWorkers.freePort();
    List<String> run = new ArrayList<>(List.of(MARIADBD.toString(), "--no-defaults", "--datadir=" + data,
        "--socket=" + dir.resolve("mysqld.sock"), "--pid-file=" + dir.resolve("mysqld.pid"), "--port=" + port,
        "--bind-address=127.0.0.1", "--log-bin=mysql-bin", "--server-id=1", "--skip-grant-tables"));
    run.addAll(asRoot);
    server = new ProcessBuilder(run).redirectErrorStream(true).redirectOutput(dir.resolve("server.log").toFile()).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (true) {
      try (Connection c = connect()) {
        return;
      } catch (SQLException e) {
        if (System.nanoTime() > deadline || !server.isAlive()) {
          throw new AssertionError("MariaDB did not start: " + Files.readString(dir.resolve("server.log")), e);
        }
        Thread.sleep(250);
      }
    }
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.destroy();
      if (!server.waitFor(30, TimeUnit.SECONDS)) {
        server.destroyForcibly();
      }
    }
  }

  private static Connection connect() throws SQLException {
    return DriverManager.getConnection("jdbc:mysql://127.0.0.1:" + port + "/?user=root");
  }

  private static RetentionCheck.Verdict check(String file) {
    ObjectNode config = new ObjectMapper().createObjectNode().put("database.hostname", "127.0.0.1")
        .put("database.port", String.valueOf(port)).put("database.user", "root");
    SourceDatabase source = SourceDatabase.from(new MySqlOffsets(), config, SourceDatabase.Overrides.NONE, "unused", "unused");
    ObjectNode position = new ObjectMapper().createObjectNode().put("file", file).put("pos", 4);
    return RetentionCheck.forSource(new MySqlOffsets(), source).check(position);
  }

  @Test
  void aPurgedBinlogFileIsNotRetained() throws Exception {
    RetentionCheck.Verdict first = check("mysql-bin.000001");
    assertTrue(first.retained(), first.explanation());
    try (Connection c = connect(); Statement s = c.createStatement()) {
      s.execute("FLUSH BINARY LOGS");
      // MariaDB keeps a file until its binlog checkpoint is done, and skips it silently in PURGE until then; on a
      // busy machine that takes a moment, so purge until the server no longer lists it.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (true) {
        s.execute("PURGE BINARY LOGS TO 'mysql-bin.000002'");
        boolean listed = false;
        try (var rs = s.executeQuery("SHOW BINARY LOGS")) {
          while (rs.next()) {
            listed |= rs.getString(1).equals("mysql-bin.000001");
          }
        }
        if (!listed) {
          break;
        }
        assertTrue(System.nanoTime() < deadline, "MariaDB never purged mysql-bin.000001");
        Thread.sleep(100);
      }
    }
    RetentionCheck.Verdict purged = check("mysql-bin.000001");
    assertFalse(purged.retained());
    assertTrue(purged.explanation().contains("binlog file mysql-bin.000001 is no longer on the server")
        && purged.explanation().contains("mysql-bin.000002") && purged.explanation().contains("snapshot"),
        purged.explanation());
    assertTrue(check("mysql-bin.000002").retained());
  }
}
