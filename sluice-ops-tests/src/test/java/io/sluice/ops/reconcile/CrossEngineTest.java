package io.sluice.ops.reconcile;

import static io.sluice.ops.reconcile.TestTables.execute;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL to MariaDB: the two dialects must give bit-identical checksums for equal data, so equal tables are
 * proved equal by checksums alone, and differences are found with exact counts. Where Debian's mariadb-server is
 * absent: a failure under CI, a skip elsewhere ({@code RequiredTool}).
 */
class CrossEngineTest {
  static String postgres;
  static String mariadb;

  @BeforeAll
  static void databases() {
    postgres = Databases.postgresSource();
    mariadb = Databases.mariadb();
  }

  private static Reconciler.Builder reconcile(String sourceUrl, String sinkUrl, String table) {
    String source = sourceUrl.startsWith("jdbc:postgresql:") ? sourceUrl + "?user=postgres&password=postgres" : sourceUrl;
    String sink = sinkUrl.startsWith("jdbc:postgresql:") ? sinkUrl + "?user=postgres&password=postgres" : sinkUrl;
    return Reconciler.builder().source(source).sink(sink).table(table).segmentRows(50).maxRowsInMemory(200)
        .rowsPerChunk(700);
  }

  @Test
  void postgresAndMariaDbWithEqualDataReportEqualByChecksumAlone() throws Exception {
    TestTables.createItems(postgres, "x_same", 6);
    TestTables.createItems(mariadb, "x_same", 6);
    TestTables.fillItems(postgres, "x_same", 0, 3_000);
    TestTables.fillItems(mariadb, "x_same", 0, 3_000);
    ReconcileReport report = reconcile(postgres, mariadb, "x_same").build().run();
    assertTrue(report.equal(), report::toString);
    assertEquals("PostgreSQL", report.sourceEngine());
    assertEquals("MariaDB", report.sinkEngine());
    assertEquals(3_000, report.sinkRows());
    assertEquals(report.sourceChecksum(), report.sinkChecksum(), "the dialects hash equal rows identically");
    assertEquals(0, report.stats().rowsFetched());
    assertEquals(List.of("ratio: floating point compared at 6 decimal places"), report.casts());

    ReconcileReport reverse = reconcile(mariadb, postgres, "x_same").build().run();
    assertTrue(reverse.equal(), reverse::toString);
    ReconcileReport mariaToMaria = reconcile(mariadb, mariadb, "x_same").build().run();
    assertTrue(mariaToMaria.equal());
    assertTrue(mariaToMaria.casts().isEmpty(), mariaToMaria.casts()::toString);
  }

  @Test
  void millisecondsTruncatedByMariaDbAreNotFalseMismatches() throws Exception {
    TestTables.createItems(postgres, "x_precise", 6);
    TestTables.createItems(mariadb, "x_precise", 3);
    TestTables.fillItems(postgres, "x_precise", 0, 1_000);
    TestTables.fillItems(mariadb, "x_precise", 0, 1_000);     // MariaDB truncates to milliseconds on insert
    ReconcileReport report = reconcile(postgres, mariadb, "x_precise").build().run();
    assertTrue(report.equal(), report::toString);
    assertTrue(report.casts().stream().anyMatch(c -> c.startsWith("seen: timestamps compared at 3 fractional digits")
        && c.contains("truncated as MariaDB stores them")), report.casts()::toString);
  }

  @Test
  void differencesAcrossEnginesAreCountedExactly() throws Exception {
    TestTables.createItems(postgres, "x_diff", 6);
    TestTables.createItems(mariadb, "x_diff", 6);
    TestTables.fillItems(postgres, "x_diff", 0, 4_000);
    TestTables.fillItems(mariadb, "x_diff", 0, 4_000);
    execute(mariadb,
        "DELETE FROM x_diff WHERE id IN (1, 2, 3999)",
        "INSERT INTO x_diff (id, name) VALUES (4000, 'new'), (4001, NULL)",
        "UPDATE x_diff SET name = 'NAME 20' WHERE id = 20",
        "UPDATE x_diff SET amount = NULL WHERE id = 21",
        "UPDATE x_diff SET born = '1999-12-31' WHERE id = 22",
        "UPDATE x_diff SET at = at + INTERVAL 1 SECOND WHERE id = 23");
    ReconcileReport report = reconcile(postgres, mariadb, "x_diff").build().run();
    assertEquals(3, report.missing(), report::toString);
    assertEquals(2, report.extra());
    assertEquals(4, report.changed());
    assertEquals(Set.of("20", "21", "22", "23"),
        report.mismatchExamples().stream().map(m -> m.key().get("id")).collect(Collectors.toSet()));
  }

  @Test
  void textUuidAndCompositeKeysAcrossEngines() throws Exception {
    List<String> words = List.of("abc", "ABC", "Abc", "e", "é", "É", "straße", "Straße", "ä", "Ä", "日本", "zz", "ZZ");
    String values = words.stream().map(w -> "('" + w + "', " + w.length() + ")").collect(Collectors.joining(", "));
    execute(postgres, "CREATE TABLE x_words (w text PRIMARY KEY, n int)", "INSERT INTO x_words VALUES " + values);
    // A case- and accent-insensitive table collation: only the key column is binary, as it must be to hold these keys.
    execute(mariadb, "CREATE TABLE x_words (w varchar(20) COLLATE utf8mb4_bin PRIMARY KEY, n int)"
        + " CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci", "INSERT INTO x_words VALUES " + values,
        "DELETE FROM x_words WHERE w IN ('ABC', 'É')", "INSERT INTO x_words VALUES ('STRASSE', 1)",
        "UPDATE x_words SET n = 0 WHERE w = 'ä'");
    ReconcileReport text = reconcile(postgres, mariadb, "x_words").build().run();
    assertEquals(Set.of("ABC", "É"), text.missingExamples().stream().map(k -> k.get("w")).collect(Collectors.toSet()));
    assertEquals(1, text.extra());
    assertEquals(1, text.changed());
    assertEquals("ä", text.mismatchExamples().get(0).key().get("w"));

    execute(postgres, "CREATE TABLE x_events (id uuid PRIMARY KEY, tenant varchar(10), body text)",
        "INSERT INTO x_events SELECT md5(i::text)::uuid, 'T' || (i % 3), 'event ' || i FROM generate_series(1, 1000) i");
        // MariaDB's UUID type refuses these md5-made values (not RFC 4122 variants): text there, uuid in PostgreSQL.
    execute(mariadb, "CREATE TABLE x_events (id char(36) PRIMARY KEY, tenant varchar(10), body text)");
    try (var pg = TestTables.connect(postgres); var s = pg.createStatement();
         var rs = s.executeQuery("SELECT id::text, tenant, body FROM x_events WHERE body <> 'event 500'");
         var my = TestTables.connect(mariadb);
         var insert = my.prepareStatement("INSERT INTO x_events VALUES (?, ?, ?)")) {
      while (rs.next()) {
        insert.setString(1, rs.getString(1));
        insert.setString(2, rs.getString(2));
        insert.setString(3, rs.getString(3).equals("event 7") ? "EVENT 7" : rs.getString(3));
        insert.addBatch();
      }
      insert.executeBatch();
    }
    ReconcileReport uuid = reconcile(postgres, mariadb, "x_events").build().run();
    assertEquals(1, uuid.missing());
    assertEquals(0, uuid.extra());
    assertEquals(1, uuid.changed());

    ReconcileReport composite = reconcile(postgres, mariadb, "x_events").key(List.of("tenant", "id")).build().run();
    assertEquals(List.of("tenant", "id"), composite.key());
    assertEquals(1, composite.missing());
    assertEquals(1, composite.changed());
  }
}
