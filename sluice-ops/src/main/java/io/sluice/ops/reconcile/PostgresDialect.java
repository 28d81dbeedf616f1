package io.sluice.ops.reconcile;

import io.sluice.ops.reconcile.ColumnType.Kind;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/** PostgreSQL: canonical text through {@code to_char}, {@code encode} and {@code round}; hashes from {@code md5}. */
final class PostgresDialect implements Dialect {

  @Override
  public String engine() {
    return "PostgreSQL";
  }

  @Override
  public Connection open(String jdbcUrl, Properties properties) throws SQLException {
    Connection c = DriverManager.getConnection(jdbcUrl, properties);
    // Streaming (fetch size) needs a transaction; read-only makes the driver begin READ ONLY transactions.
    c.setAutoCommit(false);
    c.setReadOnly(true);
    c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
    return c;
  }

  @Override
  public String quote(String identifier) {
    return '"' + identifier.replace("\"", "\"\"") + '"';
  }

  @Override
  public List<ColumnType> columns(Connection connection, TableName table) throws SQLException {
    return Dialect.catalogue(connection, "SELECT column_name, data_type, udt_name, numeric_scale, datetime_precision"
            + " FROM information_schema.columns WHERE table_schema = coalesce(?, current_schema()) AND table_name = ?"
            + " ORDER BY ordinal_position", table.schema(), table.name()).stream()
        .map(r -> new ColumnType(r.get(0), kind(r.get(1), r.get(2)), Dialect.number(r.get(4), 6),
            Dialect.number(r.get(3), -1), r.get(1)))
        .toList();
  }

  private static Kind kind(String dataType, String udt) {
    return switch (dataType) {
      case "smallint", "integer", "bigint" -> Kind.INTEGER;
      case "numeric" -> Kind.DECIMAL;
      case "real", "double precision" -> Kind.FLOAT;
      case "boolean" -> Kind.BOOLEAN;
      case "character varying", "character", "text", "\"char\"", "name" -> Kind.TEXT;
      case "bytea" -> Kind.BYTES;
      case "date" -> Kind.DATE;
      case "time without time zone" -> Kind.TIME;
      case "timestamp without time zone" -> Kind.TIMESTAMP;
      case "timestamp with time zone" -> Kind.TIMESTAMPTZ;
      case "uuid" -> Kind.UUID;
      case "USER-DEFINED" -> "citext".equals(udt) ? Kind.TEXT : Kind.OTHER;
      default -> Kind.OTHER;
    };
  }

  @Override
  public List<String> primaryKey(Connection connection, TableName table) throws SQLException {
    return Dialect.catalogue(connection, "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid"
            + " AND a.attnum = ANY (i.indkey) WHERE i.indrelid = ?::regclass AND i.indisprimary"
            + " ORDER BY array_position(i.indkey::int[], a.attnum::int)", table(table)).stream()
        .map(r -> r.get(0)).toList();
  }

  @Override
  public long estimateRows(Connection connection, TableName table) throws SQLException {
    // reltuples is -1 until the first VACUUM/ANALYZE; then the heap size gives a rough count (~100 bytes a row).
    List<List<String>> rows = Dialect.catalogue(connection,
        "SELECT reltuples::bigint, pg_relation_size(oid) FROM pg_class WHERE oid = ?::regclass", table(table));
    if (rows.isEmpty()) {
      return 0;
    }
    long reltuples = Long.parseLong(rows.get(0).get(0));
    return reltuples >= 0 ? reltuples : Long.parseLong(rows.get(0).get(1)) / 100;
  }

  @Override
  public String canonical(String c, ColumnType type, Canon canon) {
    if (canon instanceof Canon.Integer) {
      return type.kind() == Kind.BOOLEAN ? "(" + c + ")::int::text" : "(" + c + ")::text";
    }
    if (canon instanceof Canon.Decimal d) {
      if (d.scale() < 0) {
        return "trim_scale((" + c + ")::numeric)::text";
      }
      return d.rescale() ? "round((" + c + ")::numeric, " + d.scale() + ")::text" : "(" + c + ")::text";
    }
    if (canon instanceof Canon.Bytes) {
      return "encode(" + c + ", 'hex')";
    }
    if (canon instanceof Canon.Date) {
      return "(" + c + ")::text";
    }
    if (canon instanceof Canon.Time t) {
      return "left(to_char(" + c + ", 'HH24:MI:SS.US'), " + Dialect.keptLength(8, t.digits()) + ")";
    }
    if (canon instanceof Canon.Timestamp t) {
      String value = type.kind() == Kind.TIMESTAMPTZ ? "(" + c + " AT TIME ZONE 'UTC')" : c;
      long half = t.round() ? Dialect.halfUnitMicros(t.digits()) : 0;
      if (half > 0) {
        value = "(" + value + " + interval '" + half + " microseconds')";
      }
      if (Dialect.nativeTimestampText(t.digits())) {
        // The server's own text (DateStyle ISO, which the JDBC driver requires): fractional zeros trimmed.
        return t.digits() == 6 ? "(" + value + ")::text"
            : "date_trunc('" + (t.digits() == 3 ? "milliseconds" : "second") + "', " + value + ")::text";
      }
      return "left(to_char(" + value + ", 'YYYY-MM-DD HH24:MI:SS.US'), " + Dialect.keptLength(19, t.digits()) + ")";
    }
    if (canon instanceof Canon.Uuid) {
      return type.kind() == Kind.UUID ? "(" + c + ")::text" : "lower(" + c + ")";
    }
    return "(" + c + ")::text";
  }

  @Override
  public String character(int code) {
    return "chr(" + code + ")";
  }

  @Override
  public String md5Prefix(String text, int hexDigits) {
    return "('x' || substr(md5(" + text + "), 1, " + hexDigits + "))::bit(" + hexDigits * 4 + ")::bigint";
  }

  @Override
  public List<String> chunks(Side side, int count, long[] keyBounds) {
    // Ranges of heap blocks (TID range scans): sequential reads like one full scan, whatever the key.
    long blocks = side.query("SELECT pg_relation_size('" + table(side.table).replace("'", "''")
        + "'::regclass) / current_setting('block_size')::bigint", rs -> {
          try {
            rs.next();
            return rs.getLong(1);
          } catch (SQLException e) {
            throw new ReconcileException(side.role + ": " + e.getMessage(), e);
          }
        });
    List<String> chunks = new ArrayList<>();
    if (count <= 1 || blocks < 2L * count) {
      chunks.add(null);
      return chunks;
    }
    long per = (blocks + count - 1) / count;
    for (long start = 0; start < blocks; start += per) {
      String from = "ctid >= '(" + start + ",0)'::tid";
      chunks.add(start + per >= blocks ? from : from + " AND ctid < '(" + (start + per) + ",0)'::tid");
    }
    return chunks;
  }

  @Override
  public java.util.Optional<String> nativeHash(List<String> columns) {
    // Each type's own hash function, combined per row; hashed again because the row combination is linear, and a
    // sum of linear hashes would not see two rows swapping a value.
    return java.util.Optional.of("hashint8extended(hash_record_extended(ROW(" + String.join(", ", columns) + "), 0), 0)");
  }

  @Override
  public String segmentSums(String segment, String rowHash, String fromWhere) {
    // OFFSET 0 keeps the subquery apart: the planner then hash-aggregates two numbers a row, instead of sorting
    // whole rows because it guesses as many segments as rows.
    return "SELECT s, count(*), sum(h) FROM (SELECT " + segment + " AS s, " + rowHash + " AS h" + fromWhere
        + " OFFSET 0) r GROUP BY s";
  }

  @Override
  public String divide(String dividend, long divisor) {
    return "(" + dividend + ") / " + divisor;
  }

  @Override
  public boolean roundsFractionalSeconds() {
    return true;
  }
}
