package io.sluice.metrics.template;

import io.sluice.metrics.promql.parser.Parser;
import io.sluice.template.Builtins;
import io.sluice.gofmt.GoFloat;
import io.sluice.template.GoFormat;
import io.sluice.template.Template;
import io.sluice.template.Template.TemplateException;
import io.sluice.template.Template.TemplateFunction;
import io.sluice.template.TextFunctions;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Prometheus's template expansion for alert labels and annotations: Go templates with {@code $labels},
 * {@code $externalLabels}, {@code $externalURL}, {@code $value} and Prometheus's functions ({@code humanize},
 * {@code humanizeDuration}, {@code humanizePercentage}, {@code query}, {@code first}, {@code label},
 * {@code value}, {@code reReplaceAll}, ...), printing exactly what Prometheus prints.
 */
public final class Expander {
  /** What Prometheus prepends to every alert template. */
  static final String ALERT_DEFS = "{{$labels := .Labels}}{{$externalLabels := .ExternalLabels}}"
      + "{{$externalURL := .ExternalURL}}{{$value := .Value}}";

  /** Runs a PromQL instant query at the alert's evaluation time; each sample as {@code {Labels, Value}}. */
  @FunctionalInterface
  public interface QueryFunction {
    List<Map<String, Object>> query(String expr);
  }

  /** Parsed alert templates by name and text: rules expand the same few texts at every evaluation. */
  private static final Map<String, Template> PARSED = Collections.synchronizedMap(
      new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Template> eldest) {
          return size() > 2_000;
        }
      });

  private final Map<String, TemplateFunction> functions;
  private final String externalUrl;

  private Expander(QueryFunction query, String externalUrl) {
    this.externalUrl = externalUrl;
    Map<String, TemplateFunction> all = new HashMap<>(Builtins.ALL);
    all.putAll(functions(query, externalUrl));
    this.functions = all;
  }

  public static Expander of(QueryFunction query, String externalUrl) {
    return new Expander(query, externalUrl);
  }

  /** Throws {@link TemplateException} when the alert template does not parse (checked when rules load). */
  public static void check(String name, String text) {
    Template.parse(name, ALERT_DEFS + text, functions(expr -> List.of(), ""));
  }

  /**
   * Expands one label or annotation template of an alert; on error the result is Prometheus's
   * {@code <error expanding template: ...>} text.
   */
  public String expandAlert(String name, String text, Map<String, String> labels, Map<String, String> externalLabels,
      double value) {
    Map<String, Object> data = new HashMap<>();
    data.put("Labels", labels);
    data.put("ExternalLabels", externalLabels);
    data.put("ExternalURL", externalUrl);
    data.put("Value", value);
    try {
      Template t = PARSED.get(name + "\0" + text);
      if (t == null) {
        t = Template.parse(name, ALERT_DEFS + text, functions);
        PARSED.put(name + "\0" + text, t);
      }
      return t.bind(functions).execute(data);
    } catch (TemplateException e) {
      return "<error expanding template: " + e.getMessage() + ">";
    }
  }

  private static Map<String, TemplateFunction> functions(QueryFunction query, String externalUrl) {
    Map<String, TemplateFunction> f = new HashMap<>();
    f.put("query", a -> query.query(Builtins.string(a.get(0))));
    f.put("first", a -> {
      List<?> l = (List<?>) a.get(0);
      if (l.isEmpty()) {
        throw new TemplateException("first() called on vector with no elements");
      }
      return l.get(0);
    });
    f.put("label", a -> {
      Object labels = sample(a.get(1)).get("Labels");
      Object v = labels instanceof Map<?, ?> m ? m.get(Builtins.string(a.get(0))) : null;
      return v == null ? "" : v;
    });
    f.put("value", a -> sample(a.get(0)).get("Value"));
    f.put("strvalue", a -> {
      Object labels = sample(a.get(0)).get("Labels");
      Object v = labels instanceof Map<?, ?> m ? m.get("__value__") : null;
      return v == null ? "" : v;
    });
    f.put("args", a -> {
      Map<String, Object> m = new LinkedHashMap<>();
      for (int i = 0; i < a.size(); i++) {
        m.put("arg" + i, a.get(i));
      }
      return m;
    });
    f.putAll(TextFunctions.ALL);
    f.put("humanize", a -> humanize(toFloat(a.get(0))));
    f.put("humanize1024", a -> humanize1024(toFloat(a.get(0))));
    f.put("humanizeDuration", a -> humanizeDuration(toFloat(a.get(0))));
    f.put("humanizePercentage", a -> GoFloat.g(toFloat(a.get(0)) * 100, 4) + "%");
    f.put("humanizeTimestamp", a -> humanizeTimestamp(toFloat(a.get(0))));
    f.put("pathPrefix", a -> "");
    f.put("externalURL", a -> externalUrl);
    f.put("parseDuration", a -> Parser.parseDuration(Builtins.string(a.get(0)))
        / 1000.0);
    f.put("tableLink", a -> "/graph?g0.expr=" + URLEncoder.encode(Builtins.string(a.get(0)), StandardCharsets.UTF_8)
        + "&g0.tab=1");
    f.put("graphLink", a -> "/graph?g0.expr=" + URLEncoder.encode(Builtins.string(a.get(0)), StandardCharsets.UTF_8)
        + "&g0.tab=0");
    f.put("sortByLabel", a -> {
      String label = Builtins.string(a.get(0));
      List<Map<String, Object>> out = new ArrayList<>();
      for (Object o : (List<?>) a.get(1)) {
        out.add(sample(o));
      }
      out.sort(Comparator.comparing(s -> String.valueOf(((Map<?, ?>) s.get("Labels")).get(label))));
      return out;
    });
    return f;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> sample(Object o) {
    if (o instanceof Map<?, ?> m) {
      return (Map<String, Object>) m;
    }
    throw new TemplateException("not a query result sample: " + GoFormat.print(o));
  }

  static double toFloat(Object o) {
    if (o instanceof Double d) {
      return d;
    }
    if (o instanceof Long l) {
      return l;
    }
    if (o instanceof String s) {
      try {
        String x = s.strip().toLowerCase(Locale.ROOT);
        return switch (x) {
          case "inf", "+inf", "infinity", "+infinity" -> Double.POSITIVE_INFINITY;
          case "-inf", "-infinity" -> Double.NEGATIVE_INFINITY;
          case "nan" -> Double.NaN;
          default -> {
            if (!x.matches("[+-]?(\\d+\\.?\\d*|\\.\\d+)(e[+-]?\\d+)?")) {
              throw new NumberFormatException(s);
            }
            yield Double.parseDouble(x);
          }
        };
      } catch (NumberFormatException e) {
        throw new TemplateException("strconv.ParseFloat: parsing \"" + s + "\": invalid syntax");
      }
    }
    throw new TemplateException("can't convert " + GoFormat.typeName(o) + " to float");
  }

  static String humanize(double v) {
    if (v == 0 || Double.isNaN(v) || Double.isInfinite(v)) {
      return GoFloat.g(v, 4);
    }
    String prefix = "";
    if (Math.abs(v) >= 1) {
      for (String p : new String[] {"k", "M", "G", "T", "P", "E", "Z", "Y"}) {
        if (Math.abs(v) < 1000) {
          break;
        }
        prefix = p;
        v /= 1000;
      }
      return GoFloat.g(v, 4) + prefix;
    }
    for (String p : new String[] {"m", "u", "n", "p", "f", "a", "z", "y"}) {
      if (Math.abs(v) >= 1) {
        break;
      }
      prefix = p;
      v *= 1000;
    }
    return GoFloat.g(v, 4) + prefix;
  }

  static String humanize1024(double v) {
    if (Math.abs(v) <= 1 || Double.isNaN(v) || Double.isInfinite(v)) {
      return GoFloat.g(v, 4);
    }
    String prefix = "";
    for (String p : new String[] {"ki", "Mi", "Gi", "Ti", "Pi", "Ei", "Zi", "Yi"}) {
      if (Math.abs(v) < 1024) {
        break;
      }
      prefix = p;
      v /= 1024;
    }
    return GoFloat.g(v, 4) + prefix;
  }

  static String humanizeDuration(double v) {
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      return GoFloat.g(v, 4);
    }
    if (v == 0) {
      return GoFloat.g(v, 4) + "s";
    }
    if (Math.abs(v) >= 1) {
      String sign = "";
      if (v < 0) {
        sign = "-";
        v = -v;
      }
      long duration = (long) v;
      long seconds = duration % 60;
      long minutes = (duration / 60) % 60;
      long hours = (duration / 60 / 60) % 24;
      long days = duration / 60 / 60 / 24;
      if (days != 0) {
        return sign + days + "d " + hours + "h " + minutes + "m " + seconds + "s";
      }
      if (hours != 0) {
        return sign + hours + "h " + minutes + "m " + seconds + "s";
      }
      if (minutes != 0) {
        return sign + minutes + "m " + seconds + "s";
      }
      return sign + GoFloat.g(v, 4) + "s";
    }
    String prefix = "";
    for (String p : new String[] {"m", "u", "n", "p", "f", "a", "z", "y"}) {
      if (Math.abs(v) >= 1) {
        break;
      }
      prefix = p;
      v *= 1000;
    }
    return GoFloat.g(v, 4) + prefix + "s";
  }

  /** Go's {@code time.Time.String()} of a Unix timestamp in UTC, as Prometheus 2.x prints it. */
  static String humanizeTimestamp(double v) {
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      return GoFloat.g(v, 4);
    }
    long nanos = Math.round(v * 1e9);
    Instant t = Instant.ofEpochSecond(Math.floorDiv(nanos, 1_000_000_000L), Math.floorMod(nanos, 1_000_000_000L));
    String base = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(ZoneOffset.UTC).format(t);
    String frac = "";
    if (t.getNano() != 0) {
      frac = "." + String.format(Locale.ROOT, "%09d", t.getNano()).replaceAll("0+$", "");
    }
    return base + frac + " +0000 UTC";
  }
}
