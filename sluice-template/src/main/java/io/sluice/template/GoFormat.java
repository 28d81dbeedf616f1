package io.sluice.template;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Go's {@code fmt} formatting of the values templates print, so that an annotation expands to the very string
 * Prometheus produces: {@code %v} of a float64 ({@code 1e+06}), {@code %.4g} (humanize), {@code %.2f} (rounding the
 * exact binary value half to even, as Go does, not half up as {@link java.util.Formatter} does).
 */
public final class GoFormat {
  private GoFormat() {}

  /** {@code fmt.Sprint(value)} for the values templates handle. */
  public static String print(Object v) {
    if (v == null) {
      return "<nil>";
    }
    if (v instanceof Template.Stringer s) {
      return s.string();
    }
    if (v instanceof Double d) {
      return g(d, -1);
    }
    if (v instanceof Map<?, ?> m) {
      StringBuilder sb = new StringBuilder("map[");
      boolean first = true;
      for (Map.Entry<?, ?> e : new java.util.TreeMap<>(m).entrySet()) {
        if (!first) {
          sb.append(' ');
        }
        first = false;
        sb.append(print(e.getKey())).append(':').append(print(e.getValue()));
      }
      return sb.append(']').toString();
    }
    if (v instanceof List<?> l) {
      StringBuilder sb = new StringBuilder("[");
      for (int i = 0; i < l.size(); i++) {
        if (i > 0) {
          sb.append(' ');
        }
        sb.append(print(l.get(i)));
      }
      return sb.append(']').toString();
    }
    return v.toString();
  }

  /** Go's {@code %g} with a precision ({@code -1}: the shortest representation, as {@code %v}). */
  public static String g(double v, int prec) {
    if (Double.isNaN(v) || Double.isInfinite(v) || v == 0) {
      // NaN, +Inf, -Inf, 0, -0 print alike in every verb
      return Double.isNaN(v) ? "NaN" : Double.isInfinite(v) ? (v > 0 ? "+Inf" : "-Inf") : 1 / v < 0 ? "-0" : "0";
    }
    boolean shortest = prec < 0;
    Digits d = shortest ? Digits.shortest(v) : Digits.rounded(v, prec == 0 ? 1 : prec);
    int p = shortest ? d.digits.length() : (prec == 0 ? 1 : prec);
    int eprec = shortest ? 6 : p;
    int exp = d.point - 1;
    if (exp < -4 || exp >= eprec) {
      return d.sign() + e(d, Math.min(p, d.digits.length()) - 1);
    }
    int fracDigits = Math.max((p > d.point ? d.digits.length() : p) - d.point, 0);
    return d.sign() + f(d, fracDigits);
  }

  /** Go's {@code %.Nf}: the exact binary value rounded half to even. */
  public static String f(double v, int prec) {
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      return g(v, -1);
    }
    BigDecimal b = new BigDecimal(v).setScale(prec, RoundingMode.HALF_EVEN);
    String s = b.abs().toPlainString();
    return (v < 0 || (v == 0 && 1 / v < 0) ? "-" : "") + s;
  }

  /** Go's {@code %.Ne}. */
  public static String e(double v, int prec) {
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      return g(v, -1);
    }
    if (v == 0) {
      return (1 / v < 0 ? "-" : "") + "0" + (prec > 0 ? "." + "0".repeat(prec) : "") + "e+00";
    }
    Digits d = Digits.rounded(v, prec + 1);
    return d.sign() + e(d, prec);
  }

  private static String e(Digits d, int frac) {
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

  private static String f(Digits d, int frac) {
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

    static Digits shortest(double v) {
      return of(v < 0, new BigDecimal(Double.toString(Math.abs(v))));
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

  /** Go's {@code fmt.Sprintf} for the verbs templates use: %s %v %d %f %e %g %q %x %%, with width and precision. */
  public static String sprintf(String format, List<Object> args) {
    StringBuilder out = new StringBuilder();
    int argi = 0;
    int i = 0;
    while (i < format.length()) {
      char c = format.charAt(i);
      if (c != '%') {
        out.append(c);
        i++;
        continue;
      }
      i++;
      StringBuilder flags = new StringBuilder();
      while (i < format.length() && "+-# 0".indexOf(format.charAt(i)) >= 0) {
        flags.append(format.charAt(i++));
      }
      int width = -1;
      int ws = i;
      while (i < format.length() && Character.isDigit(format.charAt(i))) {
        i++;
      }
      if (i > ws) {
        width = Integer.parseInt(format.substring(ws, i));
      }
      int prec = -1;
      if (i < format.length() && format.charAt(i) == '.') {
        i++;
        int ps = i;
        while (i < format.length() && Character.isDigit(format.charAt(i))) {
          i++;
        }
        prec = i > ps ? Integer.parseInt(format.substring(ps, i)) : 0;
      }
      if (i >= format.length()) {
        out.append("%!(NOVERB)");
        break;
      }
      char verb = format.charAt(i++);
      if (verb == '%') {
        out.append('%');
        continue;
      }
      if (argi >= args.size()) {
        out.append("%!").append(verb).append("(MISSING)");
        continue;
      }
      Object arg = args.get(argi++);
      String s = formatOne(verb, prec, flags.toString(), arg);
      if (s == null) {
        s = "%!" + verb + "(" + typeName(arg) + "=" + print(arg) + ")";
      }
      if (width > s.length()) {
        String pad = (flags.indexOf("0") >= 0 && flags.indexOf("-") < 0 && !(arg instanceof String) ? "0" : " ")
            .repeat(width - s.length());
        if (flags.indexOf("-") >= 0) {
          s = s + pad;
        } else if (pad.startsWith("0") && (s.startsWith("-") || s.startsWith("+"))) {
          s = s.charAt(0) + pad + s.substring(1);
        } else {
          s = pad + s;
        }
      }
      out.append(s);
    }
    if (argi < args.size()) {
      out.append("%!(EXTRA ");
      for (int k = argi; k < args.size(); k++) {
        if (k > argi) {
          out.append(", ");
        }
        out.append(typeName(args.get(k))).append('=').append(print(args.get(k)));
      }
      out.append(')');
    }
    return out.toString();
  }

  private static String formatOne(char verb, int prec, String flags, Object arg) {
    boolean plus = flags.indexOf('+') >= 0;
    switch (verb) {
      case 'v':
        return arg instanceof Double d && plus && d >= 0 ? "+" + print(d) : print(arg);
      case 's':
        return arg instanceof String || arg instanceof Map || arg instanceof List ? clip(print(arg), prec)
            : null;
      case 'q':
        return arg instanceof String s ? quote(s) : null;
      case 'd':
        return arg instanceof Long l ? (plus && l >= 0 ? "+" : "") + l : null;
      case 'x':
        if (arg instanceof Long l) {
          return Long.toHexString(l);
        }
        if (arg instanceof String s) {
          StringBuilder sb = new StringBuilder();
          for (byte b : s.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
            sb.append(String.format(Locale.ROOT, "%02x", b));
          }
          return sb.toString();
        }
        return null;
      case 'f', 'F', 'e', 'g':
        double d;
        if (arg instanceof Double x) {
          d = x;
        } else {
          return null;
        }
        String s = switch (verb) {
          case 'e' -> e(d, prec < 0 ? 6 : prec);
          case 'g' -> g(d, prec);
          default -> f(d, prec < 0 ? 6 : prec);
        };
        return plus && d >= 0 && !Double.isNaN(d) ? "+" + s : s;
      default:
        return null;
    }
  }

  private static String clip(String s, int prec) {
    return prec >= 0 && prec < s.length() ? s.substring(0, prec) : s;
  }

  static String quote(String s) {
    StringBuilder sb = new StringBuilder("\"");
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\t' -> sb.append("\\t");
        case '\r' -> sb.append("\\r");
        default -> sb.append(c);
      }
    }
    return sb.append('"').toString();
  }

  public static String typeName(Object v) {
    if (v == null) {
      return "<nil>";
    }
    if (v instanceof Double) {
      return "float64";
    }
    if (v instanceof Long) {
      return "int";
    }
    if (v instanceof String) {
      return "string";
    }
    if (v instanceof Boolean) {
      return "bool";
    }
    return v.getClass().getSimpleName();
  }
}
