package io.sluice.connect.defaults;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.connect.defaults.PostgresTypeFidelity.Carried;
import io.sluice.connect.defaults.PostgresTypeFidelity.ColumnType;
import io.sluice.connect.defaults.PostgresTypeFidelity.Kind;
import io.sluice.connect.defaults.PostgresTypeFidelity.NotCarried;
import org.junit.jupiter.api.Test;

class PostgresTypeFidelityTest {
  private static ColumnType array(ColumnType element) {
    return new ColumnType("_" + element.name(), element.shown() + "[]", Kind.ARRAY, element);
  }

  private static ColumnType domain(String name, ColumnType base) {
    return new ColumnType(name, name, Kind.DOMAIN, base);
  }

  @Test
  void theTypesSluiceCarriesAreCarried() {
    for (String t : new String[] {"int4", "numeric", "interval", "varbit", "timestamptz", "jsonb", "inet", "point",
        "polygon", "tsvector", "daterange", "hstore", "citext", "ltree", "geometry", "vector", "money", "xml"}) {
      assertInstanceOf(Carried.class, PostgresTypeFidelity.verdict(t), t);
    }
    assertInstanceOf(Carried.class, PostgresTypeFidelity.verdict(new ColumnType("mood", null, Kind.ENUM, null)));
    assertInstanceOf(Carried.class, PostgresTypeFidelity.verdict(array(ColumnType.base("int4"))));
    assertInstanceOf(Carried.class, PostgresTypeFidelity.verdict(domain("email", ColumnType.base("citext"))));
  }

  @Test
  void timetzLosesItsOffsetWhereverItHides() {
    NotCarried lost = assertInstanceOf(NotCarried.class, PostgresTypeFidelity.verdict("timetz"));
    assertTrue(lost.happens().contains("UTC"), lost.happens());
    ColumnType timetz = ColumnType.base("timetz");
    assertInstanceOf(NotCarried.class, PostgresTypeFidelity.verdict(domain("local_time", timetz)));
    assertInstanceOf(NotCarried.class, PostgresTypeFidelity.verdict(array(domain("local_time", timetz))));
    // An array of timetz travels in PostgreSQL's text form (Sluice's converter), offsets and all.
    assertInstanceOf(Carried.class, PostgresTypeFidelity.verdict(array(timetz)));
  }

  @Test
  void whatDebeziumDoesNotKnowIsNotCarried() {
    for (String t : new String[] {"pg_lsn", "tsquery", "txid_snapshot", "some_extension_type"}) {
      NotCarried lost = assertInstanceOf(NotCarried.class, PostgresTypeFidelity.verdict(t), t);
      assertTrue(lost.happens().contains("include.unknown.datatypes"), lost.happens());
    }
    assertInstanceOf(NotCarried.class, PostgresTypeFidelity.verdict(new ColumnType("price", null, Kind.COMPOSITE,
        null)));
    assertInstanceOf(NotCarried.class, PostgresTypeFidelity.verdict(new ColumnType("floatrange", null, Kind.RANGE,
        null)));
    assertInstanceOf(NotCarried.class, PostgresTypeFidelity.verdict(new ColumnType("int4multirange", null,
        Kind.MULTIRANGE, null)));
    // Declared with two dimensions: Debezium reads one; an array that travels as text keeps both.
    assertInstanceOf(NotCarried.class, PostgresTypeFidelity.verdict(array(ColumnType.base("int4")), 2));
    assertInstanceOf(Carried.class, PostgresTypeFidelity.verdict(array(ColumnType.base("int4")), 1));
    assertInstanceOf(Carried.class, PostgresTypeFidelity.verdict(array(ColumnType.base("date")), 2));
    // Arrays Debezium has no schema for: Sluice's converter carries most as text; these it does not.
    assertInstanceOf(NotCarried.class, PostgresTypeFidelity.verdict(array(ColumnType.base("name"))));
    assertInstanceOf(Carried.class, PostgresTypeFidelity.verdict(array(ColumnType.base("interval"))));
    assertInstanceOf(Carried.class, PostgresTypeFidelity.verdict(array(ColumnType.base("money"))));
  }
}
