package io.sluice.ops.reconcile;

import static io.sluice.ops.reconcile.TestTables.execute;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.ops.reconcile.ReconcileReport.ColumnDifference;
import io.sluice.testing.RetainedHeap;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** PostgreSQL to PostgreSQL (two databases of one server): every kind of seeded difference, found exactly. */
class ReconcilerTest {
  static String source;
  static String sink;

  @BeforeAll
  static void databases() {
    source = Databases.postgresSource();
    sink = Databases.postgresSink();
  }

  private static Reconciler.Builder reconcile(String table) {
    // Small segments so that even these small tables go through several levels of bisection.
    return Reconciler.builder().source(source + "?user=postgres&password=postgres")
        .sink(sink + "?user=postgres&password=postgres").table(table).segmentRows(50).maxRowsInMemory(200)
        .rowsPerChunk(700);
  }

  @Test
  void equalTablesReportEqual() throws Exception {
    TestTables.createItems(source, "same", 6);
    TestTables.createItems(sink, "same", 6);
    TestTables.fillItems(source, "same", 0, 3_000);
    TestTables.fillItems(sink, "same", 0, 3_000);
    AtomicLong progressed = new AtomicLong();
    AtomicLong updates = new AtomicLong();
    ReconcileReport report = reconcile("same").progress((done, total) -> {
      progressed.set(done);
      updates.incrementAndGet();
    }).verbose(true).build().run();
    assertTrue(report.equal(), () -> report.toString());
    assertEquals(3_000, report.sourceRows());
    assertEquals(3_000, report.sinkRows());
    assertEquals(report.sourceChecksum(), report.sinkChecksum());
    assertEquals(0, report.stats().rowsFetched(), "equal tables are compared by checksum only");
    assertEquals(3_000, progressed.get());
    assertTrue(updates.get() > 4, "the first scan is read in pieces, each reported: " + updates.get());
    assertTrue(report.stats().queries() >= 10, "pieces of the first scan: " + report.stats());
    assertFalse(report.segments().isEmpty());
    assertTrue(report.segments().stream().allMatch(ReconcileReport.SegmentChecksum::equal));
    assertEquals(List.of("id"), report.key());
    assertEquals(List.of("name", "amount", "ratio", "flag", "born", "seen", "at", "payload", "ref"), report.columns());
  }

  @Test
  void everyKindOfDifferenceIsCountedExactly() throws Exception {
    TestTables.createItems(source, "diff", 6);
    TestTables.createItems(sink, "diff", 6);
    TestTables.fillItems(source, "diff", 0, 5_000);
    TestTables.fillItems(sink, "diff", 0, 5_000);
    execute(sink,
        "DELETE FROM diff WHERE id IN (3, 777, 1500, 2222, 4999, 4000, 12)",          // 7 missing
        "INSERT INTO diff (id, name) VALUES (5000, 'x'), (5001, 'y'), (-4, 'z'), (100000, 'w'), (7777, NULL)", // 5 extra
        "UPDATE diff SET name = 'changed' WHERE id IN (10, 2000)",                     // changed text
        "UPDATE diff SET amount = amount + 0.01 WHERE id = 3001",                      // changed number
        "UPDATE diff SET payload = '\\x00ff' WHERE id = 3002",                         // changed bytes
        "UPDATE diff SET name = NULL WHERE id = 41",                                  // value -> NULL
        "UPDATE diff SET flag = true WHERE id = 19",                                  // NULL -> value
        "UPDATE diff SET seen = seen + interval '1 microsecond' WHERE id = 42");      // last digit of a timestamp
    ReconcileReport report = reconcile("diff").limitRows(3).build().run();
    assertFalse(report.equal());
    assertEquals(5_000, report.sourceRows());
    assertEquals(4_998, report.sinkRows());
    assertEquals(7, report.missing());
    assertEquals(5, report.extra());
    assertEquals(7, report.changed());
    assertEquals(3, report.missingExamples().size(), "examples are limited");
    assertEquals(3, report.mismatchExamples().size());
    assertNotEquals(report.sourceChecksum(), report.sinkChecksum());
    assertTrue(report.stats().rowsFetched() < 5_000, "only differing segments are read row by row");

    ReconcileReport all = reconcile("diff").build().run();
    assertEquals(Set.of("3", "777", "1500", "2222", "4999", "4000", "12"),
        all.missingExamples().stream().map(k -> k.get("id")).collect(Collectors.toSet()));
    assertEquals(Set.of("5000", "5001", "-4", "100000", "7777"),
        all.extraExamples().stream().map(k -> k.get("id")).collect(Collectors.toSet()));
    Map<String, List<ColumnDifference>> changed = all.mismatchExamples().stream()
        .collect(Collectors.toMap(m -> m.key().get("id"), ReconcileReport.Mismatch::columns));
    assertEquals(List.of(new ColumnDifference("name", "name 41", null)), changed.get("41"));
    assertEquals(List.of(new ColumnDifference("flag", null, "1")), changed.get("19"));
    assertEquals(List.of(new ColumnDifference("payload", "7033303032", "00ff")), changed.get("3002"));
    ColumnDifference seen = changed.get("42").get(0);
    assertEquals("seen", seen.column());
    assertEquals(seen.source().substring(0, 20), seen.sink().substring(0, 20));
    assertEquals(26, seen.source().length(), "microseconds are compared when both sides keep them");
  }

  @Test
  void timestampsKeptWithFewerDigitsInTheSinkAreNotFalseMismatches() throws Exception {
    TestTables.createItems(source, "precise", 6);
    TestTables.createItems(sink, "precise", 3);
    TestTables.fillItems(source, "precise", 0, 1_000);
    TestTables.fillItems(sink, "precise", 0, 1_000);          // PostgreSQL rounds to milliseconds on insert
    ReconcileReport report = reconcile("precise").build().run();
    assertTrue(report.equal(), () -> report.toString());
    assertEquals(1, report.casts().size(), report.casts()::toString);
    assertTrue(report.casts().get(0).startsWith("seen: timestamps compared at 3 fractional digits (source 6, sink 3)"),
        report.casts().get(0));
    assertTrue(report.casts().get(0).contains("rounded"), report.casts().get(0));

    execute(sink, "UPDATE precise SET seen = seen + interval '1 millisecond' WHERE id = 500");
    ReconcileReport changed = reconcile("precise").build().run();
    assertEquals(1, changed.changed());
    assertTrue(changed.mismatchExamples().get(0).columns().get(0).source().matches(".*:\\d\\d(\\.\\d{1,3})?"),
        "compared at milliseconds: " + changed.mismatchExamples().get(0));
  }

  @Test
  void textKeysWithMixedCaseAndAccentsAreDistinctKeys() throws Exception {
    String create = "CREATE TABLE words (w text PRIMARY KEY, n int)";
    List<String> words = List.of("abc", "ABC", "Abc", "e", "é", "É", "E", "straße", "strasse", "Ä", "a", "ä",
        "zebra", "Zebra", "ǅ", "日本", "ﬁ", "fi", " space", "space ");
    String insert = "INSERT INTO words VALUES " + words.stream().map(w -> "('" + w + "', " + w.length() + ")")
        .collect(Collectors.joining(", "));
    execute(source, create, insert);
    execute(sink, create, insert,
        "DELETE FROM words WHERE w IN ('ABC', 'é', 'space ')",
        "INSERT INTO words VALUES ('Straße', 1), ('ẞ', 2)",
        "UPDATE words SET n = 99 WHERE w IN ('e', 'ä')");
    ReconcileReport report = reconcile("words").build().run();
    assertEquals(3, report.missing());
    assertEquals(2, report.extra());
    assertEquals(2, report.changed());
    assertEquals(Set.of("ABC", "é", "space "), report.missingExamples().stream().map(k -> k.get("w")).collect(Collectors.toSet()));
    assertEquals(Set.of("Straße", "ẞ"), report.extraExamples().stream().map(k -> k.get("w")).collect(Collectors.toSet()));
    assertEquals(Set.of("e", "ä"), report.mismatchExamples().stream().map(m -> m.key().get("w")).collect(Collectors.toSet()));
  }

  @Test
  void compositeKeys() throws Exception {
    String create = "CREATE TABLE orders (tenant text, id int, total numeric(10,2), PRIMARY KEY (tenant, id))";
    String fill = "INSERT INTO orders SELECT t, i, i * 1.5 FROM unnest(ARRAY['acme', 'Acme', 'globex']) t,"
        + " generate_series(1, 400) i";
    execute(source, create, fill);
    execute(sink, create, fill,
        "DELETE FROM orders WHERE (tenant, id) IN (('acme', 7), ('Acme', 7))",
        "INSERT INTO orders VALUES ('initech', 7, 1)",
        "UPDATE orders SET total = 0 WHERE tenant = 'globex' AND id BETWEEN 100 AND 104");
    ReconcileReport report = reconcile("orders").build().run();
    assertEquals(List.of("tenant", "id"), report.key());
    assertEquals(2, report.missing());
    assertEquals(1, report.extra());
    assertEquals(5, report.changed());
    assertEquals(Set.of(Map.of("tenant", "acme", "id", "7"), Map.of("tenant", "Acme", "id", "7")),
        Set.copyOf(report.missingExamples()));
  }

  @Test
  void uuidKeys() throws Exception {
    String create = "CREATE TABLE events (id uuid PRIMARY KEY, body text)";
    String fill = "INSERT INTO events SELECT md5(i::text)::uuid, 'event ' || i FROM generate_series(1, 2000) i";
    execute(source, create, fill);
    execute(sink, create, fill,
        "DELETE FROM events WHERE id IN (SELECT md5(i::text)::uuid FROM generate_series(1, 20) i)",
        "UPDATE events SET body = upper(body) WHERE id IN (SELECT md5(i::text)::uuid FROM generate_series(500, 510) i)");
    ReconcileReport report = reconcile("events").build().run();
    assertEquals(20, report.missing());
    assertEquals(0, report.extra());
    assertEquals(11, report.changed());
    String expected;
    try (Connection c = TestTables.connect(source); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT md5('1')::uuid::text")) {
      rs.next();
      expected = rs.getString(1);
    }
    assertTrue(report.missingExamples().stream().anyMatch(k -> k.get("id").equals(expected)));
  }

  /** The system clock, which runs {@code action} the first time it is read. */
  private static Clock onFirstRead(Runnable action) {
    return new Clock() {
      private boolean read;

      @Override
      public Instant instant() {
        if (!read) {
          read = true;
          action.run();
        }
        return Instant.now();
      }

      @Override
      public ZoneId getZone() {
        return ZoneOffset.UTC;
      }

      @Override
      public Clock withZone(ZoneId zone) {
        return this;
      }
    };
  }

  @Test
  void rowsThatCatchUpWithinTheLagWindowAreNotReported() throws Exception {
    TestTables.createItems(source, "lagging", 6);
    TestTables.createItems(sink, "lagging", 6);
    TestTables.fillItems(source, "lagging", 0, 1_000);
    TestTables.fillItems(sink, "lagging", 0, 998);            // rows 998 and 999 not there yet
    execute(sink, "UPDATE lagging SET name = 'old' WHERE id IN (5, 6)");
    // The reconciler reads the clock first when the first comparison is done: that is when the pipeline delivers
    // one missing row and one update, inside the window; the re-check after the window must see them.
    Clock deliveringClock = onFirstRead(() -> {
      try {
        TestTables.fillItems(sink, "lagging", 998, 999);
        execute(sink, "UPDATE lagging SET name = 'name 5' WHERE id = 5");
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    });
    ReconcileReport first = reconcile("lagging").build().run();
    assertEquals(2, first.missing());
    assertEquals(2, first.changed());
    ReconcileReport report = reconcile("lagging").lagWindow(Duration.ofSeconds(2)).clock(deliveringClock).build().run();
    assertEquals(1, report.missing(), report::toString);
    assertEquals("999", report.missingExamples().get(0).get("id"));
    assertEquals(1, report.changed());
    assertEquals("6", report.mismatchExamples().get(0).key().get("id"));
    assertEquals(2, report.settled());
  }

  /**
   * The lag window's re-check counts only rows that differed at first: their keys are kept on disk, not in memory,
   * where a sink far behind its source (here, empty beside 500,000 rows) would put every key of the table.
   */
  @Test
  void aReCheckOfASinkFarBehindHoldsOneSegmentsKeysNotTheTables() throws Exception {
    execute(source, "CREATE TABLE behind (id bigint PRIMARY KEY, name text)",
        "INSERT INTO behind SELECT i, 'name ' || i FROM generate_series(1, 500000) AS i");
    execute(sink, "CREATE TABLE behind (id bigint PRIMARY KEY, name text)");
    long before = RetainedHeap.bytes();
    long[] atFirstResult = {-1};
    // Read once the first comparison is done: every differing key has been seen by then.
    Clock measuring = onFirstRead(() -> atFirstResult[0] = RetainedHeap.bytes());
    ReconcileReport report = Reconciler.builder().source(source + "?user=postgres&password=postgres")
        .sink(sink + "?user=postgres&password=postgres").table("behind").lagWindow(Duration.ofMillis(1))
        // Segments of up to 10,000 rows compared row by row: not bisected down to 64 rows, which takes minutes.
        .segmentRows(10_000).leafRows(10_000).clock(measuring).build().run();
    long grown = atFirstResult[0] - before;
    System.out.printf("reconcile of 500,000 missing rows: heap retained before %,d bytes, after the first"
        + " comparison %,d (%+,d)%n", before, atFirstResult[0], grown);
    // 500,000 keys in a set retain about 40 MB.
    assertTrue(grown < 15L << 20, "the heap grew by " + grown + " bytes");
    assertEquals(500_000, report.missing(), report::toString);
    assertEquals(0, report.settled());
  }

  @Test
  void whereAndColumnSelection() throws Exception {
    TestTables.createItems(source, "filtered", 6);
    TestTables.createItems(sink, "filtered", 6);
    TestTables.fillItems(source, "filtered", 0, 500);
    TestTables.fillItems(sink, "filtered", 0, 500);
    execute(sink, "UPDATE filtered SET name = 'x' WHERE id = 400", "UPDATE filtered SET amount = 0 WHERE id = 10");
    ReconcileReport below = reconcile("filtered").where("id < 300").build().run();
    assertEquals(300, below.sourceRows());
    assertEquals(1, below.changed());
    ReconcileReport withoutAmount = reconcile("filtered").exclude(List.of("amount")).build().run();
    assertEquals(1, withoutAmount.changed());
    assertFalse(withoutAmount.columns().contains("amount"));
    ReconcileReport onlyAmount = reconcile("filtered").columns(List.of("amount")).build().run();
    assertEquals(List.of("amount"), onlyAmount.columns());
    assertEquals(1, onlyAmount.changed());
  }

  @Test
  void explainedChecksumSqlGivesTheReportedChecksums() throws Exception {
    TestTables.createItems(source, "explained", 6);
    TestTables.fillItems(source, "explained", 0, 200);
    execute(source, "CREATE TABLE explained_copy (LIKE explained INCLUDING ALL)",
        "INSERT INTO explained_copy SELECT * FROM explained WHERE id <> 7");
    String url = source + "?user=postgres&password=postgres";
    Reconciler same = Reconciler.builder().source(url).sink(url).table("explained", "explained_copy").build();
    List<Reconciler.Explained> steps = same.explain();
    ReconcileReport report = same.run();
    assertEquals(1, report.missing());
    Reconciler.Explained checksum = steps.stream().filter(s -> s.title().startsWith("table checksum (source)")).findFirst().orElseThrow();
    Reconciler.Explained missing = steps.stream().filter(s -> s.title().startsWith("missing rows")).findFirst().orElseThrow();
    try (Connection c = TestTables.connect(source); Statement s = c.createStatement()) {
      try (ResultSet rs = s.executeQuery(checksum.sql().replace(";", ""))) {
        rs.next();
        assertEquals(200, rs.getLong(1));
        assertEquals(report.sourceChecksum(), Differ.hex(Differ.wrap(rs.getBigDecimal(2))));
      }
      try (ResultSet rs = s.executeQuery(missing.sql().replace(";", ""))) {
        assertTrue(rs.next());
        assertEquals(7, rs.getLong(1));
        assertFalse(rs.next());
      }
    }
    assertTrue(steps.stream().anyMatch(s -> s.title().startsWith("column mismatches") && s.sql().contains("IS DISTINCT FROM")));
  }

  @Test
  void rowsSwappingValuesAreFound() throws Exception {
    // The native row hash combines columns linearly; without the final mixing a swap would keep the sum.
    String create = "CREATE TABLE swapped (id int PRIMARY KEY, a text, b int)";
    String fill = "INSERT INTO swapped SELECT i, 'v' || i, i FROM generate_series(1, 100) i";
    execute(source, create, fill);
    execute(sink, create, fill, "UPDATE swapped SET a = CASE id WHEN 10 THEN 'v11' ELSE 'v10' END WHERE id IN (10, 11)");
    ReconcileReport report = reconcile("swapped").build().run();
    assertTrue(report.checksumMethod().contains("hash_record_extended"), report.checksumMethod());
    assertEquals(2, report.changed());
    assertNotEquals(report.sourceChecksum(), report.sinkChecksum());
  }

  @Test
  void errorsSayWhatIsWrong() {
    ReconcileException missingTable = assertThrows(ReconcileException.class, () -> reconcile("no_such_table").build().run());
    assertTrue(missingTable.getMessage().contains("source table no_such_table not found"), missingTable.getMessage());
    ReconcileException badUrl = assertThrows(ReconcileException.class,
        () -> Reconciler.builder().source("jdbc:oracle:thin:@x").sink(sink).table("t").build().run());
    assertTrue(badUrl.getMessage().contains("unsupported JDBC URL"), badUrl.getMessage());
  }

  /** Both sides unreachable: both errors are said, the source's too (it was dropped for the sink's). */
  @Test
  void whenNeitherSideOpensBothErrorsAreSaid() throws Exception {
    int closed;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      closed = s.getLocalPort();
    }
    ReconcileException both = assertThrows(ReconcileException.class, () -> Reconciler.builder()
        .source("jdbc:postgresql://127.0.0.1:" + closed + "/nowhere").sink("jdbc:mariadb://127.0.0.1:" + closed
            + "/nowhere").table("t").build().run());
    assertTrue(both.getMessage().contains("cannot connect to the source (jdbc:postgresql://127.0.0.1:" + closed)
        && both.getMessage().contains("cannot connect to the sink (jdbc:mariadb://127.0.0.1:" + closed),
        both.getMessage());
  }
}
