package io.sluice.sink.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/**
 * The values a MariaDB or MySQL sink refuses before writing, in change events shaped as Debezium's PostgreSQL source
 * writes them (its source types on the fields, as Sluice's sources carry them; an infinity as the instant Debezium
 * sends for it).
 */
class BinlogValueCheckTest {
  private static Schema typed(SchemaBuilder b, String sourceType) {
    return b.parameter("__debezium.source.column.type", sourceType).optional().build();
  }

  private static final Schema ROW = SchemaBuilder.struct().name("t.public.m.Value").optional()
      .field("id", Schema.INT32_SCHEMA)
      .field("c_real", typed(SchemaBuilder.float32(), "FLOAT4"))
      .field("c_double", typed(SchemaBuilder.float64(), "FLOAT8"))
      .field("c_date", typed(SchemaBuilder.int32().name("io.debezium.time.Date"), "DATE"))
      .field("c_ts", typed(SchemaBuilder.int64().name("io.debezium.time.MicroTimestamp"), "TIMESTAMP"))
      .field("c_tstz", typed(SchemaBuilder.string().name("io.debezium.time.ZonedTimestamp"), "TIMESTAMPTZ"))
      .build();
  private static final Schema ENVELOPE = SchemaBuilder.struct().name("t.public.m.Envelope")
      .field("before", ROW).field("after", ROW).field("op", Schema.STRING_SCHEMA).build();

  private final BinlogValueCheck check = new BinlogValueCheck(name -> name);

  private static SinkRecord upsert(Struct row) {
    return new SinkRecord("t.public.m", 0, null, null, ENVELOPE, new Struct(ENVELOPE).put("after", row).put("op", "u"),
        7);
  }

  private static Struct row() {
    return new Struct(ROW).put("id", 1).put("c_real", 1.5f).put("c_double", -2.5)
        .put("c_date", (int) LocalDate.of(2026, 12, 2).toEpochDay())
        .put("c_ts", LocalDateTime.of(1000, 1, 1, 0, 0).toEpochSecond(ZoneOffset.UTC) * 1_000_000L)
        .put("c_tstz", "9999-12-31T23:59:59.999999Z");
  }

  @Test
  void ordinaryValuesAndNullsPass() {
    assertEquals(List.of(), check.find(upsert(row())));
    Struct nulls = new Struct(ROW).put("id", 2);
    assertEquals(List.of(), check.find(upsert(nulls)));
    assertEquals(List.of(), check.find(new SinkRecord("t.public.m", 0, null, null, null, null, 8)), "a tombstone");
  }

  @Test
  void eachNumberWithoutAFiniteValueIsNamedWithItsSourceType() {
    List<BinlogValueCheck.Unholdable> found = check.find(upsert(row().put("c_real", Float.NaN)
        .put("c_double", Double.NEGATIVE_INFINITY)));
    assertEquals(List.of("column c_real (FLOAT4) holds NaN", "column c_double (FLOAT8) holds -Infinity"),
        found.stream().map(Object::toString).toList());
    assertTrue(BinlogValueCheck.why(found).contains("no NaN or infinity"), BinlogValueCheck.why(found));
  }

  @Test
  void postgresInfinitiesAndYearsBeyondTheDatabasesAreNamed() {
    // Debezium's PostgreSQL source: date 'infinity' as the day 5877611-06-21, timestamp '-infinity' as Long.MIN_VALUE
    // microseconds, timestamptz 'infinity' as the text itself.
    Struct infinite = row().put("c_date", (int) LocalDate.of(5_877_611, 6, 21).toEpochDay())
        .put("c_ts", Long.MIN_VALUE).put("c_tstz", "infinity");
    assertEquals(List.of("column c_date (DATE) holds infinity", "column c_ts (TIMESTAMP) holds -infinity",
        "column c_tstz (TIMESTAMPTZ) holds infinity"), check.find(upsert(infinite)).stream().map(Object::toString)
        .toList());
    Struct beforeChrist = row().put("c_date", (int) LocalDate.of(-43, 3, 15).toEpochDay())
        .put("c_tstz", "+10000-01-01T00:00:00Z");
    assertEquals(List.of("column c_date (DATE) holds -0043-03-15", "column c_tstz (TIMESTAMPTZ) holds"
        + " +10000-01-01T00:00:00Z"), check.find(upsert(beforeChrist)).stream().map(Object::toString).toList());
    assertTrue(BinlogValueCheck.why(check.find(upsert(infinite))).contains("years 1 to 9999"));
  }

  @Test
  void aFlattenedRowIsCheckedToo() {
    SinkRecord flat = new SinkRecord("t.public.m", 0, null, null, ROW, row().put("c_double", Double.NaN), 9);
    assertEquals(List.of("column c_double (FLOAT8) holds NaN"), check.find(flat).stream().map(Object::toString)
        .toList());
  }
}
