package io.sluice.ops.reconcile;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One database of the comparison (source or sink) with the SQL fragments of its dialect for the planned columns.
 * Each side has its own connection and is only used by one thread at a time.
 */
final class Side implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Side.class);
  final String role;
  final Dialect dialect;
  final Connection connection;
  final TableName table;
  private final String where;
  private Comparison comparison;
  private int queries;

  Side(String role, Dialect dialect, Connection connection, TableName table, String where) {
    this.role = role;
    this.dialect = dialect;
    this.connection = connection;
    this.table = table;
    this.where = where;
  }

  void plan(Comparison comparison) {
    this.comparison = comparison;
  }

  private ColumnType type(Comparison.Column c) {
    return "source".equals(role) ? c.source() : c.sink();
  }

  private String name(Comparison.Column c) {
    return type(c).name();
  }

  String column(Comparison.Column c) {
    return dialect.quote(name(c));
  }

  List<String> canonicalKeys() {
    return comparison.keys().stream().map(c -> dialect.canonical(column(c), type(c), c.canon())).toList();
  }

  List<String> canonicalValues() {
    return comparison.values().stream().map(c -> dialect.canonical(column(c), type(c), c.canon())).toList();
  }

  String keyText() {
    return dialect.rowText(canonicalKeys());
  }

  String rowText() {
    List<String> all = new ArrayList<>(canonicalKeys());
    all.addAll(canonicalValues());
    return dialect.rowText(all);
  }

  /** SQL: the 64-bit checksum of a row, native when both sides allow it (see {@link Comparison#nativeHash}). */
  String rowHash() {
    if (comparison.nativeHash()) {
      return dialect.nativeHash(comparison.all().stream().map(this::column).toList()).orElseThrow();
    }
    return dialect.hash64(rowText());
  }

  /** SQL: a non-negative 32-bit hash of the key, for bucket segments. */
  String keyHash32() {
    if (comparison.nativeHash()) {
      return "(" + dialect.nativeHash(comparison.keys().stream().map(this::column).toList()).orElseThrow()
          + " & 4294967295)";
    }
    return dialect.hash32(keyText());
  }

  /** The raw integer key column, for key-range segments. */
  String integerKey() {
    return column(comparison.keys().get(0));
  }

  String from() {
    return " FROM " + dialect.table(table);
  }

  /** {@code WHERE} with the operator's filter and {@code scope} (either may be absent). */
  String where(String scope) {
    List<String> parts = new ArrayList<>();
    if (where != null && !where.isBlank()) {
      parts.add("(" + where + ")");
    }
    if (scope != null) {
      parts.add("(" + scope + ")");
    }
    return parts.isEmpty() ? "" : " WHERE " + String.join(" AND ", parts);
  }

  /**
   * Runs a query and maps its streamed rows; the result set is closed before returning. The transaction stays open
   * (several queries can share its snapshot) until {@link #endTransaction()}.
   */
  <T> T query(String sql, Function<ResultSet, T> reader) {
    queries++;
    long start = System.nanoTime();
    try (Statement s = connection.createStatement()) {
      s.setFetchSize(dialect.fetchSize());
      try (ResultSet rs = s.executeQuery(sql)) {
        return reader.apply(rs);
      } finally {
        if (LOG.isDebugEnabled()) {
          LOG.debug("{} {} ms: {}", role, (System.nanoTime() - start) / 1_000_000, sql.length() > 300 ? sql.substring(0, 300) + "..." : sql);
        }
      }
    } catch (SQLException e) {
      throw new ReconcileException(role + " query failed: " + e.getMessage() + "\n  " + sql, e);
    }
  }

  /** Opens a streamed query; the caller closes the statement. */
  Statement open(String sql, ResultSet[] out) {
    queries++;
    try {
      Statement s = connection.createStatement();
      s.setFetchSize(dialect.fetchSize());
      out[0] = s.executeQuery(sql);
      return s;
    } catch (SQLException e) {
      throw new ReconcileException(role + " query failed: " + e.getMessage() + "\n  " + sql, e);
    }
  }

  void endTransaction() {
    try {
      if (!connection.getAutoCommit()) {
        connection.commit();
      }
    } catch (SQLException e) {
      throw new ReconcileException(role + ": " + e.getMessage(), e);
    }
  }

  int queries() {
    return queries;
  }

  @Override
  public void close() {
    try {
      connection.close();
    } catch (SQLException ignored) {
      // Read-only work: nothing to lose when closing fails.
    }
  }
}
