package io.sluice.sink.jdbc.types;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class FullDayTimeTypeTest {
  @Test
  void aTimeOutsideADayIsWrittenAsItsDuration() {
    assertEquals("-838:59:59", FullDayTimeType.duration(-838L * 3600 - 59 * 60 - 59, 1));
    assertEquals("-1:02:03.456789", FullDayTimeType.duration(-3_723_456_789L, 1_000_000L));
    assertEquals("12:34:56.789", FullDayTimeType.duration(45_296_789L, 1_000L));
    assertEquals("0:00:00", FullDayTimeType.duration(0, 1_000_000L));
    assertEquals("0:00:00.000005", FullDayTimeType.duration(5, 1_000_000L));
    assertEquals("0:00:00.000000001", FullDayTimeType.duration(1, 1_000_000_000L));
  }

  /** The text is the one {@code String.format} wrote before, for every unit and any value but the smallest long. */
  @Test
  void theTextIsTheFormattedOne() {
    SplittableRandom random = new SplittableRandom(40);
    for (long perSecond : new long[] {1, 1_000, 1_000_000, 1_000_000_000}) {
      for (int i = 0; i < 20_000; i++) {
        long value = switch (i % 4) {
          case 0 -> random.nextLong(-perSecond * 86_400 * 40, perSecond * 86_400 * 40);
          case 1 -> random.nextLong(-perSecond * 10, perSecond * 10);
          case 2 -> random.nextLong(Long.MIN_VALUE + 1, Long.MAX_VALUE);
          default -> (random.nextLong(-3_000_000, 3_000_000)) * perSecond + random.nextLong(0, 11);
        };
        assertEquals(formatted(value, perSecond), FullDayTimeType.duration(value, perSecond),
            value + " / " + perSecond);
      }
    }
  }

  private static String formatted(long value, long perSecond) {
    long abs = Math.abs(value);
    long seconds = abs / perSecond;
    long fraction = abs % perSecond;
    String text = String.format(Locale.ROOT, "%s%d:%02d:%02d", value < 0 ? "-" : "", seconds / 3600,
        seconds / 60 % 60, seconds % 60);
    if (fraction != 0) {
      int digits = String.valueOf(perSecond).length() - 1;
      text += "." + String.format(Locale.ROOT, "%0" + digits + "d", fraction);
    }
    return text;
  }
}
