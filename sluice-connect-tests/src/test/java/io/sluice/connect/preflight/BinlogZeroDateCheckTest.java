package io.sluice.connect.preflight;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.source.Engine;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class BinlogZeroDateCheckTest {
  @Test
  void aServerRefusesZeroDatesOnlyWithBothModesInAStrictOne() {
    assertTrue(BinlogZeroDateCheck.allowsZeroDates(
        "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION"),
        "MariaDB's default");
    assertTrue(BinlogZeroDateCheck.allowsZeroDates(""));
    assertTrue(BinlogZeroDateCheck.allowsZeroDates(null));
    assertTrue(BinlogZeroDateCheck.allowsZeroDates("NO_ZERO_DATE,NO_ZERO_IN_DATE"), "without strict mode: a warning");
    assertTrue(BinlogZeroDateCheck.allowsZeroDates("STRICT_TRANS_TABLES,NO_ZERO_DATE"), "a zero month still goes in");
    assertFalse(BinlogZeroDateCheck.allowsZeroDates("ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,"
        + "NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"), "MySQL 8's default");
    assertFalse(BinlogZeroDateCheck.allowsZeroDates("strict_all_tables,no_zero_date,no_zero_in_date"));
  }

  @Test
  void aLongListIsNamedInPartAndCounted() {
    List<String> columns = IntStream.range(0, 13).mapToObj(i -> "shop.t.c" + i + " (date)").toList();
    String message = BinlogZeroDateCheck.message(Engine.MARIADB, "", columns);
    assertTrue(message.contains("shop.t.c9 (date) and 3 more"), message);
    assertFalse(message.contains("c10"), message);
    assertTrue(message.contains("sql_mode (empty)"), message);
  }
}
