package io.sluice.exporter;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.connect.testing.BinlogMariaDb;
import io.sluice.connect.testing.TestWorkers;
import io.sluice.testing.TestClock;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The MySQL binlog probe against a real MariaDB server started for the test, with the JDBC driver of the bundled
 * MySQL connector. Debian's {@code mariadb-server} is not installed by the build ({@code .ci/run} installs it): without
 * it the test fails under CI and is skipped elsewhere, saying so.
 */
class MySqlBinlogRetentionTest {
  @Test
  void readsRetentionAndAgesTheOldestLog(@TempDir Path dir) throws Exception {
    try (BinlogMariaDb server = BinlogMariaDb.start(dir, "the MySQL binlog probe",
        "--binlog-expire-logs-seconds=3600")) {
      int port = server.port();
      TestClock clock = new TestClock(Instant.parse("2026-01-01T00:00:00Z"));
      SourceRetention probe = SourceRetention.forClass("io.debezium.connector.mysql.MySqlConnector", clock);
      Map<String, String> config = Map.of("connector.class", "io.debezium.connector.mysql.MySqlConnector",
          "database.hostname", "127.0.0.1", "database.port", String.valueOf(port), "database.user", "root",
          "database.password", "");
      String url = io.sluice.source.SourceConnection.of(config, io.sluice.source.SourceConnection.Secrets.AS_GIVEN)
          .jdbcUrl();
      Driver driver = connectorDriver(url);
      Properties props = new Properties();
      props.setProperty("user", "root");
      try (Connection db = driver.connect(url, props)) {
        SourceRetention.MySqlReading first = read(probe, db, config);
        assertEquals(3600, first.retentionSeconds());
        assertEquals(0, first.oldestAgeSeconds());
        clock.advance(Duration.ofSeconds(90));
        assertEquals(90, read(probe, db, config).oldestAgeSeconds());
        try (Statement s = db.createStatement()) {
          // A new log leaves the oldest one in place: its age goes on.
          s.execute("FLUSH BINARY LOGS");
        }
        clock.advance(Duration.ofSeconds(10));
        assertEquals(100, read(probe, db, config).oldestAgeSeconds());

        // The same session serves a snapshot's row estimates: every table in one statement.
        try (Statement s = db.createStatement()) {
          s.execute("CREATE DATABASE shop");
          s.execute("CREATE TABLE shop.orders (id int PRIMARY KEY) ENGINE=InnoDB");
          s.execute("INSERT INTO shop.orders VALUES (1), (2), (3)");
          s.execute("ANALYZE TABLE shop.orders");
        }
        Map<String, Long> estimates = RowEstimates.forClass("io.debezium.connector.mysql.MySqlConnector").read(db,
            List.of("shop.orders", "shop.missing"));
        assertEquals(Set.of("shop.orders"), estimates.keySet());
      }
    }
  }

  /** What the probe reads for one connector of the server. */
  private static SourceRetention.MySqlReading read(SourceRetention probe, Connection db, Map<String, String> config)
      throws java.sql.SQLException {
    return (SourceRetention.MySqlReading) probe.read(db, Map.of("mysql-source", config)).get("mysql-source");
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
}
