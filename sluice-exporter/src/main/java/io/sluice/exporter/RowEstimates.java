package io.sluice.exporter;

import io.sluice.source.Engine;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * How many rows a source database believes a table holds, from its statistics, without reading the table: the "of
 * about N" of a snapshot's progress. One implementation per database engine.
 */
sealed interface RowEstimates permits RowEstimates.Postgres, RowEstimates.MySql {

  /** The estimates for a connector class, or null when Sluice has none for it. */
  static RowEstimates forClass(String connectorClass) {
    Engine engine = Engine.ofConnectorClass(connectorClass).orElse(null);
    if (engine == null) {
      return null;
    }
    return switch (engine) {
      case POSTGRESQL -> new Postgres();
      case MYSQL, MARIADB -> new MySql();
      default -> null;
    };
  }

  /**
   * Estimates by table, for the tables as Debezium names them ({@code schema.table}, {@code database.table}): one
   * statement for all of them, a round trip per snapshot rather than per table.
   */
  default Map<String, Long> read(Connection db, Collection<String> tables) throws SQLException {
    Map<String, List<String>> nameOf = new LinkedHashMap<>();
    for (String table : tables) {
      int dot = table.lastIndexOf('.');
      if (dot <= 0) {
        continue;
      }
      String schema = table.substring(0, dot);
      // PostgreSQL's names may carry the database first (catalog.schema.table): the schema is the last part before.
      schema = schema.substring(schema.lastIndexOf('.') + 1);
      nameOf.put(table, List.of(schema, table.substring(dot + 1)));
    }
    Map<String, Long> out = new TreeMap<>();
    if (nameOf.isEmpty()) {
      return out;
    }
    Set<List<String>> distinct = new LinkedHashSet<>(nameOf.values());
    Map<List<String>, Long> found = new HashMap<>();
    try (PreparedStatement s = db.prepareStatement(sql() + " IN ("
        + String.join(", ", Collections.nCopies(distinct.size(), "(?, ?)")) + ")")) {
      int i = 1;
      for (List<String> name : distinct) {
        s.setString(i++, name.get(0));
        s.setString(i++, name.get(1));
      }
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          if (rs.getObject(3) != null && rs.getLong(3) >= 0) {
            found.put(List.of(rs.getString(1), rs.getString(2)), rs.getLong(3));
          }
        }
      }
    }
    nameOf.forEach((table, name) -> {
      Long rows = found.get(name);
      if (rows == null) {
        // A server that folds names' case (MySQL's lower_case_table_names) answers with its own spelling.
        rows = found.entrySet().stream().filter(f -> f.getKey().get(0).equalsIgnoreCase(name.get(0))
            && f.getKey().get(1).equalsIgnoreCase(name.get(1))).map(Map.Entry::getValue).findFirst().orElse(null);
      }
      if (rows != null) {
        out.put(table, rows);
      }
    });
    return out;
  }

  /**
   * The query up to its condition on the (schema or database, table) pair, which the caller completes with
   * {@code IN ((?, ?), ...)}; its columns are the schema, the table and the estimate.
   */
  String sql();

  /**
   * PostgreSQL: the live rows its statistics count, which follow every committed change; where they have none yet
   * (a table no statistics were gathered for), the planner's estimate from the last ANALYZE, if any.
   */
  final class Postgres implements RowEstimates {
    @Override
    public String sql() {
      return "SELECT n.nspname::text, c.relname::text,"
          + " COALESCE(NULLIF(s.n_live_tup, 0), CASE WHEN c.reltuples < 0 THEN NULL ELSE c.reltuples END)::bigint"
          + " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
          + " LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid WHERE (n.nspname, c.relname)";
    }
  }

  /** MySQL and MariaDB: {@code information_schema.tables.table_rows}, InnoDB's sampled estimate. */
  final class MySql implements RowEstimates {
    @Override
    public String sql() {
      return "SELECT table_schema, table_name, table_rows FROM information_schema.tables"
          + " WHERE (table_schema, table_name)";
    }
  }
}
