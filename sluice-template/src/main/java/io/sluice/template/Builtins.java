package io.sluice.template;

import io.sluice.template.Template.TemplateException;
import io.sluice.template.Template.TemplateFunction;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Go's predefined template functions (text/template's builtins). */
public final class Builtins {
  private Builtins() {}

  /** Every builtin by name; {@link Template#parse} adds them to the caller's functions. */
  public static final Map<String, TemplateFunction> ALL;

  static {
    Map<String, TemplateFunction> all = new HashMap<>();
    all.put("and", a -> {
      for (Object o : a) {
        if (!Template.truth(o)) {
          return o;
        }
      }
      return a.get(a.size() - 1);
    });
    all.put("or", a -> {
      for (Object o : a) {
        if (Template.truth(o)) {
          return o;
        }
      }
      return a.get(a.size() - 1);
    });
    all.put("not", a -> !Template.truth(one(a)));
    all.put("len", a -> {
      Object o = one(a);
      if (o instanceof String s) {
        return (long) s.getBytes(StandardCharsets.UTF_8).length;
      }
      if (o instanceof Map<?, ?> m) {
        return (long) m.size();
      }
      if (o instanceof List<?> l) {
        return (long) l.size();
      }
      throw new TemplateException("len of type " + GoFormat.typeName(o));
    });
    all.put("index", a -> {
      Object v = a.get(0);
      for (int i = 1; i < a.size(); i++) {
        Object k = a.get(i);
        if (v instanceof Map<?, ?> m) {
          v = m.containsKey(k) ? m.get(k) : (m.isEmpty() || m.values().iterator().next() instanceof String ? "" : null);
        } else if (v instanceof List<?> l && k instanceof Long n) {
          if (n < 0 || n >= l.size()) {
            throw new TemplateException("index out of range: " + n);
          }
          v = l.get(n.intValue());
        } else {
          throw new TemplateException("can't index item of type " + GoFormat.typeName(v));
        }
      }
      return v;
    });
    all.put("print", a -> {
      // fmt.Sprint: a space between operands when neither is a string.
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < a.size(); i++) {
        if (i > 0 && !(a.get(i) instanceof String) && !(a.get(i - 1) instanceof String)) {
          sb.append(' ');
        }
        sb.append(GoFormat.print(a.get(i)));
      }
      return sb.toString();
    });
    all.put("println", a -> {
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < a.size(); i++) {
        if (i > 0) {
          sb.append(' ');
        }
        sb.append(GoFormat.print(a.get(i)));
      }
      return sb.append('\n').toString();
    });
    all.put("printf", a -> GoFormat.sprintf(string(a.get(0)), a.subList(1, a.size())));
    all.put("eq", a -> {
      for (int i = 1; i < a.size(); i++) {
        if (compare(a.get(0), a.get(i)) == 0) {
          return true;
        }
      }
      return false;
    });
    all.put("ne", a -> compare(a.get(0), a.get(1)) != 0);
    all.put("lt", a -> compare(a.get(0), a.get(1)) < 0);
    all.put("le", a -> compare(a.get(0), a.get(1)) <= 0);
    all.put("gt", a -> compare(a.get(0), a.get(1)) > 0);
    all.put("ge", a -> compare(a.get(0), a.get(1)) >= 0);
    all.put("urlquery", a -> URLEncoder.encode(concat(a), StandardCharsets.UTF_8));
    all.put("html", a -> concat(a).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        .replace("\"", "&#34;").replace("'", "&#39;"));
    all.put("js", a -> concat(a).replace("\\", "\\\\").replace("'", "\\'").replace("\"", "\\\"")
        .replace("<", "\\u003C").replace(">", "\\u003E"));
    ALL = Map.copyOf(all);
  }

  private static Object one(List<Object> a) {
    if (a.size() != 1) {
      throw new TemplateException("wrong number of args: want 1 got " + a.size());
    }
    return a.get(0);
  }

  /** The argument as a string, or Go's error for a function that takes a string. */
  public static String string(Object o) {
    if (o instanceof String s) {
      return s;
    }
    throw new TemplateException("wrong type for value; expected string; got " + GoFormat.typeName(o));
  }

  private static String concat(List<Object> a) {
    StringBuilder sb = new StringBuilder();
    for (Object o : a) {
      sb.append(GoFormat.print(o));
    }
    return sb.toString();
  }

  private static int compare(Object x, Object y) {
    if (x instanceof Number a && y instanceof Number b) {
      return Double.compare(a.doubleValue(), b.doubleValue());
    }
    if (x instanceof String a && y instanceof String b) {
      return a.compareTo(b);
    }
    if (x instanceof Boolean a && y instanceof Boolean b) {
      return a.equals(b) ? 0 : 1;
    }
    if (x == Template.NO_VALUE || y == Template.NO_VALUE || x == null || y == null) {
      if (x == y) {
        return 0;
      }
      throw new TemplateException("invalid type for comparison");
    }
    throw new TemplateException("incompatible types for comparison");
  }
}
