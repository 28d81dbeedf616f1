package io.sluice.app;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The MariaDB column types an ordinary application's tables hold, one table per family, as {@link PostgresTypes} has
 * PostgreSQL's: each column with four row values (ordinary and edge values: the unsigned maximums, 4-byte characters,
 * negative and over-24-hour times, zero dates) and an update value, and the nearest PostgreSQL type, which a table
 * made beforehand in PostgreSQL has. The year 0000 is only ever streamed: in a snapshot, MariaDB's JDBC driver cannot read it (an
 * IllegalArgumentException in its {@code YearColumn}) and Debezium's source stops. Every table has an {@code id} key; a fifth row holds NULL in every column. Also
 * the nearest MariaDB type of each PostgreSQL column, for the tables made beforehand in MariaDB.
 */
final class MariaDbTypes {
  private MariaDbTypes() {}

  /**
   * One column: its name, its MariaDB type as the DDL says it, the nearest PostgreSQL type, its four row values and its
   * update value, as SQL literals.
   */
  record Column(String name, String type, String postgres, List<String> rows, String update) {
    Column {
      if (rows.size() != 4) {
        throw new IllegalArgumentException(name + ": four row values, not " + rows.size());
      }
    }

    /** Whether the value is bytes: compared by its hexadecimal digits. */
    boolean binary() {
      return type.startsWith("binary") || type.startsWith("varbinary") || type.endsWith("blob")
          || type.startsWith("bit");
    }

    /** The SQL that reads the column {@code c} as text in MariaDB, the same at the source and in a probe. */
    String text(String c) {
      if (binary()) {
        return "HEX(" + c + ")";
      }
      if (type.startsWith("float")) {
        return "CAST(CAST(" + c + " AS DOUBLE) AS CHAR)";
      }
      return "CAST(" + c + " AS CHAR)";
    }
  }

  /** A table of one type family. */
  record Family(String table, List<Column> columns) {}

  private static Column c(String name, String type, String postgres, String update, String... rows) {
    return new Column(name, type, postgres, List.of(rows), update);
  }

  static final List<Family> FAMILIES = List.of(
      new Family("t_ints", List.of(
          c("c_tinyint", "tinyint", "smallint", "7", "1", "-128", "127", "0"),
          c("c_tinyint_u", "tinyint unsigned", "smallint", "7", "1", "0", "255", "0"),
          c("c_smallint", "smallint", "smallint", "7", "1", "-32768", "32767", "0"),
          c("c_smallint_u", "smallint unsigned", "integer", "7", "1", "0", "65535", "0"),
          c("c_mediumint", "mediumint", "integer", "7", "1", "-8388608", "8388607", "0"),
          c("c_mediumint_u", "mediumint unsigned", "integer", "7", "1", "0", "16777215", "0"),
          c("c_int", "int", "integer", "7", "42", "-2147483648", "2147483647", "0"),
          c("c_int_u", "int unsigned", "bigint", "7", "42", "0", "4294967295", "0"),
          c("c_bigint", "bigint", "bigint", "7", "42", "-9223372036854775808", "9223372036854775807", "0"),
          c("c_bigint_u", "bigint unsigned", "numeric(20,0)", "7", "42", "0", "18446744073709551615",
              "9223372036854775808"))),
      new Family("t_dec65", List.of(
          c("c_dec65", "decimal(65,30)", "numeric(65,30)", "-1",
              "12345678901234567890123456789012345.123456789012345678901234567890",
              "-0.000000000000000000000000000001",
              "99999999999999999999999999999999999.999999999999999999999999999999", "0"))),
      new Family("t_decimals", List.of(
          c("c_dec10_2", "decimal(10,2)", "numeric(10,2)", "-0.01", "12345678.90", "-99999999.99", "0.01", "0"),
          c("c_float", "float", "real", "-1", "1.5", "-3.40282e38", "1.17549e-38", "0"),
          c("c_double", "double", "double precision", "-1", "3.141592653589793", "-1.7976931348623157e308",
              "2.2250738585072014e-308", "0"))),
      new Family("t_bits", List.of(
          c("c_bit1", "bit(1)", "bit(1)", "b'0'", "b'1'", "b'0'", "b'1'", "b'0'"),
          c("c_bit64", "bit(64)", "bit(64)", "b'1'",
              "b'1010101010101010101010101010101010101010101010101010101010101010'",
              "b'0'", "b'1111111111111111111111111111111111111111111111111111111111111111'", "b'10000000'"))),
      new Family("t_text", List.of(
          c("c_char", "char(5)", "char(5)", "'z'", "'ab'", "''", "'abcde'", "' x'"),
          c("c_varchar", "varchar(50)", "varchar(50)", "'changed'", "'hello'", "''",
              "'quote '' and backslash \\\\ and tab \\t'", "'line one\\nline two'"),
          c("c_text", "text", "text", "'é'", "'A é Ω 中文 😀 𝄞 𠀀 \uDB80\uDC00'", "''", "'\"quoted\" % _'",
              "'ä'"),
          c("c_longtext", "longtext", "text", "'x'", "repeat('long 😀 ', 2000)", "''", "'ÄÖÜ'", "'y'"))),
      new Family("t_bytes", List.of(
          c("c_binary", "binary(4)", "bytea", "x'01020304'", "x'00ff1000'", "x'00000000'", "x'ffffffff'",
              "x'7f000001'"),
          c("c_varbinary", "varbinary(16)", "bytea", "x'01'", "x'00ff10'", "x''", "x'ffffffffffffffffffffffffffffffff'",
              "x'00'"),
          c("c_blob", "blob", "bytea", "x'01'", "x'00ff10'", "x''", "repeat(x'00ff', 500)", "x'c3a9'"))),
      new Family("t_time", List.of(
          c("c_date", "date", "date", "'2000-02-29'", "'2026-12-02'", "'1000-01-01'", "'9999-12-31'", "'1969-07-20'"),
          c("c_dt0", "datetime", "timestamp(0)", "'2000-02-29 00:00:00'", "'2026-12-02 12:34:56'",
              "'1000-01-01 00:00:00'", "'9999-12-31 23:59:59'", "'1969-07-20 20:17:40'"),
          c("c_dt3", "datetime(3)", "timestamp(3)", "'2000-02-29 00:00:00.001'", "'2026-12-02 12:34:56.789'",
              "'1900-01-01 00:00:00'", "'1969-12-31 23:59:59.999'", "'2038-01-19 03:14:08.000'"),
          c("c_dt6", "datetime(6)", "timestamp(6)", "'2000-02-29 00:00:00.000001'", "'2026-12-02 12:34:56.789012'",
              "'1900-01-01 00:00:00'", "'1969-12-31 23:59:59.999999'", "'9999-12-31 23:59:59.999999'"),
          c("c_ts0", "timestamp NULL", "timestamptz(0)", "'2000-02-29 00:00:00'", "'2026-12-02 12:34:56'",
              "'1970-01-01 00:00:01'", "'2038-01-19 03:14:07'", "'2001-09-09 01:46:40'"),
          c("c_ts3", "timestamp(3) NULL", "timestamptz(3)", "'2000-02-29 00:00:00.001'", "'2026-12-02 12:34:56.789'",
              "'1970-01-01 00:00:01'", "'2038-01-19 03:14:07.999'", "'2001-09-09 01:46:40.5'"),
          c("c_ts6", "timestamp(6) NULL", "timestamptz(6)", "'2000-02-29 00:00:00.000001'",
              "'2026-12-02 12:34:56.789012'", "'1970-01-01 00:00:01'", "'2038-01-19 03:14:07.999999'",
              "'2001-09-09 01:46:40.000001'"),
          c("c_time0", "time", "time(0)", "'01:02:03'", "'12:34:56'", "'00:00:00'", "'23:59:59'", "'06:00:00'"),
          c("c_time3", "time(3)", "time(3)", "'01:02:03.004'", "'12:34:56.789'", "'00:00:00'", "'23:59:59.999'",
              "'00:00:00.001'"),
          c("c_time6", "time(6)", "time(6)", "'01:02:03.000004'", "'12:34:56.789012'", "'00:00:00'",
              "'23:59:59.999999'", "'00:00:00.000001'"),
          c("c_year", "year", "smallint", "2001", "2026", "1901", "2155", "2000"))),
      // Values some targets have no room for, each in a table of its own: a row a database refuses is lost in every
      // column of its table, so each of these costs only its own column.
      new Family("t_time_wide", List.of(
          c("c_time_wide", "time(6)", "interval", "'-00:00:01'", "'-838:59:59.000000'", "'838:59:59.000000'",
              "'24:00:00'", "'-01:02:03.456789'"))),
      new Family("t_year_zero", List.of(
          c("c_year0", "year", "smallint", "0", "2026", "1901", "2155", "2000"))),
      new Family("t_misc", List.of(
          c("c_enum", "enum('sad','ok','happy','quite happy')", "mood", "'quite happy'", "'happy'", "'sad'", "'ok'",
              "'quite happy'"),
          // A member with a quote: Debezium's sink made set('it's'), which MariaDB refuses, so no table.
          c("c_set", "set('a','b','c d','it''s')", "text", "'a'", "'a,b'", "''", "'a,b,c d'", "'c d,it''s'"),
          c("c_json", "json", "json", "'[]'", "'{\"b\": 1,  \"a\": [1, 2.50], \"b\": 2}'", "'null'",
              "'\"é\\\\u00e9 😀\"'", "'{ }'"))),
      new Family("t_zero", List.of(
          c("c_zero_date", "date", "date", "'2026-12-02'", "'0000-00-00'", "'2026-00-00'", "'2026-12-00'",
              "'2000-01-01'"),
          c("c_zero_dt", "datetime", "timestamp(0)", "'2026-12-02 12:34:56'", "'0000-00-00 00:00:00'",
              "'2026-00-00 00:00:00'", "'2026-12-00 12:00:00'", "'2000-01-01 00:00:00'"),
          // A timestamp has only the zero of every part (MariaDB refuses a zero month or day in one).
          c("c_zero_ts", "timestamp NULL", "timestamptz(0)", "'2026-12-02 12:34:56'", "'0000-00-00 00:00:00'",
              "'2026-12-02 00:00:00'", "'0000-00-00 00:00:00'", "'1999-12-31 23:59:59'"))));

  /** The DDL of a family's table in MariaDB. */
  static String create(Family f) {
    StringBuilder sql = new StringBuilder("CREATE TABLE ").append(f.table()).append(" (id int PRIMARY KEY");
    for (Column col : f.columns()) {
      sql.append(", ").append(col.name()).append(' ').append(col.type());
    }
    return sql.append(") CHARACTER SET utf8mb4").toString();
  }

  /** The DDL of a family's table in PostgreSQL, each column of its nearest type. */
  static String createInPostgres(Family f) {
    StringBuilder sql = new StringBuilder("CREATE TABLE public.").append(f.table()).append(" (id integer PRIMARY KEY");
    for (Column col : f.columns()) {
      sql.append(", ").append(col.name()).append(' ').append(col.postgres());
    }
    return sql.append(')').toString();
  }

  /** An insert of row {@code id} with the values of row {@code which} (0-3), or NULLs for {@code which == 4}. */
  static String insert(Family f, int id, int which) {
    List<String> values = new ArrayList<>();
    values.add(String.valueOf(id));
    for (Column col : f.columns()) {
      values.add(which == 4 ? "NULL" : col.rows().get(which));
    }
    return "INSERT INTO " + f.table() + " VALUES (" + String.join(", ", values) + ")";
  }

  /** An update of row {@code id} setting every column to {@code value(column)}. */
  static String update(Family f, int id, java.util.function.Function<Column, String> value) {
    List<String> sets = new ArrayList<>();
    for (Column col : f.columns()) {
      sets.add(col.name() + " = " + value.apply(col));
    }
    return "UPDATE " + f.table() + " SET " + String.join(", ", sets) + " WHERE id = " + id;
  }

  /**
   * The nearest MariaDB type of a PostgreSQL column, for a table made beforehand in MariaDB: the same type where
   * MariaDB has it, else the one that holds every value the column can (a {@code numeric} without scale in MariaDB's
   * widest decimal; a type MariaDB has no kind of, such as {@code inet}, a range or an array, as text).
   */
  static String nearest(PostgresTypes.Column col) {
    String t = col.type();
    String same = NEAREST.get(t);
    if (same != null) {
      return same;
    }
    if (t.startsWith("numeric(") || t.startsWith("char(") || t.startsWith("varchar(") || t.startsWith("bit(")) {
      return t.replace("numeric", "decimal");
    }
    if (t.startsWith("time(")) {
      return t;
    }
    if (t.startsWith("timestamp(")) {
      return t.replace("timestamp", "datetime");
    }
    return "longtext";
  }

  private static final Map<String, String> NEAREST = Map.ofEntries(
      Map.entry("smallint", "smallint"), Map.entry("integer", "int"), Map.entry("bigint", "bigint"),
      Map.entry("numeric", "decimal(65,30)"), Map.entry("real", "float"), Map.entry("double precision", "double"),
      Map.entry("money", "decimal(19,2)"), Map.entry("boolean", "boolean"), Map.entry("bytea", "longblob"),
      Map.entry("date", "date"), Map.entry("timestamptz", "datetime(6)"), Map.entry("uuid", "uuid"),
      Map.entry("json", "json"), Map.entry("jsonb", "json"), Map.entry("positive_int", "int"),
      Map.entry("mood", "enum('sad','ok','happy','quite happy')"), Map.entry("varbit(16)", "varchar(16)"),
      Map.entry("macaddr", "varchar(17)"), Map.entry("macaddr8", "varchar(23)"), Map.entry("inet", "varchar(43)"),
      Map.entry("cidr", "varchar(43)"));

  /** The DDL of a PostgreSQL family's table in MariaDB, each column of its nearest type. */
  static String createInMariaDb(PostgresTypes.Family f) {
    StringBuilder sql = new StringBuilder("CREATE TABLE ").append(f.table()).append(" (id int PRIMARY KEY");
    for (PostgresTypes.Column col : f.columns()) {
      sql.append(", ").append(col.name()).append(' ').append(nearest(col));
    }
    return sql.append(") CHARACTER SET utf8mb4").toString();
  }
}
