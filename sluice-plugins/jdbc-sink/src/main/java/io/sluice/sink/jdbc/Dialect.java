package io.sluice.sink.jdbc;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The SQL in which the sink databases differ for keeping a snapshot's keys and removing the rows they do not name.
 * Identifiers come quoted as the sink quotes its own; {@code t} and {@code s} are the aliases of the sink table and the
 * scratch table in the conditions.
 */
enum Dialect {
  POSTGRES("\"") {
    @Override
    boolean createScratch(Connection db, String scratch, String table, List<String> columns) throws SQLException {
      // CREATE TABLE AS cannot declare a key; DDL is transactional here, so the table never exists without it.
      boolean autoCommit = db.getAutoCommit();
      db.setAutoCommit(false);
      try (Statement s = db.createStatement()) {
        s.execute(createAs(scratch, "", table, columns));
        s.execute("ALTER TABLE " + scratch + " ADD PRIMARY KEY (" + String.join(", ", columns) + ")");
        db.commit();
        return true;
      } catch (SQLException e) {
        db.rollback();
        if ("42P07".equals(e.getSQLState())) {
          return false;
        }
        throw e;
      } finally {
        db.setAutoCommit(autoCommit);
      }
    }

    @Override
    String insertIgnoringDuplicates(String scratch, List<String> columns, int rows) {
      return "INSERT INTO " + scratch + " (" + String.join(", ", columns) + ") VALUES " + marks(columns, rows)
          + " ON CONFLICT DO NOTHING";
    }

    @Override
    void bindValue(PreparedStatement ps, int index, Object value) throws SQLException {
      // Sent untyped, the text is cast to the column's own type: uuid, numeric, text alike.
      ps.setObject(index, value instanceof BigDecimal d ? d.toPlainString() : value.toString(), Types.OTHER);
    }

    @Override
    String deleteStale(String table, String scratch, List<String> columns, int limit) {
      // By key rather than ctid: a partitioned table repeats ctids across its partitions.
      String key = String.join(", ", columns);
      return "DELETE FROM " + table + " WHERE (" + key + ") IN (SELECT " + columns.stream().map(c -> "t." + c)
          .collect(Collectors.joining(", ")) + " FROM " + table + " t WHERE NOT EXISTS (SELECT 1 FROM " + scratch
          + " s WHERE " + match(columns, "t") + ") LIMIT " + limit + ")";
    }
  },

  MARIADB("`") {
    @Override
    boolean createScratch(Connection db, String scratch, String table, List<String> columns) throws SQLException {
      try (Statement s = db.createStatement()) {
        s.execute(createAs(scratch, " (PRIMARY KEY (" + String.join(", ", columns) + "))", table, columns));
        return true;
      } catch (SQLException e) {
        if ("42S01".equals(e.getSQLState())) {
          return false;
        }
        throw e;
      }
    }

    @Override
    String insertIgnoringDuplicates(String scratch, List<String> columns, int rows) {
      return "INSERT IGNORE INTO " + scratch + " (" + String.join(", ", columns) + ") VALUES " + marks(columns, rows);
    }

    @Override
    void bindValue(PreparedStatement ps, int index, Object value) throws SQLException {
      ps.setObject(index, value);
    }

    @Override
    String deleteStale(String table, String scratch, List<String> columns, int limit) {
      // A single-table DELETE may have no alias here: the condition names the table itself.
      return "DELETE FROM " + table + " WHERE NOT EXISTS (SELECT 1 FROM " + scratch + " s WHERE "
          + match(columns, table) + ") LIMIT " + limit;
    }
  };

  /** How the database quotes an identifier. */
  final String quote;

  Dialect(String quote) {
    this.quote = quote;
  }

  /** The dialect of a sink's {@code connection.url}; empty for a database this sink keeps no snapshot keys in. */
  static Optional<Dialect> forUrl(String jdbcUrl) {
    if (jdbcUrl == null) {
      return Optional.empty();
    }
    if (jdbcUrl.startsWith("jdbc:postgresql:")) {
      return Optional.of(POSTGRES);
    }
    if (jdbcUrl.startsWith("jdbc:mariadb:") || jdbcUrl.startsWith("jdbc:mysql:")) {
      return Optional.of(MARIADB);
    }
    return Optional.empty();
  }

  /**
   * Creates the scratch table with the key columns of {@code table}, their types and a primary key on them; false
   * when it exists already.
   */
  abstract boolean createScratch(Connection db, String scratch, String table, List<String> columns)
      throws SQLException;

  /** An INSERT of one key that does nothing for a key the scratch table holds already. */
  /**
   * One statement adding {@code rows} keys: a multi-row {@code VALUES}, since one round trip per key (a JDBC batch the
   * driver does not rewrite) cost the sink two thirds of its rows/s during a snapshot.
   */
  abstract String insertIgnoringDuplicates(String scratch, List<String> columns, int rows);

  /** Binds one part of a key, as the event carries it, so that the database reads it as the column's type. */
  void bind(PreparedStatement ps, int index, Object value) throws SQLException {
    if (value instanceof byte[] b) {
      ps.setBytes(index, b);
    } else if (value instanceof ByteBuffer buffer) {
      byte[] b = new byte[buffer.remaining()];
      buffer.duplicate().get(b);
      ps.setBytes(index, b);
    } else {
      bindValue(ps, index, value);
    }
  }

  /** Binds a key part that is not bytes. */
  abstract void bindValue(PreparedStatement ps, int index, Object value) throws SQLException;

  /** Deletes at most {@code limit} rows of {@code table} whose key the scratch table does not hold. */
  abstract String deleteStale(String table, String scratch, List<String> columns, int limit);

  /** Counts the scratch table's keys that {@code table} does not hold. */
  String countMissing(String table, String scratch, List<String> columns) {
    return "SELECT count(*) FROM " + scratch + " s WHERE NOT EXISTS (SELECT 1 FROM " + table + " t WHERE "
        + match(columns, "t") + ")";
  }

  private static String createAs(String scratch, String keyClause, String table, List<String> columns) {
    return "CREATE TABLE " + scratch + keyClause + " AS SELECT " + String.join(", ", columns) + " FROM " + table
        + " WHERE 1 = 0";
  }

  private static String match(List<String> columns, String table) {
    return columns.stream().map(c -> "s." + c + " = " + table + "." + c).collect(Collectors.joining(" AND "));
  }

  private static String marks(List<String> columns, int rows) {
    String row = "(" + columns.stream().map(c -> "?").collect(Collectors.joining(", ")) + ")";
    return String.join(", ", java.util.Collections.nCopies(rows, row));
  }
}
