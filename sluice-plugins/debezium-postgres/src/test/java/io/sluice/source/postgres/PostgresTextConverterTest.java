package io.sluice.source.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.debezium.data.SpecialValueDecimal;
import io.debezium.spi.converter.RelationalColumn;
import io.debezium.connector.postgresql.PostgresValueConverter;
import io.debezium.spi.converter.CustomConverter;
import java.math.BigDecimal;
import java.sql.Date;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.postgresql.PGStatement;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.postgresql.geometric.PGbox;
import org.postgresql.util.PGInterval;
import org.postgresql.util.PGobject;

class PostgresTextConverterTest {
  @Test
  void takesTheTypesDebeziumWouldChangeAndLeavesTheRest() {
    assertEquals("numeric", PostgresTextConverter.postgresType(column("numeric", OptionalInt.of(131089))));
    assertEquals("numeric", PostgresTextConverter.postgresType(column("numeric", OptionalInt.empty())));
    assertEquals("numeric", PostgresTextConverter.postgresType(column("numeric", OptionalInt.of(-1))),
        "as the replication stream's relation describes it");
    assertNull(PostgresTextConverter.postgresType(column("numeric", OptionalInt.of(20))), "a scaled numeric is exact");
    assertEquals("numeric[]", PostgresTextConverter.postgresType(column("_numeric", OptionalInt.of(-1))));
    assertEquals("date[]", PostgresTextConverter.postgresType(column("_date", OptionalInt.empty())));
    assertEquals("timestamptz[]", PostgresTextConverter.postgresType(column("_timestamptz", OptionalInt.empty())));
    assertNull(PostgresTextConverter.postgresType(column("_int4", OptionalInt.empty())), "Debezium's arrays carry it");
    assertEquals("varbit(16)", PostgresTextConverter.postgresType(column("varbit", OptionalInt.of(16))));
    assertEquals("varbit", PostgresTextConverter.postgresType(column("varbit", OptionalInt.of(Integer.MAX_VALUE))));
    assertEquals("interval", PostgresTextConverter.postgresType(column("interval", OptionalInt.empty())));
    assertEquals("xml", PostgresTextConverter.postgresType(column("xml", OptionalInt.empty())));
    assertEquals("hstore", PostgresTextConverter.postgresType(column("hstore", OptionalInt.empty())));
    for (String geometric : new String[] {"box", "lseg", "path", "polygon", "point", "line", "circle"}) {
      assertEquals(geometric, PostgresTextConverter.postgresType(column(geometric, OptionalInt.empty())));
    }
    assertNull(PostgresTextConverter.postgresType(column("int4", OptionalInt.of(10))));
    assertNull(PostgresTextConverter.postgresType(column("timestamptz", OptionalInt.empty())));
  }

  @Test
  void writesEachValueInPostgresTextForm() throws Exception {
    assertEquals("101", PostgresTextConverter.text("101"), "as the replication stream decoded it");
    assertEquals("NaN", PostgresTextConverter.text(SpecialValueDecimal.NOT_A_NUMBER));
    assertEquals("-Infinity", PostgresTextConverter.text(SpecialValueDecimal.NEGATIVE_INF));
    assertEquals("Infinity", PostgresTextConverter.text(SpecialValueDecimal.POSITIVE_INF));
    assertEquals("3.14159265358979323846264338327950288", PostgresTextConverter.text(
        new SpecialValueDecimal(new BigDecimal("3.14159265358979323846264338327950288"))));
    assertEquals("(1.0,1.0),(0.0,0.0)", PostgresTextConverter.text(new PGbox("(1,1),(0,0)")));
    PGobject bits = new PGobject();
    bits.setType("varbit");
    bits.setValue("00101");
    assertEquals("00101", PostgresTextConverter.text(bits), "leading zeros are part of the value");
    Object interval = PostgresTextConverter.text(new PGInterval("1 year 2 mons 3 days 04:05:06.789"));
    assertEquals(new PGInterval("1 year 2 mons 3 days 04:05:06.789"), new PGInterval((String) interval),
        "months stay months: " + interval);
    java.util.Map<String, String> pairs = new java.util.LinkedHashMap<>();
    pairs.put("a", "1");
    pairs.put("b", null);
    pairs.put("say \"hi\"", "back\\slash");
    assertEquals("\"a\"=>\"1\", \"b\"=>NULL, \"say \\\"hi\\\"\"=>\"back\\\\slash\"",
        PostgresTextConverter.text(pairs), "a NULL value stays NULL, quotes and backslashes escaped");
    assertNull(PostgresTextConverter.text(null));
  }

  @Test
  void readsASnapshotsInfinityDateAsTheReplicationStreamDoes() {
    int streamedInfinity = io.debezium.time.Date.toEpochDay(PostgresValueConverter.POSITIVE_INFINITY_LOCAL_DATE, null);
    int streamedMinusInfinity = io.debezium.time.Date.toEpochDay(
        PostgresValueConverter.NEGATIVE_INFINITY_LOCAL_DATE, null);
    assertEquals(streamedInfinity, PostgresTextConverter.epochDay(new Date(PGStatement.DATE_POSITIVE_INFINITY)));
    assertEquals(streamedMinusInfinity,
        PostgresTextConverter.epochDay(new Date(PGStatement.DATE_NEGATIVE_INFINITY)));
    assertTrue(streamedInfinity > LocalDate.of(5_874_897, 12, 31).toEpochDay(), "beyond PostgreSQL's last date");
    assertTrue(streamedMinusInfinity < LocalDate.of(-4712, 1, 1).toEpochDay(), "before PostgreSQL's first date");
    assertEquals(LocalDate.of(1900, 3, 4).toEpochDay(), PostgresTextConverter.epochDay(Date.valueOf("1900-03-04")));
    assertEquals(LocalDate.of(2026, 12, 2).toEpochDay(), PostgresTextConverter.epochDay(LocalDate.of(2026, 12, 2)),
        "as the replication stream decoded it");
  }

  @Test
  void takesDatesOnlyWhenSluiceSaysTheModeIsDebeziumsDefault() {
    List<Schema> registered = new ArrayList<>();
    List<Object> converted = new ArrayList<>();
    CustomConverter.ConverterRegistration<SchemaBuilder> registration = (schema, converter) -> {
      registered.add(schema.build());
      converted.add(converter.convert(new Date(PGStatement.DATE_NEGATIVE_INFINITY)));
    };
    PostgresTextConverter plain = new PostgresTextConverter();
    plain.configure(new Properties());
    plain.converterFor(column("date", OptionalInt.empty()), registration);
    assertTrue(registered.isEmpty(), "without " + PostgresTextConverter.DATES + " dates stay Debezium's");

    PostgresTextConverter dates = new PostgresTextConverter();
    Properties props = new Properties();
    props.setProperty(PostgresTextConverter.DATES, PostgresTextConverter.EPOCH_DAYS);
    dates.configure(props);
    dates.converterFor(column("date", OptionalInt.empty()), registration);
    assertEquals(1, registered.size());
    assertEquals(io.debezium.time.Date.SCHEMA_NAME, registered.get(0).name(), "Debezium's own date schema");
    assertEquals(Schema.Type.INT32, registered.get(0).type());
    assertTrue(registered.get(0).isOptional());
    assertTrue((Integer) converted.get(0) < 0, "-infinity stays before every date");
    dates.converterFor(column("_date", OptionalInt.empty()), registration);
    assertEquals(PostgresTextConverter.NAME, registered.get(1).name(), "an array of dates still travels as text");
  }

  private static RelationalColumn column(String type, OptionalInt length) {
    return new RelationalColumn() {
      @Override public int jdbcType() { return 0; }
      @Override public int nativeType() { return 0; }
      @Override public String typeName() { return type; }
      @Override public String typeExpression() { return type; }
      @Override public OptionalInt length() { return length; }
      @Override public OptionalInt scale() { return OptionalInt.empty(); }
      @Override public boolean isOptional() { return true; }
      @Override public Object defaultValue() { return null; }
      @Override public boolean hasDefaultValue() { return false; }
      @Override public String name() { return "c"; }
      @Override public String dataCollection() { return "public.t"; }
    };
  }
}
