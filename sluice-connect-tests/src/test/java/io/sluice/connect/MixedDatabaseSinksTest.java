package io.sluice.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.connect.testing.Eventually;
import io.sluice.kafka.testing.MariaDbServer;
import io.sluice.connect.testing.Pipeline;
import io.sluice.connect.testing.SharedPostgres;
import io.sluice.connect.testing.ClassWorker;
import io.sluice.connect.testing.ConnectClient;
import io.sluice.kafka.testing.SharedKafka;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Sluice's JDBC sink into PostgreSQL and into MariaDB in one worker, the PostgreSQL one creating its table after the
 * MariaDB one started. Debezium's column types are shared by every sink task of the worker and answer for the dialect
 * of the task that started last: without {@code SinkDialects}, which gives each task's dialect types of its own, the
 * PostgreSQL sink would create its table with MariaDB's type names ({@code longtext}, which PostgreSQL refuses) and
 * fail; and neither sink waits for the other's database.
 */
class MixedDatabaseSinksTest {
  @RegisterExtension static final ClassWorker WORKER = new ClassWorker("mixed");

  @Test
  void postgresAndMariaDbSinksEachCreateTheirTablesWithTheirOwnTypes() throws Exception {
    ConnectClient rest = WORKER.rest();
    MariaDbServer.require();
    Pipeline pipeline = new Pipeline(SharedKafka.unique("mx"));
    pipeline.insert(1, 500);

    // The PostgreSQL sink first, before its topic has a record: its table is made only once records come.
    Map<String, String> postgresSink = sluiceSink(pipeline);
    assertEquals(201, rest.create("mx-pg-sink", postgresSink).status());
    rest.awaitRunning("mx-pg-sink");
    // Then the MariaDB sink, the last to start: Debezium's shared types now answer for MariaDB.
    String mariaUrl = MariaDbServer.createDatabase(pipeline.name + "_maria");
    Map<String, String> mariaSink = inMariaDb(postgresSink, mariaUrl);
    assertEquals(201, rest.create("mx-maria-sink", mariaSink).status());
    rest.awaitRunning("mx-maria-sink");

    try {
      assertEquals(201, rest.create("mx-source", pipeline.sourceConfig(pipeline.name + "_slot", Map.of())).status());
      rest.awaitRunning("mx-source");
      pipeline.execute(pipeline.sourceDb, "UPDATE orders SET qty = qty * 2 WHERE id % 3 = 0");
      pipeline.execute(pipeline.sourceDb, "DELETE FROM orders WHERE id % 7 = 0");
      pipeline.insert(501, 600);

      Map<Integer, String> expected = pipeline.rows(pipeline.sourceDb);
      assertEquals(expected, pipeline.awaitSinkMatchesSource());
      assertEquals(expected, Eventually.await("the MariaDB sink equal to the source", Duration.ofSeconds(90),
          () -> Pipeline.rowsAt(mariaUrl), expected::equals));
      assertRunning(rest, "mx-pg-sink", "mx-maria-sink");
      // Each table in its own database's words for the same Connect string and int32 fields.
      assertEquals(Map.of("id", "integer", "item", "text", "qty", "integer"),
          orderColumns(SharedPostgres.connect(pipeline.sinkDb), "current_schema()"));
      assertEquals(Map.of("id", "int", "item", "longtext", "qty", "int"),
          orderColumns(DriverManager.getConnection(mariaUrl), "DATABASE()"));
    } finally {
      removeAll(rest, mariaUrl, "mx-source", "mx-pg-sink", "mx-maria-sink");
    }
  }

  /**
   * Debezium's own JDBC sink, started in the same worker, points the shared types at MariaDB's dialect; Sluice's
   * PostgreSQL sink, whose types are its own, still makes its table in PostgreSQL's words.
   */
  @Test
  void debeziumsOwnSinkStartingBesideItLeavesAPostgresSinkItsTypes() throws Exception {
    ConnectClient rest = WORKER.rest();
    MariaDbServer.require();
    Pipeline pipeline = new Pipeline(SharedKafka.unique("dz"));
    pipeline.insert(1, 200);
    Map<String, String> postgresSink = sluiceSink(pipeline);
    assertEquals(201, rest.create("dz-pg-sink", postgresSink).status());
    rest.awaitRunning("dz-pg-sink");
    String mariaUrl = MariaDbServer.createDatabase(pipeline.name + "_maria");
    Map<String, String> debezium = inMariaDb(postgresSink, mariaUrl);
    debezium.put("connector.class", "io.debezium.connector.jdbc.JdbcSinkConnector");
    // A topic nobody writes: its start alone is what moves the types.
    debezium.put("topics", pipeline.name + "-nothing");
    debezium.remove("topics.regex");
    try {
      assertEquals(201, rest.create("dz-maria-debezium", debezium).status());
      rest.awaitRunning("dz-maria-debezium");
      assertEquals(201, rest.create("dz-source", pipeline.sourceConfig(pipeline.name + "_slot", Map.of())).status());
      rest.awaitRunning("dz-source");
      Map<Integer, String> expected = pipeline.rows(pipeline.sourceDb);
      assertEquals(expected, pipeline.awaitSinkMatchesSource());
      assertEquals(Map.of("id", "integer", "item", "text", "qty", "integer"),
          orderColumns(SharedPostgres.connect(pipeline.sinkDb), "current_schema()"));
    } finally {
      removeAll(rest, mariaUrl, "dz-source", "dz-pg-sink", "dz-maria-debezium");
    }
  }

  /**
   * A MariaDB sink whose put waits on a row lock that another MariaDB transaction holds stalls no other sink of the
   * worker: the PostgreSQL sink beside it writes every change that comes meanwhile, and once the lock is released the
   * MariaDB sink writes them too.
   */
  @Test
  void aMariaDbSinkWaitingOnARowLockHoldsUpNoPostgresSink() throws Exception {
    ConnectClient rest = WORKER.rest();
    MariaDbServer.require();
    Pipeline pipeline = new Pipeline(SharedKafka.unique("lk"));
    pipeline.insert(1, 100);
    Map<String, String> postgresSink = sluiceSink(pipeline);
    String mariaUrl = MariaDbServer.createDatabase(pipeline.name + "_maria");
    // Its put waits for the lock for as long as the test holds it, not InnoDB's default 50 s.
    Map<String, String> mariaSink =
        inMariaDb(postgresSink, mariaUrl + "&sessionVariables=innodb_lock_wait_timeout=600");
    try {
      assertEquals(201, rest.create("lk-pg-sink", postgresSink).status());
      assertEquals(201, rest.create("lk-maria-sink", mariaSink).status());
      rest.awaitRunning("lk-pg-sink");
      rest.awaitRunning("lk-maria-sink");
      assertEquals(201, rest.create("lk-source", pipeline.sourceConfig(pipeline.name + "_slot", Map.of())).status());
      rest.awaitRunning("lk-source");
      Map<Integer, String> snapshot = pipeline.rows(pipeline.sourceDb);
      assertEquals(snapshot, pipeline.awaitSinkMatchesSource());
      Eventually.await("the MariaDB sink equal to the source", Duration.ofSeconds(90), () -> Pipeline.rowsAt(mariaUrl),
          snapshot::equals);

      try (Connection holder = DriverManager.getConnection(mariaUrl); Statement s = holder.createStatement()) {
        holder.setAutoCommit(false);
        s.executeQuery("SELECT * FROM orders WHERE id = 5 FOR UPDATE").close();
        pipeline.execute(pipeline.sourceDb, "UPDATE orders SET qty = qty + 1000 WHERE id = 5");
        pipeline.insert(101, 150);
        Map<Integer, String> expected = pipeline.rows(pipeline.sourceDb);

        Eventually.await("the MariaDB sink's put waiting on the row lock", Duration.ofSeconds(90),
            () -> lockWaits(mariaUrl), n -> n > 0);
        assertEquals(expected, pipeline.awaitSinkMatchesSource(), "the PostgreSQL sink writes while MariaDB's waits");
        assertTrue(lockWaits(mariaUrl) > 0, "the MariaDB sink's put still waits on the lock");
        assertNotEquals(expected, Pipeline.rowsAt(mariaUrl));

        holder.rollback();
        assertEquals(expected, Eventually.await("the MariaDB sink equal to the source once the lock is released",
            Duration.ofSeconds(90), () -> Pipeline.rowsAt(mariaUrl), expected::equals));
      }
      assertRunning(rest, "lk-pg-sink", "lk-maria-sink");
    } finally {
      removeAll(rest, mariaUrl, "lk-source", "lk-pg-sink", "lk-maria-sink");
    }
  }

  /** The pipeline's PostgreSQL sink, of Sluice's connector class. */
  private static Map<String, String> sluiceSink(Pipeline pipeline) {
    Map<String, String> sink = new LinkedHashMap<>(pipeline.sinkConfig());
    sink.put("connector.class", "io.sluice.sink.jdbc.SluiceJdbcSinkConnector");
    return sink;
  }

  /** {@code sink} writing into the MariaDB database at {@code url} instead. */
  private static Map<String, String> inMariaDb(Map<String, String> sink, String url) {
    Map<String, String> maria = new LinkedHashMap<>(sink);
    maria.put("connection.url", url);
    maria.put("connection.username", "root");
    maria.remove("connection.password");
    return maria;
  }

  private static void assertRunning(ConnectClient rest, String... connectors) {
    for (String c : connectors) {
      assertEquals("RUNNING", rest.call("GET", "/connectors/" + c + "/status", null).json().path("tasks")
          .path(0).path("state").asText(), c);
    }
  }

  /** Deletes {@code connectors} and drops the MariaDB database at {@code mariaUrl}. */
  private static void removeAll(ConnectClient rest, String mariaUrl, String... connectors) throws SQLException {
    for (String c : connectors) {
      rest.call("DELETE", "/connectors/" + c, null);
    }
    try (Connection c = DriverManager.getConnection(mariaUrl); Statement s = c.createStatement()) {
      s.execute("DROP DATABASE " + c.getCatalog());
    }
  }

  /** How many of the MariaDB server's transactions wait for a lock now. */
  private static int lockWaits(String mariaUrl) {
    try (Connection c = DriverManager.getConnection(mariaUrl); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM information_schema.innodb_trx"
            + " WHERE trx_state = 'LOCK WAIT'")) {
      rs.next();
      return rs.getInt(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The orders table's columns and their types as the database names them; {@code schema} is its current one. */
  private static Map<String, String> orderColumns(Connection c, String schema) throws SQLException {
    try (c; Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT column_name, data_type FROM information_schema.columns"
            + " WHERE table_schema = " + schema + " AND table_name = 'orders'")) {
      Map<String, String> out = new TreeMap<>();
      while (rs.next()) {
        out.put(rs.getString(1), rs.getString(2));
      }
      return out;
    }
  }
}
