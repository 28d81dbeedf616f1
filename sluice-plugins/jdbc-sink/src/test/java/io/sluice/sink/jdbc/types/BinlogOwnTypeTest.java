package io.sluice.sink.jdbc.types;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.OptionalInt;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.junit.jupiter.api.Test;

/**
 * The MariaDB or MySQL type a table the sink makes gets for a binlog source's column, from the parameters Debezium's
 * binlog sources put on its schema (as their DDL parser reads {@code SHOW CREATE TABLE}), against PostgreSQL's
 * parameters for a type of the same name.
 */
class BinlogOwnTypeTest {
  private static Schema column(SchemaBuilder b, String type, Integer length, Integer scale) {
    b.parameter(SourceColumn.TYPE, type);
    if (length != null) {
      b.parameter(SourceColumn.LENGTH, length.toString());
    }
    if (scale != null) {
      b.parameter(SourceColumn.SCALE, scale.toString());
    }
    return b.optional().build();
  }

  @Test
  void anUnsignedIntegerKeepsItsWidthAndAttributes() {
    assertEquals("tinyint(3) unsigned", BinlogOwnType.ownType(column(SchemaBuilder.int16(), "TINYINT UNSIGNED", 3,
        null), false));
    assertEquals("int unsigned", BinlogOwnType.ownType(column(SchemaBuilder.int64(), "INT UNSIGNED", null, null),
        false));
    assertEquals("mediumint(8) unsigned zerofill", BinlogOwnType.ownType(column(SchemaBuilder.int32(),
        "MEDIUMINT UNSIGNED ZEROFILL", 8, null), true));
  }

  @Test
  void bitsBytesAndTextsKeepTheirTypeWhereTheValueIsInDebeziumsDefaultForm() {
    assertEquals("bit(1)", BinlogOwnType.ownType(column(SchemaBuilder.bool(), "BIT", 1, null), false));
    assertEquals("binary(4)", BinlogOwnType.ownType(column(SchemaBuilder.bytes(), "BINARY", 4, null), false));
    assertNull(BinlogOwnType.ownType(column(SchemaBuilder.string(), "BINARY", 4, null), false),
        "binary.handling.mode=base64: the string's own column");
    assertEquals("text", BinlogOwnType.ownType(column(SchemaBuilder.string(), "TEXT", null, null), false));
    assertEquals("mediumtext", BinlogOwnType.ownType(column(SchemaBuilder.string(), "MEDIUMTEXT", null, null), false));
    assertNull(BinlogOwnType.ownType(column(SchemaBuilder.string(), "TEXT", null, null), true), "a key needs a length");
  }

  @Test
  void postgresqlsTextAndTimeAreNotTakenForMariaDbs() {
    Schema postgresText = column(SchemaBuilder.string(), "TEXT", Integer.MAX_VALUE, 0);
    assertNull(BinlogOwnType.ownType(postgresText, false), "PostgreSQL's text may hold more than MariaDB's");
    assertFalse(SourceColumn.binlogTime(column(SchemaBuilder.int64(), "TIME", 15, 6)));
    assertFalse(SourceColumn.binlogTime(column(SchemaBuilder.int64(), "TIME", 8, 0)));
    assertTrue(SourceColumn.binlogTime(column(SchemaBuilder.int64(), "TIME", null, null)));
    assertTrue(SourceColumn.binlogTime(column(SchemaBuilder.int64(), "TIME", 6, null)));
  }

  @Test
  void theDeclaredFractionIsTheScaleElseTheLengthElseNone() {
    assertEquals(OptionalInt.of(0), SourceColumn.fractionDigits(column(SchemaBuilder.int64(), "DATETIME", null,
        null)));
    assertEquals(OptionalInt.of(3), SourceColumn.fractionDigits(column(SchemaBuilder.int64(), "DATETIME", 3, null)));
    assertEquals(OptionalInt.of(0), SourceColumn.fractionDigits(column(SchemaBuilder.int64(), "TIMESTAMP", 19, 0)));
    assertEquals(OptionalInt.empty(), SourceColumn.fractionDigits(SchemaBuilder.int64().build()),
        "no source type carried: nothing declared");
  }

  @Test
  void anEnumsValuesAreQuotedAsLiterals() {
    Schema mood = SchemaBuilder.string().name("io.debezium.data.Enum").parameter("allowed", "sad,it's,back\\slash")
        .build();
    assertEquals("enum('sad','it''s','back\\\\slash')", EnumTypeOfTarget.binlogEnum(mood));
  }
}
