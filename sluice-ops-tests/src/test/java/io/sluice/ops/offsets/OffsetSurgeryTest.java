package io.sluice.ops.offsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.connect.ConnectRuntime;
import io.sluice.connect.offsets.OffsetBackup;
import io.sluice.connect.offsets.OffsetRecord;
import io.sluice.connect.offsets.OffsetsTopic;
import io.sluice.connect.testing.ConnectClient;
import io.sluice.connect.testing.Eventually;
import io.sluice.connect.testing.Pipeline;
import io.sluice.connect.testing.SharedPostgres;
import io.sluice.connect.testing.TestWorkers;
import io.sluice.kafka.testing.SharedKafka;
import io.sluice.ops.progress.Progress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Offset surgery on a running pipeline: a real broker, a Connect worker, a Debezium PostgreSQL source streaming from
 * a real PostgreSQL. The steps share one connector and run in order, as an operator's session would, because each
 * fresh connector costs a snapshot.
 *
 * <p>The source keeps its slot from confirming positions ({@code lsn.flush.mode=manual}), so the server still holds
 * the changes an earlier LSN points at: that is what makes moving back possible at all, and the retention check is
 * what tells the two cases apart.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OffsetSurgeryTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SOURCE = "orders-source";
  @TempDir static Path dataDir;
  private static String cluster;
  private static ConnectRuntime worker;
  private static ConnectClient rest;
  private static Pipeline pipeline;
  private static OffsetsTopic topic;
  private static SurgeryRig rig;
  private static final List<String> log = new ArrayList<>();
  private static volatile Consumer<String> onLog = line -> { };

  @BeforeAll
  static void start() {
    cluster = SharedKafka.unique("offsets");
    worker = TestWorkers.worker(cluster, dataDir).start();
    rest = new ConnectClient(worker.restUrl());
    pipeline = new Pipeline(SharedKafka.unique("os"));
    topic = new OffsetsTopic(SharedKafka.bootstrapServers(), cluster + "-offsets");
    rig = new SurgeryRig(rest, topic, SOURCE);
    pipeline.insert(1, 3);
    var created = rest.create(SOURCE, pipeline.sourceConfig(pipeline.name + "_slot", Map.of("lsn.flush.mode", "manual")));
    assertEquals(201, created.status(), created.body());
    rest.awaitRunning(SOURCE);
    Eventually.await("snapshot of 3 rows", Duration.ofSeconds(90), () -> Pipeline.count(pipeline.events(0), "r"),
        n -> n == 3);
  }

  @AfterAll
  static void stop() {
    if (worker != null) {
      worker.close();
    }
  }

  private static OffsetSurgery.Builder surgeryBuilder() {
    return OffsetSurgery.builder()
        .bootstrapServers(SharedKafka.bootstrapServers())
        .connectUrl(worker.restUrl())
        .offsetsTopic(cluster + "-offsets")
        .secretsTopic(cluster + "-secrets")
        .backupDir(dataDir.resolve("backups/offsets"))
        .log(line -> {
          log.add(line);
          onLog.accept(line);
        });
  }

  private static OffsetSurgery surgery() {
    return surgeryBuilder().build();
  }



  /** Ids of the rows created ({@code op = c}) in the topic from {@code from} on. */
  private static List<Integer> createdIds(long from) {
    return pipeline.events(from).stream().filter(e -> "c".equals(e.path("op").asText()))
        .map(e -> e.path("after").path("id").asInt()).toList();
  }


  /** Fake positions of other connectors, so backups and restores cover more than one connector. */
  private static void writeOtherConnectors(int count, String version) {
    List<OffsetRecord> records = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      records.add(new OffsetRecord("[\"other-" + i + "\",{\"server\":\"other" + i + "\"}]",
          "{\"lsn\":" + (1000 + i) + ",\"txId\":null,\"ts_usec\":1700000000000000,\"v\":\"" + version + "\"}", -1, -1));
    }
    new TopicWriter(io.sluice.topics.KafkaCluster.of(SharedKafka.bootstrapServers()), cluster + "-offsets").write(records, Progress.NONE);
  }

  @Test
  @Order(1)
  void backupThenRestoreIsByteIdentical() throws Exception {
    writeOtherConnectors(50, "v1");
    rig.stopSource();
    OffsetSurgery surgery = surgery();
    OffsetSurgery.BackupReport first = surgery.backup(null, null, Duration.ofSeconds(10));
    assertTrue(Files.exists(first.file()) && Files.exists(OffsetBackup.manifestOf(first.file())), first.toString());
    assertEquals(51, first.manifest().records(), "50 other connectors and the source");
    assertEquals(topic.clusterId(Duration.ofSeconds(10)), first.manifest().clusterId());
    assertFalse(first.manifest().endOffsets().isEmpty());
    String sourceLine = Files.readAllLines(first.file()).stream().filter(l -> l.startsWith("[\"" + SOURCE + "\""))
        .findFirst().orElseThrow();
    assertEquals("[\"" + SOURCE + "\",{\"server\":\"" + pipeline.topicPrefix + "\"}]", sourceLine.split("\t")[0]);

    // Everything changes: other connectors get new values, the source's position is damaged by hand.
    writeOtherConnectors(50, "v2");
    OffsetRecord original = rig.sourceRecords().get(0);
    new TopicWriter(io.sluice.topics.KafkaCluster.of(SharedKafka.bootstrapServers()), cluster + "-offsets")
        .write(List.of(new OffsetRecord(original.key(), "{\"lsn\":1}", -1, -1)), Progress.NONE);

    OffsetSurgery.RestoreReport restored = surgery.restore(first.file(), null, false);
    assertEquals(51, restored.records());
    assertTrue(Files.exists(restored.safetyBackup()), "the state before the restore was backed up too");
    assertTrue(restored.elapsed().toNanos() > 0);

    OffsetSurgery.BackupReport second = surgery.backup(null, dataDir.resolve("second.tsv"), Duration.ofSeconds(10));
    assertArrayEquals(Files.readAllBytes(first.file()), Files.readAllBytes(second.file()),
        "backup after restore differs from the backup restored");
    assertEquals(first.manifest().sha256(), second.manifest().sha256());
    assertEquals("STOPPED", surgery.show(SOURCE).state(), "a connector stopped before the restore stays stopped");
    rig.resumeSource();
  }

  @Test
  @Order(2)
  void showDecodesThePostgresPosition() {
    // Positions carry lsn_proc and lsn_commit once a change has streamed (the snapshot's do not).
    pipeline.insert(5, 5);
    Eventually.await("a streaming position", Duration.ofSeconds(60),
        () -> surgery().show(SOURCE).positions().get(0).offset(), o -> o.has("lsn_proc") && o.has("lsn_commit"));
    OffsetSurgery.Positions p = surgery().show(SOURCE);
    assertEquals("PostgreSQL", p.database());
    assertEquals("RUNNING", p.state());
    assertEquals(1, p.positions().size());
    OffsetSurgery.Position pos = p.positions().get(0);
    assertEquals(pipeline.topicPrefix, pos.partition().path("server").asText());
    Map<String, Field> fields = pos.fields().stream().collect(Collectors.toMap(Field::name, f -> f));
    long lsn = pos.offset().path("lsn").asLong();
    assertEquals(PostgresOffsets.hex(lsn) + " (" + lsn + ")", fields.get("lsn").shown());
    assertTrue(fields.get("ts_usec").shown().matches("\\d{4}-\\d\\d-\\d\\dT.*Z \\(\\d+\\)"), fields.get("ts_usec").shown());
    assertEquals(List.of("lsn", "lsn_proc", "lsn_commit"), pos.fields().stream().map(Field::name).limit(3).toList());
  }

  @Test
  @Order(3)
  void setToAnEarlierLsnRedeliversExactlyTheRowsAfterIt() throws Exception {
    for (int id = 11; id <= 13; id++) {
      pipeline.insert(id, id);
    }
    Eventually.await("rows 11-13 streamed", Duration.ofSeconds(90), () -> createdIds(0),
        ids -> ids.containsAll(List.of(11, 12, 13)));
    JsonNode row12 = pipeline.events(0).stream().filter(e -> e.path("after").path("id").asInt() == 12).findFirst()
        .orElseThrow();
    // source.sequence is [last commit LSN, this change's LSN]: the first is where row 11's transaction ended.
    String commitOf11 = JSON.readTree(row12.path("source").path("sequence").asText()).get(0).asText();
    long end = pipeline.endOffset();

    OffsetSurgery.Change change = surgery().set(SOURCE, Target.lsn(commitOf11), OffsetSurgery.Options.NONE);
    assertNotNull(change.backup());
    assertTrue(Files.exists(change.backup()));
    assertTrue(log.contains("backup: " + change.backup()), "the backup path is told: " + log);
    assertTrue(change.retention().startsWith("retained"), change.retention());
    assertFalse(change.forced());
    assertTrue(change.writtenThrough().contains("PATCH"), change.writtenThrough());
    JsonNode after = change.changes().get(0).after();
    for (String f : List.of("lsn", "lsn_proc", "lsn_commit")) {
      assertEquals(Long.parseLong(commitOf11), after.path(f).asLong(), f);
    }
    assertEquals(change.changes().get(0).key(), rig.sourceRecords().get(0).key(), "key bytes unchanged");

    rest.awaitRunning(SOURCE);
    Eventually.await("rows 12 and 13 delivered again", Duration.ofSeconds(90), () -> createdIds(end),
        ids -> ids.containsAll(List.of(12, 13)));
    Thread.sleep(3000);
    assertEquals(List.of(12, 13), createdIds(end), "exactly the rows committed after the LSN come again");
  }

  @Test
  @Order(4)
  void skipSkipsExactlyOneChange() {
    rig.stopSource();
    for (int id = 21; id <= 23; id++) {
      pipeline.insert(id, id);
    }
    long end = pipeline.endOffset();
    OffsetSurgery.Change change = surgery().skip(SOURCE, OffsetSurgery.Options.NONE);
    assertTrue(Files.exists(change.backup()));
    long before = change.changes().get(0).before().path("lsn_proc").asLong();
    long after = change.changes().get(0).after().path("lsn_proc").asLong();
    assertTrue(after > before, change.toString());
    assertEquals("STOPPED", surgery().show(SOURCE).state(), "skip leaves a stopped connector stopped");
    rig.resumeSource();
    Eventually.await("rows after the skipped one (" + change + ")", Duration.ofSeconds(90), () -> createdIds(end),
        ids -> ids.containsAll(List.of(22, 23)));
    pipeline.insert(24, 24);
    Eventually.await("row 24", Duration.ofSeconds(90), () -> createdIds(end), ids -> ids.contains(24));
    assertEquals(List.of(22, 23, 24), createdIds(end), "exactly row 21 was skipped: " + change);
  }


  @Test
  @Order(5)
  void badRequestsAreRefusedAndLeaveTheTopicUntouched() throws Exception {
    rig.stopSource();
    OffsetSurgery surgery = surgery();

    IllegalArgumentException malformed = assertThrows(IllegalArgumentException.class, () -> Target.lsn("16/XYZ"));
    assertTrue(malformed.getMessage().contains("malformed LSN '16/XYZ'"), malformed.getMessage());

    String wrongType = rig.refusedLeavingTopicUntouched(() -> surgery.set(SOURCE,
        Target.binlog("mysql-bin.000003", "154", null), OffsetSurgery.Options.NONE)).getMessage();
    assertTrue(wrongType.contains("wrong position type for a PostgreSQL source") && wrongType.contains("--lsn"),
        wrongType);

    String unknown = rig.refusedLeavingTopicUntouched(() -> surgery.set("no-such-connector", Target.lsn("0/1"),
        OffsetSurgery.Options.NONE)).getMessage();
    assertTrue(unknown.contains("unknown connector 'no-such-connector'"), unknown);

    long confirmed;
    try (Connection c = SharedPostgres.connect(pipeline.sourceDb); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = '"
            + pipeline.name + "_slot'")) {
      assertTrue(rs.next());
      confirmed = Target.lsn(rs.getString(1)).value();
    }
    Target stale = new Target.Lsn(confirmed - 1);
    String staleMessage = rig.refusedLeavingTopicUntouched(() -> surgery.set(SOURCE, stale, OffsetSurgery.Options.NONE))
        .getMessage();
    assertTrue(staleMessage.contains("is before what replication slot " + pipeline.name + "_slot still holds")
        && staleMessage.contains("snapshot") && staleMessage.contains("--force"), staleMessage);
    OffsetSurgery.Change forced = surgery.set(SOURCE, stale, new OffsetSurgery.Options(true, true));
    assertTrue(forced.forced() && forced.dryRun());
    assertTrue(forced.retention().startsWith("FORCED"), forced.retention());

    String reset = rig.refusedLeavingTopicUntouched(() -> surgery.reset(SOURCE, null, OffsetSurgery.Options.NONE))
        .getMessage();
    assertTrue(reset.contains("explicit snapshot decision") && reset.contains("initial:")
        && reset.contains("schema_only:") && reset.contains("never:"), reset);

    OffsetSurgery tight = surgeryBuilder().restoreBudget(Duration.ofSeconds(1)).build();
    String budget = rig.refusedLeavingTopicUntouched(() -> tight.set(SOURCE, Target.lsn(String.valueOf(confirmed)),
        OffsetSurgery.Options.NONE)).getMessage();
    assertTrue(budget.contains("budget") && budget.contains("not started"), budget);
    rig.resumeSource();
  }

  @Test
  @Order(6)
  void aReadBackMismatchRestoresTheBackup() throws Exception {
    rig.stopSource();
    OffsetRecord original = rig.sourceRecords().get(0);
    // Another writer (a zombie task, a second operator) changes the position right after surgery wrote it.
    onLog = line -> {
      if (line.startsWith("written through")) {
        new TopicWriter(io.sluice.topics.KafkaCluster.of(SharedKafka.bootstrapServers()), cluster + "-offsets")
            .write(List.of(new OffsetRecord(original.key(), "{\"lsn\":42}", -1, -1)), Progress.NONE);
      }
    };
    try {
      JsonNode current = JSON.readTree(original.value());
      OffsetSurgeryException e = assertThrows(OffsetSurgeryException.class, () -> surgery().set(SOURCE,
          new Target.Lsn(current.path("lsn_commit").asLong()), OffsetSurgery.Options.NONE));
      assertEquals(OffsetSurgeryException.Kind.FAILED, e.kind());
      assertTrue(e.getMessage().contains("read-back differs") && e.getMessage().contains("restored from backup"),
          e.getMessage());
    } finally {
      onLog = line -> { };
    }
    assertEquals(List.of(original.value()), rig.sourceRecords().stream().map(OffsetRecord::value).toList(),
        "the position before the change is back, byte for byte");
    assertEquals("STOPPED", surgery().show(SOURCE).state());
    rig.resumeSource();
  }

  /**
   * After a recovering restore: the connector runs again, no unfinished surgery is noted, and the topic holds the
   * backup's records (the running source's own key excepted: it has moved on since).
   */
  private static void assertRecoveredFrom(OffsetSurgery.BackupReport backup) {
    rest.awaitRunning(SOURCE);
    Map<String, String> now = topic.latest(Duration.ofSeconds(30)).stream()
        .collect(Collectors.toMap(OffsetRecord::key, r -> String.valueOf(r.value()), (a, b) -> b));
    for (OffsetRecord r : OffsetBackup.read(backup.file()).records()) {
      if (!r.key().startsWith("[\"" + SOURCE + "\"")) {
        assertEquals(String.valueOf(r.value()), now.get(r.key()), r.key());
      }
    }
    assertEquals(null, surgery().show(SOURCE).unfinishedSurgery());
  }

  @Test
  @Order(7)
  void anInterruptedRestoreIsRecoveredByRestore() throws Exception {
    writeOtherConnectors(2000, "before");
    rig.stopSource();
    OffsetSurgery.BackupReport backup = surgery().backup(null, null, Duration.ofSeconds(10));
    rig.resumeSource();
    writeOtherConnectors(2000, "after");

    // The process dies half-way through writing the records back.
    OffsetSurgery dying = surgeryBuilder().progress(label -> (done, total) -> {
      if (label.equals("restore") && done == total / 2) {
        throw new IllegalStateException("killed");
      }
    }).build();
    OffsetSurgeryException e = assertThrows(OffsetSurgeryException.class, () -> dying.restore(backup.file(), null, false));
    assertEquals(OffsetSurgeryException.Kind.FAILED, e.kind());
    assertTrue(e.getMessage().contains("interrupted") && e.getMessage().contains("run sluice offsets restore"),
        e.getMessage());
    Set<String> versions = topic.latest(Duration.ofSeconds(30)).stream().collect(Collectors.toMap(OffsetRecord::key,
        r -> r, (a, b) -> b)).values().stream().filter(r -> r.key().startsWith("[\"other-") && r.value() != null)
        .map(r -> r.value().replaceAll(".*\"v\":\"([a-z0-9]+)\".*", "$1")).collect(Collectors.toCollection(TreeSet::new));
    assertEquals(Set.of("before", "after"), versions, "the interrupted write left a mix");
    assertEquals("STOPPED", surgery().show(SOURCE).state());
    assertNotNull(surgery().show(SOURCE).unfinishedSurgery());

    OffsetSurgery.RestoreReport recovered = surgery().restore(backup.file(), null, false);
    assertEquals(backup.manifest().records(), recovered.records());
    assertRecoveredFrom(backup);
    int rows = pipeline.rows(pipeline.sourceDb).size();
    pipeline.insert(30, 30);
    Eventually.await("streaming again after recovery", Duration.ofSeconds(90), () -> createdIds(0),
        ids -> ids.contains(30));
    assertEquals(rows + 1, pipeline.rows(pipeline.sourceDb).size());
  }

  @Test
  @Order(8)
  void aRestoreKilledMidWayIsRecoveredByRestore() throws Exception {
    writeOtherConnectors(3000, "before");
    OffsetSurgery.BackupReport backup = surgery().backup(null, null, Duration.ofSeconds(10));
    writeOtherConnectors(3000, "after");
    Map<Integer, Long> start = topic.endOffsets(Duration.ofSeconds(10));
    long startTotal = start.values().stream().mapToLong(Long::longValue).sum();

    Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), RestoreInAnotherProcess.class.getName(),
        SharedKafka.bootstrapServers(), worker.restUrl(), cluster + "-offsets",
        dataDir.resolve("backups/offsets").toString(), backup.file().toString())
        .redirectErrorStream(true).redirectOutput(dataDir.resolve("killed-restore.log").toFile()).start();
    try {
      Eventually.await("the other process writing", Duration.ofSeconds(120),
          () -> topic.endOffsets(Duration.ofSeconds(10)).values().stream().mapToLong(Long::longValue).sum()
              - startTotal, n -> n >= 300 || !child.isAlive());
    } finally {
      child.destroyForcibly().waitFor();
    }
    long written = topic.endOffsets(Duration.ofSeconds(10)).values().stream().mapToLong(Long::longValue).sum()
        - startTotal;
    assertTrue(written > 0 && written < backup.manifest().records(), "killed after " + written + " of "
        + backup.manifest().records() + " records: " + Files.readString(dataDir.resolve("killed-restore.log")));
    assertEquals("STOPPED", surgery().show(SOURCE).state(), "the killed restore had stopped the connector");
    assertNotNull(surgery().show(SOURCE).unfinishedSurgery());

    surgery().restore(backup.file(), null, false);
    assertRecoveredFrom(backup);
  }

  @Test
  @Order(9)
  void restoreRefusesABackupOfAnotherCluster() throws Exception {
    rig.stopSource();
    OffsetSurgery.BackupReport backup = surgery().backup(SOURCE, null, Duration.ofSeconds(10));
    String manifest = Files.readString(OffsetBackup.manifestOf(backup.file()));
    Files.writeString(OffsetBackup.manifestOf(backup.file()),
        manifest.replace(backup.manifest().clusterId(), "another-cluster-id"));
    String message = rig.refusedLeavingTopicUntouched(() -> surgery().restore(backup.file(), null, false)).getMessage();
    assertTrue(message.contains("another-cluster-id") && message.contains("--force"), message);
    rig.resumeSource();
  }

  @Test
  @Order(10)
  void resetWithSnapshotNeverDeletesThePositionAndStreamsOn() {
    long end = pipeline.endOffset();
    OffsetSurgery.ResetReport reset = surgery().reset(SOURCE, OffsetSurgery.SnapshotChoice.NEVER,
        OffsetSurgery.Options.NONE);
    assertTrue(Files.exists(reset.backup()));
    assertEquals(1, reset.removed());
    // The worker answers GET from its own view of the config topic, a moment behind the write the reset made.
    Eventually.await("snapshot.mode no_data in the connector's config", Duration.ofSeconds(30),
        () -> rest.call("GET", "/connectors/" + SOURCE + "/config", null).json().path("snapshot.mode").asText(),
        mode -> mode.equals("no_data"));
    rest.awaitRunning(SOURCE);
    pipeline.insert(40, 40);
    Eventually.await("row 40 streamed", Duration.ofSeconds(90), () -> createdIds(end), ids -> ids.contains(40));
    assertEquals(0, Pipeline.count(pipeline.events(end), "r"), "reset with never took a snapshot");
  }

  /**
   * A journal that cannot be read (a disk error, a hand edit) refuses every operation that would write it, names the
   * file and leaves it byte for byte: read as empty it was overwritten, losing which connectors a crashed surgery had
   * stopped. The connector is not stopped, and show says what is wrong instead of failing.
   */
  @Test
  @Order(11)
  void aCorruptJournalRefusesSurgeryAndIsKept() throws Exception {
    rest.awaitRunning(SOURCE);
    Path journal = dataDir.resolve("backups/offsets/surgery-in-progress.json");
    String damaged = "{\"" + SOURCE + "\": {\"state\": \"RUNNING\", \"operation\": \"se";
    Files.createDirectories(journal.getParent());
    Files.writeString(journal, damaged);
    try {
      for (Runnable operation : List.<Runnable>of(
          () -> surgery().skip(SOURCE, OffsetSurgery.Options.NONE),
          () -> surgery().reset(SOURCE, OffsetSurgery.SnapshotChoice.NEVER, OffsetSurgery.Options.NONE))) {
        OffsetSurgeryException e = assertThrows(OffsetSurgeryException.class, operation::run);
        assertEquals(OffsetSurgeryException.Kind.REFUSED, e.kind(), e.getMessage());
        assertTrue(e.getMessage().contains("cannot read the surgery journal " + journal), e.getMessage());
        assertEquals(damaged, Files.readString(journal), "the journal was rewritten");
        assertEquals("RUNNING", surgery().show(SOURCE).state(), "a refused operation stopped the connector");
      }
      assertTrue(surgery().show(SOURCE).unfinishedSurgery().contains(journal.toString()));
    } finally {
      Files.delete(journal);
    }
  }
}
