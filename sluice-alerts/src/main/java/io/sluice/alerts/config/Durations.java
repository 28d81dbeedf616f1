package io.sluice.alerts.config;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Prometheus duration strings ({@code 1h30m}, {@code 10s}, {@code 1d}, {@code 0}) both ways. */
public final class Durations {
  private static final Pattern P = Pattern.compile(
      "^(?:(\\d+)y)?(?:(\\d+)w)?(?:(\\d+)d)?(?:(\\d+)h)?(?:(\\d+)m)?(?:(\\d+)s)?(?:(\\d+)ms)?$");
  private static final long[] UNIT_MS = {
      365L * 24 * 3600 * 1000, 7L * 24 * 3600 * 1000, 24L * 3600 * 1000, 3600_000L, 60_000L, 1000L, 1L};

  private Durations() {}

  public static Duration parse(String s) {
    if (s == null || s.isEmpty()) {
      throw new IllegalArgumentException("empty duration string");
    }
    if (s.equals("0")) {
      return Duration.ZERO;
    }
    Matcher m = P.matcher(s);
    if (!m.matches()) {
      throw new IllegalArgumentException("not a valid duration string: \"" + s + "\"");
    }
    long ms = 0;
    for (int i = 0; i < UNIT_MS.length; i++) {
      String g = m.group(i + 1);
      if (g != null) {
        ms += Long.parseLong(g) * UNIT_MS[i];
      }
    }
    return Duration.ofMillis(ms);
  }

  public static String format(Duration d) {
    long ms = d.toMillis();
    if (ms == 0) {
      return "0s";
    }
    StringBuilder b = new StringBuilder();
    String[] names = {"y", "w", "d", "h", "m", "s", "ms"};
    for (int i = 0; i < UNIT_MS.length; i++) {
      long q = ms / UNIT_MS[i];
      if (q > 0) {
        b.append(q).append(names[i]);
        ms -= q * UNIT_MS[i];
      }
    }
    return b.toString();
  }
}
