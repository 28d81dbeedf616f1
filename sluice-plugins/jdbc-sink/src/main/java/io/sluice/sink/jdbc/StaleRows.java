package io.sluice.sink.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The rows of a sink table that a completed snapshot did not write: rows the source deleted while no change stream
 * could report it (before the snapshot, with no offset committed that would have replayed the delete).
 *
 * <p>Removal is guarded: every key the snapshot wrote must be found in the table as read back. If one is not (a key
 * type that reads back in another form, a record the sink sent to its dead letter queue), this cannot tell stale rows
 * from live ones and removes nothing.
 */
final class StaleRows {
  private static final int BATCH = 1000;

  /** What one pass found and did. */
  record Outcome(int snapshotKeys, int matched, int removed) {
    boolean guarded() {
      return matched < snapshotKeys;
    }
  }

  private StaleRows() {}

  /**
   * Removes the rows of {@code table} whose key ({@code keyColumns}, as {@link KeyText}) is not among {@code written}.
   * Identifiers are used as given: the caller quotes them when the sink quotes its own.
   */
  static Outcome remove(Connection db, String table, List<String> keyColumns, Set<String> written) throws SQLException {
    String columns = String.join(", ", keyColumns);
    List<Object[]> stale = new ArrayList<>();
    int matched = 0;
    boolean autoCommit = db.getAutoCommit();
    try (Statement s = db.createStatement(); ResultSet rs = s.executeQuery("SELECT " + columns + " FROM " + table)) {
      while (rs.next()) {
        Object[] key = new Object[keyColumns.size()];
        for (int i = 0; i < key.length; i++) {
          key[i] = rs.getObject(i + 1);
        }
        if (written.contains(KeyText.of(Arrays.asList(key)))) {
          matched++;
        } else {
          stale.add(key);
        }
      }
    }
    if (matched < written.size() || stale.isEmpty()) {
      return new Outcome(written.size(), matched, 0);
    }
    String where = keyColumns.stream().map(c -> c + " = ?").collect(Collectors.joining(" AND "));
    db.setAutoCommit(false);
    try (PreparedStatement delete = db.prepareStatement("DELETE FROM " + table + " WHERE " + where)) {
      for (int from = 0; from < stale.size(); from += BATCH) {
        for (Object[] key : stale.subList(from, Math.min(stale.size(), from + BATCH))) {
          for (int i = 0; i < key.length; i++) {
            delete.setObject(i + 1, key[i]);
          }
          delete.addBatch();
        }
        delete.executeBatch();
        db.commit();
      }
    } catch (SQLException e) {
      db.rollback();
      throw e;
    } finally {
      db.setAutoCommit(autoCommit);
    }
    return new Outcome(written.size(), matched, stale.size());
  }
}
