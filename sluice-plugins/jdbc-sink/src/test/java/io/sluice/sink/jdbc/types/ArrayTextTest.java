package io.sluice.sink.jdbc.types;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ArrayTextTest {
  @Test
  void anArrayIsWrittenInPostgresTextForm() {
    assertEquals("{1,NULL,-3}", ArrayText.text(Arrays.asList(1, null, -3)));
    assertEquals("{}", ArrayText.text(List.of()));
    assertEquals("{{1,2},{3,4}}", ArrayText.text(List.of(List.of(1, 2), List.of(3, 4))));
    assertEquals("{1.50,0.000001}", ArrayText.text(List.of(new BigDecimal("1.50"), new BigDecimal("1E-6"))));
  }

  @Test
  void anElementIsQuotedWhereTheTextFormNeedsIt() {
    assertEquals("{plain,\"\",\"NULL\",\"a b\",\"x,y\",\"{z}\",\"q\\\"uote\",\"back\\\\slash\",é😀}",
        ArrayText.text(List.of("plain", "", "NULL", "a b", "x,y", "{z}", "q\"uote", "back\\slash", "é😀")));
  }
}
