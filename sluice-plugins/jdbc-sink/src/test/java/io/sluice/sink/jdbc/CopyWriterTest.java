package io.sluice.sink.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The sink's COPY path against Debezium's own path, into a real PostgreSQL: one stream of changes (inserts, updates,
 * deletes with their tombstones, re-inserts, a key changed several times in one put, nulls, and values of every type
 * COPY takes, with tabs, newlines, backslashes and characters outside ASCII) is written by a task with COPY and by
 * one without, each into a table of its own; the two tables must hold the same rows, to the text of every value.
 */
class CopyWriterTest {
  private static String url;

  @BeforeAll
  static void database() {
    url = TestPostgres.createDatabase("sink_copy");
  }

  private static final Schema ROW = SchemaBuilder.struct().name("copy.public.kinds.Value").optional()
      .field("id", Schema.INT64_SCHEMA)
      .field("small", Schema.OPTIONAL_INT16_SCHEMA)
      .field("num", Schema.OPTIONAL_INT32_SCHEMA)
      .field("big", Schema.OPTIONAL_INT64_SCHEMA)
      .field("txt", Schema.OPTIONAL_STRING_SCHEMA)
      .field("amount", Decimal.builder(2).optional().parameter("connect.decimal.precision", "12").build())
      .field("flag", Schema.OPTIONAL_BOOLEAN_SCHEMA)
      .field("ratio", Schema.OPTIONAL_FLOAT64_SCHEMA)
      .field("at", SchemaBuilder.int64().name("io.debezium.time.MicroTimestamp").optional().build())
      .field("at_ms", SchemaBuilder.int64().name("io.debezium.time.Timestamp").optional().build())
      .field("at_tz", SchemaBuilder.string().name("io.debezium.time.ZonedTimestamp").optional().build())
      .field("day", SchemaBuilder.int32().name("io.debezium.time.Date").optional().build())
      .field("bin", Schema.OPTIONAL_BYTES_SCHEMA)
      .field("doc", SchemaBuilder.string().name("io.debezium.data.Json").optional().build())
      .field("required_text", SchemaBuilder.string().defaultValue("fallback").build())
      .build();

  private static final String[] TEXTS = {"plain", "tab\there", "new\nline", "cr\rlf\r\n", "back\\slash",
      "\\N", "\\.", "", "ünïcødé ✓ 𝄞", "quote ' and \" both", "trailing\\", "tab\t\\t literal"};
  private static final String[] ZONED = {"2026-03-04T05:06:07.123456Z", "1970-01-01T00:00:00Z",
      "1969-12-31T23:59:59.999999Z", "2026-03-04T05:06:07.123456789Z", "infinity", "-infinity",
      "2000-02-29T12:00:00+05:30"};
  private static final String[] DOCS = {"{\"a\": 1,   \"b\": [1, 2]}", "{\"t\":\"tab\\there\"}", "[]", "null",
      "{\"k\": \"ü\", \"k\": 2}"};
  /** Days since the epoch: 2026-03-04, the epoch and the day before, years 1 and 9999 at their ends. */
  private static final int[] DAYS = {20_516, 0, -1, -719_162, 2_932_896};
  private static final double[] RATIOS = {0.1, -0.0, 1e300, Double.NaN, Double.POSITIVE_INFINITY, 1.0 / 3, 5e-324};
  private static final String[] AMOUNTS = {"12.34", "-0.01", "9999999999.99", "0.00", "1E+3", "7"};

  private static Struct row(ChangeEvents events, long id, int version) {
    int v = (int) (id * 7 + version);
    boolean nulls = v % 5 == 0;
    byte[] bin = {0, 1, (byte) 0x5c, (byte) 0xff, (byte) v, '\t', '\n'};
    return events.row(id,
        nulls ? null : (short) (v % 300 - 150),
        nulls ? null : v * 1000,
        nulls ? null : (long) v * 1_000_000_007L,
        nulls ? null : TEXTS[v % TEXTS.length] + " v" + version,
        nulls ? null : new BigDecimal(AMOUNTS[v % AMOUNTS.length]).setScale(2, java.math.RoundingMode.UNNECESSARY),
        nulls ? null : v % 2 == 0,
        nulls ? null : RATIOS[v % RATIOS.length],
        nulls ? null : (long) v * 86_400_123_457L - 1_000_000_000_000L,
        nulls ? null : (long) v * 3_600_001L,
        nulls ? null : ZONED[v % ZONED.length],
        nulls ? null : DAYS[v % DAYS.length],
        nulls ? null : (v % 2 == 0 ? bin : ByteBuffer.wrap(bin)),
        nulls ? null : DOCS[v % DOCS.length],
        "required " + TEXTS[(v + 3) % TEXTS.length]);
  }

  @Test
  void copyAndDebeziumsPathLeaveTheSameRows() throws SQLException {
    ChangeEvents events = new ChangeEvents("copy.public.kinds",
        SchemaBuilder.struct().name("copy.public.kinds.Key").field("id", Schema.INT64_SCHEMA).build(), ROW);
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
    for (long id = 61; id <= 400; id++) {
      stream.add(events.insert(lsn++, row(events, id, 0)));
    }
    long next = events.offset;
    // As Debezium's sources write them: the sink drops them before Debezium's sink turns them into a struct.
    stream.forEach(r -> r.headers().addString("__debezium.context.connectorName", "copy")
        .addString("__debezium.context.taskId", "0"));

    long copiedRows;
    long committed;
    try (DrivenTask copying = new DrivenTask(url, "copying", events.topic, "kinds_copy");
        DrivenTask plain = new DrivenTask(url, "plain", events.topic, "kinds_plain",
            Map.of("sluice.sink.copy", "false"))) {
      // The first put creates the table (Debezium's path); every later one may go by COPY.
      for (DrivenTask task : List.of(copying, plain)) {
        task.put(stream.subList(0, 1), 1);
        task.put(stream.subList(1, stream.size()), 9);
      }
      copiedRows = (long) copyRows(copying);
      committed = copying.committed(next);
      assertEquals(0, (long) copyRows(plain));
    }
    assertTrue(copiedRows > 300, "most rows went by COPY: " + copiedRows);
    assertEquals(next, committed, "every record handed over is written");
    assertEquals(rows("kinds_plain"), rows("kinds_copy"));
    assertTrue(rows("kinds_copy").size() > 300);
  }

  @Test
  void aPutOfChangesCopyCannotProveFallsBackWhole() throws SQLException {
    ChangeEvents events = ChangeEvents.ofIntKey("fallback.public.orders");
    try (DrivenTask task = new DrivenTask(url, "fallback", events.topic, "orders_fallback")) {
      task.put(List.of(events.insert(1, events.row(1))), 1);
      task.put(List.of(events.insert(2, events.row(2)), events.insert(3, events.row(3))), 2);
      assertEquals(2.0, copyRows(task));
      // A new column: Debezium's path adds it, and COPY takes the table up again on the next put.
      ChangeEvents wider = new ChangeEvents(events.topic,
          SchemaBuilder.struct().name("fallback.Key").field("id", Schema.INT32_SCHEMA).build(),
          SchemaBuilder.struct().name("fallback.Value2").optional().field("id", Schema.INT32_SCHEMA)
              .field("item", Schema.STRING_SCHEMA).field("note", Schema.OPTIONAL_STRING_SCHEMA).build());
      wider.offset = events.offset;
      task.put(List.of(wider.insert(4, wider.row(4, "item-4", "added"))), 1);
      assertEquals(2.0, copyRows(task));
      task.put(List.of(wider.insert(5, wider.row(5, "item-5", "copied")), wider.update(6, wider.row(1, "x", "y"))), 2);
      assertEquals(4.0, copyRows(task));
      assertEquals(wider.offset, task.committed(wider.offset));
    }
    assertEquals(List.of("(1,x,y)", "(2,item-2,)", "(3,item-3,)", "(4,item-4,added)", "(5,item-5,copied)"),
        rows("orders_fallback"));
  }

  /**
   * A put into a table that is not there yet: Debezium's path writes its first record, which makes the table, and COPY
   * the rest (an insert, an update of the first key, a delete and its tombstone), ending as Debezium's path ends.
   */
  @Test
  void aPutIntoATableNotThereYetMakesItWithItsFirstRecordAndCopiesTheRest() throws SQLException {
    ChangeEvents events = ChangeEvents.ofIntKey("first.public.orders");
    List<SinkRecord> put = List.of(events.insert(1, events.row(1)), events.insert(2, events.row(2)),
        events.insert(3, events.row(3)), events.update(4, events.row(1, "item-1b")), events.delete(5, events.row(2)),
        events.tombstone(events.row(2)));
    try (DrivenTask copying = new DrivenTask(url, "first-copying", events.topic, "orders_first_copy");
        DrivenTask plain = new DrivenTask(url, "first-plain", events.topic, "orders_first_plain",
            Map.of("sluice.sink.copy", "false"))) {
      copying.put(put, put.size());
      plain.put(put, put.size());
      assertEquals(3.0, copyRows(copying), "keys 1 and 3 upserted, key 2 deleted, by COPY");
      assertEquals(events.offset, copying.committed(events.offset), "every record handed over is written");
    }
    assertEquals(List.of("(1,item-1b)", "(3,item-3)"), rows("orders_first_copy"));
    assertEquals(rows("orders_first_plain"), rows("orders_first_copy"));
  }

  @Test
  void onlyValidUtcDateTimesOfSixFractionalDigitsAtMostGoAsTheyAre() {
    for (String ok : List.of("2026-11-28T20:50:01Z", "2026-11-28T20:50:01.1Z", "2024-02-29T23:59:59.999999Z",
        "0001-01-01T00:00:00Z", "9999-12-31T23:59:59.5Z")) {
      assertTrue(CopyText.isUtcIso(ok), ok);
    }
    for (String no : List.of("2026-02-29T00:00:00Z", "2026-11-28T24:00:00Z", "2026-11-28T20:60:01Z",
        "2026-11-28T20:50:60Z", "2026-13-01T00:00:00Z", "0000-01-01T00:00:00Z", "2026-11-28T20:50:01.Z",
        "2026-11-28T20:50:01.1234567Z", "2026-11-28T20:50:01+00:00", "2026-11-28 20:50:01Z", "+2026-11-28T20:50:01Z",
        "2026-11-28T20:50:0aZ")) {
      assertTrue(!CopyText.isUtcIso(no), no);
    }
  }

  @Test
  void datesOfYearsOneTo9999GoAsIsoTextAndOthersDebeziumsWay() {
    CopyText.Encoder date = CopyText.encoder(SchemaBuilder.int32().name("io.debezium.time.Date").build(), "date", true)
        .orElseThrow();
    assertEquals(Optional.of("2026-03-04"), date.text(20_516));
    assertEquals(Optional.of("0001-01-01"), date.text(-719_162));
    assertEquals(Optional.of("9999-12-31"), date.text(2_932_896));
    assertEquals(Optional.empty(), date.text(2_932_897), "year 10000");
    assertEquals(Optional.empty(), date.text(-719_163), "year 0, 1 BC");
    assertTrue(CopyText.encoder(SchemaBuilder.int32().name("io.debezium.time.Date").build(), "timestamp", true)
        .isEmpty(), "a date into another column type is Debezium's");
  }

  @Test
  void aZonedTimestampWithAnOffsetOfSecondsGoesDebeziumsWay() {
    CopyText.Encoder zoned = CopyText.encoder(SchemaBuilder.string().name("io.debezium.time.ZonedTimestamp").build(),
        "timestamptz", true).orElseThrow();
    assertEquals(Optional.of("2000-02-29 12:00:00.000000+05:30"), zoned.text("2000-02-29T12:00:00+05:30"));
    assertEquals(Optional.of("2026-03-04T05:06:07.123456Z"), zoned.text("2026-03-04T05:06:07.123456Z"));
    assertEquals(Optional.empty(), zoned.text("1900-01-01T00:00:00+00:19:32"), "the driver writes the seconds");
  }

  private static double copyRows(DrivenTask task) {
    return task.metrics.metrics().values().stream().filter(m -> m.metricName().name().equals("sink-copy-rows"))
        .map(KafkaMetric::metricValue).mapToDouble(v -> ((Number) v).doubleValue()).sum();
  }

  /** Every row of {@code table} as PostgreSQL writes it as text, in key order. */
  private static List<String> rows(String table) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = TestPostgres.connect(url); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT t::text FROM " + table + " t ORDER BY id")) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }
}
