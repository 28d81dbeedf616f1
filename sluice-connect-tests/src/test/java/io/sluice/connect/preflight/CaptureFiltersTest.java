package io.sluice.connect.preflight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class CaptureFiltersTest {
  @Test
  void listsMatchWholeNamesCaseInsensitivelyAndBothLevelsApply() {
    CaptureFilters f = CaptureFilters.of(Map.of("schema.include.list", "app", "table.include.list",
        "app\\.orders,APP\\.line_.*", "column.exclude.list", "app\\.orders\\.secret"));
    assertTrue(f.capturesTable("app", "orders"));
    assertTrue(f.capturesTable("app", "line_items"));
    assertFalse(f.capturesTable("app", "orders_archive"), "a whole-name match, not a find");
    assertFalse(f.capturesTable("other", "orders"));
    assertFalse(f.capturesColumn("app", "orders", "SECRET"));
    assertTrue(f.capturesColumn("app", "orders", "secret_hint"));
    CaptureFilters excluding = CaptureFilters.of(Map.of("table.exclude.list", "public\\.audit"));
    assertFalse(excluding.capturesTable("public", "audit"));
    assertTrue(excluding.capturesTable("public", "orders"));
  }

  @Test
  void anEscapedCommaBelongsToItsExpression() {
    assertEquals(2, CaptureFilters.patterns("a\\.b{1\\,2}, c").size());
    assertTrue(CaptureFilters.patterns("a\\.b{1\\,2}").get(0).matcher("a.bb").matches());
  }

  @Test
  void aNameBecomesTheExpressionThatMatchesOnlyIt() {
    String regex = PostgresColumnCheck.regex("public.t$1.c");
    assertEquals("public\\.t\\$1\\.c", regex);
    assertTrue(CaptureFilters.patterns(regex).get(0).matcher("public.t$1.c").matches());
  }
}
