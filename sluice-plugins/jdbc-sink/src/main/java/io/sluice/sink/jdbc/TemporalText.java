package io.sluice.sink.jdbc;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * Dates, date-times and times of day in the text {@link CopyText} sends, written digit by digit: the same text as the
 * patterns below give, at a fraction of a {@code DateTimeFormatter}'s cost, which every temporal value of a COPY put
 * paid. Years 1–9999 and whole microseconds only, which is all {@link CopyText} writes (it checks both first).
 */
final class TemporalText {
  /** {@code uuuu-MM-dd}. */
  static final DateTimeFormatter DATE = DateTimeFormatter.ofPattern("uuuu-MM-dd", Locale.ROOT);
  /** {@code uuuu-MM-dd HH:mm:ss.SSSSSS}. */
  static final DateTimeFormatter LOCAL = DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSSSSS", Locale.ROOT);
  /** {@code uuuu-MM-dd HH:mm:ss.SSSSSSxxx}: the offset's hours and minutes, its seconds left out. */
  static final DateTimeFormatter ZONED = DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSSSSSxxx", Locale.ROOT);
  /** {@code HH:mm:ss.SSSSSSxxxxx}: the offset's seconds written where there are any. */
  static final DateTimeFormatter OFFSET_TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSSSSSxxxxx", Locale.ROOT);

  private TemporalText() {}

  /** {@code d} as {@link #DATE} writes it. */
  static String date(LocalDate d) {
    return date(new StringBuilder(10), d).toString();
  }

  /** {@code t} as {@link #LOCAL} writes it. */
  static String local(LocalDateTime t) {
    StringBuilder out = new StringBuilder(26);
    time(date(out, t.toLocalDate()).append(' '), t.toLocalTime());
    return out.toString();
  }

  /** {@code t}, whose offset is of whole minutes, as {@link #ZONED} writes it. */
  static String zoned(OffsetDateTime t) {
    StringBuilder out = new StringBuilder(32);
    time(date(out, t.toLocalDate()).append(' '), t.toLocalTime());
    return offset(out, t.getOffset()).toString();
  }

  /** {@code t} as {@link #OFFSET_TIME} writes it. */
  static String offsetTime(OffsetTime t) {
    StringBuilder out = new StringBuilder(24);
    time(out, t.toLocalTime());
    offset(out, t.getOffset());
    int seconds = Math.abs(t.getOffset().getTotalSeconds()) % 60;
    if (seconds != 0) {
      digits(out.append(':'), seconds, 2);
    }
    return out.toString();
  }

  private static StringBuilder date(StringBuilder out, LocalDate d) {
    digits(out, d.getYear(), 4);
    digits(out.append('-'), d.getMonthValue(), 2);
    return digits(out.append('-'), d.getDayOfMonth(), 2);
  }

  private static StringBuilder time(StringBuilder out, LocalTime t) {
    digits(out, t.getHour(), 2);
    digits(out.append(':'), t.getMinute(), 2);
    digits(out.append(':'), t.getSecond(), 2);
    return digits(out.append('.'), t.getNano() / 1000, 6);
  }

  /** {@code +HH:MM} of the offset, its seconds left out. */
  private static StringBuilder offset(StringBuilder out, ZoneOffset offset) {
    int total = offset.getTotalSeconds();
    int abs = Math.abs(total);
    out.append(total < 0 ? '-' : '+');
    digits(out, abs / 3600, 2);
    return digits(out.append(':'), abs / 60 % 60, 2);
  }

  /** {@code n}, not negative, with leading zeros to {@code width} digits. */
  private static StringBuilder digits(StringBuilder out, int n, int width) {
    for (int unit = pow10(width - 1); unit > 0; unit /= 10) {
      out.append((char) ('0' + n / unit % 10));
    }
    return out;
  }

  private static int pow10(int exponent) {
    int out = 1;
    for (int i = 0; i < exponent; i++) {
      out *= 10;
    }
    return out;
  }
}
