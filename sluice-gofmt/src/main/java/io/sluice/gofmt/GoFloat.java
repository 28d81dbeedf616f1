package io.sluice.gofmt;

import com.fasterxml.jackson.core.io.NumberOutput;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * A float64 printed as Go prints it, so that Sluice's APIs, pages and templates show the very string Prometheus and
 * Alertmanager show: {@code strconv.FormatFloat} with the shortest precision ({@code 'f'} for sample values,
 * {@code 'e'} for alert values) and {@code fmt}'s {@code %g}, {@code %e} and {@code %.Nf} (rounding the exact binary
 * value half to even, as Go does, not half up as {@link java.util.Formatter} does). NaN, {@code +Inf}, {@code -Inf} and
 * {@code -0} are written as Go writes them.
 */
public final class GoFloat {
  private GoFloat() {}

  /** {@code strconv.FormatFloat(v, 'f', -1, 64)}: the shortest decimal that reads back as {@code v}, no exponent. */
  public static String format(double v) {
    if (Double.isNaN(v) || Double.isInfinite(v) || v == 0) {
      return special(v);
    }
    Digits d = Digits.shortest(v);
    return d.sign() + fixed(d, Math.max(d.digits.length() - d.point, 0));
  }

  /** {@code strconv.FormatFloat(v, 'e', -1, 64)}: the shortest mantissa, as Prometheus' API prints alert values. */
  public static String formatE(double v) {
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      return special(v);
    }
    if (v == 0) {
      return (1 / v < 0 ? "-" : "") + "0e+00";
    }
    Digits d = Digits.shortest(v);
    return d.sign() + exponent(d, d.digits.length() - 1);
  }

  /** Go's {@code %g} with a precision ({@code -1}: the shortest representation, as {@code %v}). */
  public static String g(double v, int prec) {
    if (Double.isNaN(v) || Double.isInfinite(v) || v == 0) {
      return special(v);
    }
    boolean shortest = prec < 0;
    Digits d = shortest ? Digits.shortest(v) : Digits.rounded(v, prec == 0 ? 1 : prec);
    int p = shortest ? d.digits.length() : (prec == 0 ? 1 : prec);
    int eprec = shortest ? 6 : p;
    int exp = d.point - 1;
    if (exp < -4 || exp >= eprec) {
      return d.sign() + exponent(d, Math.min(p, d.digits.length()) - 1);
    }
    int fracDigits = Math.max((p > d.point ? d.digits.length() : p) - d.point, 0);
    return d.sign() + fixed(d, fracDigits);
  }

  /**
   * {@code strconv.ParseFloat(s, 64)}: decimal and hexadecimal (with a {@code p} exponent) floating-point literals of
   * Go's syntax, underscores only between digits, and {@code inf}, {@code infinity} and {@code nan} in any case (a
   * sign only before the infinities). Refused, as Go refuses them: anything else, such as surrounding spaces, and
   * values beyond float64's range.
   */
  public static double parse(String s) {
    String x = s;
    boolean negative = false;
    if (!x.isEmpty() && (x.charAt(0) == '+' || x.charAt(0) == '-')) {
      negative = x.charAt(0) == '-';
      x = x.substring(1);
    }
    String lower = x.toLowerCase(Locale.ROOT);
    if (lower.equals("inf") || lower.equals("infinity")) {
      return negative ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
    }
    if (lower.equals("nan") && x.length() == s.length()) {
      return Double.NaN;
    }
    if (!DECIMAL.matcher(x).matches() && !HEX.matcher(x).matches() || !underscoresOk(lower)) {
      throw new NumberFormatException("invalid syntax: " + s);
    }
    double v = Double.parseDouble(x.replace("_", ""));
    if (Double.isInfinite(v)) {
      throw new NumberFormatException("value out of range: " + s);
    }
    return negative ? -v : v;
  }

  private static final Pattern DECIMAL =
      Pattern.compile("([0-9_]+\\.?[0-9_]*|\\.[0-9_]+)([eE][+-]?[0-9_]+)?");
  private static final Pattern HEX =
      Pattern.compile("0[xX]([0-9a-fA-F_]+\\.?[0-9a-fA-F_]*|\\.[0-9a-fA-F_]+)[pP][+-]?[0-9_]+");

  /** Go's rule: an underscore only between two digits, or between a base prefix and a digit. */
  private static boolean underscoresOk(String s) {
    char saw = '^';
    int i = 0;
    boolean hex = s.startsWith("0x");
    if (hex) {
      i = 2;
      saw = '0';
    }
    for (; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c >= '0' && c <= '9' || hex && c >= 'a' && c <= 'f') {
        saw = '0';
      } else if (c == '_') {
        if (saw != '0') {
          return false;
        }
        saw = '_';
      } else {
        if (saw == '_') {
          return false;
        }
        saw = '!';
      }
    }
    return saw != '_';
  }

  /** Go's {@code %.Nf}: the exact binary value rounded half to even. */
  public static String f(double v, int prec) {
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      return special(v);
    }
    String s = new BigDecimal(v).setScale(prec, RoundingMode.HALF_EVEN).abs().toPlainString();
    return (v < 0 || (v == 0 && 1 / v < 0) ? "-" : "") + s;
  }

  /** Go's {@code %.Ne}. */
  public static String e(double v, int prec) {
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      return special(v);
    }
    if (v == 0) {
      return (1 / v < 0 ? "-" : "") + "0" + (prec > 0 ? "." + "0".repeat(prec) : "") + "e+00";
    }
    Digits d = Digits.rounded(v, prec + 1);
    return d.sign() + exponent(d, prec);
  }

  private static String special(double v) {
    return Double.isNaN(v) ? "NaN" : Double.isInfinite(v) ? (v > 0 ? "+Inf" : "-Inf") : 1 / v < 0 ? "-0" : "0";
  }

  private static String exponent(Digits d, int frac) {
    StringBuilder sb = new StringBuilder().append(d.digits.charAt(0));
    if (frac > 0) {
      sb.append('.');
      for (int i = 1; i <= frac; i++) {
        sb.append(i < d.digits.length() ? d.digits.charAt(i) : '0');
      }
    }
    int exp = d.point - 1;
    sb.append('e').append(exp < 0 ? '-' : '+');
    int a = Math.abs(exp);
    if (a < 10) {
      sb.append('0');
    }
    return sb.append(a).toString();
  }

  private static String fixed(Digits d, int frac) {
    StringBuilder sb = new StringBuilder();
    if (d.point > 0) {
      for (int i = 0; i < d.point; i++) {
        sb.append(i < d.digits.length() ? d.digits.charAt(i) : '0');
      }
    } else {
      sb.append('0');
    }
    if (frac > 0) {
      sb.append('.');
      for (int i = 0; i < frac; i++) {
        int at = d.point + i;
        sb.append(at >= 0 && at < d.digits.length() ? d.digits.charAt(at) : '0');
      }
    }
    return sb.toString();
  }

  /** A decimal 0.{@code digits} × 10^{@code point}, without trailing zeros. */
  private record Digits(boolean negative, String digits, int point) {
    String sign() {
      return negative ? "-" : "";
    }

    /**
     * The fewest significant digits that read back as {@code v}, and of those the nearest to {@code v}, as Go picks
     * them. Java 17's {@link Double#toString} now and then writes a digit more than needed or not the nearest decimal
     * of its length; Jackson's Schubfach (what Java 19 made {@code Double.toString}) does neither, but, as Java 19, keeps
     * two digits where one would do (4.9E-324, where Go writes 5e-324).
     */
    static Digits shortest(double v) {
      double a = Math.abs(v);
      BigDecimal t = new BigDecimal(NumberOutput.toString(a, true)).stripTrailingZeros();
      // Only a subnormal's gap is wide enough to take in a one-digit decimal that is not its nearest of two digits.
      if (t.precision() == 2 && a < Double.MIN_NORMAL) {
        BigDecimal lo = t.round(new MathContext(1, RoundingMode.FLOOR));
        BigDecimal hi = t.round(new MathContext(1, RoundingMode.CEILING));
        BigDecimal one = nearer(a, lo.doubleValue() == a ? lo : null, hi.doubleValue() == a ? hi : null);
        if (one != null) {
          t = one.stripTrailingZeros();
        }
      }
      return of(v < 0, t);
    }

    /** Of two decimals (either may be null), the one nearer the exact value of {@code a}. */
    private static BigDecimal nearer(double a, BigDecimal x, BigDecimal y) {
      if (x == null || y == null) {
        return x == null ? y : x;
      }
      BigDecimal exact = new BigDecimal(a);
      return exact.subtract(y).abs().compareTo(exact.subtract(x).abs()) < 0 ? y : x;
    }

    static Digits rounded(double v, int significant) {
      return of(v < 0, new BigDecimal(Math.abs(v)).round(new MathContext(significant, RoundingMode.HALF_EVEN)));
    }

    private static Digits of(boolean negative, BigDecimal b) {
      b = b.stripTrailingZeros();
      String digits = b.unscaledValue().toString();
      return new Digits(negative, digits, digits.length() - b.scale());
    }
  }
}
