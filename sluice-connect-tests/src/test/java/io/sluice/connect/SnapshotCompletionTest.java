package io.sluice.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.connect.testing.Eventually;
import io.sluice.kafka.testing.MariaDbServer;
import io.sluice.connect.testing.Pipeline;
import io.sluice.connect.testing.SharedPostgres;
import io.sluice.connect.testing.ClassWorker;
import io.sluice.connect.testing.ConnectClient;
import io.sluice.kafka.testing.SharedKafka;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The hole a snapshot leaves: a source that streamed a row and then started over without a committed offset takes a
 * fresh snapshot, and a row deleted in between has an insert in the topic and never a delete. Sluice's JDBC sink
 * removes it once the new snapshot is written, into PostgreSQL and MariaDB, also when the sink stopped in the middle
 * of the snapshot; Debezium's, reading the same topic into another database, keeps it (the control that shows this
 * test would fail without the fix).
 */
class SnapshotCompletionTest {
  private static final String SLUICE_SINK = "io.sluice.sink.jdbc.SluiceJdbcSinkConnector";
  @RegisterExtension static final ClassWorker WORKER = new ClassWorker("snapshot-end");

  @Test
  void aRowDeletedBetweenTwoSnapshotsLeavesTheSink() {
    ConnectClient rest = WORKER.rest();
    Pipeline pipeline = new Pipeline(SharedKafka.unique("se"));
    String plainDb = pipeline.name + "_plain";
    SharedPostgres.createDatabase(plainDb);
    pipeline.insert(1, 50);
    assertEquals(201, rest.create("se-source", pipeline.sourceConfig(pipeline.name + "_slot", Map.of())).status());
    assertEquals(201, rest.create("se-sink", sluiceSink(pipeline)).status(), "the Sluice sink class is in the plugin"
        + " folder");
    Map<String, String> plainSink = new LinkedHashMap<>(pipeline.sinkConfig());
    plainSink.put("connection.url", SharedPostgres.jdbcUrl(plainDb));
    assertEquals(201, rest.create("se-plain-sink", plainSink).status());
    rest.awaitRunning("se-source");
    rest.awaitRunning("se-sink");
    pipeline.awaitSinkMatchesSource();

    pipeline.insert(101, 101);
    Eventually.await("row 101 streamed to both sinks", Duration.ofSeconds(60),
        () -> pipeline.rows(pipeline.sinkDb).containsKey(101) && pipeline.rows(plainDb).containsKey(101), b -> b);
    startOver(pipeline, "se-source", "DELETE FROM orders WHERE id = 101", "UPDATE orders SET qty = 7 WHERE id <= 7");

    Map<Integer, String> sink = pipeline.awaitSinkMatchesSource();
    assertFalse(sink.containsKey(101), "the Sluice sink still holds the row deleted between the snapshots");
    assertEquals(50, sink.size());
    Map<Integer, String> plain = Eventually.await("the second snapshot in Debezium's sink", Duration.ofSeconds(60),
        () -> pipeline.rows(plainDb), rows -> "item-7:7".equals(rows.get(7)));
    assertTrue(plain.containsKey(101), () -> "Debezium's own sink no longer shows the hole: " + plain.keySet()
        + "; events of 101 in the topic: " + pipeline.events(0).stream()
            .filter(e -> e.toString().contains("\"id\":101")).toList());

    // Changes streamed after the snapshot keep flowing through the Sluice sink.
    pipeline.insert(200, 210);
    pipeline.execute(pipeline.sourceDb, "DELETE FROM orders WHERE id = 3");
    assertEquals(60, pipeline.awaitSinkMatchesSource().size());
    assertEquals(Optional.empty(), window(pipeline, "se-sink"), "the window's state is dropped at its end");
  }

  @Test
  void aRowDeletedBetweenTwoSnapshotsLeavesAMariaDbSink() {
    ConnectClient rest = WORKER.rest();
    Pipeline pipeline = new Pipeline(SharedKafka.unique("sm"));
    String sinkUrl = MariaDbServer.createDatabase(pipeline.name + "_maria");
    Map<String, String> sink = sluiceSink(pipeline);
    sink.put("connection.url", sinkUrl);
    sink.put("connection.username", "root");
    sink.remove("connection.password");
    pipeline.insert(1, 50);
    assertEquals(201, rest.create("sm-source", pipeline.sourceConfig(pipeline.name + "_slot", Map.of())).status());
    assertEquals(201, rest.create("sm-sink", sink).status());
    rest.awaitRunning("sm-sink");
    awaitMariaDbMatchesSource(pipeline, sinkUrl);

    pipeline.insert(101, 101);
    Eventually.await("row 101 streamed to MariaDB", Duration.ofSeconds(60),
        () -> Pipeline.rowsAt(sinkUrl).containsKey(101), b -> b);
    startOver(pipeline, "sm-source", "DELETE FROM orders WHERE id = 101", "UPDATE orders SET qty = 7 WHERE id <= 7");

    Eventually.await("the second snapshot in MariaDB", Duration.ofSeconds(60), () -> Pipeline.rowsAt(sinkUrl),
        rows -> "item-7:7".equals(rows.get(7)));
    Map<Integer, String> rows = awaitMariaDbMatchesSource(pipeline, sinkUrl);
    assertFalse(rows.containsKey(101), "the MariaDB sink still holds the row deleted between the snapshots");
    pipeline.insert(200, 210);
    pipeline.execute(pipeline.sourceDb, "DELETE FROM orders WHERE id = 3");
    assertEquals(60, awaitMariaDbMatchesSource(pipeline, sinkUrl).size());
  }

  @Test
  void aSinkStoppedMidSnapshotTakesItUpFromItsCommittedOffset() throws InterruptedException {
    ConnectClient rest = WORKER.rest();
    int rows = 30_000;
    Pipeline pipeline = new Pipeline(SharedKafka.unique("sr"));
    pipeline.insert(1, rows);
    Map<String, String> sink = sluiceSink(pipeline);
    sink.put("consumer.override.max.poll.records", "200"); // puts small enough to stop the sink in the middle
    assertEquals(201, rest.create("sr-source", pipeline.sourceConfig(pipeline.name + "_slot", Map.of())).status());
    assertEquals(201, rest.create("sr-sink", sink).status());
    rest.awaitRunning("sr-sink");
    pipeline.awaitSinkMatchesSource();
    pipeline.insert(rows + 1, rows + 1);
    Eventually.await("the streamed row in the sink", Duration.ofSeconds(60),
        () -> pipeline.rows(pipeline.sinkDb).containsKey(rows + 1), b -> b);
    long before = pipeline.endOffset();

    startOver(pipeline, "sr-source", "DELETE FROM orders WHERE id = " + (rows + 1));
    long[] window;
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    while (true) {
      Optional<long[]> w = window(pipeline, "sr-sink");
      if (w.isPresent() && w.get()[0] >= before && w.get()[1] - w.get()[0] >= 2_000) {
        window = w.get();
        break;
      }
      assertTrue(System.nanoTime() < deadline, "the sink never got 2,000 records into the new snapshot");
      Thread.sleep(20);
    }
    assertEquals(204, rest.call("PUT", "/connectors/sr-sink/stop", null).status());
    rest.awaitState("sr-sink", "STOPPED");
    long committed = rest.call("GET", "/connectors/sr-sink/offsets", null).json()
        .at("/offsets/0/offset/kafka_offset").asLong();
    long[] stopped = window(pipeline, "sr-sink").orElseThrow(() -> new AssertionError("the sink finished the"
        + " snapshot before it was stopped: nothing was tested"));
    assertEquals(window[0], stopped[0]);
    assertTrue(committed > stopped[0] && committed <= stopped[1], "the sink committed offset " + committed
        + " for a window from " + stopped[0] + " written up to " + stopped[1]
        + ": it would read the snapshot again from its start");

    assertEquals(202, rest.call("PUT", "/connectors/sr-sink/resume", null).status());
    Map<Integer, String> after = pipeline.awaitSinkMatchesSource();
    assertFalse(after.containsKey(rows + 1), "the sink still holds the row deleted between the snapshots");
    assertEquals(rows, after.size());
    assertEquals(Optional.empty(), window(pipeline, "sr-sink"));
  }

  private static Map<String, String> sluiceSink(Pipeline pipeline) {
    Map<String, String> config = new LinkedHashMap<>(pipeline.sinkConfig());
    config.put("connector.class", SLUICE_SINK);
    return config;
  }

  /**
   * The source starts over as if it had never committed an offset: stopped, its offsets deleted and its slot dropped
   * (as for a source that never confirmed a position: otherwise Debezium may stream the changes below from the old
   * slot after its snapshot, and the hole this test is about would not open); {@code whileStopped} runs on the source
   * database; resumed, it takes a new snapshot.
   */
  private static void startOver(Pipeline pipeline, String source, String... whileStopped) {
    ConnectClient rest = WORKER.rest();
    assertEquals(204, rest.call("PUT", "/connectors/" + source + "/stop", null).status());
    rest.awaitState(source, "STOPPED");
    var reset = rest.call("DELETE", "/connectors/" + source + "/offsets", null);
    assertEquals(200, reset.status(), reset.body());
    String slot = pipeline.name + "_slot";
    Eventually.await("the stopped source lets go of its slot", Duration.ofSeconds(60), () -> {
      try (var c = SharedPostgres.connect(pipeline.sourceDb); var s = c.createStatement()) {
        s.execute("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '"
            + slot + "'");
        return true;
      } catch (SQLException stillActive) {
        return false;
      }
    }, dropped -> dropped);
    for (String sql : whileStopped) {
      pipeline.execute(pipeline.sourceDb, sql);
    }
    assertEquals(202, rest.call("PUT", "/connectors/" + source + "/resume", null).status());
    rest.awaitRunning(source);
  }

  /** The first offset and the offset written up to of the sink's open window on the topic, if it has one. */
  private static Optional<long[]> window(Pipeline pipeline, String sink) {
    try (Connection c = SharedPostgres.connect(pipeline.sinkDb); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT first_offset, next_offset FROM sluice_snapshot_windows"
            + " WHERE connector = '" + sink + "'")) {
      return rs.next() ? Optional.of(new long[] {rs.getLong(1), rs.getLong(2)}) : Optional.empty();
    } catch (SQLException e) {
      if ("42P01".equals(e.getSQLState())) {
        return Optional.empty();
      }
      throw new IllegalStateException(e);
    }
  }

  private static Map<Integer, String> awaitMariaDbMatchesSource(Pipeline pipeline, String url) {
    Map<Integer, String> expected = pipeline.rows(pipeline.sourceDb);
    return Eventually.await("MariaDB sink equal to source " + expected.size() + " rows", Duration.ofSeconds(90),
        () -> Pipeline.rowsAt(url), expected::equals);
  }
}
