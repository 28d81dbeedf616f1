package io.sluice.exporter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.sluice.connect.testing.TestWorkers;
import java.io.File;
import java.net.Socket;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The MySQL binlog probe against a real MariaDB server started for the test, with the JDBC driver of the bundled
 * MySQL connector. Debian's {@code mariadb-server} is not installed by the build: without it the test is skipped, and
 * says so.
 */
class MySqlBinlogRetentionTest {
  private static final File SERVER = new File("/usr/sbin/mariadbd");
  private static final File INSTALL_DB = new File("/usr/bin/mariadb-install-db");

  /** A clock the test moves by hand. */
  private static final class ManualClock extends Clock {
    private Instant now = Instant.parse("2026-01-01T00:00:00Z");

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public java.time.ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }
  }

  @Test
  void readsRetentionAndAgesTheOldestLog(@TempDir Path dir) throws Exception {
    if (!SERVER.canExecute() || !INSTALL_DB.canExecute()) {
      System.err.println("SKIPPED: MySQL binlog probe: no MariaDB server (/usr/sbin/mariadbd) on this machine");
      Assumptions.assumeTrue(false, "MariaDB server absent: apt-get install mariadb-server to run this test");
    }
    Path data = dir.resolve("data");
    Process install = new ProcessBuilder(INSTALL_DB.getPath(), "--no-defaults", "--datadir=" + data, "--user=root")
        .redirectErrorStream(true).redirectOutput(dir.resolve("install.log").toFile()).start();
    assertEquals(0, install.waitFor(), Files.readString(dir.resolve("install.log")));
    int port = TestWorkers.freePort();
    Process server = new ProcessBuilder(SERVER.getPath(), "--no-defaults", "--datadir=" + data, "--user=root",
        "--port=" + port, "--bind-address=127.0.0.1", "--socket=" + dir.resolve("sock"), "--skip-grant-tables",
        "--log-bin=" + data.resolve("binlog"), "--server-id=1", "--binlog-expire-logs-seconds=3600")
        .redirectErrorStream(true).redirectOutput(dir.resolve("server.log").toFile()).start();
    try {
      awaitPort(port, server, dir.resolve("server.log"));
      ManualClock clock = new ManualClock();
      SourceRetention probe = SourceRetention.forClass("io.debezium.connector.mysql.MySqlConnector", clock);
      Map<String, String> config = Map.of("database.hostname", "127.0.0.1", "database.port", String.valueOf(port),
          "database.user", "root", "database.password", "");
      String url = probe.jdbcUrl(config);
      Driver driver = connectorDriver(url);
      Properties props = new Properties();
      props.setProperty("user", "root");
      try (Connection db = driver.connect(url, props)) {
        SourceRetention.MySqlReading first = (SourceRetention.MySqlReading) probe.read(db, config);
        assertEquals(3600, first.retentionSeconds());
        assertEquals(0, first.oldestAgeSeconds());
        clock.now = clock.now.plusSeconds(90);
        assertEquals(90, ((SourceRetention.MySqlReading) probe.read(db, config)).oldestAgeSeconds());
        try (Statement s = db.createStatement()) {
          // A new log leaves the oldest one in place: its age goes on.
          s.execute("FLUSH BINARY LOGS");
        }
        clock.now = clock.now.plusSeconds(10);
        assertEquals(100, ((SourceRetention.MySqlReading) probe.read(db, config)).oldestAgeSeconds());
      }
    } finally {
      server.destroy();
      server.waitFor(30, TimeUnit.SECONDS);
    }
  }

  /** The driver from the unpacked MySQL connector plugin, as the exporter finds it in a running worker. */
  private static Driver connectorDriver(String url) throws Exception {
    Path plugin;
    try (Stream<Path> folders = Files.list(TestWorkers.pluginPath())) {
      plugin = folders.filter(f -> f.getFileName().toString().startsWith("debezium-mysql")).findFirst()
          .orElseThrow(() -> new AssertionError("no debezium-mysql plugin folder in " + TestWorkers.pluginPath()));
    }
    List<URL> jars;
    try (Stream<Path> files = Files.walk(plugin)) {
      jars = files.filter(f -> f.toString().endsWith(".jar")).map(f -> {
        try {
          return f.toUri().toURL();
        } catch (java.net.MalformedURLException e) {
          throw new IllegalStateException(e);
        }
      }).toList();
    }
    URLClassLoader loader = new URLClassLoader(jars.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
    for (Driver d : ServiceLoader.load(Driver.class, loader)) {
      if (d.acceptsURL(url)) {
        return d;
      }
    }
    throw new AssertionError("no driver for " + url + " in " + plugin);
  }

  private static void awaitPort(int port, Process server, Path log) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < deadline) {
      assertNotNull(server);
      if (!server.isAlive()) {
        throw new AssertionError("MariaDB exited: " + Files.readString(log));
      }
      try (Socket s = new Socket("127.0.0.1", port)) {
        return;
      } catch (java.io.IOException notYet) {
        Thread.sleep(200);
      }
    }
    throw new AssertionError("MariaDB did not listen within 60 s: " + Files.readString(log));
  }
}
