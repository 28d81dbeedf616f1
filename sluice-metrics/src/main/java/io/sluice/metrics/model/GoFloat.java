package io.sluice.metrics.model;

import java.math.BigDecimal;

/** Sample values as Prometheus prints them: Go's {@code strconv.FormatFloat(v, 'f', -1, 64)}. */
public final class GoFloat {
  private GoFloat() {}

  /** The shortest decimal that reads back as {@code v}; {@code NaN}, {@code +Inf}, {@code -Inf}, {@code -0} as Go. */
  public static String format(double v) {
    if (Double.isNaN(v)) {
      return "NaN";
    }
    if (Double.isInfinite(v)) {
      return v > 0 ? "+Inf" : "-Inf";
    }
    if (v == 0) {
      return (1 / v) < 0 ? "-0" : "0";
    }
    if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      return Long.toString((long) v);
    }
    return new BigDecimal(Double.toString(v)).stripTrailingZeros().toPlainString();
  }
}
