package io.sluice.sink.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A source table's columns widened and dropped while the sink writes it, against a real PostgreSQL: the sink's
 * columns follow (int to bigint, varchar(20) to text, a dropped NOT NULL column taking NULLs), by COPY and by
 * Debezium's statements both, and nothing the records do not ask for changes.
 */
class ColumnEvolutionTest {
  private static String url;

  @BeforeAll
  static void database() {
    url = TestPostgres.createDatabase("column_evolution");
  }

  /** A row schema as Debezium's PostgreSQL source writes it with the source's types propagated. */
  private static Schema row(boolean wide, boolean legacy) {
    SchemaBuilder b = SchemaBuilder.struct().name("evo.public.t.Value").optional()
        .field("id", Schema.INT32_SCHEMA)
        .field("qty", (wide ? SchemaBuilder.int64() : SchemaBuilder.int32())
            .parameter("__debezium.source.column.type", wide ? "INT8" : "INT4").build())
        .field("note", SchemaBuilder.string().optional()
            .parameter("__debezium.source.column.type", wide ? "TEXT" : "VARCHAR")
            .parameter("__debezium.source.column.length", wide ? "2147483647" : "20").build());
    if (legacy) {
      b.field("legacy", SchemaBuilder.string().parameter("__debezium.source.column.type", "TEXT").build());
    }
    return b.build();
  }

  private static ChangeEvents events(Schema row) {
    return new ChangeEvents("evo.public.t", SchemaBuilder.struct().name("evo.public.t.Key")
        .field("id", Schema.INT32_SCHEMA).build(), row);
  }

  @Test
  void widenedAndDroppedSourceColumnsAreFollowedByCopyAndByStatements() throws Exception {
    for (boolean copy : List.of(true, false)) {
      String table = "evo_" + (copy ? "copy" : "statements");
      try (DrivenTask task = new DrivenTask(url, "evo-" + table, "evo.public.t", table,
          Map.of("sluice.sink.copy", String.valueOf(copy)))) {
        ChangeEvents before = events(row(false, true));
        task.put(List.of(before.insert(1, before.row(1, 1, "n1", "legacy-1"))), 10);
        assertEquals("character varying(20)", columns(table).get("note"));
        assertEquals("integer NOT NULL", columns(table).get("qty"));
        assertEquals("text NOT NULL", columns(table).get("legacy"));

        ChangeEvents after = events(row(true, false));
        after.offset = before.offset;
        String longNote = "n".repeat(40);
        task.put(List.of(after.insert(2, after.row(2, 3_000_000_000L, longNote)),
            after.update(3, after.row(1, 3_000_000_001L, longNote + "1"))), 10);

        Map<String, String> columns = columns(table);
        assertEquals("bigint NOT NULL", columns.get("qty"), table);
        assertEquals("text", columns.get("note"), table);
        assertEquals("text", columns.get("legacy"), table + ": a dropped column takes NULLs, and stays");
        assertEquals("1 3000000001 " + longNote + "1 legacy-1|2 3000000000 " + longNote + " null",
            rows(table), table);
      }
    }
  }

  @Test
  void widensWithinAFamilyOnly() {
    assertTrue(ColumnEvolution.widens("integer", ColumnEvolution.normalized("bigint")));
    assertTrue(ColumnEvolution.widens("smallint", ColumnEvolution.normalized("int4")));
    assertTrue(ColumnEvolution.widens("character varying(20)", ColumnEvolution.normalized("varchar(30)")));
    assertTrue(ColumnEvolution.widens("character varying(20)", ColumnEvolution.normalized("text")));
    assertTrue(ColumnEvolution.widens("numeric(10,2)", ColumnEvolution.normalized("decimal(12, 2)")));
    assertTrue(ColumnEvolution.widens("real", ColumnEvolution.normalized("float8")));
    assertFalse(ColumnEvolution.widens("bigint", "integer"), "never narrowed");
    assertFalse(ColumnEvolution.widens("character varying(20)", "character varying(10)"));
    assertFalse(ColumnEvolution.widens("numeric(10,2)", "numeric(10,3)"), "a digit before the point lost");
    assertFalse(ColumnEvolution.widens("integer", "text"), "not across families");
    assertFalse(ColumnEvolution.widens("text", "character varying(20)"));
  }

  @Test
  void mariaDbTypesWidenWithinAFamilyOnly() {
    assertEquals("int", ColumnEvolution.binlogNormalized("int(11)"));
    assertEquals("int unsigned", ColumnEvolution.binlogNormalized("INT(10) UNSIGNED"));
    assertEquals("decimal(12,2)", ColumnEvolution.binlogNormalized("numeric(12, 2)"));
    assertTrue(ColumnEvolution.binlogWidens("int", ColumnEvolution.binlogNormalized("bigint(20)")));
    assertTrue(ColumnEvolution.binlogWidens("int unsigned", "bigint"), "unsigned into a wider signed");
    assertTrue(ColumnEvolution.binlogWidens("smallint unsigned", "int unsigned"));
    assertTrue(ColumnEvolution.binlogWidens("varchar(20)", "varchar(30)"));
    assertTrue(ColumnEvolution.binlogWidens("varchar(20)", "longtext"));
    assertTrue(ColumnEvolution.binlogWidens("varchar(20)", "text"));
    assertTrue(ColumnEvolution.binlogWidens("text", "mediumtext"));
    assertTrue(ColumnEvolution.binlogWidens("decimal(10,2)", "decimal(12,2)"));
    assertTrue(ColumnEvolution.binlogWidens("float", "double"));
    assertFalse(ColumnEvolution.binlogWidens("int unsigned", "int"), "4294967295 does not fit");
    assertFalse(ColumnEvolution.binlogWidens("int", "bigint unsigned"), "a negative value would not fit");
    assertFalse(ColumnEvolution.binlogWidens("bigint", "int"), "never narrowed");
    assertFalse(ColumnEvolution.binlogWidens("varchar(100)", "tinytext"), "255 bytes, not 400");
    assertFalse(ColumnEvolution.binlogWidens("longtext", "text"));
    assertFalse(ColumnEvolution.binlogWidens("decimal(10,2)", "decimal(10,3)"), "a digit before the point lost");
    assertFalse(ColumnEvolution.binlogWidens("int", "longtext"), "not across families");
  }

  private static Map<String, String> columns(String table) throws SQLException {
    Map<String, String> out = new TreeMap<>();
    try (Connection c = DriverManager.getConnection(url, TestPostgres.USER, TestPostgres.PASSWORD);
        Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT attname, format_type(atttypid,"
            + " atttypmod) || CASE WHEN attnotnull THEN ' NOT NULL' ELSE '' END FROM pg_attribute WHERE attrelid = '"
            + table + "'::regclass AND attnum > 0 AND NOT attisdropped")) {
      while (rs.next()) {
        out.put(rs.getString(1), rs.getString(2));
      }
    }
    return out;
  }

  private static String rows(String table) throws SQLException {
    StringBuilder out = new StringBuilder();
    try (Connection c = DriverManager.getConnection(url, TestPostgres.USER, TestPostgres.PASSWORD);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT id, qty, note, legacy FROM " + table + " ORDER BY id")) {
      while (rs.next()) {
        out.append(out.length() == 0 ? "" : "|").append(rs.getInt(1)).append(' ').append(rs.getLong(2)).append(' ')
            .append(rs.getString(3)).append(' ').append(rs.getString(4));
      }
    }
    return out.toString();
  }
}
