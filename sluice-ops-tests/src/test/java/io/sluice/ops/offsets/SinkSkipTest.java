package io.sluice.ops.offsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.connect.ConnectRuntime;
import io.sluice.connect.offsets.GroupOffsetsBackup;
import io.sluice.connect.testing.ConnectClient;
import io.sluice.connect.testing.Eventually;
import io.sluice.connect.testing.SharedPostgres;
import io.sluice.connect.testing.TestWorkers;
import io.sluice.kafka.testing.CheckedSends;
import io.sluice.kafka.testing.SharedKafka;
import io.sluice.ops.dlq.DeadLetterQueue;
import io.sluice.ops.dlq.DlqRecord;
import io.sluice.ops.dlq.ReadOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Skipping the record a sink is blocked on: a real broker, a Connect worker and Debezium's JDBC sink writing into a
 * real PostgreSQL whose table has a CHECK constraint the records do not all meet. The sink has no dead letter queue
 * ({@code errors.tolerance=none}), and the JDBC sink gives SQL errors to none anyway: its task fails on the record and
 * stays failed. The steps share the one sink and run in order, as an operator's session would.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SinkSkipTest {
  private static final String SINK = "orders-sink";
  @TempDir static Path dataDir;
  private static ConnectRuntime worker;
  private static ConnectClient rest;
  private static String topic;
  private static String database;
  private static String cluster;
  private static volatile Consumer<String> onLog = line -> { };
  /** Where the poison record is: the first offset the sink cannot write. */
  private static final long POISON = 3;

  @BeforeAll
  static void start() throws Exception {
    cluster = SharedKafka.unique("sinkskip");
    topic = SharedKafka.unique("skip.orders");
    database = SharedKafka.unique("skip_sink").replace('-', '_');
    SharedPostgres.createDatabase(database);
    try (Connection c = SharedPostgres.connect(database); Statement s = c.createStatement()) {
      // A constraint the copy has and its source does not: the sink's own SQL refuses a negative quantity.
      s.execute("CREATE TABLE public.orders (id int PRIMARY KEY, item text NOT NULL, qty int NOT NULL"
          + " CONSTRAINT orders_qty_not_negative CHECK (qty >= 0))");
    }
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", SharedKafka.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
    }
    worker = TestWorkers.worker(cluster, dataDir).start();
    rest = new ConnectClient(worker.restUrl());
    produce(List.of(order(0, "kettle", 1), order(1, "mug", 2), order(2, "teapot", 3)));
    Map<String, String> config = new LinkedHashMap<>();
    config.put("connector.class", "io.debezium.connector.jdbc.JdbcSinkConnector");
    config.put("connection.url", SharedPostgres.jdbcUrl(database));
    config.put("connection.username", SharedPostgres.USER);
    config.put("connection.password", SharedPostgres.PASSWORD);
    config.put("insert.mode", "upsert");
    config.put("primary.key.mode", "record_key");
    config.put("delete.enabled", "true");
    config.put("topics", topic);
    config.put("collection.name.format", "orders");
    config.put("tasks.max", "1");
    // No dead letter queue: Sluice gives a sink one only when its config says nothing about error tolerance.
    config.put("errors.tolerance", "none");
    var created = rest.create(SINK, config);
    assertEquals(201, created.status(), created.body());
    Eventually.await("the first three orders in the sink", Duration.ofSeconds(90), SinkSkipTest::rows,
        rows -> rows.size() == 3);
    // The poison (a negative quantity) and a good order after it, in one batch the sink fails on.
    produce(List.of(order(3, "strainer", -1), order(4, "tray", 5)));
    awaitTaskFailed();
  }

  @AfterAll
  static void stop() {
    if (worker != null) {
      worker.close();
    }
  }

  private static OffsetSurgery surgery() {
    return OffsetSurgery.builder()
        .bootstrapServers(SharedKafka.bootstrapServers())
        .connectUrl(worker.restUrl())
        .offsetsTopic(cluster + "-offsets")
        .secretsTopic(cluster + "-secrets")
        .backupDir(dataDir.resolve("backups/offsets"))
        .operator("test-operator")
        .log(line -> onLog.accept(line))
        .build();
  }

  private static ProducerRecord<byte[], byte[]> order(int id, String item, int qty) {
    String key = "{\"schema\":{\"type\":\"struct\",\"name\":\"orders.Key\",\"optional\":false,\"fields\":["
        + "{\"field\":\"id\",\"type\":\"int32\",\"optional\":false}]},\"payload\":{\"id\":" + id + "}}";
    String value = "{\"schema\":{\"type\":\"struct\",\"name\":\"orders.Value\",\"optional\":false,\"fields\":["
        + "{\"field\":\"id\",\"type\":\"int32\",\"optional\":false},"
        + "{\"field\":\"item\",\"type\":\"string\",\"optional\":false},"
        + "{\"field\":\"qty\",\"type\":\"int32\",\"optional\":false}]},"
        + "\"payload\":{\"id\":" + id + ",\"item\":\"" + item + "\",\"qty\":" + qty + "}}";
    RecordHeaders headers = new RecordHeaders();
    headers.add("origin", ("order " + id).getBytes(StandardCharsets.UTF_8));
    return new ProducerRecord<>(topic, 0, null, key.getBytes(StandardCharsets.UTF_8),
        value.getBytes(StandardCharsets.UTF_8), headers);
  }

  private static void produce(List<ProducerRecord<byte[], byte[]>> records) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of("bootstrap.servers",
        SharedKafka.bootstrapServers(), "linger.ms", "50"), new ByteArraySerializer(), new ByteArraySerializer());
        CheckedSends<byte[], byte[]> sends = CheckedSends.through(producer)) {
      for (ProducerRecord<byte[], byte[]> r : records) {
        sends.send(r);
      }
    }
  }

  /** id → "item:qty" of the sink's orders. */
  private static Map<Integer, String> rows() {
    Map<Integer, String> out = new TreeMap<>();
    try (Connection c = SharedPostgres.connect(database); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT id, item, qty FROM public.orders")) {
      while (rs.next()) {
        out.put(rs.getInt(1), rs.getString(2) + ":" + rs.getInt(3));
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return out;
  }

  private static JsonNode awaitTaskFailed() {
    return rest.awaitStatus(SINK, s -> "FAILED".equals(s.path("tasks").path(0).path("state").asText()),
        Duration.ofSeconds(90));
  }

  private static Map<String, Long> committed() {
    Map<String, Long> out = new TreeMap<>();
    rest.call("GET", "/connectors/" + SINK + "/offsets", null).json().path("offsets").forEach(e -> out.put(
        e.path("partition").path("kafka_topic").asText() + "-" + e.path("partition").path("kafka_partition").asInt(),
        e.path("offset").path("kafka_offset").asLong()));
    return out;
  }

  private static OffsetSurgeryException refusedLeavingOffsets(Runnable operation) {
    Map<String, Long> before = committed();
    OffsetSurgeryException e = assertThrows(OffsetSurgeryException.class, operation::run);
    assertEquals(OffsetSurgeryException.Kind.REFUSED, e.kind(), e.getMessage());
    assertEquals(before, committed(), "a refused skip moved the sink");
    return e;
  }

  @Test
  @Order(1)
  void theFailedSinkStopsAtThePoisonAndShowSaysWhy() {
    assertEquals(Map.of(topic + "-0", POISON), committed(), "the sink committed up to the record it cannot write");
    assertEquals(Map.of(0, "kettle:1", 1, "mug:2", 2, "teapot:3"), rows());
    OffsetSurgery.Positions shown = surgery().show(SINK);
    assertEquals("sink, consumer group connect-" + SINK, shown.database());
    assertEquals(1, shown.positions().size());
    assertEquals(String.valueOf(POISON), shown.positions().get(0).fields().get(0).shown());
    assertEquals(1, shown.failures().size());
    TaskFailure failure = shown.failures().get(0);
    System.out.println("the JDBC sink's task trace, as Connect reports it:\n" + failure.trace());
    assertTrue(failure.rootCause().contains("orders_qty_not_negative"), failure.rootCause());
  }

  @Test
  @Order(2)
  void skipsOtherThanTheBlockingRecordAreRefused() {
    OffsetSurgery surgery = surgery();
    OffsetSurgeryException ahead = refusedLeavingOffsets(() -> surgery.skip(SINK, new TopicOffset(topic, 0, POISON + 1),
        OffsetSurgery.Options.NONE, false));
    assertTrue(ahead.getMessage().contains("committed position of " + SINK + " on " + topic + " partition 0 is offset "
        + POISON) && ahead.getMessage().contains("unwritten"), ahead.getMessage());
    OffsetSurgeryException behind = refusedLeavingOffsets(() -> surgery.skip(SINK, new TopicOffset(topic, 0, 1),
        OffsetSurgery.Options.NONE, false));
    assertTrue(behind.getMessage().contains("written already"), behind.getMessage());
    OffsetSurgeryException missing = refusedLeavingOffsets(() -> surgery.skip(SINK, new TopicOffset(topic, 0, 99),
        OffsetSurgery.Options.NONE, false));
    assertTrue(missing.getMessage().contains("no record at offset 99") && missing.getMessage().contains("0 to 4"),
        missing.getMessage());
    OffsetSurgeryException noPartition = refusedLeavingOffsets(() -> surgery.skip(SINK, new TopicOffset(topic, 7,
        POISON), OffsetSurgery.Options.NONE, false));
    assertTrue(noPartition.getMessage().contains("has no partition 7"), noPartition.getMessage());
    OffsetSurgeryException otherTopic = refusedLeavingOffsets(() -> surgery.skip(SINK, new TopicOffset(cluster
        + "-offsets", 0, 0), OffsetSurgery.Options.NONE, false));
    assertTrue(otherTopic.getMessage().contains("does not read topic"), otherTopic.getMessage());
    OffsetSurgeryException sourceStyle = refusedLeavingOffsets(() -> surgery.skip(SINK, OffsetSurgery.Options.NONE));
    assertTrue(sourceStyle.getMessage().contains("is a sink") && sourceStyle.getMessage().contains("--topic"),
        sourceStyle.getMessage());

    OffsetSurgery.RecordSkip dry = surgery.skip(SINK, new TopicOffset(topic, 0, POISON),
        new OffsetSurgery.Options(true, false), true);
    assertTrue(dry.dryRun());
    assertEquals(List.of(new TopicOffset(topic, 0, POISON + 1)), dry.after());
    assertEquals(SINK + ".dlq", dry.deadLetterTopic());
    assertEquals(Map.of(topic + "-0", POISON), committed(), "a dry run changes nothing");
    awaitTaskFailed();
  }

  @Test
  @Order(3)
  void aReadBackMismatchPutsTheBackupBack() {
    // Another writer moves the group right after surgery wrote it (a second operator, a zombie worker).
    onLog = line -> {
      if (line.startsWith("written through")) {
        var r = rest.call("PATCH", "/connectors/" + SINK + "/offsets", Map.of("offsets", List.of(Map.of(
            "partition", Map.of("kafka_topic", topic, "kafka_partition", 0), "offset", Map.of("kafka_offset", 0)))));
        assertEquals(200, r.status(), r.body());
      }
    };
    try {
      OffsetSurgeryException e = assertThrows(OffsetSurgeryException.class, () -> surgery().skip(SINK,
          new TopicOffset(topic, 0, POISON), OffsetSurgery.Options.NONE, false));
      assertEquals(OffsetSurgeryException.Kind.FAILED, e.kind());
      assertTrue(e.getMessage().contains("read-back differs") && e.getMessage().contains("restored from backup"),
          e.getMessage());
    } finally {
      onLog = line -> { };
    }
    assertEquals(Map.of(topic + "-0", POISON), committed(), "the offsets before the skip are back");
    awaitTaskFailed();
  }

  @Test
  @Order(4)
  void skipToTheDeadLetterQueueKeepsTheRecordAndTheSinkGoesOn() throws Exception {
    OffsetSurgery.RecordSkip skip = surgery().skip(SINK, new TopicOffset(topic, 0, POISON), OffsetSurgery.Options.NONE,
        true);
    assertEquals(List.of(new TopicOffset(topic, 0, POISON)), skip.before());
    assertEquals(List.of(new TopicOffset(topic, 0, POISON + 1)), skip.after());
    assertEquals(new TopicOffset(SINK + ".dlq", 0, 0), skip.deadLetterCopy());
    assertNotNull(skip.failure());
    // The backup is the CSV kafka-consumer-groups --reset-offsets --from-file reads, and restore reads it too.
    assertEquals(List.of(topic + ",0," + POISON), Files.readAllLines(skip.backup()));
    assertEquals(Map.of(new org.apache.kafka.common.TopicPartition(topic, 0), POISON),
        GroupOffsetsBackup.read(skip.backup()).offsets());

    rest.awaitStatus(SINK, s -> "RUNNING".equals(s.path("tasks").path(0).path("state").asText()),
        Duration.ofSeconds(90));
    Eventually.await("the order after the poison in the sink", Duration.ofSeconds(90), SinkSkipTest::rows,
        rows -> rows.containsKey(4));
    assertEquals(Map.of(0, "kettle:1", 1, "mug:2", 2, "teapot:3", 4, "tray:5"), rows());

    ConsumerRecord<byte[], byte[]> original = SharedKafka.readAll(topic).get((int) POISON);
    List<DlqRecord> dead = DeadLetterQueue.builder().bootstrapServers(SharedKafka.bootstrapServers()).build()
        .inspect(SINK + ".dlq", ReadOptions.all()).records();
    assertEquals(1, dead.size());
    DlqRecord copy = dead.get(0);
    assertArrayEquals(original.key(), copy.key());
    assertArrayEquals(original.value(), copy.value());
    assertEquals("order 3", new String(copy.headers().lastHeader("origin").value(), StandardCharsets.UTF_8));
    assertEquals(topic, copy.error().topic());
    assertEquals(0, copy.error().partition());
    assertEquals(POISON, copy.error().offset());
    assertEquals(SINK, copy.error().connector());
    assertEquals("TASK_PUT", copy.error().stage());
    assertEquals("io.debezium.connector.jdbc.JdbcSinkConnector", copy.error().executingClass());
    assertEquals(skip.failure().rootCauseClass(), copy.error().exceptionClass());
    assertTrue(copy.error().exceptionMessage().startsWith("Skipped by an operator (sluice offsets skip, test-operator,")
        && copy.error().exceptionMessage().contains("orders_qty_not_negative"), copy.error().exceptionMessage());
    assertNotNull(copy.error().stacktrace());
  }

  @Test
  @Order(5)
  void restorePutsTheBackupBackAndSkipWithoutACopyMovesOnAgain() throws Exception {
    Path backup = Files.list(dataDir.resolve("backups/offsets"))
        .filter(p -> p.getFileName().toString().startsWith(SINK + "-") && p.toString().endsWith(".csv"))
        .sorted().reduce((a, b) -> b).orElseThrow();
    OffsetSurgery.RestoreReport restored = surgery().restore(backup, null, false);
    assertEquals(List.of(SINK), restored.connectors());
    // The offsets it replaced: past the poison and the order after it, which the sink had written.
    assertEquals(List.of(topic + ",0," + (POISON + 2)), Files.readAllLines(restored.safetyBackup()));
    // Back before the poison: the sink reads it again, and fails on it again.
    awaitTaskFailed();
    assertEquals(Map.of(topic + "-0", POISON), committed());

    OffsetSurgery.RecordSkip skip = surgery().skip(SINK, new TopicOffset(topic, 0, POISON), OffsetSurgery.Options.NONE,
        false);
    assertEquals(null, skip.deadLetterCopy());
    rest.awaitStatus(SINK, s -> "RUNNING".equals(s.path("tasks").path(0).path("state").asText()),
        Duration.ofSeconds(90));
    Eventually.await("the sink past the poison again", Duration.ofSeconds(90), SinkSkipTest::committed,
        c -> c.equals(Map.of(topic + "-0", POISON + 2)));
    assertEquals(1, SharedKafka.readAll(SINK + ".dlq").size(), "no second copy in the dead letter queue");
  }
}
