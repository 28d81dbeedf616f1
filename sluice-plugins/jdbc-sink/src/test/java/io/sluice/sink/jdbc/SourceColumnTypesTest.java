package io.sluice.sink.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The column types Sluice's sink adds to Debezium's, into a PostgreSQL table the sink makes and one made beforehand:
 * values in PostgreSQL's own text form (Sluice's PostgreSQL source's converter), money, macaddr8 and an enum by the
 * source's column type, the end of the day in a time column, a MariaDB time (a duration) in an interval column, and
 * a time and timestamp of no fractional digits.
 */
class SourceColumnTypesTest {
  private static String url;

  @BeforeAll
  static void database() throws SQLException {
    url = TestPostgres.createDatabase("source_types");
    try (Connection c = TestPostgres.connect(url); Statement s = c.createStatement()) {
      s.execute("CREATE TYPE mood AS ENUM ('sad', 'happy')");
    }
  }

  private static Schema sourceTyped(SchemaBuilder b, String type) {
    return b.parameter("__debezium.source.column.type", type).optional().build();
  }

  private static Schema postgresText(String type) {
    return SchemaBuilder.string().name("io.sluice.data.PostgresText").parameter("io.sluice.postgres.type", type)
        .optional().build();
  }

  private static final Schema ROW = SchemaBuilder.struct().name("t.Value").optional()
      .field("id", Schema.INT32_SCHEMA)
      .field("c_num", postgresText("numeric"))
      .field("c_interval", postgresText("interval"))
      .field("c_varbit", postgresText("varbit(16)"))
      .field("c_box", postgresText("box"))
      .field("c_nums", postgresText("numeric[]"))
      .field("c_money", sourceTyped(Decimal.builder(2), "MONEY"))
      .field("c_mac8", sourceTyped(SchemaBuilder.string(), "MACADDR8"))
      .field("c_mood", sourceTyped(SchemaBuilder.string().name("io.debezium.data.Enum")
          .parameter("allowed", "sad,happy"), "MOOD"))
      .field("c_time", SchemaBuilder.int64().name("io.debezium.time.MicroTime").optional().build())
      .field("c_date", SchemaBuilder.int32().name("io.debezium.time.Date").optional().build())
      .field("c_ts", SchemaBuilder.int64().name("io.debezium.time.MicroTimestamp").optional().build())
      .field("c_tstz", SchemaBuilder.string().name("io.debezium.time.ZonedTimestamp").optional().build())
      .field("c_dates", postgresText("date[]"))
      // A MariaDB time, a duration of up to 838 hours either way, as Debezium's binlog sources carry it.
      .field("c_mtime", SchemaBuilder.int64().name("io.debezium.time.MicroTime")
          .parameter("__debezium.source.column.type", "TIME").parameter("__debezium.source.column.length", "6")
          .optional().build())
      // PostgreSQL's time(0) and timestamp(0): no fractional digits declared (the scale), none made.
      .field("c_time0", SchemaBuilder.int32().name("io.debezium.time.Time")
          .parameter("__debezium.source.column.type", "TIME").parameter("__debezium.source.column.length", "8")
          .parameter("__debezium.source.column.scale", "0").optional().build())
      .field("c_ts0", SchemaBuilder.int64().name("io.debezium.time.Timestamp")
          .parameter("__debezium.source.column.type", "TIMESTAMP").parameter("__debezium.source.column.length", "19")
          .parameter("__debezium.source.column.scale", "0").optional().build())
      .build();

  private static final String[] VALUES = {"NaN", "1 year 2 mons 3 days 04:05:06.789", "00101", "(1,1),(0,0)",
      "{1.5,NULL,-2.25}"};

  @Test
  void aTableTheSinkMakesHasTheSourcesTypesAndEveryValueArrivesAsItLeft() throws SQLException {
    write("t_made");
    Map<String, String> made = new TreeMap<>(Map.of("id", "integer", "c_num", "numeric", "c_interval", "interval",
        "c_varbit", "bit varying(16)", "c_box", "box", "c_nums", "numeric[]", "c_money", "money", "c_mac8", "macaddr8",
        "c_mood", "mood"));
    made.putAll(Map.of("c_time", "time(6) without time zone", "c_date", "date", "c_ts", "timestamp(6) without time zone",
        "c_tstz", "timestamp(6) with time zone", "c_dates", "date[]", "c_mtime", "interval"));
    made.putAll(Map.of("c_time0", "time(0) without time zone", "c_ts0", "timestamp(0) without time zone"));
    assertEquals(made, columns("t_made"));
    assertValues("t_made");
  }

  @Test
  void aTableMadeBeforehandTakesTheSameValues() throws SQLException {
    try (Connection c = TestPostgres.connect(url); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE t_pre (id integer PRIMARY KEY, c_num numeric, c_interval interval, c_varbit varbit(16),"
          + " c_box box, c_nums numeric[], c_money money, c_mac8 macaddr8, c_mood mood, c_time time, c_date date,"
          + " c_ts timestamp, c_tstz timestamptz, c_dates date[], c_mtime interval,"
          + " c_time0 time(0), c_ts0 timestamp(0))");
    }
    write("t_pre");
    assertValues("t_pre");
  }

  private static void write(String table) {
    ChangeEvents events = new ChangeEvents(table + ".public.t",
        SchemaBuilder.struct().name("t.Key").field("id", Schema.INT32_SCHEMA).build(), ROW);
    try (DrivenTask task = new DrivenTask(url, table, events.topic, table)) {
      task.put(List.of(
          events.insert(100, events.row(1, VALUES[0], VALUES[1], VALUES[2], VALUES[3], VALUES[4],
              new BigDecimal("-92233720368547758.08"), "08:00:2b:01:02:03:04:05", "happy", 86_400_000_000L,
              // Debezium's infinities: far beyond PostgreSQL's range.
              (int) java.time.LocalDate.of(5_877_611, 6, 21).toEpochDay(), Long.MAX_VALUE, "-infinity",
              "{2026-12-02,NULL,infinity}", -3_020_399_000_000L, 45_296_000,
              1_764_675_296_000L)),
          events.insert(101, events.row(2, null, null, null, null, null, null, null, null, 45_296_789_012L,
              (int) java.time.LocalDate.of(1969, 7, 20).toEpochDay(), 1_764_675_296_789_012L,
              "2026-12-02T12:34:56.789012Z", null, 3_020_399_000_001L, null, null))), 2);
    }
  }

  private static void assertValues(String table) throws SQLException {
    assertEquals(List.of("1", VALUES[0], "1 year 2 mons 3 days 04:05:06.789", VALUES[2], "(1,1),(0,0)", VALUES[4],
        "-$92,233,720,368,547,758.08", "08:00:2b:01:02:03:04:05", "happy", "24:00:00", "infinity", "infinity",
        "-infinity", "{2026-12-02,NULL,infinity}", "-838:59:59", "12:34:56", "2025-12-02 11:34:56"), row(table, 1));
    assertEquals(java.util.Arrays.asList("2", null, null, null, null, null, null, null, null, "12:34:56.789012",
        "1969-07-20", "2025-12-02 11:34:56.789012", "2026-12-02 12:34:56.789012+00", null, "838:59:59.000001", null, null),
        row(table, 2));
  }

  private static List<String> row(String table, int id) throws SQLException {
    try (Connection c = TestPostgres.connect(url); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT id, c_num, c_interval, c_varbit, c_box, c_nums, c_money, c_mac8, c_mood,"
            + " c_time, c_date, c_ts, c_tstz, c_dates, c_mtime, c_time0, c_ts0 FROM " + table + " WHERE id = " + id)) {
      rs.next();
      List<String> out = new java.util.ArrayList<>();
      for (int i = 1; i <= 17; i++) {
        out.add(rs.getString(i));
      }
      return out;
    }
  }

  private static Map<String, String> columns(String table) throws SQLException {
    Map<String, String> out = new TreeMap<>();
    try (Connection c = TestPostgres.connect(url); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute"
            + " WHERE attrelid = '" + table + "'::regclass AND attnum > 0 AND NOT attisdropped")) {
      while (rs.next()) {
        out.put(rs.getString(1), rs.getString(2));
      }
    }
    return out;
  }
}
