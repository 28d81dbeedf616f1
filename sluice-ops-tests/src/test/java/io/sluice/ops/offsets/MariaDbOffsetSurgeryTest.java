package io.sluice.ops.offsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.connect.ConnectRuntime;
import io.sluice.connect.offsets.OffsetRecord;
import io.sluice.connect.offsets.OffsetsTopic;
import io.sluice.connect.testing.BinlogMariaDb;
import io.sluice.connect.testing.ConnectClient;
import io.sluice.connect.testing.Eventually;
import io.sluice.connect.testing.Pipeline;
import io.sluice.connect.testing.TestWorkers;
import io.sluice.kafka.testing.SharedKafka;
import io.sluice.ops.progress.Progress;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Offset surgery on a running binlog pipeline: a real broker, a Connect worker, the bundled Debezium MariaDB connector
 * streaming from a real MariaDB (Debian's {@code mariadbd}, started by the test with its binary log on). The steps
 * share one connector and run in order, as {@link OffsetSurgeryTest} does for PostgreSQL. Where MariaDB is not
 * installed: a failure under CI, a skip elsewhere, saying so.
 *
 * <p>Every change is a transaction of its own (autocommit), so "the rows after a position" and "the next change" are
 * unambiguous.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MariaDbOffsetSurgeryTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SOURCE = "shop-source";
  @TempDir static Path dataDir;
  @TempDir static Path dbDir;
  private static BinlogMariaDb db;
  private static String cluster;
  private static String prefix;
  private static ConnectRuntime worker;
  private static ConnectClient rest;
  private static OffsetsTopic topic;
  private static SurgeryRig rig;

  @BeforeAll
  static void start() throws Exception {
    db = BinlogMariaDb.start(dbDir, "offset surgery against a Debezium binlog source");
    db.execute("CREATE DATABASE shop", "CREATE TABLE shop.orders (id int PRIMARY KEY, item varchar(40) NOT NULL,"
        + " qty int NOT NULL)");
    insert(1, 2, 3);
    cluster = SharedKafka.unique("mdb-offsets");
    prefix = SharedKafka.unique("mdb");
    worker = TestWorkers.worker(cluster, dataDir).start();
    rest = new ConnectClient(worker.restUrl());
    topic = new OffsetsTopic(SharedKafka.bootstrapServers(), cluster + "-offsets");
    rig = new SurgeryRig(rest, topic, SOURCE);
    var created = rest.create(SOURCE, sourceConfig());
    assertEquals(201, created.status(), created.body());
    rest.awaitRunning(SOURCE);
    Eventually.await("snapshot of 3 rows", Duration.ofSeconds(120), () -> ops(events(0), "r"), n -> n == 3);
  }

  @AfterAll
  static void stop() throws Exception {
    if (worker != null) {
      worker.close();
    }
    if (db != null) {
      db.close();
    }
  }

  /** Where the next transaction will start, as a target of offset surgery. */
  private static Target.Binlog head() {
    BinlogMariaDb.Head h = db.head();
    return new Target.Binlog(h.file(), h.position(), h.gtids());
  }

  private static Map<String, String> sourceConfig() {
    Map<String, String> c = db.sourceConfig(prefix, "5401");
    c.put("schema.history.internal.kafka.bootstrap.servers", SharedKafka.bootstrapServers());
    c.put("schema.history.internal.kafka.topic", prefix + "-schema-history");
    c.put("tasks.max", "1");
    return c;
  }

  /** One autocommitted insert per id: one transaction, one binlog row event, one change event each. */
  private static void insert(int... ids) {
    for (int id : ids) {
      db.execute("INSERT INTO shop.orders VALUES (" + id + ", 'item-" + id + "', " + id + ")");
    }
  }

  /** The change events ({@code payload} of each JSON record) in the table's topic from {@code from} on. */
  private static List<JsonNode> events(long from) {
    return Pipeline.payloads(SharedKafka.bootstrapServers(), prefix + ".shop.orders", from);
  }

  private static long endOffset() {
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of("bootstrap.servers",
        SharedKafka.bootstrapServers()), new StringDeserializer(), new StringDeserializer())) {
      TopicPartition tp = new TopicPartition(prefix + ".shop.orders", 0);
      return consumer.endOffsets(List.of(tp)).get(tp);
    }
  }

  private static long ops(List<JsonNode> events, String op) {
    return events.stream().filter(e -> op.equals(e.path("op").asText())).count();
  }

  /** Ids of the rows created ({@code op = c}) in the topic from {@code from} on. */
  private static List<Integer> createdIds(long from) {
    return events(from).stream().filter(e -> "c".equals(e.path("op").asText()))
        .map(e -> e.path("after").path("id").asInt()).toList();
  }

  private static OffsetSurgery surgery() {
    return OffsetSurgery.builder()
        .bootstrapServers(SharedKafka.bootstrapServers())
        .connectUrl(worker.restUrl())
        .offsetsTopic(cluster + "-offsets")
        .secretsTopic(cluster + "-secrets")
        .backupDir(dataDir.resolve("backups/offsets"))
        .build();
  }


  /** Resumes the source, waits for {@code expected} among the rows created from {@code from} on, and checks they are all. */
  private static void resumeAndAwaitCreated(long from, List<Integer> expected, String why) {
    rig.resumeSource();
    Eventually.await("rows " + expected + " (" + why + ")", Duration.ofSeconds(90), () -> createdIds(from),
        ids -> ids.containsAll(expected));
    assertEquals(expected, createdIds(from), why);
  }

  private static JsonNode storedPosition() throws IOException {
    return JSON.readTree(rig.sourceRecords().get(0).value());
  }




  @Test
  @Order(1)
  void backupThenRestoreIsByteIdentical() throws Exception {
    insert(4);
    Eventually.await("row 4 streamed", Duration.ofSeconds(90), () -> createdIds(0), ids -> ids.contains(4));
    rig.stopSource();
    OffsetSurgery surgery = surgery();
    OffsetSurgery.BackupReport first = surgery.backup(SOURCE, null, Duration.ofSeconds(10));
    assertEquals(1, first.manifest().records());
    String line = Files.readAllLines(first.file()).get(0);
    assertEquals("[\"" + SOURCE + "\",{\"server\":\"" + prefix + "\"}]", line.split("\t")[0]);

    OffsetRecord original = rig.sourceRecords().get(0);
    new TopicWriter(io.sluice.topics.KafkaCluster.of(SharedKafka.bootstrapServers()), cluster + "-offsets")
        .write(List.of(new OffsetRecord(original.key(), "{\"file\":\"mysql-bin.000001\",\"pos\":4}", -1, -1)),
            Progress.NONE);
    OffsetSurgery.RestoreReport restored = surgery.restore(first.file(), SOURCE, false);
    assertEquals(1, restored.records());
    OffsetSurgery.BackupReport second = surgery.backup(SOURCE, dataDir.resolve("second.tsv"), Duration.ofSeconds(10));
    assertArrayEquals(Files.readAllBytes(first.file()), Files.readAllBytes(second.file()),
        "backup after restore differs from the backup restored");
    assertEquals(original.value(), rig.sourceRecords().get(0).value());
    assertEquals("STOPPED", surgery.show(SOURCE).state(), "a connector stopped before the restore stays stopped");
    rig.resumeSource();
  }

  @Test
  @Order(2)
  void showDecodesTheBinlogPosition() throws Exception {
    OffsetSurgery.Positions p = surgery().show(SOURCE);
    assertEquals("MariaDB", p.database());
    assertEquals(1, p.positions().size());
    OffsetSurgery.Position pos = p.positions().get(0);
    assertEquals(prefix, pos.partition().path("server").asText());
    Map<String, Field> fields = pos.fields().stream().collect(Collectors.toMap(Field::name, f -> f));
    assertTrue(pos.offset().path("file").asText().startsWith("mysql-bin."), pos.offset().toString());
    assertEquals("file", pos.fields().get(0).name());
    assertEquals("pos", pos.fields().get(1).name());
    assertTrue(fields.get("ts_sec").shown().matches("\\d{4}-\\d\\d-\\d\\dT.*Z \\(\\d+\\)"), fields.get("ts_sec").shown());
  }

  @Test
  @Order(3)
  void setToAnEarlierPositionRedeliversExactlyTheRowsAfterIt() throws Exception {
    insert(11);
    Target.Binlog before12 = head();
    insert(12, 13);
    Eventually.await("rows 11-13 streamed", Duration.ofSeconds(90), () -> createdIds(0),
        ids -> ids.containsAll(List.of(11, 12, 13)));
    long end = endOffset();
    // As an operator gives it: --file and --pos only; MariaDB tells the GTID position there.
    OffsetSurgery.Change change = surgery().set(SOURCE, Target.binlog(before12.file(), String.valueOf(before12.pos()),
        null), OffsetSurgery.Options.NONE);
    assertTrue(Files.exists(change.backup()));
    assertTrue(change.retention().startsWith("retained"), change.retention());
    JsonNode after = change.changes().get(0).after();
    assertEquals(before12.file(), after.path("file").asText());
    assertEquals(before12.pos(), after.path("pos").asLong());
    assertEquals(before12.gtids(), after.path("gtids").asText(), "the GTID position before row 12, as the server has it");
    assertEquals(0, after.path("event").asLong());
    assertEquals(0, after.path("row").asLong());
    assertEquals(change.changes().get(0).key(), rig.sourceRecords().get(0).key(), "key bytes unchanged");
    rest.awaitRunning(SOURCE);
    Eventually.await("rows 12 and 13 delivered again", Duration.ofSeconds(90), () -> createdIds(end),
        ids -> ids.containsAll(List.of(12, 13)));
    Thread.sleep(3000);
    assertEquals(List.of(12, 13), createdIds(end), "exactly the rows committed after the position come again");
  }

  @Test
  @Order(4)
  void skipSkipsExactlyOneChange() throws Exception {
    rig.stopSource();
    Target.Binlog row21 = head();
    insert(21, 22, 23);
    long end = endOffset();
    OffsetSurgery.Change change = surgery().skip(SOURCE, OffsetSurgery.Options.NONE);
    assertTrue(Files.exists(change.backup()));
    JsonNode before = change.changes().get(0).before();
    JsonNode after = change.changes().get(0).after();
    assertEquals(row21.file(), after.path("file").asText(), change.toString());
    assertEquals(row21.pos(), after.path("pos").asLong(), "the skip resumes at row 21's transaction: " + change);
    assertEquals(row21.gtids(), after.path("gtids").asText(), "with the GTIDs before it: " + change);
    assertEquals(before.path("event").asLong(), after.path("event").asLong(),
        "as many events before row 21 in its transaction as before the last row sent in its own: " + change);
    assertEquals(1, after.path("row").asLong(), "its first row counts as sent: " + change);
    assertEquals("STOPPED", surgery().show(SOURCE).state(), "skip leaves a stopped connector stopped");
    rig.resumeSource();
    Eventually.await("rows after the skipped one (" + change + ")", Duration.ofSeconds(90), () -> createdIds(end),
        ids -> ids.containsAll(List.of(22, 23)));
    insert(24);
    Eventually.await("row 24", Duration.ofSeconds(90), () -> createdIds(end), ids -> ids.contains(24));
    assertEquals(List.of(22, 23, 24), createdIds(end), "exactly row 21 was skipped: " + change);
  }

  @Test
  @Order(5)
  void skipPassesOverOneStatementLoggedOnItsOwn() {
    rig.stopSource();
    // A DDL statement is logged outside any transaction: when it comes next, it is the one change skipped.
    db.execute("CREATE TABLE shop.notes (id int PRIMARY KEY)");
    Target.Binlog afterDdl = head();
    insert(25);
    long end = endOffset();
    OffsetSurgery.Change change = surgery().skip(SOURCE, OffsetSurgery.Options.NONE);
    JsonNode after = change.changes().get(0).after();
    assertEquals(afterDdl.file(), after.path("file").asText(), change.toString());
    assertEquals(afterDdl.pos(), after.path("pos").asLong(), "resumes right after the DDL: " + change);
    assertEquals(afterDdl.gtids(), after.path("gtids").asText(), change.toString());
    assertEquals(0, after.path("event").asLong());
    assertEquals(0, after.path("row").asLong());
    resumeAndAwaitCreated(end, List.of(25), "the row after the DDL is not skipped: " + change);
  }

  @Test
  @Order(6)
  void skipInsideAStatementThatChangedSeveralRowsSkipsItsNextRow() throws Exception {
    rig.stopSource();
    Target.Binlog multi = head();
    // One statement, one transaction, one row event holding three rows; then a transaction of its own.
    db.execute("INSERT INTO shop.orders VALUES (41, 'item-41', 41), (42, 'item-42', 42), (43, 'item-43', 43)");
    insert(44);
    long end = endOffset();

    JsonNode first = surgery().skip(SOURCE, OffsetSurgery.Options.NONE).changes().get(0).after();
    assertEquals(multi.pos(), first.path("pos").asLong(), "row 41 is the first row of the statement's event");
    assertEquals(1, first.path("row").asLong());
    // The stored position now says one row of that event was sent: the next change is its second row, not the
    // first row of the next event.
    OffsetSurgery.Change second = surgery().skip(SOURCE, OffsetSurgery.Options.NONE);
    JsonNode after = second.changes().get(0).after();
    assertEquals(multi.file(), after.path("file").asText(), second.toString());
    assertEquals(multi.pos(), after.path("pos").asLong(), "still the statement's transaction: " + second);
    assertEquals(first.path("event").asLong(), after.path("event").asLong(), "still its row event: " + second);
    assertEquals(2, after.path("row").asLong(), "rows 41 and 42 count as sent: " + second);
    resumeAndAwaitCreated(end, List.of(43, 44), "exactly rows 41 and 42 were skipped: " + second);

    // Every row of the event sent: the next change is in the next transaction.
    rig.stopSource();
    Target.Binlog pair = head();
    db.execute("INSERT INTO shop.orders VALUES (45, 'item-45', 45), (46, 'item-46', 46)");
    Target.Binlog single = head();
    insert(47, 48);
    long end2 = endOffset();
    surgery().skip(SOURCE, OffsetSurgery.Options.NONE);
    surgery().skip(SOURCE, OffsetSurgery.Options.NONE);
    JsonNode pairDone = storedPosition();
    assertEquals(pair.pos(), pairDone.path("pos").asLong());
    assertEquals(2, pairDone.path("row").asLong(), "both rows of the pair skipped");
    OffsetSurgery.Change third = surgery().skip(SOURCE, OffsetSurgery.Options.NONE);
    JsonNode next = third.changes().get(0).after();
    assertEquals(single.pos(), next.path("pos").asLong(), "the next change is row 47's transaction: " + third);
    assertEquals(1, next.path("row").asLong(), third.toString());
    resumeAndAwaitCreated(end2, List.of(48), "rows 45 to 47 were skipped, 48 was not: " + third);
  }

  @Test
  @Order(7)
  void badRequestsAreRefusedAndLeaveTheTopicUntouched() throws Exception {
    rig.stopSource();
    OffsetSurgery surgery = surgery();
    IllegalArgumentException malformed = assertThrows(IllegalArgumentException.class,
        () -> Target.binlog("mysql-bin", "4", null));
    assertTrue(malformed.getMessage().contains("malformed binlog file name 'mysql-bin'"), malformed.getMessage());
    IllegalArgumentException badPos = assertThrows(IllegalArgumentException.class,
        () -> Target.binlog("mysql-bin.000001", "12x", null));
    assertTrue(badPos.getMessage().contains("malformed binlog position '12x'"), badPos.getMessage());
    IllegalArgumentException badGtids = assertThrows(IllegalArgumentException.class,
        () -> Target.binlog("mysql-bin.000001", "4", "0-1"));
    assertTrue(badGtids.getMessage().contains("malformed GTID set '0-1'"), badGtids.getMessage());

    // A position MariaDB cannot place (not the start of an event), given without --gtids.
    Target.Binlog head = head();
    String unplaced = rig.refusedLeavingTopicUntouched(() -> surgery.set(SOURCE, Target.binlog(head.file(),
        String.valueOf(head.pos() + 1_000_000), null), OffsetSurgery.Options.NONE)).getMessage();
    assertTrue(unplaced.contains("give --gtids"), unplaced);

    // A server that cannot be reached: the refusal says why, not only "give --gtids".
    int closed;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      closed = s.getLocalPort();
    }
    OffsetSurgery unreachable = OffsetSurgery.builder().bootstrapServers(SharedKafka.bootstrapServers())
        .connectUrl(worker.restUrl()).offsetsTopic(cluster + "-offsets").secretsTopic(cluster + "-secrets")
        .backupDir(dataDir.resolve("backups/offsets")).source("jdbc:mysql://127.0.0.1:" + closed + "/", null, null)
        .build();
    String noServer = rig.refusedLeavingTopicUntouched(() -> unreachable.set(SOURCE, Target.binlog(head.file(),
        String.valueOf(head.pos()), null), OffsetSurgery.Options.NONE)).getMessage();
    assertTrue(noServer.contains("could not be asked of the server") && noServer.contains("127.0.0.1:" + closed)
        && noServer.contains("Give --gtids"), noServer);

    String wrongType = rig.refusedLeavingTopicUntouched(() -> surgery.set(SOURCE, Target.lsn("0/16B3748"),
        OffsetSurgery.Options.NONE)).getMessage();
    assertTrue(wrongType.contains("wrong position type for a MariaDB source") && wrongType.contains("--file"), wrongType);

    String unknown = rig.refusedLeavingTopicUntouched(() -> surgery.set("no-such-connector",
        Target.binlog("mysql-bin.000001", "4", null), OffsetSurgery.Options.NONE)).getMessage();
    assertTrue(unknown.contains("unknown connector 'no-such-connector'"), unknown);
    rig.resumeSource();
  }

  @Test
  @Order(8)
  void aPurgedBinlogFileIsRefusedUnlessForced() throws Exception {
    String oldest = db.binaryLogs().get(0);
    db.execute("FLUSH BINARY LOGS");
    insert(31);
    Eventually.await("row 31 streamed from the new binlog file", Duration.ofSeconds(90),
        () -> sourcePositionFile(), f -> !f.equals(oldest));
    rig.stopSource();
    String current = sourcePositionFile();
    db.purgeTo(current);
    Target gone = Target.binlog(oldest, "4", "0-1-1");
    String message = rig.refusedLeavingTopicUntouched(() -> surgery().set(SOURCE, gone, OffsetSurgery.Options.NONE))
        .getMessage();
    assertTrue(message.contains("binlog file " + oldest + " is no longer on the server") && message.contains(current)
        && message.contains("snapshot") && message.contains("--force"), message);
    OffsetSurgery.Change forced = surgery().set(SOURCE, gone, new OffsetSurgery.Options(true, true));
    assertTrue(forced.forced() && forced.dryRun());
    assertTrue(forced.retention().startsWith("FORCED"), forced.retention());
    assertEquals(current, sourcePositionFile(), "a dry run changes nothing");
    rig.resumeSource();
    long end = endOffset();
    insert(32);
    Eventually.await("streaming on after the refusal", Duration.ofSeconds(90), () -> createdIds(end),
        ids -> ids.contains(32));
  }

  @Test
  @Order(9)
  void skipOnACaughtUpRunningConnectorFindsNothingAndResumesIt() throws Exception {
    long end = endOffset();
    insert(33);
    Eventually.await("row 33 streamed", Duration.ofSeconds(90), () -> createdIds(end), ids -> ids.contains(33));
    // The skip stops the connector first and starts from what it committed last: there is no change after that.
    String message = assertThrows(OffsetSurgeryException.class,
        () -> surgery().skip(SOURCE, OffsetSurgery.Options.NONE)).getMessage();
    assertTrue(message.contains("no change after the current position") && message.contains("nothing to skip"),
        message);
    String stopped = rig.sourceRecords().get(0).value();
    rest.awaitRunning(SOURCE);
    assertEquals("RUNNING", surgery().show(SOURCE).state(), "the refused skip put the connector back as it was");
    assertEquals(stopped, rig.sourceRecords().get(0).value(), "the refused skip wrote no position");
    insert(34);
    Eventually.await("row 34 streamed after the refused skip", Duration.ofSeconds(90), () -> createdIds(end),
        ids -> ids.contains(34));
    assertEquals(List.of(33, 34), createdIds(end));
  }

  private static String sourcePositionFile() {
    try {
      return storedPosition().path("file").asText();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
