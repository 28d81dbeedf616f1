package io.sluice.ops.reconcile;

import io.sluice.ops.reconcile.ColumnType.Kind;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

/**
 * MySQL and MariaDB: canonical text through {@code DATE_FORMAT}, {@code HEX} and decimal casts; hashes from
 * {@code MD5} and {@code CONV}. Text is converted to utf8mb4 first so the hashed bytes are PostgreSQL's UTF-8 bytes
 * whatever the column's character set.
 */
final class MariaDbDialect implements Dialect {

  @Override
  public String engine() {
    return "MariaDB";
  }

  @Override
  public Connection open(String jdbcUrl, Properties properties) throws SQLException {
    // The MariaDB driver serves MySQL too, under its own scheme.
    String url = jdbcUrl.startsWith("jdbc:mysql:") ? "jdbc:mariadb:" + jdbcUrl.substring("jdbc:mysql:".length()) : jdbcUrl;
    Connection c = DriverManager.getConnection(url, properties);
    c.setReadOnly(true);
    c.setAutoCommit(false);
    c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
    try (Statement s = c.createStatement()) {
      // TIMESTAMP columns are instants shown in the session zone: UTC, as PostgreSQL's timestamptz is canonicalised.
      s.execute("SET time_zone = '+00:00'");
    }
    return c;
  }

  @Override
  public String quote(String identifier) {
    return '`' + identifier.replace("`", "``") + '`';
  }

  @Override
  public List<ColumnType> columns(Connection connection, TableName table) throws SQLException {
    return Dialect.catalogue(connection, "SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, NUMERIC_SCALE, DATETIME_PRECISION"
            + " FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ?"
            + " ORDER BY ORDINAL_POSITION", table.schema(), table.name()).stream()
        .map(r -> new ColumnType(r.get(0), kind(r.get(1).toLowerCase(Locale.ROOT)), Dialect.number(r.get(4), 0),
            Dialect.number(r.get(3), -1), r.get(2)))
        .toList();
  }

  private static Kind kind(String dataType) {
    return switch (dataType) {
      case "tinyint", "smallint", "mediumint", "int", "integer", "bigint", "year" -> Kind.INTEGER;
      case "decimal", "numeric" -> Kind.DECIMAL;
      case "float", "double", "real" -> Kind.FLOAT;
      case "char", "varchar", "tinytext", "text", "mediumtext", "longtext", "enum", "set", "json" -> Kind.TEXT;
      case "binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob" -> Kind.BYTES;
      case "date" -> Kind.DATE;
      case "time" -> Kind.TIME;
      case "datetime" -> Kind.TIMESTAMP;
      case "timestamp" -> Kind.TIMESTAMPTZ;
      case "uuid" -> Kind.UUID;
      default -> Kind.OTHER;
    };
  }

  @Override
  public List<String> primaryKey(Connection connection, TableName table) throws SQLException {
    return Dialect.catalogue(connection, "SELECT COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE"
            + " WHERE CONSTRAINT_NAME = 'PRIMARY' AND TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ?"
            + " ORDER BY ORDINAL_POSITION", table.schema(), table.name()).stream()
        .map(r -> r.get(0)).toList();
  }

  @Override
  public long estimateRows(Connection connection, TableName table) throws SQLException {
    List<List<String>> rows = Dialect.catalogue(connection, "SELECT TABLE_ROWS FROM information_schema.TABLES"
        + " WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ?", table.schema(), table.name());
    return rows.isEmpty() || rows.get(0).get(0) == null ? 0 : Long.parseLong(rows.get(0).get(0));
  }

  @Override
  public String canonical(String c, ColumnType type, Canon canon) {
    if (canon instanceof Canon.Integer) {
      return "CAST(" + c + " AS CHAR)";
    }
    if (canon instanceof Canon.Decimal d) {
      return d.scale() < 0 || !d.rescale()
          ? "CAST(" + c + " AS CHAR)"
          : "CAST(CAST(" + c + " AS DECIMAL(65," + Math.min(d.scale(), 30) + ")) AS CHAR)";
    }
    if (canon instanceof Canon.Bytes) {
      return "LOWER(HEX(" + c + "))";
    }
    if (canon instanceof Canon.Date) {
      return "DATE_FORMAT(" + c + ", '%Y-%m-%d')";
    }
    if (canon instanceof Canon.Time t) {
      return "LEFT(TIME_FORMAT(" + c + ", '%H:%i:%s.%f'), " + Dialect.keptLength(8, t.digits()) + ")";
    }
    if (canon instanceof Canon.Timestamp t) {
      long half = t.round() ? Dialect.halfUnitMicros(t.digits()) : 0;
      String value = half > 0 ? "(" + c + " + INTERVAL " + half + " MICROSECOND)" : c;
      String text = "LEFT(DATE_FORMAT(" + value + ", '%Y-%m-%d %H:%i:%s.%f'), " + Dialect.keptLength(19, t.digits()) + ")";
      if (Dialect.nativeTimestampText(t.digits()) && t.digits() > 0) {
        // PostgreSQL's text: fractional zeros dropped, then the point if nothing is left after it.
        return "TRIM(TRAILING '.' FROM TRIM(TRAILING '0' FROM " + text + "))";
      }
      return text;
    }
    if (canon instanceof Canon.Uuid) {
      return "LOWER(CAST(" + c + " AS CHAR))";
    }
    return "CONVERT(" + c + " USING utf8mb4)";
  }

  @Override
  public String character(int code) {
    return "CHAR(" + code + " USING utf8mb4)";
  }

  @Override
  public String md5Prefix(String text, int hexDigits) {
    return "CAST(CONV(SUBSTRING(MD5(" + text + "), 1, " + hexDigits + "), 16, 10) AS UNSIGNED)";
  }

  @Override
  public List<String> chunks(Side side, int count, long[] keyBounds) {
    // InnoDB keeps rows in primary-key order: key ranges read sequentially.
    return Dialect.keyChunks(side, count, keyBounds);
  }

  @Override
  public String divide(String dividend, long divisor) {
    return "(" + dividend + ") DIV " + divisor;
  }

  @Override
  public boolean roundsFractionalSeconds() {
    return false;
  }
}
