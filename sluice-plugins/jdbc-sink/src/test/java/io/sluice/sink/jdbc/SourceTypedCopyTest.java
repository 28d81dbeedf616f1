package io.sluice.sink.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntFunction;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The COPY path for records as Sluice's PostgreSQL source sends them: every field's schema carries its source column's
 * type, length and scale ({@code column.propagate.source.type=.*}), and the types Debezium's representation would
 * change travel as PostgreSQL's own text ({@code io.sluice.data.PostgresText}). One stream of changes over a column of
 * each type of the type matrix (and of the wide-table benchmark) is written by a task with COPY and by one without,
 * each into a table of its own; the two tables must hold the same value in every column of every row, and the
 * copying task must have written every put by COPY.
 */
class SourceTypedCopyTest {
  private static String url;

  @BeforeAll
  static void database() throws SQLException {
    url = TestPostgres.createDatabase("source_typed_copy");
    try (Connection c = TestPostgres.connect(url); Statement s = c.createStatement()) {
      s.execute("CREATE EXTENSION IF NOT EXISTS citext");
      s.execute("CREATE EXTENSION IF NOT EXISTS hstore");
      s.execute("CREATE EXTENSION IF NOT EXISTS ltree");
      s.execute("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy', 'quite happy')");
      s.execute("CREATE DOMAIN positive_int AS integer CHECK (VALUE > 0)");
    }
  }

  /** A column: its name, its type in the table, its field's schema as the source gives it, and its values. */
  private record Column(String name, String type, Schema schema, Object[] values) {}

  private static Schema typed(SchemaBuilder b, String type, int length, Integer scale) {
    b.parameter("__debezium.source.column.type", type).parameter("__debezium.source.column.length",
        Integer.toString(length));
    if (scale != null) {
      b.parameter("__debezium.source.column.scale", scale.toString());
    }
    return b.optional().build();
  }

  private static Schema text(String type, String sourceType) {
    return typed(SchemaBuilder.string().name("io.sluice.data.PostgresText").parameter("io.sluice.postgres.type", type),
        sourceType, Integer.MAX_VALUE, 0);
  }

  private static Column c(String name, String type, Schema schema, Object... values) {
    return new Column(name, type, schema, values);
  }

  private static final String[] TEXTS = {"plain", "tab\there", "new\nline", "cr\rlf\r\n", "back\\slash", "\\N", "\\.",
      "", "ünïcødé ✓ 𝄞", "quote ' and \" both", "trailing\\", "{braces},commas"};
  private static final long DAY_MICROS = 86_400_000_000L;

  private static final List<Column> COLUMNS = List.of(
      c("c_int2", "smallint", typed(SchemaBuilder.int16(), "INT2", 5, 0), (short) -32768, (short) 0, (short) 32767),
      c("c_int4", "integer", typed(SchemaBuilder.int32(), "INT4", 10, 0), Integer.MIN_VALUE, 7, Integer.MAX_VALUE),
      c("c_domain", "positive_int", typed(SchemaBuilder.int32(), "POSITIVE_INT", 10, 0), 1, 99_999),
      c("c_num", "numeric", text("numeric", "NUMERIC"), "NaN", "Infinity", "-Infinity",
          "3.14159265358979323846264338327950288", "-0.000001", "0"),
      c("c_num_20_6", "numeric(20,6)", typed(Decimal.builder(6).parameter("connect.decimal.precision", "20"), "NUMERIC",
          20, 6), new BigDecimal("12345678901234.123456"), new BigDecimal("-0.000001"), new BigDecimal("0.000000")),
      c("c_real", "real", typed(SchemaBuilder.float32(), "FLOAT4", 8, 8), 1.1f, Float.NaN, Float.POSITIVE_INFINITY,
          Float.NEGATIVE_INFINITY, -0.0f, Float.MIN_VALUE, Float.MAX_VALUE, 1 / 3f),
      c("c_double", "double precision", typed(SchemaBuilder.float64(), "FLOAT8", 17, 17), 0.1, Double.NaN,
          Double.NEGATIVE_INFINITY, 5e-324, 1.0 / 3, -0.0),
      c("c_money", "money", typed(Decimal.builder(2), "MONEY", Integer.MAX_VALUE, 2), new BigDecimal("12.34"),
          new BigDecimal("-0.01"), new BigDecimal("-92233720368547758.08"), new BigDecimal("0.00")),
      c("c_bool", "boolean", typed(SchemaBuilder.bool(), "BOOL", 1, 0), true, false),
      c("c_char", "char(5)", typed(SchemaBuilder.string(), "BPCHAR", 5, 0), "ab   ", "     ", "a\tb  ", "ü✓   "),
      c("c_varchar", "varchar(50)", typed(SchemaBuilder.string(), "VARCHAR", 50, 0), (Object[]) TEXTS),
      c("c_text", "text", typed(SchemaBuilder.string(), "TEXT", Integer.MAX_VALUE, 0), (Object[]) TEXTS),
      c("c_citext", "citext", typed(SchemaBuilder.string(), "CITEXT", Integer.MAX_VALUE, 0), "User1", "tab\tÜ"),
      c("c_bytea", "bytea", typed(SchemaBuilder.bytes(), "BYTEA", Integer.MAX_VALUE, 0),
          new byte[] {0, 1, (byte) 0x5c, (byte) 0xff, '\t', '\n'}, new byte[0]),
      c("c_date", "date", typed(SchemaBuilder.int32().name("io.debezium.time.Date"), "DATE", 13, 0), 20_516, 0, -1,
          -719_162, 2_932_896, -25_567,
          // Debezium's infinities: far beyond PostgreSQL's dates.
          (int) java.time.LocalDate.of(5_877_611, 6, 21).toEpochDay(), -(int) java.time.LocalDate.of(5_877_611, 6, 22)
              .toEpochDay()),
      c("c_time0", "time(0)", typed(SchemaBuilder.int32().name("io.debezium.time.Time"), "TIME", 8, 0), 0, 45_296_000,
          86_400_000),
      c("c_time3", "time(3)", typed(SchemaBuilder.int32().name("io.debezium.time.Time"), "TIME", 12, 3), 45_296_789,
          86_399_999),
      c("c_time6", "time(6)", typed(SchemaBuilder.int64().name("io.debezium.time.MicroTime"), "TIME", 15, 6),
          45_296_789_012L, DAY_MICROS - 1, DAY_MICROS),
      c("c_timetz", "timetz", typed(SchemaBuilder.string().name("io.debezium.time.ZonedTime"), "TIMETZ", 21, 6),
          "12:34:56.789012Z", "00:00:00Z", "23:59:59.999999Z"),
      c("c_ts0", "timestamp(0)", typed(SchemaBuilder.int64().name("io.debezium.time.Timestamp"), "TIMESTAMP", 19, 0),
          1_764_675_296_000L, -1_000L, 0L),
      c("c_ts3", "timestamp(3)", typed(SchemaBuilder.int64().name("io.debezium.time.Timestamp"), "TIMESTAMP", 23, 3),
          1_764_675_296_789L, -1L, -62_135_596_800_000L),
      c("c_ts6", "timestamp(6)", typed(SchemaBuilder.int64().name("io.debezium.time.MicroTimestamp"), "TIMESTAMP", 26,
          6), 1_764_675_296_789_012L, -1L, 253_402_300_799_999_999L, Long.MAX_VALUE, Long.MIN_VALUE),
      c("c_tstz", "timestamptz", typed(SchemaBuilder.string().name("io.debezium.time.ZonedTimestamp"), "TIMESTAMPTZ",
          35, 6), "2026-12-02T12:34:56.789012Z", "1969-12-31T23:59:59.999999Z", "infinity", "-infinity",
          "0001-01-01T00:00:00Z"),
      c("c_interval", "interval", text("interval", "INTERVAL"), "1 year 2 mons 3 days 04:05:06.789", "-00:00:00.000001",
          "00:00:00"),
      c("c_uuid", "uuid", typed(SchemaBuilder.string().name("io.debezium.data.Uuid"), "UUID", Integer.MAX_VALUE, 0),
          "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "00000000-0000-0000-0000-000000000000"),
      c("c_json", "json", typed(SchemaBuilder.string().name("io.debezium.data.Json"), "JSON", Integer.MAX_VALUE, 0),
          "{\"a\": 1,   \"b\": [1, 2]}", "{\"t\":\"tab\\there\"}", "{\"k\": \"ü\", \"k\": 2}", "null"),
      c("c_jsonb", "jsonb", typed(SchemaBuilder.string().name("io.debezium.data.Json"), "JSONB", Integer.MAX_VALUE, 0),
          "{\"b\": [1, 2], \"a\": 1}", "{\"t\": \"back\\\\slash\"}", "[]"),
      c("c_xml", "xml", text("xml", "XML"), "<order id=\"1\"><note>a &amp; b\ttab</note></order>", "<a/>"),
      c("c_enum", "mood", typed(SchemaBuilder.string().name("io.debezium.data.Enum")
          .parameter("allowed", "sad,ok,happy,quite happy"), "MOOD", Integer.MAX_VALUE, 0), "quite happy", "sad"),
      c("c_tsvector", "tsvector", typed(SchemaBuilder.string().name("io.debezium.data.Tsvector"), "TSVECTOR",
          Integer.MAX_VALUE, 0), "'cat':5 'fat':4 'order':1", "'a\\\\b' 'it''s'"),
      c("c_hstore", "hstore", text("hstore", "HSTORE"), "\"sku\"=>\"sku-1\", \"qty\"=>NULL", "\"t\\\\\"=>\"a\tb\""),
      c("c_ltree", "ltree", typed(SchemaBuilder.string().name("io.debezium.data.Ltree"), "LTREE", Integer.MAX_VALUE,
          0), "Top.Region1.Store1", ""),
      c("c_inet", "inet", typed(SchemaBuilder.string(), "INET", Integer.MAX_VALUE, 0), "10.0.0.1", "2001:db8::1/64",
          "192.168.0.0/16"),
      c("c_cidr", "cidr", typed(SchemaBuilder.string(), "CIDR", Integer.MAX_VALUE, 0), "10.1.0.0/16", "2001:db8::/32"),
      c("c_macaddr", "macaddr", typed(SchemaBuilder.string(), "MACADDR", Integer.MAX_VALUE, 0), "08:00:2b:01:02:03"),
      c("c_macaddr8", "macaddr8", typed(SchemaBuilder.string(), "MACADDR8", Integer.MAX_VALUE, 0),
          "08:00:2b:01:02:03:04:05"),
      c("c_bit1", "bit(1)", typed(SchemaBuilder.bool(), "BIT", 1, 0), true, false),
      c("c_bit8", "bit(8)", typed(SchemaBuilder.bytes().name("io.debezium.data.Bits").parameter("length", "8"), "BIT",
          8, 0), new byte[] {5}, new byte[] {(byte) 0xff}),
      c("c_varbit", "varbit(16)", text("varbit(16)", "VARBIT"), "101", "", "1111000011110000"),
      c("c_int_arr", "integer[]", typed(SchemaBuilder.array(Schema.OPTIONAL_INT32_SCHEMA), "_INT4", 10, 0),
          Arrays.asList(1, null, 3), List.of(), List.of(Integer.MIN_VALUE)),
      c("c_text_arr", "text[]", typed(SchemaBuilder.array(Schema.OPTIONAL_STRING_SCHEMA), "_TEXT", Integer.MAX_VALUE, 0),
          Arrays.asList("a", "b,c", "é", null, "NULL", "", "q\"uote", "back\\slash", "{}", "tab\there")),
      c("c_uuid_arr", "uuid[]", typed(SchemaBuilder.array(SchemaBuilder.string().name("io.debezium.data.Uuid")
          .optional().build()), "_UUID", Integer.MAX_VALUE, 0), List.of("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")),
      c("c_num_arr", "numeric[]", text("numeric[]", "_NUMERIC"), "{1.5,NULL,-2.25,NaN}"),
      c("c_date_arr", "date[]", text("date[]", "_DATE"), "{2026-12-02,NULL,infinity}"),
      c("c_int4range", "int4range", typed(SchemaBuilder.string(), "INT4RANGE", Integer.MAX_VALUE, 0), "[1,11)",
          "empty"),
      c("c_int8range", "int8range", typed(SchemaBuilder.string(), "INT8RANGE", Integer.MAX_VALUE, 0), "[5,1005)"),
      c("c_numrange", "numrange", typed(SchemaBuilder.string(), "NUMRANGE", Integer.MAX_VALUE, 0), "[0.25,1.5)"),
      c("c_tsrange", "tsrange", typed(SchemaBuilder.string(), "TSRANGE", Integer.MAX_VALUE, 0),
          "[\"2020-01-01 00:01:00\",\"2020-01-01 01:01:00\")"),
      c("c_tstzrange", "tstzrange", typed(SchemaBuilder.string(), "TSTZRANGE", Integer.MAX_VALUE, 0),
          "[\"2020-01-01 00:01:00+00\",)"),
      c("c_daterange", "daterange", typed(SchemaBuilder.string(), "DATERANGE", Integer.MAX_VALUE, 0),
          "[2020-01-02,2020-01-09)"),
      c("c_point", "point", text("point", "POINT"), "(0.5,-0.25)"),
      c("c_line", "line", text("line", "LINE"), "{1,-1,0}"),
      c("c_lseg", "lseg", text("lseg", "LSEG"), "[(1,0),(0,2)]"),
      c("c_box", "box", text("box", "BOX"), "(1,1),(0,0)"),
      c("c_path", "path", text("path", "PATH"), "[(0,0),(1,1),(2,3)]"),
      c("c_polygon", "polygon", text("polygon", "POLYGON"), "((0,0),(1,0),(0,2))"),
      c("c_circle", "circle", text("circle", "CIRCLE"), "<(1,2),3.5>"));

  private static final Schema ID = SchemaBuilder.int64().parameter("__debezium.source.column.type", "INT8")
      .parameter("__debezium.source.column.length", "19").parameter("__debezium.source.column.scale", "0").build();
  private static final Schema KEY = SchemaBuilder.struct().name("typed.public.t.Key").field("id", ID).build();

  private static Schema row() {
    SchemaBuilder b = SchemaBuilder.struct().name("typed.public.t.Value").optional()
        .field("id", ID);
    COLUMNS.forEach(col -> b.field(col.name, col.schema));
    return b.build();
  }

  /** Row {@code id} at {@code version}: each column's values in turn, a NULL in each column of one row in 7. */
  private static Struct row(ChangeEvents events, long id, int version) {
    Object[] values = new Object[COLUMNS.size() + 1];
    values[0] = id;
    for (int i = 0; i < COLUMNS.size(); i++) {
      Object[] own = COLUMNS.get(i).values;
      long v = id * 3 + version + i;
      values[i + 1] = v % 7 == 0 ? null : own[(int) (v % own.length)];
    }
    return events.row(values);
  }

  @Test
  void intoTablesMadeBeforehandCopyWritesEveryPutAsDebeziumsPathDoes() throws SQLException {
    writeBothWays("typed", Map.of());
  }

  /** Sluice's default for a PostgreSQL sink: the driver sends strings untyped, and the server types them by context. */
  @Test
  void withStringsSentUntypedToo() throws SQLException {
    writeBothWays("untyped", Map.of("hibernate.agroal.jdbcProperties", "stringtype=unspecified"));
  }

  private static void writeBothWays(String name, Map<String, String> settings) throws SQLException {
    for (String table : List.of(name + "_copy", name + "_plain")) {
      try (Connection c = TestPostgres.connect(url); Statement s = c.createStatement()) {
        s.execute("CREATE TABLE " + table + " (id bigint PRIMARY KEY, " + String.join(", ", COLUMNS.stream()
            .map(col -> col.name + " " + col.type).toList()) + ")");
      }
    }
    ChangeEvents events = new ChangeEvents("typed.public.t", KEY, row());
    List<SinkRecord> stream = new ArrayList<>();
    long lsn = 100;
    for (long id = 1; id <= 120; id++) {
      stream.add(events.insert(lsn++, row(events, id, 0)));
    }
    for (long id = 1; id <= 120; id += 3) {
      stream.add(events.update(lsn++, row(events, id, 1)));
    }
    for (long id = 2; id <= 120; id += 5) {
      stream.add(events.delete(lsn++, row(events, id, 1)));
      stream.add(events.tombstone(row(events, id, 1)));
    }
    for (long id = 7; id <= 120; id += 11) {
      stream.add(events.insert(lsn++, row(events, id, 2)));
    }
    int batch = 40;
    long expected = 0;
    for (int from = 0; from < stream.size(); from += batch) {
      Set<Object> keys = new HashSet<>();
      stream.subList(from, Math.min(stream.size(), from + batch)).forEach(r -> keys.add(r.key()));
      expected += keys.size();
    }
    long copied;
    Map<String, String> withoutCopy = new java.util.HashMap<>(settings);
    withoutCopy.put("sluice.sink.copy", "false");
    try (DrivenTask copying = new DrivenTask(url, name + "-copying", events.topic, name + "_copy", settings);
        DrivenTask plain = new DrivenTask(url, name + "-plain", events.topic, name + "_plain", withoutCopy)) {
      copying.put(stream, batch);
      plain.put(stream, batch);
      copied = (long) copyRows(copying);
      assertEquals(events.offset, copying.committed(events.offset), "every record handed over is written");
    }
    assertEquals(expected, copied, "every put went by COPY, each key's last change of it a row");
    assertSameColumns(name + "_plain", name + "_copy");
  }

  @Test
  void intoATableTheSinkMakesCopyTakesEveryRecordButTheOneThatMakesIt() throws SQLException {
    ChangeEvents events = new ChangeEvents("made.public.t", KEY, row());
    List<SinkRecord> stream = new ArrayList<>();
    for (long id = 1; id <= 60; id++) {
      stream.add(events.insert(100 + id, row(events, id, 0)));
    }
    long copied;
    try (DrivenTask copying = new DrivenTask(url, "made-copying", events.topic, "made_copy",
            Map.of("hibernate.agroal.jdbcProperties", "stringtype=unspecified"));
        DrivenTask plain = new DrivenTask(url, "made-plain", events.topic, "made_plain",
            Map.of("sluice.sink.copy", "false", "hibernate.agroal.jdbcProperties", "stringtype=unspecified"))) {
      for (DrivenTask task : List.of(copying, plain)) {
        // The first put's first record goes Debezium's path, which makes the table; its other 19 go by COPY.
        task.put(stream, 20);
      }
      copied = (long) copyRows(copying);
      assertEquals(events.offset, copying.committed(events.offset), "every record handed over is written");
    }
    assertEquals(59, copied);
    assertSameColumns("made_plain", "made_copy");
  }

  private static void assertSameColumns(String expected, String actual) throws SQLException {
    List<List<String>> want = columns(expected);
    List<List<String>> got = columns(actual);
    assertTrue(want.get(0).size() > 50, "rows written: " + want.get(0).size());
    for (int i = 0; i < want.size(); i++) {
      assertEquals(want.get(i), got.get(i), i == 0 ? "id" : COLUMNS.get(i - 1).name);
    }
  }

  /** Each column's values as PostgreSQL writes them as text, in key order. */
  private static List<List<String>> columns(String table) throws SQLException {
    List<List<String>> out = new ArrayList<>();
    IntFunction<String> name = i -> i == 0 ? "id" : COLUMNS.get(i - 1).name;
    StringBuilder select = new StringBuilder("SELECT ");
    for (int i = 0; i <= COLUMNS.size(); i++) {
      select.append(i == 0 ? "" : ", ").append(name.apply(i)).append("::text");
      out.add(new ArrayList<>());
    }
    try (Connection c = TestPostgres.connect(url); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(select + " FROM " + table + " ORDER BY id")) {
      while (rs.next()) {
        for (int i = 0; i <= COLUMNS.size(); i++) {
          out.get(i).add(rs.getString(i + 1));
        }
      }
    }
    return out;
  }

  private static double copyRows(DrivenTask task) {
    return task.metrics.metrics().values().stream().filter(m -> m.metricName().name().equals("sink-copy-rows"))
        .map(KafkaMetric::metricValue).mapToDouble(v -> ((Number) v).doubleValue()).sum();
  }
}
