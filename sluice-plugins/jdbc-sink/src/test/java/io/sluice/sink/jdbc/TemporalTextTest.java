package io.sluice.sink.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The text written digit by digit is the formatter's, for every value {@link CopyText} writes. */
class TemporalTextTest {
  private static final long FIRST_DAY = LocalDate.of(1, 1, 1).toEpochDay();
  private static final long LAST_DAY = LocalDate.of(9999, 12, 31).toEpochDay();

  @Test
  void theTextIsTheFormattersText() {
    SplittableRandom random = new SplittableRandom(43);
    for (int i = 0; i < 200_000; i++) {
      LocalDate day = LocalDate.ofEpochDay(i % 10 == 0 ? (i % 20 == 0 ? FIRST_DAY : LAST_DAY)
          : random.nextLong(FIRST_DAY, LAST_DAY + 1));
      long nanoOfDay = switch (i % 5) {
        case 0 -> 0;
        case 1 -> 86_399_999_999_000L;
        default -> random.nextLong(0, 86_400_000_000L) * 1000; // whole microseconds, as CopyText writes
      };
      LocalDateTime t = day.atTime(java.time.LocalTime.ofNanoOfDay(nanoOfDay));
      ZoneOffset offset = ZoneOffset.ofTotalSeconds(switch (i % 7) {
        case 0 -> 0;
        case 1 -> -18 * 3600;
        case 2 -> 18 * 3600;
        case 3 -> random.nextInt(-18 * 3600, 18 * 3600 + 1); // with seconds, as some historic offsets have
        default -> random.nextInt(-18 * 4, 18 * 4 + 1) * 15 * 60;
      });
      assertEquals(TemporalText.DATE.format(day), TemporalText.date(day));
      assertEquals(TemporalText.LOCAL.format(t), TemporalText.local(t));
      if (offset.getTotalSeconds() % 60 == 0) { // CopyText leaves an offset with seconds to Debezium's path
        OffsetDateTime zoned = t.atOffset(offset);
        assertEquals(TemporalText.ZONED.format(zoned), TemporalText.zoned(zoned));
      }
      OffsetTime time = t.toLocalTime().atOffset(offset);
      assertEquals(TemporalText.OFFSET_TIME.format(time), TemporalText.offsetTime(time));
    }
  }

  @Test
  void appendFieldEscapesAsBefore() {
    for (String text : new String[] {"", "plain", "tab\there", "\\", "a\nb\rc\\d\te", "é😀\\x", "\n"}) {
      StringBuilder out = new StringBuilder("x");
      CopyText.appendField(out, text);
      StringBuilder expected = new StringBuilder("x");
      for (char c : text.toCharArray()) {
        expected.append(switch (c) {
          case '\\' -> "\\\\";
          case '\t' -> "\\t";
          case '\n' -> "\\n";
          case '\r' -> "\\r";
          default -> String.valueOf(c);
        });
      }
      assertEquals(expected.toString(), out.toString(), text);
    }
  }
}
