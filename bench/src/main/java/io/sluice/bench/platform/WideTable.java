package io.sluice.bench.platform;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A wide table for {@link PipelineThroughput} ({@code -Dbench.table=wide}): one column of each column of the type
 * matrix ({@code TypeMatrixIT}'s {@code PostgresTypes}, 67 columns in 13 tables there), in one table, filled by
 * {@code generate_series} with values that vary from row to row as an application's do, and a NULL in each column of
 * about one row in 23.
 *
 * <p>The matrix's columns are test code of {@code sluice-app} with four edge values each; a throughput run wants many
 * ordinary rows, so the types are the matrix's and the values are this class's. Where the matrix keeps a column for
 * edge values alone (NaN and infinities), this table has the column too, holding an edge value in about one row in
 * 90. Left out: the matrix's two-dimensional {@code integer[][]} (Debezium's PostgreSQL connector reads arrays of one
 * dimension, so Sluice refuses the column before data flows). Kept with values at offset {@code +00}: {@code timetz},
 * which pgoutput normalises to UTC before any converter sees it (the matrix's known loss; the source accepts it with
 * {@code sluice.columns.accept.loss}); at other offsets every row would differ at the sink.
 */
final class WideTable {
  private WideTable() {}

  /** A column: its name, its type as the DDL says it, and its value as SQL over the row number {@code g}. */
  record Column(String name, String type, String value) {}

  static final String NAME = "wide";
  /** The like-for-like measure's table: the same rows, the columns the engines' defaults copy ({@link #comparable}). */
  static final String COMMON = "wide_common";

  /** What the source and the sink databases need before the table can be made (as the matrix's databases). */
  static final List<String> PREREQUISITES = List.of(
      "CREATE EXTENSION IF NOT EXISTS citext",
      "CREATE EXTENSION IF NOT EXISTS hstore",
      "CREATE EXTENSION IF NOT EXISTS ltree",
      "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy', 'quite happy')",
      "CREATE DOMAIN positive_int AS integer CHECK (VALUE > 0)");

  /** The column Sluice refuses before data flows unless its loss is accepted, as a Debezium column list entry. */
  static final String ACCEPTED_LOSS = "public\\.wide(_common)?\\.c_timetz";

  private static Column c(String name, String type, String value) {
    return new Column(name, type, value);
  }

  private static String micros(String n) {
    return "((" + n + ") || ' microseconds')::interval";
  }

  static final List<Column> COLUMNS = List.of(
      // numbers
      c("c_int2", "smallint", "(g % 32000 - 16000)::smallint"),
      c("c_int4", "integer", "((g * 7919) % 2000000000 - 1000000000)::int"),
      c("c_int8", "bigint", "g * 1000000007"),
      c("c_num", "numeric", "round(g / 7.0, (g % 15)::int)"),
      c("c_num_20_6", "numeric(20,6)", "(1 - 2 * (g % 2)) * g * 1.234567"),
      c("c_num_38_0", "numeric(38,0)", "g * 100000000000000000000000000000::numeric + g"),
      c("c_real", "real", "((g % 100000) / 3.0)::real"),
      c("c_double", "double precision", "g / 3.0::float8"),
      c("c_money", "money", "((g % 1000000) / 100.0)::numeric::money"),
      c("c_bool", "boolean", "g % 3 = 0"),
      c("c_num_special", "numeric", "CASE WHEN g % 97 = 0 THEN 'NaN'::numeric ELSE round(g / 3.0, 4) END"),
      c("c_num_inf", "numeric", "CASE WHEN g % 89 = 0 THEN 'Infinity'::numeric WHEN g % 83 = 0 THEN"
          + " '-Infinity'::numeric ELSE g * 0.001 END"),
      c("c_real_special", "real", "CASE WHEN g % 97 = 0 THEN 'NaN'::real WHEN g % 89 = 0 THEN 'Infinity'::real"
          + " ELSE ((g % 1000) * 1.5)::real END"),
      c("c_double_special", "double precision", "CASE WHEN g % 97 = 0 THEN 'NaN'::float8 WHEN g % 89 = 0 THEN"
          + " '-Infinity'::float8 ELSE g / 7.0::float8 END"),
      // text and bytes
      c("c_char", "char(5)", "substr(md5(g::text), 1, (1 + g % 5)::int)"),
      c("c_varchar", "varchar(50)", "'customer-' || g || '@example.com'"),
      c("c_text", "text", "'Order ' || g || ': é Ω 中文 😀 \"quoted\" \\ ' || repeat('lorem ', (g % 20)::int)"),
      c("c_citext", "citext", "'User' || g"),
      c("c_bytea", "bytea", "decode(md5(g::text) || md5((g + 1)::text), 'hex')"),
      // dates and times
      c("c_date", "date", "date '1960-01-01' + (g % 30000)::int"),
      c("c_time0", "time(0)", "time '00:00' + " + micros("g % 86400 * 1000000")),
      c("c_time3", "time(3)", "time '00:00' + " + micros("g * 7 % 86400000 * 1000")),
      c("c_time6", "time(6)", "time '00:00' + " + micros("g * 7919 % 86400000000")),
      c("c_timetz", "timetz", "((time '00:00' + " + micros("g % 86400 * 1000000") + ")::text || '+00')::timetz"),
      c("c_ts0", "timestamp(0)", "timestamp '2020-01-01' + (g || ' minutes')::interval"),
      c("c_ts3", "timestamp(3)", "timestamp '2020-01-01' + " + micros("g * 1234000")),
      c("c_ts6", "timestamp(6)", "timestamp '1960-01-01' + " + micros("g * 1234567891")),
      c("c_tstz", "timestamptz", "timestamptz '2020-01-01 00:00:00+00' + " + micros("g * 1000001")),
      c("c_interval", "interval", "make_interval(years => (g % 3)::int, months => (g % 12)::int, days =>"
          + " (g % 31)::int, hours => (g % 24)::int, mins => (g % 60)::int) + " + micros("g % 1000 * 1000")),
      c("c_date_inf", "date", "CASE WHEN g % 97 = 0 THEN 'infinity'::date WHEN g % 89 = 0 THEN '-infinity'::date"
          + " ELSE date '2000-01-01' + (g % 10000)::int END"),
      c("c_ts_inf", "timestamp(6)", "CASE WHEN g % 97 = 0 THEN 'infinity'::timestamp WHEN g % 89 = 0 THEN"
          + " '-infinity'::timestamp ELSE timestamp '2000-01-01' + " + micros("g * 1000003") + " END"),
      c("c_tstz_inf", "timestamptz", "CASE WHEN g % 97 = 0 THEN '-infinity'::timestamptz WHEN g % 89 = 0 THEN"
          + " 'infinity'::timestamptz ELSE timestamptz '2000-01-01 00:00+00' + " + micros("g * 999983") + " END"),
      // identifiers, documents, user-defined types
      c("c_uuid", "uuid", "md5(g::text)::uuid"),
      c("c_json", "json", "('{\"order\": ' || g || ', \"tags\": [\"a\", \"b' || (g % 7) || '\"],  \"price\": '"
          + " || (g % 1000) * 0.25 || '}')::json"),
      c("c_jsonb", "jsonb", "jsonb_build_object('order', g, 'qty', g % 10, 'ok', g % 2 = 0, 'note', 'é')"),
      c("c_xml", "xml", "('<order id=\"' || g || '\"><qty>' || (g % 10) || '</qty><note>a &amp; b</note></order>')"
          + "::xml"),
      c("c_enum", "mood", "(ARRAY['sad', 'ok', 'happy', 'quite happy'])[(1 + g % 4)::int]::mood"),
      c("c_domain", "positive_int", "(1 + g % 100000)::int"),
      c("c_tsvector", "tsvector", "to_tsvector('simple', 'order ' || g || ' for a fat cat')"),
      c("c_hstore", "hstore", "hstore(ARRAY['sku', 'qty'], ARRAY['sku-' || g, (g % 10)::text])"),
      c("c_ltree", "ltree", "('Top.Region' || (g % 10) || '.Store' || g)::ltree"),
      // network
      c("c_inet", "inet", "CASE WHEN g % 5 = 0 THEN ('2001:db8::' || to_hex(g % 65536) || '/64')::inet ELSE ('10.'"
          + " || (g / 65536 % 256) || '.' || (g / 256 % 256) || '.' || (g % 256))::inet END"),
      c("c_cidr", "cidr", "('10.' || (g % 256) || '.0.0/16')::cidr"),
      c("c_macaddr", "macaddr", "substr(md5(g::text), 1, 12)::macaddr"),
      c("c_macaddr8", "macaddr8", "substr(md5(g::text), 1, 16)::macaddr8"),
      // bit strings
      c("c_bit1", "bit(1)", "(g % 2)::int::bit(1)"),
      c("c_bit8", "bit(8)", "(g % 256)::int::bit(8)"),
      c("c_varbit", "varbit(16)",
          "substring((g * 40503 % 65536)::int::bit(16) from 1 for (1 + g % 16)::int)::varbit(16)"),
      // arrays of one dimension, some with NULL elements
      c("c_int_arr", "integer[]", "ARRAY[(g % 1000)::int, CASE WHEN g % 10 = 0 THEN NULL ELSE (g % 7)::int END, 3]"),
      c("c_text_arr", "text[]", "ARRAY['tag' || (g % 5), 'b,c', 'é']"),
      c("c_num_arr", "numeric[]", "ARRAY[g / 4.0, 1.5, -(g % 100) * 0.01]"),
      c("c_date_arr", "date[]", "ARRAY[date '2020-01-01' + (g % 365)::int, CASE WHEN g % 3 = 0 THEN NULL ELSE"
          + " date '2021-01-01' END]"),
      c("c_uuid_arr", "uuid[]", "ARRAY[md5(g::text)::uuid, md5((g + 1)::text)::uuid]"),
      // ranges
      c("c_int4range", "int4range", "int4range((g % 100000)::int, (g % 100000 + 10)::int)"),
      c("c_int8range", "int8range", "int8range(g, g + 1000)"),
      c("c_numrange", "numrange", "numrange(g / 4.0, g / 2.0 + 1)"),
      c("c_tsrange", "tsrange", "tsrange(timestamp '2020-01-01' + (g || ' minutes')::interval, timestamp"
          + " '2020-01-01' + ((g + 60) || ' minutes')::interval)"),
      c("c_tstzrange", "tstzrange", "tstzrange(timestamptz '2020-01-01 00:00+00' + (g || ' minutes')::interval,"
          + " NULL)"),
      c("c_daterange", "daterange", "daterange(date '2020-01-01' + (g % 1000)::int, date '2020-01-01' +"
          + " (g % 1000 + 7)::int)"),
      // geometry
      c("c_point", "point", "point(g * 0.5, -(g % 1000) * 0.25)"),
      c("c_line", "line", "line(point(0, 0), point(1, g + 1))"),
      c("c_lseg", "lseg", "lseg(point(g, 0), point(0, g % 100 + 1))"),
      c("c_box", "box", "box(point(g, g), point(0, 0))"),
      c("c_path", "path", "('[(0,0),(' || g || ',1),(2,' || (g % 100) || ')]')::path"),
      c("c_polygon", "polygon", "('((0,0),(' || g || ',0),(0,' || (g % 100 + 1) || '))')::polygon"),
      c("c_circle", "circle", "circle(point(g, g % 100), (g % 50) + 0.5)"));

  /**
   * The columns the engines' defaults (Debezium's source and its {@code JdbcSinkConnector}, into a table the sink
   * makes) cannot write, or write as other values, each with what happens: the like-for-like measure's table
   * ({@link #COMMON}) has every other column.
   */
  static final Map<String, String> LEFT_OUT_FOR_ENGINES = new LinkedHashMap<>();

  static {
    Map<String, String> m = LEFT_OUT_FOR_ENGINES;
    // The task fails: nothing of the table arrives.
    m.put("c_num_arr", "a variable-scale decimal in an array: the sink has no column type for it and its task fails");
    m.put("c_date_arr", "the elements travel as day numbers, which the date[] column the sink makes refuses (\"invalid"
        + " input syntax for type date: 18263\"): the task fails");
    m.put("c_date_inf", "'infinity' arrives as 5877611-06-21, outside PostgreSQL's dates: the task fails");
    m.put("c_point", "written through PostGIS's ST_GeomFromWKB, which a PostgreSQL without PostGIS has not: the task"
        + " fails");
    m.put("c_line", "the sink has no column type for Debezium's Line: the task fails");
    m.put("c_circle", "the sink has no column type for Debezium's Circle: the task fails");
    // Not in the change event at all.
    for (String geometric : List.of("c_lseg", "c_box", "c_path", "c_polygon")) {
      m.put(geometric, "Debezium's source leaves the type out of the change event");
    }
    // Written, as other values.
    m.put("c_num", "the sink makes a floating-point column: a value of 18 significant digits keeps about 16, which"
        + " the reconciler, comparing a float at 6 decimal places, does not see");
    m.put("c_num_special", "NaN arrives as NULL (Debezium's decimals have no NaN; its source logs a warning a value)");
    m.put("c_num_inf", "±Infinity arrives as NULL, as NaN does");
    m.put("c_real_special", "NaN and ±Infinity arrive as 0");
    m.put("c_double_special", "NaN and ±Infinity arrive as 0");
    m.put("c_ts_inf", "'infinity' arrives as 294247-01-10 04:00:54.775807 (a timestamptz 'infinity' arrives as it"
        + " left)");
    m.put("c_money", "the sink makes a numeric column: $12.34 arrives as 12.34");
    m.put("c_char", "the sink makes a text column, so char(5)'s padding becomes part of the value ('c4' arrives as"
        + " 'c4   ')");
    m.put("c_interval", "carried as microseconds, a month as 30 days: 1 year 1 mon 1 day 01:01:00.001 arrives as"
        + " 9521:31:00.001");
    m.put("c_hstore", "carried as JSON into a json column: \"qty\"=>\"1\" arrives as {\"qty\":\"1\"}");
    m.put("c_bit1", "the sink makes a boolean column: B'1' arrives as true");
    m.put("c_varbit", "padded to the declared length: B'10' arrives as 0000000000000010");
    // Written as text the reconciler does not read as the source's type.
    m.put("c_inet", "the sink makes a text column holding the address as inet prints it (10.0.0.1); the reconciler"
        + " compares inet by its text cast, which always adds the mask (10.0.0.1/32), so it counts every host address"
        + " as changed: left out because the reconciler cannot compare it, not because it was lost");
  }

  /** {@code CREATE TABLE} of {@code table} with the key and {@code columns}. */
  static String create(String table, List<Column> columns) {
    return "CREATE TABLE public." + table + " (id bigint PRIMARY KEY, " + columns.stream()
        .map(col -> col.name() + " " + col.type()).collect(Collectors.joining(", ")) + ")";
  }

  /**
   * The {@code INSERT} of rows {@code from} to {@code to}: each column's value, NULL in rows where {@code g} plus
   * the column's position is a multiple of 23, so each row has NULLs in other columns.
   */
  static String insert(long from, long to) {
    List<String> values = new ArrayList<>();
    for (int i = 0; i < COLUMNS.size(); i++) {
      values.add("CASE WHEN (g + " + i + ") % 23 = 0 THEN NULL ELSE " + COLUMNS.get(i).value() + " END");
    }
    return "INSERT INTO public." + NAME + " SELECT g, " + String.join(", ", values) + " FROM generate_series("
        + from + "::bigint, " + to + "::bigint) g";
  }

  /**
   * The names of {@link #LEFT_OUT_FOR_ENGINES}, or of {@code -Dbench.wide.leftOut=c_a,c_b} where given: to find again
   * which columns the engines' defaults can write (after an upgrade of Debezium, say), one run at a time.
   */
  static java.util.Set<String> leftOutForEngines() {
    String given = System.getProperty("bench.wide.leftOut");
    return given == null ? LEFT_OUT_FOR_ENGINES.keySet()
        : new java.util.LinkedHashSet<>(List.of(given.isBlank() ? new String[0] : given.split(",")));
  }

  /** The columns the like-for-like measure copies: all but {@link #leftOutForEngines()}. */
  static List<Column> comparable() {
    return COLUMNS.stream().filter(col -> !leftOutForEngines().contains(col.name())).toList();
  }
}
