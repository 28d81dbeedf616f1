package io.sluice.connect.preflight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class BinlogColumnCheckTest {
  @Test
  void membersAreReadAsInformationSchemaQuotesThem() {
    assertEquals(List.of("a,b", "it's", "c\\d", "", "e)"),
        BinlogColumnCheck.members("enum('a,b','it''s','c\\\\d','','e)')"));
    assertEquals(List.of("x", "y z"), BinlogColumnCheck.members("set('x','y z')"));
    assertEquals(List.of(), BinlogColumnCheck.members("varchar(10)"));
  }

  @Test
  void anEnumWithACommaInAMemberIsNamedWithWhatToDo() {
    var column = new BinlogColumnCheck.Column("shop", "orders", "mood", "enum", "enum('ok','so, so','happy')");
    String message = BinlogColumnCheck.commaMember(column).orElseThrow().message();
    assertTrue(message.startsWith("Column mood of table shop.orders (enum('ok','so, so','happy')) is not carried"),
        message);
    assertTrue(message.contains("the member 'so, so' reads as 'so' and ' so'"), message);
    assertTrue(message.contains("ALTER TABLE shop.orders ADD COLUMN mood_text varchar(6) AS (mood) STORED"), message);
    assertTrue(message.contains("shop\\.orders\\.mood to column.exclude.list"), message);
    assertTrue(message.contains("sluice.columns.accept.loss"), message);
    assertTrue(BinlogColumnCheck.commaMember(new BinlogColumnCheck.Column("shop", "orders", "ok", "enum",
        "enum('a','b')")).isEmpty());
    assertTrue(BinlogColumnCheck.commaMember(new BinlogColumnCheck.Column("shop", "orders", "note", "varchar",
        "varchar(10)")).isEmpty());
  }
}
