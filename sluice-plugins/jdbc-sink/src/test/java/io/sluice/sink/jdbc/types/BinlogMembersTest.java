package io.sluice.sink.jdbc.types;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.apache.kafka.connect.data.SchemaBuilder;
import org.junit.jupiter.api.Test;

/** A MariaDB or MySQL enum or set the sink makes lists the source's values as literals the database reads back. */
class BinlogMembersTest {
  @Test
  void quotesAndBackslashesInAMemberAreEscaped() {
    assertEquals("set('a','it''s','back\\\\slash','c d')", EnumTypeOfTarget.binlogMembers("set",
        SchemaBuilder.string().name(BinlogSetType.SCHEMA_NAME).parameter("allowed", "a,it's,back\\slash,c d").build()));
    assertEquals("enum('sad','quite happy')", EnumTypeOfTarget.binlogEnum(SchemaBuilder.string()
        .name("io.debezium.data.Enum").parameter("allowed", "sad,quite happy").build()));
    assertNull(EnumTypeOfTarget.binlogMembers("set", SchemaBuilder.string().build()), "none allowed: Debezium's own");
  }
}
