package io.sluice.sink.jdbc;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;

/**
 * The snapshots a sink task is following, kept in the sink database itself so that neither the task's heap nor its
 * life bounds them: a row per window in {@value #STATE_TABLE} (one sink connector's topic: where the window began, how
 * far it has been written, its flags), and a scratch table per window holding the keys the snapshot wrote, with the
 * sink table's own column types and a primary key on them.
 *
 * <p>Keys and the window's progress are written in one transaction, so a window's row never claims keys its scratch
 * table lacks; a window's row goes before its scratch table does. Every statement runs on one connection of the task's
 * own, opened again after an error.
 */
final class WindowStore implements AutoCloseable {
  static final String STATE_TABLE = "sluice_snapshot_windows";
  private static final String SCRATCH_PREFIX = "sluice_snapshot_";
  /** Key parts bound in one INSERT: well under the 65,535 parameters PostgreSQL takes, a few kilobytes of SQL. */
  private static final int KEYS_PER_STATEMENT = 2_000;
  private static final String COLUMNS = "connector, topic, kafka_partition, first_offset, next_offset,"
      + " source_position, keyless, spread, unsure";

  private final String url;
  private final String user;
  private final String password;
  private final String connector;
  private final Dialect dialect;
  private final Set<String> scratchExists = new HashSet<>();
  private Connection db;

  WindowStore(String url, String user, String password, String connector, Dialect dialect) {
    this.url = url;
    this.user = user;
    this.password = password;
    this.connector = connector;
    this.dialect = dialect;
  }

  /** The windows this connector left open. */
  List<SnapshotTracker.Window> load() throws SQLException {
    return run(c -> {
      List<SnapshotTracker.Window> out = new ArrayList<>();
      try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM " + STATE_TABLE
          + " WHERE connector = ?")) {
        ps.setString(1, connector);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            SnapshotTracker.Window w = new SnapshotTracker.Window(rs.getString(2), rs.getInt(3), rs.getLong(4),
                rs.getString(6));
            w.nextOffset = rs.getLong(5);
            w.savedOffset = w.nextOffset;
            w.keyless = rs.getBoolean(7);
            w.spread = rs.getBoolean(8);
            w.unsure = rs.getBoolean(9);
            out.add(w);
          }
        }
      }
      return out;
    });
  }

  /** Starts a window afresh: the keys of whatever window its topic had before are dropped. */
  void open(SnapshotTracker.Window w) throws SQLException {
    run(c -> {
      scratchExists.remove(w.topic);
      try (Statement s = c.createStatement()) {
        s.execute("DROP TABLE IF EXISTS " + scratch(w.topic));
      }
      transaction(c, () -> save(c, w));
      return null;
    });
  }

  /**
   * Adds keys to the window's scratch table (none while the window is unsure) and saves the window's state, in one
   * transaction. The scratch table is made on first use, from {@code table}'s key columns.
   */
  void keep(SnapshotTracker.Window w, String table, List<String> columns, List<List<Object>> keys)
      throws SQLException {
    run(c -> {
      boolean adding = !w.unsure && !w.keyless && !keys.isEmpty();
      if (adding && !scratchExists.contains(w.topic)) {
        if (dialect.createScratch(c, scratch(w.topic), table, columns) && w.savedOffset > w.firstOffset) {
          throw new SQLException("scratch table " + scratch(w.topic) + " was gone: the keys kept before are lost");
        }
        scratchExists.add(w.topic);
      }
      transaction(c, () -> {
        if (adding) {
          int perStatement = Math.max(1, KEYS_PER_STATEMENT / columns.size());
          for (int from = 0; from < keys.size(); from += perStatement) {
            List<List<Object>> chunk = keys.subList(from, Math.min(keys.size(), from + perStatement));
            try (PreparedStatement ps = c.prepareStatement(dialect.insertIgnoringDuplicates(scratch(w.topic),
                columns, chunk.size()))) {
              int index = 1;
              for (List<Object> key : chunk) {
                for (Object part : key) {
                  dialect.bind(ps, index++, part);
                }
              }
              ps.executeUpdate();
            }
          }
        }
        save(c, w);
      });
      w.savedOffset = w.nextOffset;
      return null;
    });
  }

  /** Saves the window's state alone (its flags changed). */
  void save(SnapshotTracker.Window w) throws SQLException {
    run(c -> {
      transaction(c, () -> save(c, w));
      return null;
    });
  }

  /**
   * Removes the rows of {@code table} that the window's keys do not name, if every one of those keys is found in it.
   * The window's row stays until {@link #forget}: a task that dies meanwhile reads the window's end again and
   * removes again.
   */
  StaleRows.Outcome removeStale(SnapshotTracker.Window w, String table, List<String> columns) throws SQLException {
    return run(c -> StaleRows.remove(c, dialect, table, scratch(w.topic), columns));
  }

  /** Drops the window: its row first, so that no row is ever left naming keys that are gone. */
  void forget(SnapshotTracker.Window w) throws SQLException {
    run(c -> {
      transaction(c, () -> delete(c, w.topic));
      scratchExists.remove(w.topic);
      try (Statement s = c.createStatement()) {
        s.execute("DROP TABLE IF EXISTS " + scratch(w.topic));
      }
      return null;
    });
  }

  /** The scratch table of one topic of this connector: a short name, the same in every task. */
  String scratch(String topic) {
    try {
      byte[] hash = MessageDigest.getInstance("SHA-256")
          .digest((connector + "\n" + topic).getBytes(StandardCharsets.UTF_8));
      return SCRATCH_PREFIX + HexFormat.of().formatHex(hash, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }

  @Override
  public void close() {
    reset();
  }

  private void save(Connection c, SnapshotTracker.Window w) throws SQLException {
    delete(c, w.topic);
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + STATE_TABLE + " (" + COLUMNS
        + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
      ps.setString(1, connector);
      ps.setString(2, w.topic);
      ps.setInt(3, w.partition);
      ps.setLong(4, w.firstOffset);
      ps.setLong(5, w.nextOffset);
      ps.setString(6, w.position);
      ps.setBoolean(7, w.keyless);
      ps.setBoolean(8, w.spread);
      ps.setBoolean(9, w.unsure);
      ps.executeUpdate();
    }
  }

  private void delete(Connection c, String topic) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + STATE_TABLE
        + " WHERE connector = ? AND topic = ?")) {
      ps.setString(1, connector);
      ps.setString(2, topic);
      ps.executeUpdate();
    }
  }

  private interface Work<T> {
    T on(Connection c) throws SQLException;
  }

  private interface Statements {
    void run() throws SQLException;
  }

  private <T> T run(Work<T> work) throws SQLException {
    try {
      if (db == null || db.isClosed()) {
        Connection c = DriverManager.getConnection(url, user, password);
        db = c;
        try (Statement s = c.createStatement()) {
          s.execute("CREATE TABLE IF NOT EXISTS " + STATE_TABLE + " (connector VARCHAR(255) NOT NULL,"
              + " topic VARCHAR(255) NOT NULL, kafka_partition INT NOT NULL, first_offset BIGINT NOT NULL,"
              + " next_offset BIGINT NOT NULL, source_position VARCHAR(2000) NOT NULL, keyless BOOLEAN NOT NULL,"
              + " spread BOOLEAN NOT NULL, unsure BOOLEAN NOT NULL, PRIMARY KEY (connector, topic))");
        }
      }
      return work.on(db);
    } catch (SQLException | RuntimeException e) {
      reset(); // the next call starts on a new connection, in no half-done transaction
      throw e;
    }
  }

  private static void transaction(Connection c, Statements statements) throws SQLException {
    c.setAutoCommit(false);
    try {
      statements.run();
      c.commit();
    } catch (SQLException | RuntimeException e) {
      try {
        c.rollback();
      } catch (SQLException r) {
        e.addSuppressed(r);
      }
      throw e;
    } finally {
      c.setAutoCommit(true);
    }
  }

  private void reset() {
    scratchExists.clear();
    if (db != null) {
      try {
        db.close();
      } catch (SQLException ignored) {
        // The connection is being dropped because it failed; closing it may fail the same way.
      }
      db = null;
    }
  }
}
