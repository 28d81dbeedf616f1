package io.sluice.sink.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The rows of a sink table that a completed snapshot did not write: rows the source deleted while no change stream
 * could report it (before the snapshot, with no offset committed that would have replayed the delete). The database
 * compares the table with the snapshot's keys in its scratch table, so neither side passes through the task's heap.
 *
 * <p>Removal is guarded: every key the snapshot wrote must be found in the table. If one is not (a key the sink
 * wrote in another form than the scratch table holds it, a record the sink sent to its dead letter queue), this
 * cannot tell stale rows from live ones and removes nothing.
 *
 * <p>Rows go in batches, each committed on its own, so that no transaction grows with the table; a removal cut short
 * is simply done again, since it removes only what the keys do not name.
 */
final class StaleRows {
  static final int BATCH = 10_000;

  /** What one pass found and did. */
  record Outcome(long snapshotKeys, long missing, long removed) {
    boolean guarded() {
      return missing > 0;
    }
  }

  private StaleRows() {}

  /**
   * Removes the rows of {@code table} whose key ({@code keyColumns}) is not in {@code scratch}. Identifiers are used as
   * given: the caller quotes them when the sink quotes its own.
   */
  static Outcome remove(Connection db, Dialect dialect, String table, String scratch, List<String> keyColumns)
      throws SQLException {
    long keys = count(db, "SELECT count(*) FROM " + scratch);
    long missing = count(db, dialect.countMissing(table, scratch, keyColumns));
    if (missing > 0) {
      return new Outcome(keys, missing, 0);
    }
    long removed = 0;
    try (Statement s = db.createStatement()) {
      String delete = dialect.deleteStale(table, scratch, keyColumns, BATCH);
      int batch;
      do {
        batch = s.executeUpdate(delete);
        removed += batch;
      } while (batch == BATCH);
    }
    return new Outcome(keys, 0, removed);
  }

  private static long count(Connection db, String sql) throws SQLException {
    try (Statement s = db.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
