package io.sluice.ops.reconcile;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Properties;

/**
 * Everything that differs between database engines: how to connect read-only, how to read the catalogue, and the SQL
 * that turns each value into canonical text and that text into hashes. The SQL of one engine must give byte-for-byte
 * the same text and bit-for-bit the same numbers as the other's for equal values; the tests hold them to that.
 */
sealed interface Dialect permits PostgresDialect, MariaDbDialect {
  /** Column separator inside a row's canonical text, and the text that stands for NULL. */
  int SEPARATOR = 31;
  int NULL_MARK = 30;

  static Dialect forUrl(String jdbcUrl) {
    if (jdbcUrl.startsWith("jdbc:postgresql:")) {
      return new PostgresDialect();
    }
    if (jdbcUrl.startsWith("jdbc:mariadb:") || jdbcUrl.startsWith("jdbc:mysql:")) {
      return new MariaDbDialect();
    }
    throw new IllegalArgumentException("unsupported JDBC URL (PostgreSQL, MySQL and MariaDB are): " + jdbcUrl);
  }

  /** The engine's name for reports. */
  String engine();

  /** A read-only connection set up for streaming large results in UTC. */
  Connection open(String jdbcUrl, Properties properties) throws SQLException;

  String quote(String identifier);

  default String table(TableName table) {
    return table.schema() == null ? quote(table.name()) : quote(table.schema()) + "." + quote(table.name());
  }

  /** The columns in declaration order; empty when the table does not exist. */
  List<ColumnType> columns(Connection connection, TableName table) throws SQLException;

  List<String> primaryKey(Connection connection, TableName table) throws SQLException;

  /** The catalogue's row estimate (no scan); only used to size segments. */
  long estimateRows(Connection connection, TableName table) throws SQLException;

  /** SQL giving the canonical text of {@code column} (already quoted), or NULL for NULL. */
  String canonical(String column, ColumnType type, Canon canon);

  /** SQL: the character with this code, as text. */
  String character(int code);

  /** SQL: the first {@code hexDigits} hexadecimal digits of the MD5 of {@code text} as an integer. */
  String md5Prefix(String text, int hexDigits);

  /** SQL concatenating canonical texts with {@link #SEPARATOR}, NULLs written as {@link #NULL_MARK}. */
  default String rowText(List<String> canonicalTexts) {
    StringBuilder sb = new StringBuilder("CONCAT_WS(" + character(SEPARATOR));
    for (String t : canonicalTexts) {
      sb.append(", COALESCE(").append(t).append(", ").append(character(NULL_MARK)).append(')');
    }
    return sb.append(')').toString();
  }

  /** SQL: the first 64 bits of the MD5 of {@code text} as an integer (signed or not: sums agree modulo 2^64). */
  default String hash64(String text) {
    return md5Prefix(text, 16);
  }

  /** SQL: the first 32 bits of the MD5 of {@code text} as a non-negative integer. */
  default String hash32(String text) {
    return md5Prefix(text, 8);
  }

  /**
   * SQL: a 64-bit hash of the columns' values computed without text conversion, when the engine has one. Used only
   * when both sides are this engine and declare every column alike, so equal values hash alike on both.
   */
  default java.util.Optional<String> nativeHash(List<String> columns) {
    return java.util.Optional.empty();
  }

  /** SQL: per segment, the row count and the sum of row hashes, for rows {@code fromWhere} ("FROM … WHERE …"). */
  default String segmentSums(String segment, String rowHash, String fromWhere) {
    return "SELECT " + segment + ", count(*), sum(" + rowHash + ")" + fromWhere + " GROUP BY 1";
  }

  /** SQL: integer division of two non-negative integers. */
  String divide(String dividend, long divisor);

  /** SQL: remainder of a non-negative integer. */
  default String modulo(String dividend, long divisor) {
    return "(" + dividend + ") % " + divisor;
  }

  /**
   * Whether the engine rounds (rather than truncates) fractional seconds when a value is stored with fewer digits:
   * PostgreSQL rounds, MariaDB truncates. The finer side is brought to the coarser side the way its engine would.
   */
  boolean roundsFractionalSeconds();

  /**
   * SQL conditions splitting the table into about {@code count} pieces that together hold every row, read one
   * after the other in one transaction so progress can be shown; a single null when the table is not split.
   */
  List<String> chunks(Side side, int count, long[] keyBounds);

  /** Key ranges as chunks: the first and last open-ended so that no row is left out. */
  static List<String> keyChunks(Side side, int count, long[] keyBounds) {
    List<String> chunks = new java.util.ArrayList<>();
    if (count <= 1 || keyBounds == null || keyBounds[1] - keyBounds[0] < count) {
      chunks.add(null);
      return chunks;
    }
    long per = (keyBounds[1] - keyBounds[0] + count - 1) / count;
    String k = side.integerKey();
    for (int i = 0; i < count; i++) {
      long from = keyBounds[0] + i * per;
      long to = from + per;
      if (i == 0) {
        chunks.add(k + " < " + to);
      } else if (i == count - 1 || to >= keyBounds[1]) {
        chunks.add(k + " >= " + from);
        break;
      } else {
        chunks.add(k + " >= " + from + " AND " + k + " < " + to);
      }
    }
    return chunks;
  }

  /** Runs a small catalogue query; every value as text (null for NULL). Ends the transaction it opened. */
  static List<List<String>> catalogue(Connection connection, String sql, String... parameters) throws SQLException {
    List<List<String>> rows = new java.util.ArrayList<>();
    try (java.sql.PreparedStatement ps = connection.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        ps.setString(i + 1, parameters[i]);
      }
      try (java.sql.ResultSet rs = ps.executeQuery()) {
        int columns = rs.getMetaData().getColumnCount();
        while (rs.next()) {
          List<String> row = new java.util.ArrayList<>(columns);
          for (int c = 1; c <= columns; c++) {
            row.add(rs.getString(c));
          }
          rows.add(row);
        }
      }
    }
    if (!connection.getAutoCommit()) {
      connection.commit();
    }
    return rows;
  }

  /** A catalogue number, or {@code otherwise} when NULL. */
  static int number(String value, int otherwise) {
    return value == null ? otherwise : Integer.parseInt(value);
  }

  /** Rows fetched per round trip when streaming. */
  default int fetchSize() {
    return 5_000;
  }

  /** The length of {@code YYYY-MM-DD HH:MM:SS[.f…]} or {@code HH:MM:SS[.f…]} text kept for {@code digits}. */
  static int keptLength(int wholeLength, int digits) {
    return digits <= 0 ? wholeLength : wholeLength + 1 + Math.min(digits, 6);
  }

  /** Whether timestamps with {@code digits} fractional digits use PostgreSQL's own trimmed text (see {@link Canon.Timestamp}). */
  static boolean nativeTimestampText(int digits) {
    return digits == 0 || digits == 3 || digits == 6;
  }

  /** Half a unit of the last kept fractional digit, in microseconds (0 when all six are kept). */
  static long halfUnitMicros(int digits) {
    return digits >= 6 ? 0 : 5 * (long) Math.pow(10, 5 - digits);
  }
}
