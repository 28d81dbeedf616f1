package io.sluice.metrics.rules.unittest;

import io.sluice.metrics.model.StaleNaN;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The values notation of Prometheus's test language and of promtool's {@code input_series}:
 * {@code 1 2 3}, {@code _} (no sample), {@code stale} (a staleness marker), {@code a+bxn} and {@code a-bxn}
 * ({@code n + 1} samples from {@code a} in steps of {@code b}), {@code axn} ({@code n + 1} times {@code a}) and
 * {@code _xn} ({@code n} missing samples).
 */
public final class SeriesNotation {
  private static final Pattern REPEAT = Pattern.compile("(.+)x(\\d+)");

  private SeriesNotation() {}

  /** One value per step; {@code null} where the step has no sample. */
  public static List<Double> expand(String values) {
    List<Double> out = new ArrayList<>();
    for (String tok : values.strip().split("\\s+")) {
      if (tok.isEmpty()) {
        continue;
      }
      if (tok.equals("_")) {
        out.add(null);
        continue;
      }
      if (tok.equals("stale")) {
        out.add(StaleNaN.VALUE);
        continue;
      }
      Matcher m = REPEAT.matcher(tok);
      // No hexadecimal numbers here: Prometheus reads 0x10 as 0 repeated, as this does.
      if (m.matches()) {
        String base = m.group(1);
        int n = Integer.parseInt(m.group(2));
        if (base.equals("_")) {
          for (int k = 0; k < n; k++) {
            out.add(null);
          }
          continue;
        }
        int op = operator(base);
        double start = number(op > 0 ? base.substring(0, op) : base);
        double step = op > 0 ? number(base.substring(op)) : 0;
        for (int k = 0; k <= n; k++) {
          out.add(start + k * step);
        }
        continue;
      }
      out.add(number(tok));
    }
    return out;
  }

  /** The sign that separates {@code a} from {@code b} in {@code a+b}: not the leading sign, not an exponent's. */
  private static int operator(String s) {
    for (int i = 1; i < s.length(); i++) {
      char c = s.charAt(i);
      char prev = s.charAt(i - 1);
      if ((c == '+' || c == '-') && prev != 'e' && prev != 'E') {
        return i;
      }
    }
    return -1;
  }

  static double number(String s) {
    String x = s.strip();
    switch (x.toLowerCase(Locale.ROOT)) {
      case "inf", "+inf":
        return Double.POSITIVE_INFINITY;
      case "-inf":
        return Double.NEGATIVE_INFINITY;
      case "nan":
        return Double.NaN;
      default:
        try {
          return Double.parseDouble(x);
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("invalid value \"" + s + "\" in series values");
        }
    }
  }
}
