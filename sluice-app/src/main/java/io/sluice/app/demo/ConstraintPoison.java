package io.sluice.app.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.connect.client.ConnectRestClient;
import io.sluice.topics.KafkaCluster;
import io.sluice.topics.TransactionMarkers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The {@code poison --no-dlq} fault: a change the copy's own SQL refuses. The copy's {@code orders} table gets a CHECK
 * constraint the shop's does not have (only the statuses the shop's load writes), then one order's status is set to
 * one outside it and, once the sink has failed on that, to one inside. The sink's task fails on the first change and
 * stays failed: the fault first sets the sink to fail on a record its database refuses (by default Sluice's sink sends
 * it to its dead letter queue), so this is what Debezium's sink, or any sink without a dead letter queue, does on a
 * poison record.
 * Skipping that one record with {@code sluice offsets skip} lets the second change bring the row to where the shop
 * has it, so the two sides end equal.
 *
 * <p>The load is held and the sink left to catch up first, so that the refused change is the first record of the batch
 * the sink fails on: its committed position is then that very record, as the operator finds it.
 */
final class ConstraintPoison {
  static final String CONSTRAINT = "orders_known_status";
  static final String REFUSED_STATUS = "returned";
  static final String TOPIC = "demo.public.orders";
  private static final Duration WAIT = Duration.ofSeconds(60);

  private final ShopDatabases dbs;
  private final ConnectRestClient connect;
  private final KafkaCluster cluster;
  private final Path dir;

  ConstraintPoison(ShopDatabases dbs, ConnectRestClient connect, KafkaCluster cluster, Path dir) {
    this.dbs = dbs;
    this.connect = connect;
    this.cluster = cluster;
    this.dir = dir;
  }

  /** Applies the fault; returns what happened and how to recover. */
  String apply() throws IOException, SQLException, InterruptedException {
    hold();
    try {
      long order = latestOrder();
      failOnRefusedRecords();
      awaitSinkCaughtUp();
      guardTheCopy();
      try (Connection c = dbs.source()) {
        c.setAutoCommit(true);
        setStatus(c, order, REFUSED_STATUS);
        // Only once the sink has failed: in one batch with the refused change, the sink's reduction buffer would keep
        // only the last change of the order, which the constraint accepts, and nothing would fail.
        awaitSinkFailed();
        setStatus(c, order, "delivered");
      }
      Long offset = committed().get(new TopicPartition(TOPIC, 0));
      String at = offset == null ? "--offset O" : "--offset " + offset;
      return "order " + order + "'s status went to '" + REFUSED_STATUS + "' and, once the sink failed on it, to"
          + " 'delivered' in the shop. The copy's orders table has a CHECK constraint the shop's has not (" + CONSTRAINT + ": the"
          + " statuses the load writes), so " + DemoCommand.SINK + "'s task failed on the first change, " + TOPIC
          + " partition 0" + (offset == null ? "" : " offset " + offset) + ", and stays failed: the fault set the sink"
          + " to fail on a record its database refuses (" + REFUSED + "=fail; by default Sluice's sink sends it to"
          + " its dead letter queue and writes the rest), as Debezium's sink and any sink without a dead letter queue"
          + " fail on a poison record."
          + " ConnectConnectorDown fires for it after 2 minutes. Look: ./sluice connectors describe "
          + DemoCommand.SINK + ". Recover: ./sluice offsets skip " + DemoCommand.SINK + " --topic " + TOPIC
          + " --partition 0 " + at + " --to-dlq (the record is kept in " + DemoCommand.SINK + ".dlq; the change after"
          + " it brings order " + order + " to where the shop has it, and ./sluice demo --check then finds the tables"
          + " equal). ./sluice demo fault recover does not skip it: the sink would fail on it again.";
    } finally {
      Files.deleteIfExists(dir.resolve("hold"));
    }
  }

  /**
   * Has the sink fail on a record its database refuses ({@code sluice.sink.refused=fail}) instead of sending it to its
   * dead letter queue, as Sluice's sink does by default, and waits for its task to run with that: this fault
   * rehearses a sink that fails on a poison record, as Debezium's does and any sink without a dead letter queue.
   */
  private void failOnRefusedRecords() throws InterruptedException {
    ObjectNode config = connect.config(DemoCommand.SINK).orElseThrow(() -> new IllegalStateException(
        DemoCommand.SINK + " is not in Kafka Connect; start the demo first"));
    if (!"fail".equals(config.path(REFUSED).asText())) {
      config.put(REFUSED, "fail");
      connect.putConfig(DemoCommand.SINK, config);
    }
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      boolean configured = connect.taskConfigs(DemoCommand.SINK).stream()
          .anyMatch(t -> "fail".equals(t.path(REFUSED).asText()));
      JsonNode task = connect.status(DemoCommand.SINK).path("tasks").path(0);
      if (configured && "RUNNING".equals(task.path("state").asText())) {
        return;
      }
      Thread.sleep(500);
    }
    throw new IllegalStateException(DemoCommand.SINK + "'s task did not run with " + REFUSED + "=fail within "
        + WAIT.toSeconds() + " s");
  }

  /** The sink's key for what it does with a record its database refuses (Sluice's JDBC sink). */
  static final String REFUSED = "sluice.sink.refused";

  /** Holds the load as {@code demo --check} does, so that nothing but the fault's own changes reaches the sink. */
  private void hold() throws IOException, InterruptedException {
    Path held = dir.resolve("held");
    Files.deleteIfExists(held);
    Files.writeString(dir.resolve("hold"), "sluice demo fault poison --no-dlq");
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!Files.exists(held)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the demo's load did not hold within 30 s");
      }
      Thread.sleep(100);
    }
  }

  private long latestOrder() throws SQLException {
    try (Connection c = dbs.source(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT max(id) FROM public.orders")) {
      rs.next();
      long id = rs.getLong(1);
      if (rs.wasNull()) {
        throw new IllegalStateException("the shop has no orders yet; try again in a moment");
      }
      return id;
    }
  }

  /**
   * Waits until the sink has committed every record of its topics, twice in a row with the topics not growing: the
   * source may still be delivering the last changes from before the hold.
   */
  private void awaitSinkCaughtUp() throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    Map<TopicPartition, Long> last = null;
    while (System.nanoTime() < deadline) {
      Map<TopicPartition, Long> committed = committed();
      Map<TopicPartition, Long> ends = new HashMap<>();
      boolean caughtUp = caughtUp(committed, ends);
      if (caughtUp && ends.equals(last)) {
        return;
      }
      last = caughtUp ? ends : null;
      Thread.sleep(1000);
    }
    throw new IllegalStateException(DemoCommand.SINK + " did not catch up with its topics within " + WAIT.toSeconds()
        + " s (is it running? ./sluice connectors describe " + DemoCommand.SINK + "); nothing was changed");
  }

  /** The constraint the copy has and the shop has not; added once, and kept (no row of the load breaks it). */
  private void guardTheCopy() throws SQLException {
    String allowed = ShopLoad.STATUSES.stream().map(s -> "'" + s + "'").collect(Collectors.joining(", "));
    try (Connection c = dbs.sink(); Statement s = c.createStatement()) {
      s.execute("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = '" + CONSTRAINT + "') THEN "
          + "ALTER TABLE public.orders ADD CONSTRAINT " + CONSTRAINT + " CHECK (status IN (" + allowed + ")) NOT VALID;"
          + " END IF; END $$");
    }
  }

  private static void setStatus(Connection c, long order, String status) throws SQLException {
    try (PreparedStatement s = c.prepareStatement("UPDATE public.orders SET status = ? WHERE id = ?")) {
      s.setString(1, status);
      s.setLong(2, order);
      s.executeUpdate();
    }
  }

  private void awaitSinkFailed() throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      JsonNode tasks = connect.status(DemoCommand.SINK).path("tasks");
      if (tasks.size() > 0 && "FAILED".equals(tasks.get(0).path("state").asText())) {
        return;
      }
      Thread.sleep(500);
    }
    throw new IllegalStateException(DemoCommand.SINK + "'s task did not fail within " + WAIT.toSeconds() + " s");
  }

  private Map<TopicPartition, Long> committed() {
    Map<TopicPartition, Long> out = new HashMap<>();
    connect.offsets(DemoCommand.SINK).ifPresent(o -> o.path("offsets").forEach(e -> out.put(new TopicPartition(
        e.path("partition").path("kafka_topic").asText(), e.path("partition").path("kafka_partition").asInt()),
        e.path("offset").path("kafka_offset").asLong())));
    return out;
  }

  /**
   * Whether the sink has committed every record of its topics, putting the topics' ends (for a reader of committed
   * records) into {@code ends}: where its commit stops short of an end by transaction markers only (a source's topic
   * under exactly-once delivery), it has.
   */
  private boolean caughtUp(Map<TopicPartition, Long> committed, Map<TopicPartition, Long> ends) {
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(cluster.consumerConfig(Map.of(
        "client.id", "sluice-demo-fault")), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> tps = new ArrayList<>();
      Map<String, List<PartitionInfo>> topics = consumer.listTopics(Duration.ofSeconds(10));
      for (String table : ShopDatabases.TABLES) {
        topics.getOrDefault("demo.public." + table, List.of())
            .forEach(p -> tps.add(new TopicPartition(p.topic(), p.partition())));
      }
      ends.putAll(consumer.endOffsets(tps, Duration.ofSeconds(10)));
      Map<TopicPartition, Long> behind = new HashMap<>();
      ends.forEach((tp, end) -> {
        if (end != 0 && !end.equals(committed.get(tp))) {
          behind.put(tp, committed.getOrDefault(tp, 0L));
        }
      });
      return behind.isEmpty() || TransactionMarkers.only(consumer, behind, ends, 100, Duration.ofSeconds(2))
          .containsAll(behind.keySet());
    }
  }
}
