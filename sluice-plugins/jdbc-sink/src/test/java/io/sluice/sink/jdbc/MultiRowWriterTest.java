package io.sluice.sink.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.kafka.testing.MariaDbServer;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The sink's multi-row path into MariaDB against Debezium's own path: one stream of changes (inserts, updates, deletes
 * with their tombstones, a key changed several times in one put, nulls, and edge values of every common type) is
 * written by a task with the multi-row writer and by one without, each into a table of its own that Debezium's path
 * makes; the two tables must hold the same rows, every column equal by value and by its bytes.
 */
class MultiRowWriterTest {
  private static String url;

  @BeforeAll
  static void database() {
    url = MariaDbServer.createDatabase("sink_rows");
  }

  private static Schema sourceTyped(SchemaBuilder builder, String type) {
    return builder.optional().parameter("__debezium.source.column.type", type).build();
  }

  private static final Schema ROW = SchemaBuilder.struct().name("rows.db.kinds.Value").optional()
      .field("id", Schema.INT64_SCHEMA)
      .field("i8", Schema.OPTIONAL_INT8_SCHEMA)
      .field("i16", Schema.OPTIONAL_INT16_SCHEMA)
      .field("i32", Schema.OPTIONAL_INT32_SCHEMA)
      .field("i64", Schema.OPTIONAL_INT64_SCHEMA)
      .field("u8", sourceTyped(SchemaBuilder.int16(), "TINYINT UNSIGNED"))
      .field("u32", sourceTyped(SchemaBuilder.int64(), "INT UNSIGNED"))
      .field("u64", Decimal.builder(0).optional().parameter("connect.decimal.precision", "20").build())
      .field("wide", Decimal.builder(30).optional().parameter("connect.decimal.precision", "65").build())
      .field("f32", Schema.OPTIONAL_FLOAT32_SCHEMA)
      .field("f64", Schema.OPTIONAL_FLOAT64_SCHEMA)
      .field("txt", Schema.OPTIONAL_STRING_SCHEMA)
      .field("bin", Schema.OPTIONAL_BYTES_SCHEMA)
      .field("flag", Schema.OPTIONAL_BOOLEAN_SCHEMA)
      .field("day", SchemaBuilder.int32().name("io.debezium.time.Date").optional().build())
      .field("at", SchemaBuilder.int64().name("io.debezium.time.MicroTimestamp").optional().build())
      .field("at_ms", SchemaBuilder.int64().name("io.debezium.time.Timestamp").optional().build())
      .field("at_tz", SchemaBuilder.string().name("io.debezium.time.ZonedTimestamp").optional().build())
      .field("tm", SchemaBuilder.int64().name("io.debezium.time.MicroTime").optional().build())
      .field("yr", SchemaBuilder.int32().name("io.debezium.time.Year").optional().build())
      .field("doc", SchemaBuilder.string().name("io.debezium.data.Json").optional().build())
      .field("required_text", SchemaBuilder.string().defaultValue("fallback").build())
      .build();

  private static final String[] TEXTS = {"plain", "back\\slash", "trailing\\", "quote ' and \" both", "''", "\\'",
      "\\N", "", "ünïcødé ✓ 𝄞 😀", "tab\tnew\nline\r", "nul\u0000byte", "%_ like", "\u001a ctrl-z", "`tick`"};
  private static final long[] I64 = {Long.MAX_VALUE, Long.MIN_VALUE, 0, -1};
  private static final String[] U64 = {"18446744073709551615", "0", "9223372036854775808"};
  private static final String[] WIDE = {"99999999999999999999999999999999999.999999999999999999999999999999",
      "-99999999999999999999999999999999999.999999999999999999999999999999", "0.000000000000000000000000000001",
      "0.000000000000000000000000000000", "1.5"};
  private static final float[] F32 = {Float.MAX_VALUE, -Float.MAX_VALUE, 1.17549435E-38f, 0.1f, -0.0f, 16777217f};
  private static final double[] F64 = {0.1, 1.0 / 3, 1e300, -2.5e-300, Double.MAX_VALUE, -0.0, 9007199254740993.0};
  /** Days since the epoch: 2026-03-04, the epoch and the day before, years 1 and 9999 at their ends. */
  private static final int[] DAYS = {20_516, 0, -1, -719_162, 2_932_896};
  /** Microseconds of a time of day, and of MariaDB's times beyond a day and before zero. */
  private static final long[] TIMES = {0, 86_399_999_999L, 45_296_000_001L, 90_000_000_000L, -3_600_000_001L,
      3_020_399_000_000L, -3_020_399_000_000L};
  private static final String[] ZONED = {"2026-03-04T05:06:07.123456Z", "1970-01-01T00:00:01Z",
      "2000-02-29T12:00:00.5+05:30", "2026-03-04T05:06:07.1234567Z", "2037-12-31T23:59:59.999999-08:00"};
  private static final int[] YEARS = {1900, 1901, 2155, 2026};
  private static final String[] DOCS = {"{\"a\": 1, \"b\": [1, 2]}", "{\"t\":\"back\\\\slash \\\"q\\\"\"}", "[]",
      "null"};

  private static Struct row(ChangeEvents events, long id, int version) {
    int v = (int) (id * 7 + version);
    boolean nulls = v % 11 == 0;
    byte[] bin = {0, 1, (byte) 0x5c, (byte) 0x27, (byte) 0xff, (byte) v, '\n', 0x1a};
    return events.row(id,
        nulls ? null : (byte) (v % 2 == 0 ? Byte.MAX_VALUE : Byte.MIN_VALUE),
        nulls ? null : (short) (v % 3 == 0 ? Short.MAX_VALUE : Short.MIN_VALUE + v % 3),
        nulls ? null : v % 4 == 0 ? Integer.MAX_VALUE : v % 4 == 1 ? Integer.MIN_VALUE : v,
        nulls ? null : I64[v % I64.length],
        nulls ? null : (short) (v % 2 == 0 ? 255 : 0),
        nulls ? null : v % 2 == 0 ? 4_294_967_295L : 0L,
        nulls ? null : new BigDecimal(new BigInteger(U64[v % U64.length])),
        nulls ? null : new BigDecimal(WIDE[v % WIDE.length]).setScale(30),
        nulls ? null : F32[v % F32.length],
        nulls ? null : F64[v % F64.length],
        v % 13 == 0 ? null : TEXTS[v % TEXTS.length] + (version > 0 ? " v" + version : ""),
        nulls ? null : (v % 2 == 0 ? bin : ByteBuffer.wrap(bin)),
        nulls ? null : v % 2 == 0,
        nulls ? null : DAYS[v % DAYS.length],
        nulls ? null : (long) v * 86_400_123_457L - 1_000_000_000_000L,
        nulls ? null : (long) v * 3_600_001L,
        nulls ? null : ZONED[v % ZONED.length],
        nulls ? null : TIMES[v % TIMES.length],
        nulls ? null : YEARS[v % YEARS.length],
        nulls ? null : DOCS[v % DOCS.length],
        "required " + TEXTS[(v + 3) % TEXTS.length]);
  }

  private static Map<String, String> settings(Map<String, String> more) {
    Map<String, String> out = new HashMap<>(Map.of("connection.username", "root", "connection.password", ""));
    out.putAll(more);
    return out;
  }

  @Test
  void multiRowStatementsAndDebeziumsPathLeaveTheSameRows() throws SQLException {
    ChangeEvents events = new ChangeEvents("rows.db.kinds",
        SchemaBuilder.struct().name("rows.db.kinds.Key").field("id", Schema.INT64_SCHEMA).build(), ROW);
    List<SinkRecord> stream = new ArrayList<>();
    long lsn = 100;
    for (long id = 1; id <= 60; id++) {
      stream.add(events.insert(lsn++, row(events, id, 0)));
    }
    for (long id = 1; id <= 60; id += 3) {
      stream.add(events.update(lsn++, row(events, id, 1)));
    }
    for (long id = 2; id <= 60; id += 4) {
      Struct before = row(events, id, 0);
      stream.add(events.delete(lsn++, before));
      stream.add(events.tombstone(before));
    }
    // Within one put: delete then re-insert, insert then delete, several updates then a delete and a re-insert.
    for (long id = 6; id <= 60; id += 8) {
      stream.add(events.delete(lsn++, row(events, id, 0)));
      stream.add(events.tombstone(row(events, id, 0)));
      stream.add(events.insert(lsn++, row(events, id, 2)));
      stream.add(events.insert(lsn++, row(events, id + 1000, 0)));
      stream.add(events.delete(lsn++, row(events, id + 1000, 0)));
      stream.add(events.update(lsn++, row(events, id + 1, 3)));
      stream.add(events.update(lsn++, row(events, id + 1, 4)));
      stream.add(events.delete(lsn++, row(events, id + 1, 4)));
      stream.add(events.insert(lsn++, row(events, id + 1, 5)));
    }
    for (long id = 61; id <= 2_600; id++) {
      stream.add(events.insert(lsn++, row(events, id, 0)));
    }
    long next = events.offset;

    long written;
    long committed;
    try (DrivenTask multi = new DrivenTask(url, "multi", events.topic, "kinds_multi", settings(Map.of()));
        DrivenTask plain = new DrivenTask(url, "plain", events.topic, "kinds_plain",
            settings(Map.of("sluice.sink.copy", "false")))) {
      // The first put creates the table (Debezium's path); every later one may go by multi-row statements, the
      // last put of more rows than one statement takes.
      for (DrivenTask task : List.of(multi, plain)) {
        task.put(stream.subList(0, 1), 1);
        task.put(stream.subList(1, 400), 17);
        task.put(stream.subList(400, stream.size()), stream.size());
      }
      written = (long) writtenRows(multi);
      committed = multi.committed(next);
      assertEquals(0, (long) writtenRows(plain));
    }
    assertTrue(written > 2_500, "most rows went by multi-row statements: " + written);
    assertEquals(next, committed, "every record handed over is written");
    assertSameRows("kinds_plain", "kinds_multi", 2_500);
  }

  @Test
  void nanAndInfinitiesAreRefusedByNameAndTheRestIsWritten() throws SQLException {
    Schema row = SchemaBuilder.struct().name("nan.db.t.Value").optional().field("id", Schema.INT32_SCHEMA)
        .field("ratio", Schema.OPTIONAL_FLOAT64_SCHEMA).build();
    ChangeEvents events = new ChangeEvents("nan.db.t",
        SchemaBuilder.struct().name("nan.db.t.Key").field("id", Schema.INT32_SCHEMA).build(), row);
    List<SinkRecord> put = new ArrayList<>();
    double[] values = {1.5, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -0.0, 2.5};
    for (int i = 0; i < values.length; i++) {
      put.add(events.insert(i, events.row(i + 1, values[i])));
    }
    Map<String, String> dlq = Map.of("errors.tolerance", "all");
    try (DrivenTask multi = new DrivenTask(url, "nan-multi", events.topic, "nan_multi", settings(dlq));
        DrivenTask plain = new DrivenTask(url, "nan-plain", events.topic, "nan_plain",
            settings(Map.of("errors.tolerance", "all", "sluice.sink.copy", "false")))) {
      for (DrivenTask task : List.of(multi, plain)) {
        task.put(put.subList(0, 1), 1);
        task.put(put.subList(1, put.size()), put.size());
        assertEquals(3, task.deadLetters.size(), "NaN and the infinities refused by name");
      }
      assertEquals(2.0, writtenRows(multi));
    }
    assertSameRows("nan_plain", "nan_multi", 3);
  }

  @Test
  void aNullForANotNullColumnGoesDebeziumsWayAndIsRefusedThere() throws SQLException {
    Schema row = SchemaBuilder.struct().name("nn.db.t.Value").optional().field("id", Schema.INT32_SCHEMA)
        .field("item", Schema.OPTIONAL_STRING_SCHEMA).build();
    ChangeEvents events = new ChangeEvents("nn.db.t",
        SchemaBuilder.struct().name("nn.db.t.Key").field("id", Schema.INT32_SCHEMA).build(), row);
    try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE nn (id INT PRIMARY KEY, item VARCHAR(20) NOT NULL)");
    }
    try (DrivenTask multi = new DrivenTask(url, "nn-multi", events.topic, "nn",
        settings(Map.of("errors.tolerance", "all")))) {
      multi.put(List.of(events.insert(1, events.row(1, "a")), events.insert(2, events.row(2, "b"))), 2);
      assertEquals(2.0, writtenRows(multi));
      // Debezium's task keeps its failure, which the task's record-by-record writer then takes over from.
      multi.task.put(List.of(events.insert(3, events.row(3, "c")), events.insert(4, events.row(4, null))));
      assertEquals(2.0, writtenRows(multi), "a NULL into NOT NULL is not written by many rows a statement");
      assertEquals(1, multi.deadLetters.size(), "Debezium's path refuses it, as it always has");
    }
    List<String> rows = dump("nn");
    assertEquals(List.of("1|a|", "2|b|", "3|c|"), rows, "no row 4 with an implicit default");
  }

  /**
   * Two sink databases on one server, each with its own table of the same name made beforehand: each sink writes its
   * own (the task's driver properties, {@code nullDatabaseMeansCurrent=true} as Sluice's defaults give them, hold for
   * this writer's connection too).
   */
  @Test
  void aTableOfTheSameNameInAnotherDatabaseIsNotWrittenInstead() throws SQLException {
    String other = MariaDbServer.createDatabase("sink_rows_other");
    Schema row = SchemaBuilder.struct().name("xdb.db.t.Value").optional().field("id", Schema.INT32_SCHEMA)
        .field("item", Schema.OPTIONAL_STRING_SCHEMA).build();
    ChangeEvents events = new ChangeEvents("xdb.db.t",
        SchemaBuilder.struct().name("xdb.db.t.Key").field("id", Schema.INT32_SCHEMA).build(), row);
    for (String db : List.of(url, other)) {
      try (Connection c = DriverManager.getConnection(db); Statement s = c.createStatement()) {
        s.execute("CREATE TABLE xdb (id INT PRIMARY KEY, item LONGTEXT)");
      }
    }
    Map<String, String> driver = Map.of("hibernate.agroal.jdbcProperties", "nullDatabaseMeansCurrent=true");
    try (DrivenTask first = new DrivenTask(other, "xdb-other", events.topic, "xdb", settings(driver));
        DrivenTask second = new DrivenTask(url, "xdb-this", events.topic, "xdb", settings(driver))) {
      first.put(List.of(events.insert(1, events.row(1, "other"))), 1);
      second.put(List.of(events.insert(2, events.row(2, "this")), events.insert(3, events.row(3, "this"))), 2);
      assertEquals(2.0, writtenRows(second));
    }
    assertEquals(List.of("2|this|", "3|this|"), dump("xdb"));
  }

  @Test
  void aPutOfSeveralTablesKeepsEveryTablesRowsOnAFreshTask() throws SQLException {
    // A fresh task has read no table yet: reading the second one must not undo the first one's rows of the same put
    // (MariaDbTypeMatrixIT lost the last row of all but one table of a sink reading several).
    List<ChangeEvents> tables = List.of(ChangeEvents.ofIntKey("mt_a"), ChangeEvents.ofIntKey("mt_b"),
        ChangeEvents.ofIntKey("mt_c"));
    for (ChangeEvents t : tables) {
      try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
        s.execute("CREATE TABLE " + t.topic + " (id INT PRIMARY KEY, item LONGTEXT NOT NULL)");
      }
    }
    List<SinkRecord> put = new ArrayList<>();
    for (int id = 1; id <= 3; id++) {
      for (ChangeEvents t : tables) {
        put.add(t.insert(id, t.row(id)));
      }
    }
    try (DrivenTask task = new DrivenTask(url, "mt", "mt_a", "${topic}", settings(Map.of()))) {
      task.put(put, put.size());
      assertEquals(9.0, writtenRows(task));
    }
    for (ChangeEvents t : tables) {
      assertEquals(List.of("1|item-1|", "2|item-2|", "3|item-3|"), dump(t.topic), t.topic);
    }
  }

  private static double writtenRows(DrivenTask task) {
    return task.metrics.metrics().values().stream().filter(m -> m.metricName().name().equals("sink-copy-rows"))
        .map(KafkaMetric::metricValue).mapToDouble(v -> ((Number) v).doubleValue()).sum();
  }

  /**
   * That {@code expected} and {@code actual} hold the same keys and, for each, every column equal by value ({@code <=>}:
   * numbers, dates and times exactly) and by its bytes ({@code HEX}: strings and binary to the byte, not by collation).
   */
  private static void assertSameRows(String expected, String actual, int atLeast) throws SQLException {
    List<String> columns = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
      try (ResultSet rs = s.executeQuery("SELECT * FROM " + expected + " LIMIT 0")) {
        ResultSetMetaData meta = rs.getMetaData();
        for (int i = 1; i <= meta.getColumnCount(); i++) {
          columns.add(meta.getColumnName(i));
        }
      }
      List<String> differ = new ArrayList<>();
      for (String col : columns) {
        try (ResultSet rs = s.executeQuery("SELECT count(*) FROM " + expected + " e JOIN " + actual + " a USING (id)"
            + " WHERE NOT (e.`" + col + "` <=> a.`" + col + "`) OR NOT (HEX(e.`" + col + "`) <=> HEX(a.`" + col + "`))"
            + " OR NOT (CAST(e.`" + col + "` AS CHAR) <=> CAST(a.`" + col + "` AS CHAR))")) {
          rs.next();
          if (rs.getLong(1) != 0) {
            differ.add(col + " in " + rs.getLong(1) + " rows");
          }
        }
      }
      assertEquals(List.of(), differ, "columns that differ");
    }
    List<String> want = dump(expected);
    assertEquals(want, dump(actual));
    assertTrue(want.size() >= atLeast, want.size() + " rows");
  }

  /** Every row of {@code table} as text, binary as hex, in key order. */
  private static List<String> dump(String table) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT * FROM " + table + " ORDER BY id")) {
      ResultSetMetaData meta = rs.getMetaData();
      int n = meta.getColumnCount();
      while (rs.next()) {
        StringBuilder row = new StringBuilder();
        for (int i = 1; i <= n; i++) {
          boolean binary = meta.getColumnType(i) == java.sql.Types.BINARY
              || meta.getColumnType(i) == java.sql.Types.VARBINARY
              || meta.getColumnType(i) == java.sql.Types.LONGVARBINARY || meta.getColumnType(i) == java.sql.Types.BLOB;
          byte[] bytes = binary ? rs.getBytes(i) : null;
          row.append(bytes != null ? java.util.HexFormat.of().formatHex(bytes) : rs.getString(i)).append('|');
        }
        out.add(row.toString());
      }
    }
    return out;
  }
}
