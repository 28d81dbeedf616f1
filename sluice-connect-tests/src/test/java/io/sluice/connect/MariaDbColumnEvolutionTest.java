package io.sluice.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.connect.testing.Eventually;
import io.sluice.kafka.testing.MariaDbServer;
import io.sluice.connect.testing.Pipeline;
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
 * Live schema evolution into MariaDB through Sluice's JDBC sink in a real worker, from a real PostgreSQL source: while
 * the pipeline runs, the source's {@code qty} is widened from int to bigint, its {@code note} from varchar(20) to
 * text, its NOT NULL {@code item} is dropped, and a NOT NULL text column with a default is added. Debezium's basic evolution only adds columns, so without Sluice's
 * the first wider value or the first row without {@code item} failed the sink; the MariaDB table follows instead, and
 * every row arrives.
 */
class MariaDbColumnEvolutionTest {
  @RegisterExtension static final ClassWorker WORKER = new ClassWorker("mevo");

  @Test
  void widenedAndDroppedSourceColumnsAreFollowedInMariaDb() throws Exception {
    ConnectClient rest = WORKER.rest();
    MariaDbServer.require();
    Pipeline pipeline = new Pipeline(SharedKafka.unique("mevo"));
    pipeline.execute(pipeline.sourceDb, "ALTER TABLE public.orders ADD note varchar(20)");
    pipeline.insert(1, 20);
    String mariaUrl = MariaDbServer.createDatabase(pipeline.name + "_maria");
    Map<String, String> sink = new LinkedHashMap<>(pipeline.sinkConfig());
    sink.put("connector.class", "io.sluice.sink.jdbc.SluiceJdbcSinkConnector");
    sink.put("connection.url", mariaUrl);
    sink.put("connection.username", "root");
    sink.remove("connection.password");
    try {
      assertEquals(201, rest.create("mevo-sink", sink).status());
      rest.awaitRunning("mevo-sink");
      assertEquals(201, rest.create("mevo-source", pipeline.sourceConfig(pipeline.name + "_slot", Map.of())).status());
      rest.awaitRunning("mevo-source");
      await(mariaUrl, "SELECT count(*) FROM orders", "20");
      Map<String, String> before = columns(mariaUrl);
      assertEquals("int(11) NOT NULL", before.get("qty"), before.toString());

      pipeline.execute(pipeline.sourceDb, "ALTER TABLE public.orders ALTER qty TYPE bigint, ALTER note TYPE text");
      pipeline.execute(pipeline.sourceDb, "INSERT INTO public.orders VALUES (21, 'item-21', 3000000000,"
          + " repeat('n', 40))");
      await(mariaUrl, "SELECT concat(qty, ' ', length(note)) FROM orders WHERE id = 21", "3000000000 40");

      pipeline.execute(pipeline.sourceDb, "ALTER TABLE public.orders DROP COLUMN item");
      pipeline.execute(pipeline.sourceDb, "INSERT INTO public.orders (id, qty, note) VALUES (22, 7, 'x')");
      await(mariaUrl, "SELECT concat(qty, ' ', coalesce(item, 'NULL')) FROM orders WHERE id = 22", "7 NULL");

      // A NOT NULL text column with a default: the rows already there hold the default at the source, and must at
      // the sink (Debezium's MySQL dialect would add the column without it, and MariaDB fill them with '').
      pipeline.execute(pipeline.sourceDb, "ALTER TABLE public.orders ADD COLUMN region text NOT NULL DEFAULT 'eu'");
      pipeline.execute(pipeline.sourceDb, "INSERT INTO public.orders (id, qty, note, region) VALUES (23, 8, 'y', 'us')");
      await(mariaUrl, "SELECT region FROM orders WHERE id = 23", "us");
      assertEquals("eu", query(mariaUrl, "SELECT region FROM orders WHERE id = 5"),
          "a row written before the column was added holds its default, as at the source");

      Map<String, String> after = columns(mariaUrl);
      assertEquals("bigint(20) NOT NULL", after.get("qty"), after.toString());
      assertEquals("longtext NULL", after.get("note"), after.toString());
      assertEquals("longtext NULL", after.get("item"), "a dropped column takes NULLs, and stays: " + after);
      assertEquals("item-5 5", query(mariaUrl, "SELECT concat(item, ' ', qty) FROM orders WHERE id = 5"),
          "rows written before keep their values");
      assertEquals("RUNNING", rest.call("GET", "/connectors/mevo-sink/status", null).json().path("tasks").path(0)
          .path("state").asText());
    } finally {
      for (String c : new String[] {"mevo-source", "mevo-sink"}) {
        rest.call("DELETE", "/connectors/" + c, null);
      }
      try (Connection c = DriverManager.getConnection(mariaUrl); Statement s = c.createStatement()) {
        s.execute("DROP DATABASE " + c.getCatalog());
      }
    }
  }

  private static void await(String url, String sql, String want) {
    Eventually.await(sql + " = " + want, Duration.ofSeconds(90), () -> {
      try {
        return query(url, sql);
      } catch (SQLException notYet) {
        return null;
      }
    }, want::equals);
  }

  private static String query(String url, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      return rs.next() ? rs.getString(1) : null;
    }
  }

  /** The orders table's columns: type and nullability as MariaDB's catalog names them. */
  private static Map<String, String> columns(String url) throws SQLException {
    Map<String, String> out = new TreeMap<>();
    try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT column_name, concat(column_type, IF(is_nullable = 'NO', ' NOT NULL',"
            + " ' NULL')) FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'orders'")) {
      while (rs.next()) {
        out.put(rs.getString(1), rs.getString(2));
      }
    }
    return out;
  }
}
