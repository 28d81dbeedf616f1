package io.sluice.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.connect.testing.Eventually;
import io.sluice.kafka.testing.MariaDbServer;
import io.sluice.connect.testing.Pipeline;
import io.sluice.connect.testing.SharedPostgres;
import io.sluice.connect.testing.ClassWorker;
import io.sluice.connect.testing.ConnectClient;
import io.sluice.kafka.testing.SharedKafka;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Sluice's defaults for a keyed JDBC sink send a batch as multi-row statements and keep one change per key of a batch
 * (ConnectorDefaults). A topic whose every poll holds several changes of the same rows (updates, deletes, the same
 * ids inserted again) must still end equal to the source, through Sluice's sink and Debezium's into PostgreSQL, and
 * through Sluice's into MariaDB: a multi-row upsert that met one key twice would fail in PostgreSQL, and a reduction
 * that lost the order of a delete and an insert would leave the wrong rows.
 */
class BatchedWritesTest {
  @RegisterExtension static final ClassWorker WORKER = new ClassWorker("batched");

  @Test
  void manyChangesOfTheSameRowsInEveryPollEndEqual() {
    ConnectClient rest = WORKER.rest();
    Pipeline pipeline = new Pipeline(SharedKafka.unique("bw"));
    pipeline.insert(1, 300);
    assertEquals(201, rest.create("bw-source", pipeline.sourceConfig(pipeline.name + "_slot", Map.of())).status());
    rest.awaitRunning("bw-source");
    for (int round = 0; round < 3; round++) {
      pipeline.execute(pipeline.sourceDb, "UPDATE orders SET qty = qty + 1");
      pipeline.execute(pipeline.sourceDb, "DELETE FROM orders WHERE id % 10 = " + round);
      pipeline.execute(pipeline.sourceDb, "INSERT INTO orders SELECT g, 'again-' || g, g * 2 FROM"
          + " generate_series(1, 300) g WHERE g % 10 = " + round);
      pipeline.execute(pipeline.sourceDb, "UPDATE orders SET item = item || '+' WHERE id % 7 = " + round);
    }
    pipeline.execute(pipeline.sourceDb, "DELETE FROM orders WHERE id % 10 = 9");
    pipeline.insert(10_000, 10_000);
    // Every change in the topic before a sink reads it: each of its polls then holds many changes of one row.
    Eventually.await("every change in the topic", Duration.ofSeconds(90),
        () -> pipeline.events(0).stream().anyMatch(BatchedWritesTest::isMarker), b -> b);

    Map<String, String> sluiceSink = new LinkedHashMap<>(pipeline.sinkConfig());
    sluiceSink.put("connector.class", "io.sluice.sink.jdbc.SluiceJdbcSinkConnector");
    assertEquals(201, rest.create("bw-sink", sluiceSink).status());
    String plainDb = pipeline.name + "_plain";
    SharedPostgres.createDatabase(plainDb);
    Map<String, String> plainSink = new LinkedHashMap<>(pipeline.sinkConfig());
    plainSink.put("connection.url", SharedPostgres.jdbcUrl(plainDb));
    assertEquals(201, rest.create("bw-plain-sink", plainSink).status());

    JsonNode filled = rest.call("GET", "/connectors/bw-sink/config", null).json();
    assertEquals("true", filled.path("use.reduction.buffer").asText(), filled.toString());
    assertEquals("reWriteBatchedInserts=true;stringtype=unspecified", filled.path("hibernate.agroal.jdbcProperties").asText(),
        filled.toString());

    Map<Integer, String> expected = pipeline.rows(pipeline.sourceDb);
    assertEquals(expected, pipeline.awaitSinkMatchesSource());
    assertEquals(expected, Eventually.await("Debezium's sink equal to the source", Duration.ofSeconds(90),
        () -> pipeline.rows(plainDb), expected::equals));
    // Started once the others run: Debezium's own sink (bw-plain-sink) shares its column types with every sink of the
    // worker and would take MariaDB's into a PostgreSQL CREATE TABLE (longtext); Sluice's gives each task types of its
    // own (SinkDialects, MixedDatabaseSinksTest), Debezium's is as upstream.
    // Another database of the same server has a table of the same name: the sink must find and fill its own.
    String decoyUrl = MariaDbServer.createDatabase(pipeline.name + "_decoy");
    try (Connection c = DriverManager.getConnection(decoyUrl); java.sql.Statement s = c.createStatement()) {
      s.execute("CREATE TABLE orders (other int PRIMARY KEY)");
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    String mariaUrl = MariaDbServer.createDatabase(pipeline.name + "_maria");
    Map<String, String> mariaSink = new LinkedHashMap<>(sluiceSink);
    mariaSink.put("connection.url", mariaUrl);
    mariaSink.put("connection.username", "root");
    mariaSink.remove("connection.password");
    assertEquals(201, rest.create("bw-maria-sink", mariaSink).status());
    try {
      assertEquals(expected, Eventually.await("the MariaDB sink equal to the source", Duration.ofSeconds(90),
          () -> Pipeline.rowsAt(mariaUrl), expected::equals));
      assertEquals("RUNNING", rest.call("GET", "/connectors/bw-maria-sink/status", null).json().path("tasks").path(0)
          .path("state").asText());
      assertEquals("nullDatabaseMeansCurrent=true", rest.call("GET", "/connectors/bw-maria-sink/config", null).json()
          .path("hibernate.agroal.jdbcProperties").asText());
    } finally {
      assertEquals(204, rest.call("DELETE", "/connectors/bw-maria-sink", null).status());
      for (String url : new String[] {mariaUrl, decoyUrl}) {
        try (Connection c = DriverManager.getConnection(url); java.sql.Statement s = c.createStatement()) {
          s.execute("DROP DATABASE " + c.getCatalog());
        } catch (SQLException e) {
          throw new IllegalStateException(e);
        }
      }
    }
    for (String sink : new String[] {"bw-sink", "bw-plain-sink"}) {
      assertEquals("RUNNING", rest.call("GET", "/connectors/" + sink + "/status", null).json().path("tasks").path(0)
          .path("state").asText(), sink);
    }
  }

  private static boolean isMarker(JsonNode event) {
    return event.path("after").path("id").asInt() == 10_000;
  }
}
