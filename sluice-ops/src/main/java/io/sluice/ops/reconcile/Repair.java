package io.sluice.ops.reconcile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.ops.progress.Progress;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;

/**
 * The changes that make a sink table equal its source, from a {@link ReconcileReport} that lists every differing row
 * ({@link Reconciler.Builder#limitRows} at least the number of differences): a row missing from the sink is inserted
 * with the source's values, a row that differs is updated to them, a row the source does not have is deleted.
 *
 * <p>The source is only read, in a read-only transaction. Before anything changes, every affected sink row is written
 * to a backup file (JSON lines) that {@link #restore} puts back. Changes run in batches, one transaction per batch,
 * keys given as quoted literals that both engines cast to the key column's type (the report's canonical key text).
 */
public final class Repair {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One change: what is wrong with the row, and its key (column → canonical text). */
  public record Change(Kind kind, Map<String, String> key) {}

  public enum Kind { MISSING, CHANGED, EXTRA }

  /** What an applied repair did. */
  public record Applied(int inserted, int updated, int deleted, int batches) {}

  private final ReconcileReport report;
  private final List<Change> changes;
  private final List<String> values;

  private Repair(ReconcileReport report) {
    this.report = report;
    List<Change> all = new ArrayList<>();
    report.missingExamples().forEach(k -> all.add(new Change(Kind.MISSING, k)));
    report.mismatchExamples().forEach(m -> all.add(new Change(Kind.CHANGED, m.key())));
    report.extraExamples().forEach(k -> all.add(new Change(Kind.EXTRA, k)));
    this.changes = List.copyOf(all);
    this.values = report.columns();
  }

  /** The repair of {@code report}; refused when the report does not list every differing row. */
  public static Repair of(ReconcileReport report) {
    if (report.missingExamples().size() < report.missing() || report.extraExamples().size() < report.extra()
        || report.mismatchExamples().size() < report.changed()) {
      throw new ReconcileException("the report lists " + (report.missingExamples().size()
          + report.extraExamples().size() + report.mismatchExamples().size()) + " of "
          + (report.missing() + report.extra() + report.changed()) + " differing rows; a repair needs all of them");
    }
    return new Repair(report);
  }

  public List<Change> changes() {
    return changes;
  }

  /**
   * The statements, as SQL text with the values the source holds now: what {@link #apply} runs (there with bound
   * values instead of literals). Reads the source only.
   */
  public List<String> sql(String sourceUrl, Properties sourceProperties, String sinkUrl) {
    Dialect source = Dialect.forUrl(sourceUrl);
    Dialect sink = Dialect.forUrl(sinkUrl);
    List<String> out = new ArrayList<>();
    try (Connection src = source.open(sourceUrl, sourceProperties)) {
      for (Change c : changes) {
        Map<String, Object> row = c.kind() == Kind.EXTRA ? null : sourceRow(src, source, c.key());
        out.add(statement(sink, c, row, true).sql());
      }
      src.rollback();
    } catch (SQLException e) {
      throw new ReconcileException("cannot read the source: " + e.getMessage(), e);
    }
    return out;
  }

  /**
   * Backs the affected sink rows up to {@code backup}, then applies the changes in batches of {@code batchSize}, one
   * transaction each. A batch that fails is rolled back and ends the repair; the batches before it stay applied and
   * the backup restores them.
   */
  public Applied apply(String sourceUrl, Properties sourceProperties, String sinkUrl, Properties sinkProperties,
      Path backup, int batchSize, Progress progress) {
    Dialect source = Dialect.forUrl(sourceUrl);
    Dialect sink = Dialect.forUrl(sinkUrl);
    int inserted = 0;
    int updated = 0;
    int deleted = 0;
    int batches = 0;
    try (Connection src = source.open(sourceUrl, sourceProperties); Connection dst = writable(sink, sinkUrl,
        sinkProperties)) {
      backUp(dst, sink, backup);
      for (int from = 0; from < changes.size(); from += batchSize) {
        List<Change> batch = changes.subList(from, Math.min(changes.size(), from + batchSize));
        try {
          for (Change c : batch) {
            Map<String, Object> row = c.kind() == Kind.EXTRA ? null : sourceRow(src, source, c.key());
            Planned s = statement(sink, c, row, false);
            try (PreparedStatement ps = dst.prepareStatement(s.sql())) {
              for (int i = 0; i < s.params().size(); i++) {
                ps.setObject(i + 1, s.params().get(i));
              }
              int n = ps.executeUpdate();
              switch (s.kind()) {
                case MISSING -> inserted += n;
                case CHANGED -> updated += n;
                case EXTRA -> deleted += n;
              }
            }
          }
          dst.commit();
          batches++;
        } catch (SQLException e) {
          dst.rollback();
          throw new ReconcileException("batch " + (batches + 1) + " failed and was rolled back (" + batches
              + " batch(es) applied; the backup " + backup + " restores them): " + e.getMessage(), e);
        }
        progress.update(Math.min(changes.size(), from + batchSize), changes.size());
      }
      src.rollback();
    } catch (SQLException e) {
      throw new ReconcileException("repair failed: " + e.getMessage(), e);
    } finally {
      progress.finish();
    }
    return new Applied(inserted, updated, deleted, batches);
  }

  /**
   * Puts back what a backup file holds: rows the repair inserted are deleted, rows it updated or deleted are written
   * back with the values they had. One transaction.
   */
  public static int restore(Path backup, String sinkUrl, Properties sinkProperties) {
    Dialect sink = Dialect.forUrl(sinkUrl);
    int restored = 0;
    try (Connection dst = writable(sink, sinkUrl, sinkProperties)) {
      List<String> lines = Files.readAllLines(backup, StandardCharsets.UTF_8);
      if (lines.isEmpty()) {
        return 0;
      }
      JsonNode head = JSON.readTree(lines.get(0));
      String table = sink.table(TableName.parse(head.path("table").asText()));
      try {
        for (String line : lines.subList(1, lines.size())) {
          JsonNode entry = JSON.readTree(line);
          Map<String, String> key = new LinkedHashMap<>();
          entry.path("key").fields().forEachRemaining(f -> key.put(f.getKey(), f.getValue().asText()));
          try (Statement s = dst.createStatement()) {
            s.executeUpdate("DELETE FROM " + table + " WHERE " + where(sink, key));
            JsonNode row = entry.path("row");
            if (!row.isMissingNode() && !row.isNull()) {
              List<String> cols = new ArrayList<>();
              List<String> vals = new ArrayList<>();
              row.fields().forEachRemaining(f -> {
                cols.add(sink.quote(f.getKey()));
                JsonNode v = f.getValue();
                vals.add(v.isNull() ? "NULL" : v.has("hex") ? bytesLiteral(sink, v.get("hex").asText())
                    : literal(v.asText()));
              });
              s.executeUpdate("INSERT INTO " + table + " (" + String.join(", ", cols) + ") VALUES ("
                  + String.join(", ", vals) + ")");
            }
          }
          restored++;
        }
        dst.commit();
      } catch (SQLException e) {
        dst.rollback();
        throw e;
      }
    } catch (SQLException | IOException e) {
      throw new ReconcileException("cannot restore " + backup + ": " + e.getMessage(), e);
    }
    return restored;
  }

  /** A statement with its parameters, and the SQL text a person reads in a dry run. */
  private record Planned(Kind kind, String sql, List<Object> params) {}

  private Planned statement(Dialect sink, Change c, Map<String, Object> sourceRow, boolean inline) {
    String table = sink.table(TableName.parse(report.sinkTable()));
    String where = where(sink, c.key());
    if (c.kind() == Kind.EXTRA || sourceRow == null) {
      // A row that left the source after the report: deleting it is what makes the two sides equal now.
      return new Planned(Kind.EXTRA, "DELETE FROM " + table + " WHERE " + where, List.of());
    }
    List<Object> params = new ArrayList<>();
    if (c.kind() == Kind.MISSING) {
      List<String> cols = new ArrayList<>(report.key());
      cols.addAll(values);
      List<String> holders = new ArrayList<>();
      for (String col : cols) {
        Object v = sourceRow.get(col);
        holders.add(inline ? display(v) : "?");
        params.add(v);
      }
      return new Planned(Kind.MISSING, "INSERT INTO " + table + " ("
          + cols.stream().map(sink::quote).collect(Collectors.joining(", ")) + ") VALUES ("
          + String.join(", ", holders) + ")", params);
    }
    List<String> sets = new ArrayList<>();
    for (String col : values) {
      Object v = sourceRow.get(col);
      sets.add(sink.quote(col) + " = " + (inline ? display(v) : "?"));
      params.add(v);
    }
    return new Planned(Kind.CHANGED, "UPDATE " + table + " SET " + String.join(", ", sets) + " WHERE " + where,
        params);
  }

  private Map<String, Object> sourceRow(Connection src, Dialect source, Map<String, String> key) throws SQLException {
    List<String> cols = new ArrayList<>(report.key());
    cols.addAll(values);
    String sql = "SELECT " + cols.stream().map(source::quote).collect(Collectors.joining(", ")) + " FROM "
        + source.table(TableName.parse(report.sourceTable())) + " WHERE " + where(source, key);
    try (Statement s = src.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      if (!rs.next()) {
        return null;
      }
      Map<String, Object> row = new LinkedHashMap<>();
      for (int i = 0; i < cols.size(); i++) {
        row.put(cols.get(i), rs.getObject(i + 1));
      }
      return row;
    }
  }

  /** Every affected sink row as it is now: the table, then one JSON line per change. */
  private void backUp(Connection dst, Dialect sink, Path backup) throws SQLException {
    String table = sink.table(TableName.parse(report.sinkTable()));
    try {
      if (backup.toAbsolutePath().getParent() != null) {
        Files.createDirectories(backup.toAbsolutePath().getParent());
      }
      try (BufferedWriter w = Files.newBufferedWriter(backup, StandardCharsets.UTF_8)) {
        ObjectNode head = JSON.createObjectNode().put("table", report.sinkTable()).put("sourceTable",
            report.sourceTable());
        w.write(JSON.writeValueAsString(head));
        w.newLine();
        for (Change c : changes) {
          ObjectNode entry = JSON.createObjectNode().put("kind", c.kind().name().toLowerCase(java.util.Locale.ROOT));
          ObjectNode key = entry.putObject("key");
          c.key().forEach(key::put);
          try (Statement s = dst.createStatement();
              ResultSet rs = s.executeQuery("SELECT * FROM " + table + " WHERE " + where(sink, c.key()))) {
            if (rs.next()) {
              ObjectNode row = entry.putObject("row");
              ResultSetMetaData md = rs.getMetaData();
              for (int i = 1; i <= md.getColumnCount(); i++) {
                if (isBinary(md.getColumnType(i))) {
                  byte[] bytes = rs.getBytes(i);
                  if (bytes == null) {
                    row.putNull(md.getColumnName(i));
                  } else {
                    // Bytes as text would not survive the round trip; the restore writes them back from hex.
                    row.putObject(md.getColumnName(i)).put("hex", java.util.HexFormat.of().formatHex(bytes));
                  }
                } else {
                  row.put(md.getColumnName(i), rs.getString(i));
                }
              }
            }
          }
          w.write(JSON.writeValueAsString(entry));
          w.newLine();
        }
      }
    } catch (IOException e) {
      throw new ReconcileException("cannot write the backup " + backup + ": " + e.getMessage(), e);
    }
    dst.commit();
  }

  private static Connection writable(Dialect dialect, String url, Properties properties) throws SQLException {
    Connection c = dialect.open(url, properties);
    c.rollback();
    c.setReadOnly(false);
    c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
    try (Statement s = c.createStatement()) {
      // Keys and restored values are canonical text, timestamps in UTC.
      s.execute(dialect instanceof PostgresDialect ? "SET TIME ZONE 'UTC'" : "SET time_zone = '+00:00'");
    }
    c.commit();
    return c;
  }

  private static String where(Dialect d, Map<String, String> key) {
    return key.entrySet().stream().map(e -> d.quote(e.getKey()) + " = " + literal(e.getValue()))
        .collect(Collectors.joining(" AND "));
  }

  private static boolean isBinary(int sqlType) {
    return sqlType == java.sql.Types.BINARY || sqlType == java.sql.Types.VARBINARY
        || sqlType == java.sql.Types.LONGVARBINARY || sqlType == java.sql.Types.BLOB;
  }

  private static String bytesLiteral(Dialect d, String hex) {
    return d instanceof PostgresDialect ? "'\\x" + hex + "'" : "X'" + hex + "'";
  }

  static String literal(String text) {
    return text == null ? "NULL" : "'" + text.replace("'", "''") + "'";
  }

  private static String display(Object v) {
    if (v == null) {
      return "NULL";
    }
    if (v instanceof Number || v instanceof Boolean) {
      return v.toString();
    }
    if (v instanceof byte[] b) {
      return "'\\\\x" + java.util.HexFormat.of().formatHex(b) + "'";
    }
    return literal(v.toString());
  }
}
