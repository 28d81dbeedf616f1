package io.sluice.ops.reconcile;

import static io.sluice.ops.reconcile.TestTables.execute;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.ops.progress.Progress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A repair makes the sink equal the source for every kind of difference and column type, never writes the source,
 * backs up what it changes, and the backup puts the sink back as it was.
 */
class RepairTest {
  private static String pg(String url) {
    return url + "?user=postgres&password=postgres";
  }

  private static Reconciler.Builder reconcile(String source, String sink, String table) {
    return Reconciler.builder().source(source).sink(sink).table(table).segmentRows(50).maxRowsInMemory(200)
        .rowsPerChunk(700).limitRows(Integer.MAX_VALUE);
  }

  private static void seed(String source, String sink, String table) throws Exception {
    TestTables.createItems(source, table, 6);
    TestTables.createItems(sink, table, 6);
    TestTables.fillItems(source, table, 0, 1_500);
    TestTables.fillItems(sink, table, 0, 1_500);
    boolean pgSink = sink.startsWith("jdbc:postgresql:");
    execute(sink,
        "DELETE FROM " + table + " WHERE id IN (3, 777, 1499)",
        "INSERT INTO " + table + " (id, name) VALUES (5000, 'x'), (-4, 'it''s extra')",
        "UPDATE " + table + " SET name = 'it''s changed', amount = amount + 1 WHERE id = 10",
        "UPDATE " + table + " SET name = NULL, flag = NOT flag WHERE id = 41",
        pgSink ? "UPDATE " + table + " SET at = at + interval '1 second', payload = '\\x00ff' WHERE id = 42"
            : "UPDATE " + table + " SET at = at + INTERVAL 1 SECOND, payload = x'00ff' WHERE id = 42");
  }

  private void repairsAndRestores(String source, String sink, String table, Path dir) throws Exception {
    seed(source, sink, table);
    ReconcileReport before = reconcile(source, sink, table).build().run();
    assertEquals(3, before.missing());
    assertEquals(2, before.extra());
    assertEquals(3, before.changed());

    Repair repair = Repair.of(before);
    List<String> sql = repair.sql(source, new Properties(), sink);
    assertEquals(8, sql.size(), sql::toString);
    assertTrue(sql.stream().anyMatch(s -> s.startsWith("INSERT INTO") && s.contains("'777'") == false
        && s.contains("777")), sql::toString);
    assertTrue(sql.stream().anyMatch(s -> s.startsWith("DELETE FROM") && s.contains("'it''s extra'") == false
        && s.contains("= '-4'")), sql::toString);
    assertTrue(sql.stream().anyMatch(s -> s.startsWith("UPDATE") && s.contains("= '10'")), sql::toString);
    assertFalse(reconcile(source, sink, table).build().run().equal(), "a dry run changes nothing");

    Path backup = dir.resolve(table + ".jsonl");
    AtomicLong progressed = new AtomicLong();
    Progress progress = (done, total) -> progressed.set(done);
    Repair.Applied applied = repair.apply(source, new Properties(), sink, new Properties(), backup, 3, progress);
    assertEquals(new Repair.Applied(3, 3, 2, 3), applied);
    assertEquals(8, progressed.get());
    ReconcileReport after = reconcile(source, sink, table).build().run();
    assertTrue(after.equal(), after::toString);
    assertEquals(before.sourceChecksum(), after.sourceChecksum(), "the source is only read");

    assertEquals(9, Files.readAllLines(backup).size(), "a head line and one line per change");
    assertEquals(8, Repair.restore(backup, sink, new Properties()));
    ReconcileReport restored = reconcile(source, sink, table).build().run();
    assertEquals(before.sinkChecksum(), restored.sinkChecksum(), "the backup puts the sink back as it was");
    assertEquals(before.missing(), restored.missing());
    assertEquals(before.extra(), restored.extra());
  }

  @Test
  void postgresToPostgres(@TempDir Path dir) throws Exception {
    repairsAndRestores(pg(Databases.postgresSource()), pg(Databases.postgresSink()), "rep_pg", dir);
  }

  @Test
  void postgresToMariaDb(@TempDir Path dir) throws Exception {
    repairsAndRestores(pg(Databases.postgresSource()), Databases.mariadb(), "rep_maria", dir);
  }

  @Test
  void aReportWithLimitedExamplesCannotBeRepaired() throws Exception {
    String source = pg(Databases.postgresSource());
    String sink = pg(Databases.postgresSink());
    seed(source, sink, "rep_limited");
    ReconcileReport limited = reconcile(source, sink, "rep_limited").limitRows(1).build().run();
    var e = assertThrows(ReconcileException.class, () -> Repair.of(limited));
    assertTrue(e.getMessage().contains("a repair needs all of them"), e.getMessage());
  }
}
