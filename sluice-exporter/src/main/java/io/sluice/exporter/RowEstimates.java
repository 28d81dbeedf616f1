package io.sluice.exporter;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;

/**
 * How many rows a source database believes a table holds, from its statistics, without reading the table: the "of
 * about N" of a snapshot's progress. One implementation per database engine.
 */
sealed interface RowEstimates permits RowEstimates.Postgres, RowEstimates.MySql {

  /** The estimates for a connector class, or null when Sluice has none for it. */
  static RowEstimates forClass(String connectorClass) {
    return switch (connectorClass) {
      case "io.debezium.connector.postgresql.PostgresConnector" -> new Postgres();
      case "io.debezium.connector.mysql.MySqlConnector", "io.debezium.connector.mariadb.MariaDbConnector" ->
          new MySql();
      default -> null;
    };
  }

  /** Estimates by table, for the tables as Debezium names them ({@code schema.table}, {@code database.table}). */
  default Map<String, Long> read(Connection db, Collection<String> tables) throws SQLException {
    Map<String, Long> out = new TreeMap<>();
    try (PreparedStatement s = db.prepareStatement(sql())) {
      for (String table : tables) {
        int dot = table.lastIndexOf('.');
        if (dot <= 0) {
          continue;
        }
        String schema = table.substring(0, dot);
        // PostgreSQL's names may carry the database first (catalog.schema.table): the schema is the last part before.
        schema = schema.substring(schema.lastIndexOf('.') + 1);
        s.setString(1, schema);
        s.setString(2, table.substring(dot + 1));
        try (ResultSet rs = s.executeQuery()) {
          if (rs.next() && rs.getObject(1) != null && rs.getLong(1) >= 0) {
            out.put(table, rs.getLong(1));
          }
        }
      }
    }
    return out;
  }

  /** The query, with the schema (or database) and the table name as its two parameters. */
  String sql();

  /**
   * PostgreSQL: the live rows its statistics count, which follow every committed change; where they have none yet
   * (a table no statistics were gathered for), the planner's estimate from the last ANALYZE, if any.
   */
  final class Postgres implements RowEstimates {
    @Override
    public String sql() {
      return "SELECT COALESCE(NULLIF(s.n_live_tup, 0), CASE WHEN c.reltuples < 0 THEN NULL ELSE c.reltuples END)"
          + "::bigint FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
          + " LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid WHERE n.nspname = ? AND c.relname = ?";
    }
  }

  /** MySQL and MariaDB: {@code information_schema.tables.table_rows}, InnoDB's sampled estimate. */
  final class MySql implements RowEstimates {
    @Override
    public String sql() {
      return "SELECT table_rows FROM information_schema.tables WHERE table_schema = ? AND table_name = ?";
    }
  }
}
