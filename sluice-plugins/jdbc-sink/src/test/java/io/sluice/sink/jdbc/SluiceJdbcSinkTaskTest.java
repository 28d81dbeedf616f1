package io.sluice.sink.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The sink task carrying snapshots to their end against a real PostgreSQL, driven as Connect's worker drives it: the
 * rows a snapshot did not write leave the table, across a task started again mid-snapshot, for keys that PostgreSQL
 * must cast, and with a heap that does not grow with the snapshot. (The same hole through a real Connect worker, into
 * PostgreSQL and MariaDB, is sluice-connect's {@code SnapshotCompletionTest}.)
 */
class SluiceJdbcSinkTaskTest {
  private static String url;

  @BeforeAll
  static void database() {
    url = TestPostgres.createDatabase("sink_task");
  }

  private static String snapshotMark(int i, int last) {
    return i == 1 ? "first" : i == last ? "last" : "true";
  }

  @Test
  void aTaskStartedAgainMidSnapshotTakesItUpFromItsCommittedOffsetAndRemovesTheStaleRows() {
    ChangeEvents events = ChangeEvents.ofIntKey("restart.public.orders");
    List<SinkRecord> streamed = IntStream.rangeClosed(1, 1010).mapToObj(id -> events.insert(100, events.row(id)))
        .toList();
    // A new snapshot of the table without rows 1001-1010, deleted while no change stream could report it.
    long first = events.offset;
    List<SinkRecord> snapshot = IntStream.rangeClosed(1, 1000)
        .mapToObj(id -> events.snapshot(snapshotMark(id, 1000), 500, events.row(id))).toList();
    long committed;
    try (DrivenTask task = new DrivenTask(url, "restart", events.topic, "orders_restart")) {
      task.put(streamed, 500);
      task.put(snapshot.subList(0, 600), 100);
      committed = task.committed(first + 600);
      assertEquals(1, count("SELECT count(*) FROM " + WindowStore.STATE_TABLE + " WHERE connector = 'restart'"));
    }
    assertEquals(first + 600, committed, "the window is kept in the sink database: nothing holds the offset back");

    try (DrivenTask task = new DrivenTask(url, "restart", events.topic, "orders_restart")) {
      task.put(snapshot.subList((int) (committed - first), snapshot.size()), 100);
      task.put(List.of(events.insert(600, events.row(2000))), 1);
    }
    Set<Integer> expected = IntStream.rangeClosed(1, 1000).boxed().collect(Collectors.toCollection(TreeSet::new));
    expected.add(2000);
    assertEquals(expected, ids("orders_restart"));
    assertNothingLeftOf("restart");
  }

  @Test
  void anIncrementalSnapshotOfPartOfATableRemovesNothing() {
    // sluice snapshot start --filter 'id <= 100': Debezium marks its reads "incremental", never first or last.
    ChangeEvents events = ChangeEvents.ofIntKey("incremental.public.orders");
    List<SinkRecord> streamed = IntStream.rangeClosed(1, 300).mapToObj(id -> events.insert(100, events.row(id)))
        .toList();
    List<SinkRecord> filtered = IntStream.rangeClosed(1, 100)
        .mapToObj(id -> events.snapshot("incremental", 200, events.row(id))).toList();
    try (DrivenTask task = new DrivenTask(url, "incremental", events.topic, "orders_incremental")) {
      task.put(streamed, 100);
      task.put(filtered, 30);
      task.put(List.of(events.insert(300, events.row(301))), 1);
    }
    assertEquals(IntStream.rangeClosed(1, 301).boxed().collect(Collectors.toCollection(TreeSet::new)),
        ids("orders_incremental"));
    assertNothingLeftOf("incremental");
  }

  @Test
  void keysThatPostgresqlCastsFromTextComplete() {
    Schema uuid = SchemaBuilder.string().name("io.debezium.data.Uuid").build();
    Schema numeric = Decimal.builder(2).build();
    ChangeEvents events = new ChangeEvents("cast.public.prices",
        SchemaBuilder.struct().field("u", uuid).field("n", numeric).build(),
        SchemaBuilder.struct().optional().field("u", uuid).field("n", numeric).field("item", Schema.STRING_SCHEMA)
            .build());
    List<Struct> rows = IntStream.range(0, 5)
        .mapToObj(i -> events.row(UUID.randomUUID().toString(), new BigDecimal(i + ".50"), "item-" + i)).toList();
    try (DrivenTask task = new DrivenTask(url, "cast", events.topic, "prices")) {
      task.put(rows.stream().map(r -> events.insert(100, r)).toList(), 10);
      task.put(List.of(events.snapshot("first", 200, rows.get(0)), events.snapshot("true", 200, rows.get(2)),
          events.snapshot("last", 200, rows.get(4))), 10);
    }
    assertEquals(Set.of("0.50", "2.50", "4.50"), strings("SELECT n FROM prices"));
    assertNothingLeftOf("cast");
  }

  @Test
  void keysThatCannotBeKeptRemoveNothingAndNeverFailTheSink() {
    // A timestamp key comes as microseconds: as text, PostgreSQL cannot read it into the column's type.
    Schema micros = SchemaBuilder.int64().name("io.debezium.time.MicroTimestamp").build();
    ChangeEvents events = new ChangeEvents("unsure.public.events", SchemaBuilder.struct().field("at", micros).build(),
        SchemaBuilder.struct().optional().field("at", micros).field("item", Schema.STRING_SCHEMA).build());
    try (DrivenTask task = new DrivenTask(url, "unsure", events.topic, "timed")) {
      task.put(IntStream.rangeClosed(1, 3).mapToObj(i -> events.insert(100, events.row(i * 1_000_000L, "i" + i)))
          .toList(), 10);
      task.put(List.of(events.snapshot("first", 200, events.row(1_000_000L, "i1")),
          events.snapshot("last", 200, events.row(2_000_000L, "i2"))), 10);
      task.put(List.of(events.insert(300, events.row(4_000_000L, "i4"))), 1);
    }
    assertEquals(Set.of("i1", "i2", "i3", "i4"), strings("SELECT item FROM timed"),
        "the row the snapshot did not write stays, and the change after it is written");
    assertNothingLeftOf("unsure");
  }

  @Test
  void writtenRecordsAreMeasuredFromTheirCommitInTheSourceAndRefusedOnesAreNot() throws SQLException {
    ChangeEvents events = ChangeEvents.ofIntKey("fresh.public.orders");
    events.committedAt = System.currentTimeMillis() - 45_000;
    try (DrivenTask task = new DrivenTask(url, "fresh", events.topic, "orders_fresh")) {
      task.put(IntStream.rangeClosed(1, 10).mapToObj(id -> events.insert(100, events.row(id))).toList(), 4);
      // Committed 45 s ago and written now: over 30 s, within a minute (a put takes far less than 15 s).
      assertEquals(0, writeFreshness(task, "30.0"));
      assertEquals(10, writeFreshness(task, "60.0"));
      assertEquals(10, writeFreshness(task, "+Inf"));
      try (Connection c = TestPostgres.connect(url); Statement s = c.createStatement()) {
        s.execute("ALTER TABLE orders_fresh ADD CONSTRAINT small_ids CHECK (id < 100)");
      }
      assertThrows(ConnectException.class, () -> task.task.put(new ArrayList<>(List.of(events.insert(200,
          events.row(500))))));
      assertEquals(10, writeFreshness(task, "+Inf"), "a put whose write failed measures nothing");
    }
  }

  private static long writeFreshness(DrivenTask task, String le) {
    Object v = task.metrics.metric(new org.apache.kafka.common.MetricName(WriteFreshness.BUCKET, "plugins", "",
        Map.of("connector", "fresh", "task", "0", "le", le))).metricValue();
    return ((Number) v).longValue();
  }

  @Test
  void aRecordTheTableRefusesFailsTheTaskNamingItWhereTheSinkHasNoDeadLetterQueue() throws SQLException {
    ChangeEvents events = ChangeEvents.ofIntKey("refused.public.orders");
    try (DrivenTask task = new DrivenTask(url, "refused", events.topic, "orders_refused")) {
      task.put(List.of(events.insert(100, events.row(1))), 1);
      try (Connection c = TestPostgres.connect(url); Statement s = c.createStatement()) {
        s.execute("ALTER TABLE orders_refused ADD CONSTRAINT small_ids CHECK (id < 100)");
      }
      ConnectException failed = assertThrows(ConnectException.class,
          () -> task.task.put(new ArrayList<>(List.of(events.insert(200, events.row(500))))));
      assertTrue(failed.getMessage().contains("table orders_refused") && failed.getMessage().contains("small_ids")
          && failed.getMessage().contains("refused.public.orders-0@"), failed.getMessage());
    }
    assertEquals(Set.of(1), ids("orders_refused"));
  }

  @Test
  void aRecordTheTableRefusesGoesToTheDeadLetterQueueAndTheRestIsWritten() throws SQLException {
    ChangeEvents events = ChangeEvents.ofIntKey("dead.public.orders");
    try (DrivenTask task = new DrivenTask(url, "dead", events.topic, "orders_dead",
        Map.of("errors.tolerance", "all", "errors.deadletterqueue.topic.name", "dead.dlq"))) {
      task.put(List.of(events.insert(100, events.row(1))), 1);
      try (Connection c = TestPostgres.connect(url); Statement s = c.createStatement()) {
        s.execute("ALTER TABLE orders_dead ADD CONSTRAINT small_ids CHECK (id < 100)");
      }
      // One put with the refused record between two good ones, and later puts: all but it are written.
      task.task.put(new ArrayList<>(List.of(events.insert(200, events.row(2)), events.insert(201, events.row(500)),
          events.insert(202, events.row(3)))));
      task.task.put(new ArrayList<>(List.of(events.insert(203, events.row(4)), events.insert(204, events.row(600)))));
      task.task.put(new ArrayList<>(List.of(events.insert(205, events.row(5)))));
      assertEquals(List.of(500, 600), task.deadLetters.stream()
          .map(e -> ((org.apache.kafka.connect.data.Struct) e.getKey().key()).get("id")).toList());
      String reason = task.deadLetters.get(0).getValue().getMessage();
      assertTrue(reason.contains("table orders_dead") && reason.contains("small_ids"), reason);
      assertEquals(7L, task.committed(7), "the refused records count as handled");
    }
    assertEquals(Set.of(1, 2, 3, 4, 5), ids("orders_dead"));
  }

  @Test
  void aSinkSetToFailOnARefusedRecordFailsAsDebeziumsDoes() throws SQLException {
    ChangeEvents events = ChangeEvents.ofIntKey("strict.public.orders");
    try (DrivenTask task = new DrivenTask(url, "strict", events.topic, "orders_strict", Map.of("errors.tolerance", "all",
        "errors.deadletterqueue.topic.name", "strict.dlq", RecordByRecordWriter.REFUSED, "fail"))) {
      task.put(List.of(events.insert(100, events.row(1))), 1);
      try (Connection c = TestPostgres.connect(url); Statement s = c.createStatement()) {
        s.execute("ALTER TABLE orders_strict ADD CONSTRAINT small_ids CHECK (id < 100)");
      }
      task.task.put(new ArrayList<>(List.of(events.insert(200, events.row(500)), events.insert(201, events.row(2)))));
      ConnectException failed = assertThrows(ConnectException.class, () -> task.task.put(new ArrayList<>()));
      assertTrue(String.valueOf(failed.getCause()).contains("small_ids")
          || String.valueOf(failed.getCause().getCause()).contains("small_ids"), String.valueOf(failed.getCause()));
      assertTrue(task.deadLetters.isEmpty(), "nothing sent to the dead letter queue");
    }
    assertEquals(Set.of(1), ids("orders_strict"));
  }

  @Test
  void theHeapDoesNotGrowWithTheSnapshot() {
    int rows = 300_000;
    int measuredFrom = 20_000;
    ChangeEvents events = ChangeEvents.ofIntKey("heap.public.orders");
    long before = 0;
    long after;
    try (DrivenTask task = new DrivenTask(url, "heap", events.topic, "orders_heap")) {
      task.put(IntStream.rangeClosed(rows + 1, rows + 5).mapToObj(id -> events.insert(100, events.row(id))).toList(),
          10);
      List<SinkRecord> poll = new ArrayList<>();
      for (int id = 1; id < rows; id++) {
        poll.add(events.snapshot(snapshotMark(id, rows), 500, events.row(id)));
        if (poll.size() == 500) {
          task.put(poll, 500);
          poll.clear();
        }
        if (id == measuredFrom) {
          task.put(poll, 500);
          poll.clear();
          before = retainedHeap();
        }
      }
      task.put(poll, 500);
      after = retainedHeap();
      task.put(List.of(events.snapshot("last", 500, events.row(rows))), 1);
    }
    long grown = after - before;
    System.out.printf("heap retained after %,d snapshot records: %,d bytes; after %,d: %,d bytes (%+,d)%n",
        measuredFrom, before, rows - 1, after, grown);
    // The keys of these 280,000 records as strings in a HashSet (as before the scratch table) retain about 25 MB.
    assertTrue(grown < 12 * 1024 * 1024, "heap grew by " + grown + " bytes over " + (rows - measuredFrom)
        + " snapshot records");
    assertEquals(rows, count("SELECT count(*) FROM orders_heap"), "the 5 rows the snapshot did not write are gone");
    assertEquals(0, count("SELECT count(*) FROM orders_heap WHERE id > " + rows));
    assertNothingLeftOf("heap");
  }

  private static long retainedHeap() {
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 4; i++) {
      System.gc();
      used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
    }
    return used;
  }

  /** The connector's state rows and scratch tables are all gone once its snapshots ended. */
  private static void assertNothingLeftOf(String connector) {
    assertEquals(0, count("SELECT count(*) FROM " + WindowStore.STATE_TABLE + " WHERE connector = '" + connector
        + "'"));
    assertEquals(Set.of(), strings("SELECT table_name FROM information_schema.tables WHERE table_name LIKE"
        + " 'sluice_snapshot_%' AND table_name <> '" + WindowStore.STATE_TABLE + "'"));
  }

  private static Set<Integer> ids(String table) {
    return strings("SELECT id FROM " + table).stream().map(Integer::valueOf)
        .collect(Collectors.toCollection(TreeSet::new));
  }

  private static Set<String> strings(String sql) {
    Set<String> out = new TreeSet<>();
    try (Connection c = TestPostgres.connect(url); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
    return out;
  }

  private static long count(String sql) {
    return Long.parseLong(strings(sql).iterator().next());
  }
}
