package io.sluice.connect.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.kafka.testing.RequiredTool;
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
 * A MariaDB server of one test class, from Debian's {@code mariadb-server} binaries, with its binary log on as a
 * Debezium binlog source needs it ({@code log_bin}, {@code binlog_format=ROW}, {@code binlog_row_image=FULL}, a
 * {@code server_id}). Root has no password and is reached over loopback TCP. Where the binaries are absent, {@link
 * #start} fails the calling test under CI and skips it elsewhere, saying so ({@link RequiredTool}).
 */
public final class BinlogMariaDb implements AutoCloseable {
  private volatile Process process;
  private final int port;
  /** The server's command line and output file, for {@link #restart}. */
  private final List<String> command;
  private final Path log;

  private BinlogMariaDb(Process process, int port, List<String> command, Path log) {
    this.process = process;
    this.port = port;
    this.command = List.copyOf(command);
    this.log = log;
  }

  /**
   * Starts a server with its data under {@code dir}, with {@code options} added to its command line; where MariaDB is
   * absent, {@link RequiredTool} ends the test ({@code what} says what needed it).
   */
  public static BinlogMariaDb start(Path dir, String what, String... options) throws Exception {
    String from = "Debian package mariadb-server, for " + what;
    Path mariadbd = RequiredTool.require("mariadbd", from);
    Path installDb = RequiredTool.require("mariadb-install-db", from);
    Path data = dir.resolve("data");
    List<String> asRoot = "root".equals(System.getProperty("user.name")) ? List.of("--user=root") : List.of();
    List<String> install = new ArrayList<>(List.of(installDb.toString(), "--no-defaults", "--datadir=" + data,
        "--skip-test-db", "--auth-root-authentication-method=normal"));
    install.addAll(asRoot);
    Process p = new ProcessBuilder(install).redirectErrorStream(true).redirectOutput(dir.resolve("install.log").toFile())
        .start();
    assertTrue(p.waitFor(120, TimeUnit.SECONDS) && p.exitValue() == 0, Files.readString(dir.resolve("install.log")));
    int port = TestWorkers.freePort();
    List<String> run = new ArrayList<>(List.of(mariadbd.toString(), "--no-defaults", "--datadir=" + data,
        "--socket=" + dir.resolve("mysqld.sock"), "--pid-file=" + dir.resolve("mysqld.pid"), "--port=" + port,
        "--bind-address=127.0.0.1", "--log-bin=mysql-bin", "--server-id=1", "--binlog-format=ROW",
        "--binlog-row-image=FULL", "--innodb-buffer-pool-size=64M", "--innodb-flush-log-at-trx-commit=0",
        "--character-set-server=utf8mb4", "--collation-server=utf8mb4_general_ci"));
    run.addAll(asRoot);
    run.addAll(List.of(options));
    Process server = new ProcessBuilder(run).redirectErrorStream(true)
        .redirectOutput(dir.resolve("server.log").toFile()).start();
    BinlogMariaDb db = new BinlogMariaDb(server, port, run, dir.resolve("server.log"));
    db.awaitStarted();
    return db;
  }

  private void awaitStarted() throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (true) {
      try (Connection c = connect()) {
        return;
      } catch (SQLException e) {
        if (System.nanoTime() > deadline || !process.isAlive()) {
          close();
          throw new AssertionError("MariaDB did not start: " + Files.readString(log), e);
        }
        Thread.sleep(250);
      }
    }
  }

  /**
   * Restarts the server as an operator does: a clean shutdown (SIGTERM: connections ended, the binary log closed),
   * then the same command line on the same data and port; returns once it accepts connections.
   */
  public synchronized void restart() throws Exception {
    close();
    process = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    awaitStarted();
  }

  /** A Debezium MariaDB source of {@code shop.orders} on this server, as root. */
  public java.util.Map<String, String> sourceConfig(String topicPrefix, String serverId) {
    java.util.Map<String, String> c = new java.util.LinkedHashMap<>();
    c.put("connector.class", "io.debezium.connector.mariadb.MariaDbConnector");
    c.put("database.hostname", "127.0.0.1");
    c.put("database.port", String.valueOf(port));
    c.put("database.user", "root");
    c.put("database.password", "");
    c.put("database.server.id", serverId);
    c.put("topic.prefix", topicPrefix);
    c.put("database.include.list", "shop");
    c.put("table.include.list", "shop.orders");
    c.put("snapshot.locking.mode", "none");
    return c;
  }

  public int port() {
    return port;
  }

  public Connection connect() throws SQLException {
    return DriverManager.getConnection("jdbc:mariadb://127.0.0.1:" + port + "/?user=root");
  }

  public void execute(String... statements) {
    try (Connection c = connect(); Statement s = c.createStatement()) {
      for (String sql : statements) {
        s.execute(sql);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(String.join("; ", statements), e);
    }
  }

  /** The binlog files the server lists (SHOW BINARY LOGS), oldest first. */
  public List<String> binaryLogs() {
    List<String> out = new ArrayList<>();
    try (Connection c = connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW BINARY LOGS")) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return out;
  }

  /** A binlog position: file, offset in it, and the GTID position of the transactions written before it. */
  public record Head(String file, long position, String gtids) {}

  /**
   * Where the next transaction will start: the file and position SHOW MASTER STATUS reports, with the GTID position
   * of the transactions written before it ({@code @@gtid_binlog_pos}, e.g. {@code 0-1-42}).
   */
  public Head head() {
    try (Connection c = connect(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT @@gtid_binlog_pos")) {
      assertTrue(rs.next());
      String gtids = rs.getString(1);
      try (ResultSet status = s.executeQuery("SHOW MASTER STATUS")) {
        assertTrue(status.next(), "SHOW MASTER STATUS is empty: binary logging is off");
        return new Head(status.getString(1), status.getLong(2), gtids);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Purges every binlog file before {@code file}. MariaDB keeps a file until its binlog checkpoint is done and skips
   * it silently in PURGE until then; on a busy machine that takes a moment, so this purges until the server no longer
   * lists the older files.
   */
  public void purgeTo(String file) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!binaryLogs().get(0).equals(file)) {
      execute("PURGE BINARY LOGS TO '" + file + "'");
      assertTrue(System.nanoTime() < deadline, "MariaDB never purged the logs before " + file + ": " + binaryLogs());
      Thread.sleep(100);
    }
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
  }
}
