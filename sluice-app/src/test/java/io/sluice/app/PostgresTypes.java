package io.sluice.app;

import java.util.ArrayList;
import java.util.List;

/**
 * The PostgreSQL column types an ordinary application's tables hold, one table per family, each column with the values
 * the type matrix writes: four rows of ordinary and edge values (in the tables of NaN and infinities, three of those
 * and an ordinary one), and an update value unlike all of them. Every table has an
 * {@code id} key; a fifth row holds NULL in every column.
 */
final class PostgresTypes {
  private PostgresTypes() {}

  /** One column: its name, its type as the DDL says it, its four row values and its update value, as SQL literals. */
  record Column(String name, String type, List<String> rows, String update) {
    Column {
      if (rows.size() != 4) {
        throw new IllegalArgumentException(name + ": four row values, not " + rows.size());
      }
    }

    /** The type to read a value back as: the DDL's type. */
    String readAs() {
      return type;
    }

    /**
     * The type a table the sink makes may give the column beside the source's own: a domain's base type (the value is
     * the same; the domain's check is the target schema's owner's to add).
     */
    String alsoMadeAs() {
      return type.equals("positive_int") ? "integer" : type;
    }
  }

  /** A table of one type family. */
  record Family(String table, List<Column> columns) {}

  private static Column c(String name, String type, String update, String... rows) {
    return new Column(name, type, List.of(rows), update);
  }

  /** What a database needs before the families' tables can be made: extensions, an enum, a domain. */
  static final List<String> PREREQUISITES = List.of(
      "CREATE EXTENSION IF NOT EXISTS citext",
      "CREATE EXTENSION IF NOT EXISTS hstore",
      "CREATE EXTENSION IF NOT EXISTS ltree",
      "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy', 'quite happy')",
      "CREATE DOMAIN positive_int AS integer CHECK (VALUE > 0)");

  static final List<Family> FAMILIES = List.of(
      new Family("t_numbers", List.of(
          c("c_int2", "smallint", "7", "1", "-32768", "32767", "0"),
          c("c_int4", "integer", "7", "42", "-2147483648", "2147483647", "0"),
          c("c_int8", "bigint", "7", "42", "-9223372036854775808", "9223372036854775807", "0"),
          c("c_num", "numeric", "-1e-30", "3.14159265358979323846264338327950288",
              "-0.000000000000000000000000000001", "123456789012345678901234567890.123456789", "0"),
          c("c_num_20_6", "numeric(20,6)", "-0.000001", "12345678901234.123456", "-99999999999999.999999", "0.000001",
              "0"),
          c("c_num_38_0", "numeric(38,0)", "-1", "99999999999999999999999999999999999999",
              "-99999999999999999999999999999999999999", "0", "1"),
          c("c_real", "real", "-1", "1.5", "-3.4028235e+38", "1.4e-45", "0"),
          c("c_double", "double precision", "-1", "3.141592653589793", "-1.7976931348623157e+308",
              "5e-324", "0"),
          c("c_money", "money", "'-0.01'", "'12.34'", "'-92233720368547758.08'", "'92233720368547758.07'", "'0'"),
          c("c_bool", "boolean", "false", "true", "false", "true", "false"))),
      // The values only some databases have (NaN, infinities), in tables of their own: a target without them refuses
      // the row, which then misses in every column of its table. The last row value is an ordinary one.
      new Family("t_numeric_special", List.of(
          c("c_num_special", "numeric", "'Infinity'", "'NaN'", "-1.5", "'NaN'", "1.5"),
          c("c_num_inf", "numeric", "'-1e-30'", "1e300", "'Infinity'", "'-Infinity'", "0"))),
      new Family("t_float_special", List.of(
          c("c_real_special", "real", "'-Infinity'", "'NaN'", "'Infinity'", "'-Infinity'", "1.5"),
          c("c_double_special", "double precision", "'NaN'", "'Infinity'", "'-Infinity'", "'NaN'", "2.5"))),
      new Family("t_text", List.of(
          c("c_char", "char(5)", "'z'", "'ab'", "''", "'abcde'", "' x '"),
          c("c_varchar", "varchar(50)", "'changed'", "'hello'", "''", "E'quote '' and backslash \\\\ and tab \\t'",
              "E'line one\\nline two'"),
          c("c_text", "text", "'é'", "'A é Ω 中文 😀 𝄞 𠀀 \uDB80\uDC00'", "''", "'\"quoted\" \\ not an escape'",
              "repeat('long ', 2000)"),
          c("c_citext", "citext", "'lower'", "'MixedCase'", "''", "'ÄÖÜ'", "'x'"))),
      new Family("t_bytes", List.of(
          c("c_bytea", "bytea", "'\\x01'", "'\\x00ff10'", "''", "decode(repeat('00ff', 500), 'hex')",
              "convert_to('é', 'UTF8')"))),
      new Family("t_time", List.of(
          c("c_date", "date", "'1999-12-31'", "'2026-12-02'", "'1969-07-20'", "'0001-01-01'", "'2000-01-01'"),
          c("c_time0", "time(0)", "'01:02:03'", "'12:34:56'", "'00:00:00'", "'23:59:59'", "'24:00:00'"),
          c("c_time3", "time(3)", "'01:02:03.004'", "'12:34:56.789'", "'00:00:00'", "'23:59:59.999'",
              "'00:00:00.001'"),
          c("c_time6", "time(6)", "'01:02:03.000004'", "'12:34:56.789012'", "'00:00:00'", "'23:59:59.999999'",
              "'00:00:00.000001'"),
          c("c_timetz", "timetz", "'01:02:03-08'", "'12:34:56.789012+05:30'", "'00:00:00+00'", "'23:59:59-11:45'",
              "'08:00:00+14'"),
          c("c_ts0", "timestamp(0)", "'2000-02-29 00:00:00'", "'2026-12-02 12:34:56'", "'1900-01-01 00:00:00'",
              "'2999-12-31 23:59:59'", "'2038-01-19 03:14:08'"),
          c("c_ts3", "timestamp(3)", "'2000-02-29 00:00:00.001'", "'2026-12-02 12:34:56.789'",
              "'1900-01-01 00:00:00'", "'1969-12-31 23:59:59.999'", "'1000-01-01 00:00:00'"),
          c("c_ts6", "timestamp(6)", "'2000-02-29 00:00:00.000001'", "'2026-12-02 12:34:56.789012'",
              "'1900-01-01 00:00:00'", "'1969-12-31 23:59:59.999999'", "'9999-12-31 23:59:59.999999'"),
          c("c_tstz", "timestamptz", "'2000-02-29 00:00:00.000001+00'", "'2026-12-02 12:34:56.789012+05:30'",
              "'1900-01-01 00:00:00+00'", "'1969-12-31 23:59:59.999999+00'", "'1000-01-01 00:00:00+00'"),
          c("c_interval", "interval", "'-1 year -2 mons +3 days -04:05:06'", "'1 year 2 mons 3 days 04:05:06.789'",
              "'00:00:00'", "'178000000 years'", "'1 mon'"))),
      new Family("t_time_infinite", List.of(
          c("c_date_inf", "date", "'-infinity'", "'infinity'", "'-infinity'", "'infinity'", "'2026-12-02'"),
          c("c_ts_inf", "timestamp(6)", "'infinity'", "'-infinity'", "'infinity'", "'-infinity'",
              "'2026-12-02 12:34:56.789012'"),
          c("c_tstz_inf", "timestamptz", "'-infinity'", "'infinity'", "'-infinity'", "'infinity'",
              "'2026-12-02 12:34:56.789012+00'"))),
      new Family("t_misc", List.of(
          c("c_uuid", "uuid", "'00000000-0000-0000-0000-000000000000'", "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'",
              "'ffffffff-ffff-ffff-ffff-ffffffffffff'", "gen_random_uuid()", "'123e4567-e89b-12d3-a456-426614174000'"),
          c("c_json", "json", "'[]'", "'{\"b\": 1,  \"a\": [1, 2.50], \"b\": 2}'", "'null'", "'\"é\\u00e9\"'",
              "'{ }'"),
          c("c_jsonb", "jsonb", "'[]'", "'{\"b\": 1, \"a\": [1, 2.50]}'", "'null'", "'\"é\"'", "'{}'"),
          c("c_xml", "xml", "'<b/>'", "'<a x=\"1\">text &amp; more</a>'", "'text only'", "'<?xml version=\"1.0\"?><r/>'",
              "'<a>é</a>'"),
          c("c_enum", "mood", "'quite happy'", "'happy'", "'sad'", "'ok'", "'quite happy'"),
          c("c_domain", "positive_int", "1", "42", "2147483647", "7", "1"),
          c("c_tsvector", "tsvector", "'b'", "'a fat cat sat'", "''", "'''quoted'' word:1A'", "'x'"),
          c("c_hstore", "hstore", "'k=>v'", "'a=>1, b=>NULL'", "''", "'\"x y\"=>\"z\"'", "'é=>é'"),
          c("c_ltree", "ltree", "'A'", "'Top.Science.Astronomy'", "''", "'a_b.c1'", "'x'"))),
      new Family("t_network", List.of(
          c("c_inet", "inet", "'0.0.0.0'", "'192.168.0.1/24'", "'::1'", "'10.0.0.1'", "'2001:db8::1/64'"),
          c("c_cidr", "cidr", "'0.0.0.0/0'", "'10.0.0.0/8'", "'2001:db8::/32'", "'192.168.1.0/24'", "'::/0'"),
          c("c_macaddr", "macaddr", "'00:00:00:00:00:00'", "'08:00:2b:01:02:03'", "'ff:ff:ff:ff:ff:ff'",
              "'01:02:03:04:05:06'", "'0a:0b:0c:0d:0e:0f'"),
          c("c_macaddr8", "macaddr8", "'00:00:00:00:00:00:00:00'", "'08:00:2b:01:02:03:04:05'",
              "'ff:ff:ff:ff:ff:ff:ff:ff'", "'01:02:03:04:05:06:07:08'", "'0a:0b:0c:0d:0e:0f:10:11'"))),
      new Family("t_bits", List.of(
          c("c_bit1", "bit(1)", "B'0'", "B'1'", "B'0'", "B'1'", "B'0'"),
          c("c_bit8", "bit(8)", "B'00000000'", "B'10101010'", "B'00000001'", "B'11111111'", "B'10000000'"),
          c("c_varbit", "varbit(16)", "B''", "B'101'", "B'1111111111111111'", "B'0'", "B'0001'"))),
      new Family("t_arrays", List.of(
          c("c_int_arr", "integer[]", "'{5}'", "'{1,NULL,3}'", "'{}'", "'{-2147483648,2147483647}'", "'{NULL}'"),
          c("c_text_arr", "text[]", "'{z}'", "'{a,\"b,c\",NULL,\"\\\"q\\\"\"}'", "'{}'", "'{\"\",é}'",
              "'{NULL,NULL}'"),
          c("c_num_arr", "numeric[]", "'{0}'", "'{1.5,NULL,-2.25}'", "'{}'", "'{12345678901234567890.1}'",
              "'{-0.5}'"),
          c("c_int_2d", "integer[][]", "'{{9}}'", "'{{1,2},{3,NULL}}'", "'{}'", "'{{1},{2}}'", "'{{NULL,NULL}}'"),
          c("c_date_arr", "date[]", "'{2000-01-01}'", "'{2026-12-02,NULL}'", "'{}'", "'{1969-07-20}'",
              "'{infinity}'"),
          c("c_uuid_arr", "uuid[]", "'{}'", "'{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11,NULL}'", "'{}'",
              "'{00000000-0000-0000-0000-000000000000}'", "'{}'"))),
      new Family("t_ranges", List.of(
          c("c_int4range", "int4range", "'[0,1)'", "'[1,10)'", "'empty'", "'(,5]'", "'[-2147483648,)'"),
          c("c_int8range", "int8range", "'[0,1)'", "'[1,9223372036854775807)'", "'empty'", "'(,)'", "'[2,3]'"),
          c("c_numrange", "numrange", "'[0,1]'", "'(1.5,2.5]'", "'empty'", "'(,)'", "'[3.14159265358979,4)'"),
          c("c_tsrange", "tsrange", "'[2000-01-01,)'", "'[2026-01-01 00:00,2026-02-01 00:00)'", "'empty'",
              "'(,2026-01-01 00:00:00.000001]'", "'[2026-12-02 12:34:56.789012,infinity)'"),
          c("c_tstzrange", "tstzrange", "'[2000-01-01 00:00+00,)'", "'[2026-01-01 00:00+05:30,2026-02-01 00:00+00)'",
              "'empty'", "'(,)'", "'[2026-12-02 12:34:56.789012+00,infinity)'"),
          c("c_daterange", "daterange", "'[2000-01-01,2000-01-02)'", "'[2026-01-01,2026-02-01)'", "'empty'",
              "'(,2026-01-01)'", "'[-infinity,infinity)'"))),
      new Family("t_geometry", List.of(
          c("c_point", "point", "'(0,0)'", "'(1.5,-2.5)'", "'(0,0)'", "'(1e300,-1e-300)'", "'(NaN,1)'"),
          c("c_line", "line", "'{0,1,0}'", "'{1,-1,0}'", "'{0,1,-3}'", "'{2.5,1,1e10}'", "'{1,0,0}'"),
          c("c_lseg", "lseg", "'[(1,1),(2,2)]'", "'[(0,0),(1,1)]'", "'[(0,0),(0,0)]'", "'[(-1.5,2),(3,-4.25)]'",
              "'[(1,2),(3,4)]'"),
          c("c_box", "box", "'(1,1),(0,0)'", "'(1,1),(0,0)'", "'(0,0),(0,0)'", "'(3.5,4),(-1,-2.25)'",
              "'(10,10),(5,5)'"),
          c("c_path", "path", "'((0,0),(1,0),(0,1))'", "'[(0,0),(1,1),(2,0)]'", "'((0,0),(1,1),(1,0))'",
              "'[(0,0)]'", "'[(1.5,2.5),(3,4)]'"),
          c("c_polygon", "polygon", "'((0,0),(2,0),(0,2))'", "'((0,0),(1,1),(1,0))'", "'((0,0))'",
              "'((-1,-1),(1.5,-1),(1.5,2.25),(-1,2.25))'", "'((1,1),(2,2),(3,1))'"),
          c("c_circle", "circle", "'<(1,1),1>'", "'<(0,0),5>'", "'<(0,0),0>'", "'<(-1.5,2.25),1e10>'",
              "'<(3,4),0.5>'"))));

  /** The DDL of a family's table. */
  static String create(Family f) {
    StringBuilder sql = new StringBuilder("CREATE TABLE public.").append(f.table()).append(" (id integer PRIMARY KEY");
    for (Column col : f.columns()) {
      sql.append(", ").append(col.name()).append(' ').append(col.type());
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
    return "INSERT INTO public." + f.table() + " VALUES (" + String.join(", ", values) + ")";
  }

  /** An update of row {@code id} setting every column to {@code value(column)}. */
  static String update(Family f, int id, java.util.function.Function<Column, String> value) {
    List<String> sets = new ArrayList<>();
    for (Column col : f.columns()) {
      sets.add(col.name() + " = " + value.apply(col));
    }
    return "UPDATE public." + f.table() + " SET " + String.join(", ", sets) + " WHERE id = " + id;
  }
}
