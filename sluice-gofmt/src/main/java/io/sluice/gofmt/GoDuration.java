package io.sluice.gofmt;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Prometheus' duration strings ({@code model.Duration}): {@code 1h30m}, {@code 10s}, {@code 15d}, {@code 1y}, {@code 0},
 * units from largest to smallest, each at most once, as configuration files, PromQL range selectors, rule files and
 * the HTTP APIs of Prometheus and Alertmanager take them.
 */
public final class GoDuration {
  private static final Pattern FORM = Pattern.compile(
      "^(?:([0-9]+)y)?(?:([0-9]+)w)?(?:([0-9]+)d)?(?:([0-9]+)h)?(?:([0-9]+)m)?(?:([0-9]+)s)?(?:([0-9]+)ms)?$");
  private static final long[] UNIT_MS = {
      365L * 24 * 3600 * 1000, 7L * 24 * 3600 * 1000, 24L * 3600 * 1000, 3600_000L, 60_000L, 1000L, 1L};
  private static final String[] UNIT = {"y", "w", "d", "h", "m", "s", "ms"};

  private GoDuration() {}

  /**
   * Parses a duration, refusing what Prometheus refuses with its words ({@code empty duration string},
   * {@code not a valid duration string: "1m1h"}, {@code duration out of range}).
   */
  public static Duration parse(String s) {
    if (s == null || s.isEmpty()) {
      throw new IllegalArgumentException("empty duration string");
    }
    if (s.equals("0")) {
      // Allow 0 without a unit, as Prometheus does.
      return Duration.ZERO;
    }
    Matcher m = FORM.matcher(s);
    if (!m.matches()) {
      throw new IllegalArgumentException("not a valid duration string: \"" + s + "\"");
    }
    long ms = 0;
    try {
      for (int i = 0; i < UNIT_MS.length; i++) {
        String g = m.group(i + 1);
        if (g != null) {
          ms = Math.addExact(ms, Math.multiplyExact(Long.parseLong(g), UNIT_MS[i]));
        }
      }
      // Go's time.Duration counts nanoseconds in an int64.
      Math.multiplyExact(ms, 1_000_000L);
    } catch (ArithmeticException | NumberFormatException e) {
      throw new IllegalArgumentException("duration out of range");
    }
    return Duration.ofMillis(ms);
  }

  /** Milliseconds of {@link #parse}. */
  public static long parseMillis(String s) {
    return parse(s).toMillis();
  }

  /**
   * The duration as Prometheus prints it: {@code 0s}; years and weeks only when they divide what is left exactly
   * ({@code 90d}, not {@code 12w6d}); then days, hours, minutes, seconds, milliseconds.
   */
  public static String format(Duration d) {
    long ms = d.toMillis();
    if (ms == 0) {
      return "0s";
    }
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < UNIT_MS.length; i++) {
      boolean exact = i < 2;
      if (exact && ms % UNIT_MS[i] != 0) {
        continue;
      }
      long q = ms / UNIT_MS[i];
      if (q > 0) {
        b.append(q).append(UNIT[i]);
        ms -= q * UNIT_MS[i];
      }
    }
    return b.toString();
  }
}
