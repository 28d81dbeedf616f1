package io.sluice.source.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.debezium.data.SpecialValueDecimal;
import io.debezium.spi.converter.RelationalColumn;
import java.math.BigDecimal;
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
