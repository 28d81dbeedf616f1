package io.sluice.template;

import io.sluice.gofmt.GoFloat;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Go's {@code fmt} formatting of the values templates print, so that an annotation expands to the very string
 * Prometheus produces: {@code %v} of a float64 ({@code 1e+06}), maps, slices, and {@code printf}'s verbs. Floats are
 * written by {@link GoFloat}.
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
      return GoFloat.g(d, -1);
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
          case 'e' -> GoFloat.e(d, prec < 0 ? 6 : prec);
          case 'g' -> GoFloat.g(d, prec);
          default -> GoFloat.f(d, prec < 0 ? 6 : prec);
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
