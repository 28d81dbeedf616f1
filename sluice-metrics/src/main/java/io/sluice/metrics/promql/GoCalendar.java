package io.sluice.metrics.promql;

/**
 * The UTC calendar of Go's {@code time} package, as Prometheus's date functions read it: {@code time.Unix(int64(v),
 * 0).UTC()}. Go counts seconds from an absolute year far in the past in unsigned 64-bit arithmetic, so values beyond
 * its range wrap instead of failing; Java's long arithmetic wraps the same way, and divisions here are unsigned.
 * A float that is NaN, infinite or out of int64's range converts to int64's minimum, as Go does on amd64.
 */
final class GoCalendar {
  private GoCalendar() {}

  private static final long SECONDS_PER_MINUTE = 60;
  private static final long SECONDS_PER_HOUR = 60 * SECONDS_PER_MINUTE;
  private static final long SECONDS_PER_DAY = 24 * SECONDS_PER_HOUR;
  private static final long SECONDS_PER_WEEK = 7 * SECONDS_PER_DAY;
  private static final long DAYS_PER_400_YEARS = 365 * 400 + 97;
  private static final long DAYS_PER_100_YEARS = 365 * 100 + 24;
  private static final long DAYS_PER_4_YEARS = 365 * 4 + 1;
  /** The year Go's absolute time starts at: 1 mod 400, and no more than 2^63 seconds before 1970. */
  private static final long ABSOLUTE_ZERO_YEAR = -292_277_022_399L;
  /** Seconds from the absolute zero year to 1970-01-01 (Go's unixToInternal + internalToAbsolute). */
  private static final long UNIX_TO_ABSOLUTE = 9_223_372_028_715_321_600L;
  private static final int[] DAYS_BEFORE = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365};

  /** Go's {@code int64(v)} on amd64: truncation, and int64's minimum for NaN, infinities and out-of-range values. */
  static long goInt64(double v) {
    if (Double.isNaN(v) || v >= 0x1p63 || v < -0x1p63) {
      return Long.MIN_VALUE;
    }
    return (long) v;
  }

  /** The absolute (unsigned) seconds of a Unix time. */
  static long abs(long unixSeconds) {
    return unixSeconds + UNIX_TO_ABSOLUTE;
  }

  static int hour(long abs) {
    return (int) (Long.remainderUnsigned(abs, SECONDS_PER_DAY) / SECONDS_PER_HOUR);
  }

  static int minute(long abs) {
    return (int) (Long.remainderUnsigned(abs, SECONDS_PER_HOUR) / SECONDS_PER_MINUTE);
  }

  /** Sunday is 0; the absolute zero year began on a Monday. */
  static int weekday(long abs) {
    long sec = Long.remainderUnsigned(abs + SECONDS_PER_DAY, SECONDS_PER_WEEK);
    return (int) (sec / SECONDS_PER_DAY);
  }

  /** {year, month (1-12), day of month (1-31), day of year (0-365)}. */
  static long[] date(long abs) {
    long d = Long.divideUnsigned(abs, SECONDS_PER_DAY);
    long n = d / DAYS_PER_400_YEARS;
    long y = 400 * n;
    d -= DAYS_PER_400_YEARS * n;
    // The last day of a 400-year cycle would count a fourth 100-year cycle; n >> 2 takes it back.
    n = d / DAYS_PER_100_YEARS;
    n -= n >> 2;
    y += 100 * n;
    d -= DAYS_PER_100_YEARS * n;
    n = d / DAYS_PER_4_YEARS;
    y += 4 * n;
    d -= DAYS_PER_4_YEARS * n;
    n = d / 365;
    n -= n >> 2;
    y += n;
    d -= 365 * n;
    long year = y + ABSOLUTE_ZERO_YEAR;
    int yday = (int) d;
    int day = yday;
    if (isLeap(year)) {
      if (day == 31 + 29 - 1) {
        return new long[] {year, 2, 29, yday};
      }
      if (day > 31 + 29 - 1) {
        day--;
      }
    }
    int month = day / 31;
    int end = DAYS_BEFORE[month + 1];
    int begin;
    if (day >= end) {
      month++;
      begin = end;
    } else {
      begin = DAYS_BEFORE[month];
    }
    return new long[] {year, month + 1, day - begin + 1, yday};
  }

  static boolean isLeap(long year) {
    return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
  }

  /** Absolute days from the absolute zero year to January 1 of {@code year}. */
  private static long daysSinceEpoch(long year) {
    long y = year - ABSOLUTE_ZERO_YEAR;
    long n = Long.divideUnsigned(y, 400);
    y -= 400 * n;
    long d = DAYS_PER_400_YEARS * n;
    n = y / 100;
    y -= 100 * n;
    d += DAYS_PER_100_YEARS * n;
    n = y / 4;
    y -= 4 * n;
    d += DAYS_PER_4_YEARS * n;
    d += 365 * y;
    return d;
  }

  /**
   * Prometheus's days_in_month: 32 minus the day of month of {@code time.Date(year, month, 32)}, which Go normalizes
   * into the next month.
   */
  static int daysInMonth(long abs) {
    long[] ymd = date(abs);
    long year = ymd[0];
    int month = (int) ymd[1];
    long d = daysSinceEpoch(year) + DAYS_BEFORE[month - 1];
    if (isLeap(year) && month >= 3) {
      d++;
    }
    d += 32 - 1;
    return (int) (32 - date(d * SECONDS_PER_DAY)[2]);
  }
}
