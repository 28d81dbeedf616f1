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

  /** Go's {@code strconv.FormatFloat(v, 'e', -1, 64)}: the shortest mantissa, as Prometheus's API prints alert values. */
  public static String formatE(double v) {
    if (Double.isNaN(v)) {
      return "NaN";
    }
    if (Double.isInfinite(v)) {
      return v > 0 ? "+Inf" : "-Inf";
    }
    if (v == 0) {
      return (1 / v) < 0 ? "-0e+00" : "0e+00";
    }
    BigDecimal b = new BigDecimal(Double.toString(Math.abs(v))).stripTrailingZeros();
    String digits = b.unscaledValue().toString();
    int exp = digits.length() - b.scale() - 1;
    StringBuilder sb = new StringBuilder(v < 0 ? "-" : "").append(digits.charAt(0));
    if (digits.length() > 1) {
      sb.append('.').append(digits, 1, digits.length());
    }
    sb.append('e').append(exp < 0 ? '-' : '+');
    if (Math.abs(exp) < 10) {
      sb.append('0');
    }
    return sb.append(Math.abs(exp)).toString();
  }
}
