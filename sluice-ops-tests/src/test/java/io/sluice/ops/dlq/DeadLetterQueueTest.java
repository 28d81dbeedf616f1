package io.sluice.ops.dlq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.connect.ConnectRuntime;
import io.sluice.connect.testing.ConnectClient;
import io.sluice.connect.testing.Eventually;
import io.sluice.connect.testing.SharedPostgres;
import io.sluice.connect.testing.TestWorkers;
import io.sluice.kafka.testing.CheckedSends;
import io.sluice.kafka.testing.SharedKafka;
import io.sluice.ops.progress.Progress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * A JDBC sink with a dead-letter queue, taken through an operator's session: poison records land in the DLQ, are
 * inspected, the table is fixed, they are replayed (interrupted and resumed), and what fails again does not loop.
 *
 * <p>Which failures reach a DLQ: Kafka Connect routes failures of the converter and transformation stages there. The
 * Debezium JDBC sink (3.6) never reports to Connect's errant-record reporter: a SQL error in {@code put} (NOT NULL,
 * length, CHECK) is kept and fails the task on the next {@code put}. So the "value the table rejects" is rejected one
 * step earlier, by a {@code Cast} transformation that mirrors the table's column type (qty integer): the upstream
 * sends quantities as strings, and a fractional one ("21.5") cannot be cast. The fix is the table's (qty becomes
 * numeric) and the cast's with it. Bad JSON fails in the value converter and fails again after any replay.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DeadLetterQueueTest {
  private static final int GOOD = 20;
  private static final int FRACTIONAL = 12;
  private static final int BAD_JSON = 3;
  private static final int POISON = FRACTIONAL + BAD_JSON;

  @TempDir static Path dataDir;
  private static ConnectRuntime worker;
  private static ConnectClient rest;
  private static String topic;
  private static String dlqTopic;
  private static String sinkDb;
  private static String sink;
  private static DeadLetterQueue dlq;

  @BeforeAll
  static void start() throws Exception {
    String cluster = SharedKafka.unique("dlq");
    worker = TestWorkers.worker(cluster, dataDir).start();
    rest = new ConnectClient(worker.restUrl());
    topic = SharedKafka.unique("orders");
    dlqTopic = SharedKafka.unique("orders-dlq");
    sink = SharedKafka.unique("orders-sink");
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", SharedKafka.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1), new NewTopic(dlqTopic, 2, (short) 1))).all().get();
    }
    sinkDb = SharedKafka.unique("dlq_sink").replace('-', '_');
    SharedPostgres.createDatabase(sinkDb);
    sql("CREATE TABLE orders (id int PRIMARY KEY, item text NOT NULL, qty integer NOT NULL)");
    dlq = DeadLetterQueue.builder().bootstrapServers(SharedKafka.bootstrapServers()).connectUrl(worker.restUrl())
        .backupDir(dataDir.resolve("backups/dlq")).build();
  }

  @AfterAll
  static void stop() {
    if (worker != null) {
      worker.close();
    }
  }

  private static Map<String, String> sinkConfig(String qtyType) {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("connector.class", "io.debezium.connector.jdbc.JdbcSinkConnector");
    c.put("connection.url", SharedPostgres.jdbcUrl(sinkDb));
    c.put("connection.username", SharedPostgres.USER);
    c.put("connection.password", SharedPostgres.PASSWORD);
    c.put("insert.mode", "upsert");
    c.put("primary.key.mode", "record_key");
    c.put("schema.evolution", "none");
    c.put("topics", topic);
    c.put("collection.name.format", "orders");
    c.put("tasks.max", "1");
    c.put("key.converter", "org.apache.kafka.connect.json.JsonConverter");
    c.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
    c.put("transforms", "typed");
    c.put("transforms.typed.type", "org.apache.kafka.connect.transforms.Cast$Value");
    c.put("transforms.typed.spec", "qty:" + qtyType);
    c.put("errors.tolerance", "all");
    c.put("errors.deadletterqueue.topic.name", dlqTopic);
    c.put("errors.deadletterqueue.topic.replication.factor", "1");
    c.put("errors.deadletterqueue.context.headers.enable", "true");
    return c;
  }

  static String key(int id) {
    return "{\"schema\":{\"type\":\"struct\",\"name\":\"orders.Key\",\"fields\":[{\"field\":\"id\",\"type\":\"int32\"}]},"
        + "\"payload\":{\"id\":" + id + "}}";
  }

  static String value(int id, String qty) {
    return "{\"schema\":{\"type\":\"struct\",\"name\":\"orders.Value\",\"fields\":[{\"field\":\"id\",\"type\":\"int32\"},"
        + "{\"field\":\"item\",\"type\":\"string\"},{\"field\":\"qty\",\"type\":\"string\"}]},"
        + "\"payload\":{\"id\":" + id + ",\"item\":\"item-" + id + "\",\"qty\":\"" + qty + "\"}}";
  }

  static String badJson(int id) {
    return "{\"schema\":{\"type\":\"struct\",\"fields\":[{\"field\":\"id\",\"type\":\"int32\"}]},\"payload\":{\"id\":" + id;
  }

  /** What the table must hold once every fixable record arrived: id → "item:qty". */
  static Map<Integer, String> expectedRows(boolean withFractional) {
    Map<Integer, String> rows = new TreeMap<>();
    for (int id = 1; id <= GOOD; id++) {
      rows.put(id, "item-" + id + ":" + id + ".00");
    }
    if (withFractional) {
      for (int id = GOOD + 1; id <= GOOD + FRACTIONAL; id++) {
        rows.put(id, "item-" + id + ":" + id + ".50");
      }
    }
    return rows;
  }

  @Test
  @Order(1)
  void poisonRecordsLandInTheDeadLetterTopicWithConnectsHeaders() throws Exception {
    assertEquals(201, rest.create(sink, sinkConfig("int32")).status());
    rest.awaitRunning(sink);
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(
        Map.of("bootstrap.servers", SharedKafka.bootstrapServers()), new StringSerializer(), new StringSerializer());
        CheckedSends<String, String> sends = CheckedSends.through(producer)) {
      // Good records after the poison ones too: the JDBC sink commits only offsets of records it wrote, so poison
      // records at the end of a partition would show as lag until a good record follows them.
      for (int id = 1; id <= GOOD / 2; id++) {
        sends.send(new ProducerRecord<>(topic, key(id), value(id, Integer.toString(id))));
      }
      for (int id = GOOD + 1; id <= GOOD + FRACTIONAL; id++) {
        sends.send(new ProducerRecord<>(topic, key(id), value(id, id + ".5")));
      }
      for (int i = 0; i < BAD_JSON; i++) {
        sends.send(new ProducerRecord<>(topic, key(100 + i), badJson(100 + i)));
      }
      for (int id = GOOD / 2 + 1; id <= GOOD; id++) {
        sends.send(new ProducerRecord<>(topic, key(id), value(id, Integer.toString(id))));
      }
    }
    Eventually.await("all poison records in the DLQ", Duration.ofSeconds(120),
        () -> dlq.inspect(dlqTopic, ReadOptions.all()).records().size(), n -> n == POISON);
    Eventually.await("the good rows in the table", Duration.ofSeconds(120), () -> rows(), r -> r.size() == GOOD);
    assertEquals("RUNNING", rest.call("GET", "/connectors/" + sink + "/status", null).json()
        .path("tasks").get(0).path("state").asText(), "the sink kept running");
  }

  @Test
  @Order(2)
  void inspectDecodesTheHeadersAndGroupsByExceptionAndStage() {
    Inspection inspection = dlq.inspect(dlqTopic, ReadOptions.all());
    assertEquals(POISON, inspection.records().size());
    for (DlqRecord r : inspection.records()) {
      ErrorContext e = r.error();
      assertEquals(topic, e.topic(), "original topic");
      assertEquals(sink, e.connector());
      assertEquals(0, e.taskId());
      assertNotNull(e.partition());
      assertNotNull(e.offset());
      assertNotNull(e.exceptionMessage());
      assertTrue(e.stacktrace().contains("at org.apache.kafka"), e.stacktrace());
      assertFalse(r.replayed());
    }
    Map<String, Long> groups = inspection.groups().stream().collect(Collectors.toMap(
        g -> g.exceptionClass() + "@" + g.stage(), Inspection.ErrorGroup::count));
    // Cast wraps the NumberFormatException of "21.5" into a DataException; the stage tells the two groups apart.
    assertEquals(Map.of("org.apache.kafka.connect.errors.DataException@TRANSFORMATION", (long) FRACTIONAL,
        "org.apache.kafka.connect.errors.DataException@VALUE_CONVERTER", (long) BAD_JSON), groups);
    assertEquals(FRACTIONAL, inspection.groups().get(0).count(), "largest group first");

    // Each record points at its original: the value found there is the one in the DLQ.
    Map<String, byte[]> originals = SharedKafka.readAll(topic).stream().collect(Collectors.toMap(
        r -> r.partition() + "/" + r.offset(), ConsumerRecord::value));
    for (DlqRecord r : inspection.records()) {
      assertEquals(new String(originals.get(r.error().partition() + "/" + r.error().offset()), StandardCharsets.UTF_8),
          new String(r.value(), StandardCharsets.UTF_8));
    }

    ReadOptions converterOnly = new ReadOptions(null, null, true, null,
        RecordFilter.parse(List.of("stage=VALUE_CONVERTER")));
    assertEquals(BAD_JSON, dlq.inspect(dlqTopic, converterOnly).records().size());
    ReadOptions byException = new ReadOptions(null, null, true, null,
        RecordFilter.parse(List.of("exception=DataException,stage=transformation|connector=" + sink)));
    assertEquals(FRACTIONAL, dlq.inspect(dlqTopic, byException).records().size());
    ReadOptions bySimpleName = new ReadOptions(null, null, true, null,
        RecordFilter.parse(List.of("exception=DataException")));
    assertEquals(POISON, dlq.inspect(dlqTopic, bySimpleName).records().size());
    ReadOptions newestFour = new ReadOptions(4, null, false, null, RecordFilter.ALL);
    assertEquals(4, dlq.inspect(dlqTopic, newestFour).records().size());
    ReadOptions firstTwo = new ReadOptions(2, null, true, null, RecordFilter.ALL);
    assertEquals(2, dlq.inspect(dlqTopic, firstTwo).records().size());

    List<DlqRecord> sample = dlq.inspect(dlqTopic, new ReadOptions(null, null, true, 5, RecordFilter.ALL)).records();
    assertEquals(5, sample.size());
    assertEquals(5, sample.stream().map(r -> r.partition() + "/" + r.offset()).distinct().count());
    assertTrue(sample.stream().map(DlqRecord::partition).distinct().count() == 2, "spread over both partitions");
  }

  @Test
  @Order(2)
  void pagesGoOnWhereTheLastEndedAndAReplayTakesOnlyThePickedRecords() {
    // Pages of four, each from where the one before ended: every record once, none twice, nothing held beyond a page.
    java.util.Set<String> seen = new java.util.HashSet<>();
    Map<Integer, Long> from = new java.util.TreeMap<>();
    int pages = 0;
    while (true) {
      List<DlqRecord> page = dlq.inspect(dlqTopic, new ReadOptions(4, null, true, null, RecordFilter.ALL, from))
          .records();
      page.forEach(r -> {
        assertTrue(seen.add(r.partition() + "/" + r.offset()), "twice: " + r.partition() + "/" + r.offset());
        from.put(r.partition(), r.offset() + 1);
      });
      pages++;
      if (page.size() < 4) {
        break;
      }
    }
    assertEquals(POISON, seen.size());
    assertEquals(POISON / 4 + 1, pages);

    DlqRecord first = dlq.inspect(dlqTopic, ReadOptions.all()).records().get(0);
    Unwrapped original = dlq.unwrap(first);
    assertEquals(new String(first.value(), StandardCharsets.UTF_8), original.text());
    ReplayResult picked = dlq.replay(ReplayRequest.of(dlqTopic).withGroup(SharedKafka.unique("picked"))
        .withRecords(Map.of(first.partition(), java.util.Set.of(first.offset()))).withDryRun(true), Progress.NONE);
    assertEquals(1, picked.replayed(), "only the picked record");
    assertEquals(POISON - 1, picked.skippedFiltered());
  }

  @Test
  @Order(3)
  void unwrapGivesTheOriginalValues() {
    List<Unwrapped> all = dlq.unwrap(dlqTopic, ReadOptions.all());
    assertEquals(POISON, all.size());
    long json = all.stream().filter(u -> "json".equals(u.encoding())).count();
    assertEquals(FRACTIONAL, json, "the fractional records are JSON; the bad ones plain text");
    for (Unwrapped u : all) {
      assertEquals("raw", u.source(), "Connect's DLQ keeps the bytes unchanged");
      assertEquals(new String(u.bytes(), StandardCharsets.UTF_8), u.text());
    }
  }

  @Test
  @Order(4)
  void statsShowOffsetsRateAndTheSinksLag() {
    DlqStats stats = Eventually.await("the sink group caught up", Duration.ofSeconds(120),
        () -> dlq.stats(dlqTopic), s -> s.sinks().size() == 1 && Long.valueOf(0).equals(s.sinks().get(0).lag()));
    assertEquals(POISON, stats.records());
    assertEquals(POISON, stats.lastHour());
    assertEquals(2, stats.partitions().size());
    assertEquals(POISON, stats.partitions().stream().mapToLong(p -> p.latest() - p.earliest()).sum());
    DlqStats.SinkLag lag = stats.sinks().get(0);
    assertEquals(sink, lag.connector());
    assertEquals("connect-" + sink, lag.group());
    assertEquals("RUNNING", lag.state());
    assertEquals(2, lag.partitions().size());
    assertEquals(GOOD + POISON, lag.partitions().stream().mapToLong(DlqStats.PartitionLag::committed).sum());
    assertEquals(List.of(dlqTopic), dlq.stats().stream().map(DlqStats::topic).toList(), "found through Connect");

    // A paused sink falls behind: its lag shows it.
    assertEquals(202, rest.call("PUT", "/connectors/" + sink + "/pause", null).status());
    rest.awaitState(sink, "PAUSED");
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(
        Map.of("bootstrap.servers", SharedKafka.bootstrapServers()), new StringSerializer(), new StringSerializer());
        CheckedSends<String, String> sends = CheckedSends.through(producer)) {
      sends.send(new ProducerRecord<>(topic, key(1), value(1, "1")));
    }
    assertEquals(1L, dlq.stats(dlqTopic).sinks().get(0).lag());
    assertEquals(202, rest.call("PUT", "/connectors/" + sink + "/resume", null).status());
    rest.awaitRunning(sink);
  }

  @Test
  @Order(5)
  void afterTheTableIsFixedAnInterruptedReplayResumesWithoutDuplicatesOrGaps() throws Exception {
    // Stopped, not paused, while the config changes: a stopped connector has no tasks, so every task after the
    // resume runs the new cast (a paused one could still hold the old config when replay starts).
    assertEquals(204, rest.call("PUT", "/connectors/" + sink + "/stop", null).status());
    rest.awaitStatus(sink, s -> "STOPPED".equals(s.path("connector").path("state").asText())
        && s.path("tasks").isEmpty(), Duration.ofSeconds(90));
    sql("ALTER TABLE orders ALTER COLUMN qty TYPE numeric(10,2)");
    var updated = rest.call("PUT", "/connectors/" + sink + "/config", sinkConfig("float64"));
    assertEquals(200, updated.status(), updated.body());
    assertEquals(202, rest.call("PUT", "/connectors/" + sink + "/resume", null).status());
    rest.awaitRunning(sink);

    ReplayResult dry = dlq.replay(ReplayRequest.of(dlqTopic).withDryRun(true), Progress.NONE);
    assertEquals(POISON, dry.replayed());
    assertEquals(Map.of(topic, (long) POISON), dry.perTarget());
    assertTrue(replayMarks(topic).isEmpty(), "a dry run produces nothing");
    assertEquals(null, dry.backup(), "a dry run moves no offsets, so it saves none");

    ReplayResult first = dlq.replay(ReplayRequest.of(dlqTopic).withLimit(6L), Progress.NONE);
    assertEquals(6, first.replayed());
    assertFalse(first.complete());
    List<Long> seen = new ArrayList<>();
    ReplayResult resumed = dlq.replay(ReplayRequest.of(dlqTopic), (done, total) -> seen.add(total));
    assertEquals(POISON - 6, resumed.replayed());
    assertTrue(resumed.complete());
    long left = resumed.committed().values().stream().mapToLong(Long::longValue).sum()
        - resumed.resumedFrom().values().stream().mapToLong(Long::longValue).sum();
    assertEquals(left, seen.get(seen.size() - 1), "progress counts what was left");
    // Bad JSON replayed by the first run may have failed again before the second started: those are skipped.
    assertEquals(left, resumed.replayed() + resumed.skippedReplayed());
    assertEquals(6, resumed.resumedFrom().values().stream().mapToLong(Long::longValue).sum());
    // The backup of the second run holds where the first stopped, as kafka-consumer-groups --from-file reads it.
    List<String> backup = java.nio.file.Files.readAllLines(Path.of(resumed.backup()));
    assertEquals(2, backup.size());
    assertEquals(6, backup.stream().mapToLong(l -> {
      String[] f = l.split(",");
      assertEquals(dlqTopic, f[0]);
      return Long.parseLong(f[2]);
    }).sum());

    Map<String, Long> marks = replayMarks(topic);
    assertEquals(POISON, marks.size(), "every DLQ record replayed: " + marks);
    assertTrue(marks.values().stream().allMatch(n -> n == 1), "each exactly once: " + marks);

    Eventually.await("the fixed records in the table", Duration.ofSeconds(120), DeadLetterQueueTest::rows,
        expectedRows(true)::equals);
  }

  @Test
  @Order(6)
  void aRecordThatFailsAgainIsNotReplayedASecondTime() {
    Inspection after = Eventually.await("the bad JSON failed again", Duration.ofSeconds(120),
        () -> dlq.inspect(dlqTopic, ReadOptions.all()), i -> i.records().size() == POISON + BAD_JSON);
    List<DlqRecord> again = after.records().stream().filter(DlqRecord::replayed).toList();
    assertEquals(BAD_JSON, again.size());
    for (DlqRecord r : again) {
      assertEquals(dlqTopic, r.replay().topic());
      assertEquals(ReplayRequest.defaultGroup(dlqTopic), r.replay().group());
      assertEquals("VALUE_CONVERTER", r.error().stage());
    }
    assertTrue(after.groups().stream().anyMatch(g -> g.replayed() == BAD_JSON));

    ReplayResult third = dlq.replay(ReplayRequest.of(dlqTopic), Progress.NONE);
    assertEquals(0, third.replayed());
    assertEquals(BAD_JSON, third.skippedReplayed());
    assertEquals(POISON, replayMarks(topic).size());
    assertTrue(replayMarks(topic).values().stream().allMatch(n -> n == 1));

    ReplayResult forced = dlq.replay(ReplayRequest.of(dlqTopic).withGroup(SharedKafka.unique("forced"))
        .withIncludeReplayed(true).withDryRun(true), Progress.NONE);
    assertEquals(POISON + BAD_JSON, forced.replayed(), "--include-replayed takes them too");
    assertEquals(expectedRows(true), rows());
  }

  @Test
  @Order(7)
  void aCrashAfterTheSendsButBeforeTheCommitNeitherDuplicatesNorSkips() throws Exception {
    String target = SharedKafka.unique("replay-target");
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", SharedKafka.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(target, 3, (short) 1))).all().get();
    }
    String group = SharedKafka.unique("crash");
    ReplayRequest request = ReplayRequest.of(dlqTopic).withTarget(new ReplayTarget.Topic(target)).withGroup(group)
        .withIncludeReplayed(true);
    assertThrows(Replayer.SimulatedCrash.class, () -> dlq.replayer().crashAfter(7).run(request, Progress.NONE));
    assertEquals(7, replayMarks(target).size(), "the crashed run delivered 7");

    ReplayResult resumed = dlq.replay(request, Progress.NONE);
    assertTrue(resumed.alreadyDelivered() >= 1, "found what the crashed run delivered: " + resumed);
    assertEquals(POISON + BAD_JSON, resumed.replayed() + resumed.alreadyDelivered()
        + resumed.resumedFrom().values().stream().mapToLong(Long::longValue).sum());
    Map<String, Long> marks = replayMarks(target);
    assertEquals(POISON + BAD_JSON, marks.size(), marks.toString());
    assertTrue(marks.values().stream().allMatch(n -> n == 1), "each exactly once: " + marks);

    // A run that finished leaves no target marks behind: the next one has nothing to scan.
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", SharedKafka.bootstrapServers()))) {
      var offsets = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
      assertEquals(2, offsets.size());
      offsets.values().forEach(o -> assertTrue(TargetMarks.decode(o.metadata()).isEmpty(), o.metadata()));
    }
  }

  /** "dlqPartition/dlqOffset" → how many records of {@code topic} carry that replay mark. */
  private static Map<String, Long> replayMarks(String topic) {
    Map<String, Long> out = new TreeMap<>();
    for (ConsumerRecord<byte[], byte[]> r : SharedKafka.readAll(topic)) {
      ReplayMark mark = ReplayMark.from(r.headers());
      if (mark != null && mark.topic().equals(dlqTopic)) {
        out.merge(mark.partition() + "/" + mark.offset(), 1L, Long::sum);
      }
    }
    return out;
  }

  private static Map<Integer, String> rows() {
    Map<Integer, String> out = new TreeMap<>();
    try (Connection c = SharedPostgres.connect(sinkDb); Statement s = c.createStatement()) {
      ResultSet rs = s.executeQuery("SELECT id, item, qty::numeric(10,2) FROM orders");
      while (rs.next()) {
        out.put(rs.getInt(1), rs.getString(2) + ":" + rs.getBigDecimal(3).toPlainString());
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return out;
  }

  private static void sql(String statement) {
    try (Connection c = SharedPostgres.connect(sinkDb); Statement s = c.createStatement()) {
      s.execute(statement);
    } catch (SQLException e) {
      throw new IllegalStateException(statement, e);
    }
  }
}
