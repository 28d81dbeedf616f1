package io.sluice.alerts.notify;

import io.sluice.alerts.types.Alert;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The subset of Go templates that Alertmanager's default notification texts and common custom texts use: field paths
 * ({@code .CommonLabels.alertname}, {@code .Labels.x} inside a range), {@code template "name" .} for the default
 * templates, {@code if}/{@code else}/{@code end} with {@code eq}/{@code ne}, {@code range}, and the pipe functions
 * {@code toUpper}, {@code toLower}, {@code title}, {@code len}, {@code urlquery}. The named defaults are computed here
 * with the exact output of Alertmanager's default.tmpl.
 */
final class Templates {
  /** The defaults only, for configurations without template files. */
  static final Templates DEFAULT = new Templates(Map.of());

  private final Map<String, List<Node>> defines;

  private Templates(Map<String, List<Node>> defines) {
    this.defines = defines;
  }

  /**
   * Parses template files ({@code {{ define "name" }}...{{ end }}} blocks) as listed under {@code templates:};
   * a definition overrides the default of the same name, as in Alertmanager.
   */
  static Templates load(List<String> texts) {
    Map<String, List<Node>> defs = new java.util.HashMap<>();
    for (String t : texts) {
      Parser p = new Parser(t);
      p.parse(true);
      defs.putAll(p.defines);
    }
    return new Templates(Map.copyOf(defs));
  }

  // ---- Alertmanager's default named templates ----

  static String subject(TemplateData d) {
    StringBuilder b = new StringBuilder("[").append(d.status().toUpperCase(Locale.ROOT));
    if (d.status().equals("firing")) {
      b.append(':').append(d.firing().size());
    }
    b.append("] ").append(String.join(" ", new TreeMap<>(d.groupLabels()).values())).append(' ');
    if (d.commonLabels().size() > d.groupLabels().size()) {
      Map<String, String> rest = new TreeMap<>(d.commonLabels());
      rest.keySet().removeAll(d.groupLabels().keySet());
      b.append('(').append(String.join(" ", rest.values())).append(')');
    }
    return b.toString();
  }

  static String alertmanagerUrl(TemplateData d) {
    return d.externalURL() + "/#/alerts?receiver=" + URLEncoder.encode(d.receiver(), StandardCharsets.UTF_8);
  }

  static String textAlertList(List<Alert> alerts) {
    StringBuilder b = new StringBuilder();
    for (Alert a : alerts) {
      b.append("Labels:\n");
      a.labels().forEach((k, v) -> b.append(" - ").append(k).append(" = ").append(v).append('\n'));
      b.append("Annotations:\n");
      a.annotations().forEach((k, v) -> b.append(" - ").append(k).append(" = ").append(v).append('\n'));
      b.append("Source: ").append(a.generatorURL()).append('\n');
    }
    return b.toString();
  }

  static String emailHtml(TemplateData d) {
    StringBuilder b = new StringBuilder("<!DOCTYPE html><html><head><meta charset=\"UTF-8\"><title>")
        .append(esc(subject(d))).append("</title></head><body><h2>")
        .append(d.firing().size()).append(" alert").append(d.firing().size() == 1 ? "" : "s").append(" for ")
        .append(esc(String.join(" ", d.groupLabels().values()))).append("</h2><p><a href=\"")
        .append(esc(alertmanagerUrl(d))).append("\">View in Alertmanager</a></p>");
    for (String what : List.of("firing", "resolved")) {
      List<Alert> list = what.equals("firing") ? d.firing() : d.resolved();
      if (list.isEmpty()) {
        continue;
      }
      b.append("<h3>[").append(list.size()).append("] ").append(what.equals("firing") ? "Firing" : "Resolved")
          .append("</h3>");
      for (Alert a : list) {
        b.append("<p><strong>Labels</strong><br>");
        a.labels().forEach((k, v) -> b.append(esc(k)).append(" = ").append(esc(v)).append("<br>"));
        b.append("<strong>Annotations</strong><br>");
        a.annotations().forEach((k, v) -> b.append(esc(k)).append(" = ").append(esc(v)).append("<br>"));
        b.append("<a href=\"").append(esc(a.generatorURL())).append("\">Source</a></p>");
      }
    }
    return b.append("</body></html>").toString();
  }

  private static String esc(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }

  private String named(String name, Object dot, TemplateData d) {
    List<Node> custom = defines.get(name);
    if (custom != null) {
      StringBuilder out = new StringBuilder();
      exec(custom, dot == null ? d : dot, d, out);
      return out.toString();
    }
    return switch (name) {
      case "__subject", "slack.default.title", "pagerduty.default.description", "email.default.subject",
          "webhook.default.title" -> subject(d);
      case "__alertmanager", "slack.default.username", "pagerduty.default.client" -> "Alertmanager";
      case "__alertmanagerURL", "slack.default.titlelink", "pagerduty.default.clientURL" -> alertmanagerUrl(d);
      case "slack.default.fallback" -> subject(d) + " | " + alertmanagerUrl(d);
      case "slack.default.text", "slack.default.pretext", "slack.default.iconemoji", "slack.default.iconurl",
          "slack.default.footer", "slack.default.callbackid" -> "";
      case "__text_alert_list", "pagerduty.default.instances" ->
          textAlertList(dot instanceof List<?> l ? castAlerts(l) : d.alerts());
      case "email.default.html" -> emailHtml(d);
      default -> throw new IllegalArgumentException("template \"" + name + "\" not defined");
    };
  }

  @SuppressWarnings("unchecked")
  private static List<Alert> castAlerts(List<?> l) {
    return (List<Alert>) l;
  }

  // ---- the interpreter ----

  String render(String template, TemplateData d) {
    if (template == null || template.isEmpty()) {
      return "";
    }
    List<Node> nodes = new Parser(template).parse(true);
    StringBuilder out = new StringBuilder();
    exec(nodes, d, d, out);
    return out.toString();
  }

  private sealed interface Node permits Text, Action, If, Range, With {}

  private record Text(String text) implements Node {}

  private record Action(String expr) implements Node {}

  private record If(String cond, List<Node> then, List<Node> otherwise) implements Node {}

  private record Range(String expr, List<Node> body, List<Node> otherwise) implements Node {}

  private record With(String expr, List<Node> body, List<Node> otherwise) implements Node {}

  private static final class Parser {
    private final String s;
    private int pos;
    private String stopWord;
    final Map<String, List<Node>> defines = new java.util.HashMap<>();

    Parser(String s) {
      this.s = s;
    }

    List<Node> parse(boolean top) {
      List<Node> out = new ArrayList<>();
      while (pos < s.length()) {
        int open = s.indexOf("{{", pos);
        if (open < 0) {
          out.add(new Text(s.substring(pos)));
          pos = s.length();
          break;
        }
        String before = s.substring(pos, open);
        int close = s.indexOf("}}", open);
        if (close < 0) {
          throw new IllegalArgumentException("unclosed action");
        }
        String inner = s.substring(open + 2, close);
        boolean trimLeft = inner.startsWith("-");
        boolean trimRight = inner.endsWith("-");
        if (trimLeft) {
          before = before.stripTrailing();
        }
        inner = inner.substring(trimLeft ? 1 : 0, inner.length() - (trimRight ? 1 : 0)).trim();
        if (!before.isEmpty()) {
          out.add(new Text(before));
        }
        pos = close + 2;
        if (trimRight) {
          while (pos < s.length() && Character.isWhitespace(s.charAt(pos))) {
            pos++;
          }
        }
        if (inner.startsWith("/*")) {
          continue;
        }
        if (inner.equals("end") || inner.equals("else") || inner.startsWith("else ")) {
          if (top) {
            throw new IllegalArgumentException("unexpected {{" + inner + "}}");
          }
          stopWord = inner;
          return out;
        }
        if (inner.startsWith("define ")) {
          String name = inner.substring(7).trim();
          defines.put(name.substring(1, name.length() - 1), parse(false));
        } else if (inner.startsWith("if ")) {
          out.add(block("if", inner.substring(3).trim()));
        } else if (inner.startsWith("with ")) {
          out.add(block("with", inner.substring(5).trim()));
        } else if (inner.startsWith("range ")) {
          out.add(block("range", inner.substring(6).trim()));
        } else {
          out.add(new Action(inner));
        }
      }
      if (!top) {
        throw new IllegalArgumentException("missing {{end}}");
      }
      return out;
    }

    /** An if/with/range block up to its end; {@code else if} and {@code else with} nest a block in the else. */
    private Node block(String kind, String expr) {
      List<Node> body = parse(false);
      List<Node> otherwise = List.of();
      if ("else".equals(stopWord)) {
        otherwise = parse(false);
        if (!"end".equals(stopWord)) {
          throw new IllegalArgumentException("expected {{end}} after {{else}}");
        }
      } else if (stopWord.startsWith("else ")) {
        String rest = stopWord.substring(5).trim();
        int sp = rest.indexOf(' ');
        if (sp < 0) {
          throw new IllegalArgumentException("bad {{" + stopWord + "}}");
        }
        otherwise = List.of(block(rest.substring(0, sp), rest.substring(sp + 1).trim()));
      }
      return switch (kind) {
        case "if" -> new If(expr, body, otherwise);
        case "with" -> new With(expr, body, otherwise);
        case "range" -> new Range(expr, body, otherwise);
        default -> throw new IllegalArgumentException("unexpected {{else " + kind + "}}");
      };
    }
  }

  private void exec(List<Node> nodes, Object dot, TemplateData d, StringBuilder out) {
    for (Node n : nodes) {
      if (n instanceof Text t) {
        out.append(t.text());
      } else if (n instanceof Action a) {
        out.append(str(eval(a.expr(), dot, d)));
      } else if (n instanceof If i) {
        exec(truthy(eval(i.cond(), dot, d)) ? i.then() : i.otherwise(), dot, d, out);
      } else if (n instanceof With w) {
        Object v = eval(w.expr(), dot, d);
        if (truthy(v)) {
          exec(w.body(), v, d, out);
        } else {
          exec(w.otherwise(), dot, d, out);
        }
      } else if (n instanceof Range r) {
        Object v = eval(r.expr(), dot, d);
        if (!truthy(v)) {
          exec(r.otherwise(), dot, d, out);
        } else if (v instanceof Collection<?> c) {
          for (Object item : c) {
            exec(r.body(), item, d, out);
          }
        } else if (v instanceof Map<?, ?> m) {
          for (Object item : m.values()) {
            exec(r.body(), item, d, out);
          }
        }
      }
    }
  }

  private static boolean truthy(Object v) {
    if (v == null) {
      return false;
    }
    if (v instanceof Boolean b) {
      return b;
    }
    if (v instanceof String s) {
      return !s.isEmpty();
    }
    if (v instanceof Collection<?> c) {
      return !c.isEmpty();
    }
    if (v instanceof Map<?, ?> m) {
      return !m.isEmpty();
    }
    if (v instanceof Integer i) {
      return i != 0;
    }
    return true;
  }

  private static String str(Object v) {
    if (v == null) {
      return "<no value>";
    }
    if (v instanceof Map<?, ?> m) {
      List<String> parts = new ArrayList<>();
      new TreeMap<>(m).forEach((k, x) -> parts.add(k + ":" + x));
      return "map[" + String.join(" ", parts) + "]";
    }
    return String.valueOf(v);
  }

  private Object eval(String expr, Object dot, TemplateData d) {
    String[] stages = splitPipes(expr);
    Object v = command(tokens(stages[0].trim()), dot, d, null);
    for (int i = 1; i < stages.length; i++) {
      v = command(tokens(stages[i].trim()), dot, d, v);
    }
    return v;
  }

  private static String[] splitPipes(String expr) {
    List<String> parts = new ArrayList<>();
    boolean quoted = false;
    int start = 0;
    for (int i = 0; i < expr.length(); i++) {
      char c = expr.charAt(i);
      if (c == '"' && (i == 0 || expr.charAt(i - 1) != '\\')) {
        quoted = !quoted;
      } else if (c == '|' && !quoted) {
        parts.add(expr.substring(start, i));
        start = i + 1;
      }
    }
    parts.add(expr.substring(start));
    return parts.toArray(String[]::new);
  }

  private static List<String> tokens(String s) {
    List<String> out = new ArrayList<>();
    int i = 0;
    while (i < s.length()) {
      char c = s.charAt(i);
      if (Character.isWhitespace(c)) {
        i++;
      } else if (c == '"') {
        int j = i + 1;
        while (j < s.length() && !(s.charAt(j) == '"' && s.charAt(j - 1) != '\\')) {
          j++;
        }
        out.add(s.substring(i, Math.min(j + 1, s.length())));
        i = j + 1;
      } else if (c == '(') {
        int depth = 0;
        int j = i;
        for (; j < s.length(); j++) {
          if (s.charAt(j) == '(') {
            depth++;
          } else if (s.charAt(j) == ')' && --depth == 0) {
            break;
          }
        }
        out.add(s.substring(i, Math.min(j + 1, s.length())));
        i = j + 1;
      } else {
        int j = i;
        while (j < s.length() && !Character.isWhitespace(s.charAt(j))) {
          j++;
        }
        out.add(s.substring(i, j));
        i = j;
      }
    }
    return out;
  }

  private Object command(List<String> t, Object dot, TemplateData d, Object piped) {
    if (t.isEmpty()) {
      return piped;
    }
    String head = t.get(0);
    List<Object> args = new ArrayList<>();
    for (int i = 1; i < t.size(); i++) {
      args.add(operand(t.get(i), dot, d));
    }
    if (piped != null) {
      args.add(piped);
    }
    return switch (head) {
      case "template" -> named(unquote(t.get(1)), t.size() > 2 ? operand(t.get(2), dot, d) : null, d);
      case "eq" -> String.valueOf(args.get(0)).equals(String.valueOf(args.get(1)));
      case "ne" -> !String.valueOf(args.get(0)).equals(String.valueOf(args.get(1)));
      case "gt" -> toInt(args.get(0)) > toInt(args.get(1));
      case "lt" -> toInt(args.get(0)) < toInt(args.get(1));
      case "not" -> !truthy(args.get(0));
      case "len" -> size(args.get(0));
      case "toUpper" -> String.valueOf(args.get(0)).toUpperCase(Locale.ROOT);
      case "toLower" -> String.valueOf(args.get(0)).toLowerCase(Locale.ROOT);
      case "title" -> title(String.valueOf(args.get(0)));
      case "urlquery" -> URLEncoder.encode(String.valueOf(args.get(0)), StandardCharsets.UTF_8);
      case "join" -> String.join(unquote(t.get(1)), toStrings(args.get(args.size() - 1)));
      case "safeHtml", "html" -> String.valueOf(args.get(0));
      case "reReplaceAll" -> java.util.regex.Pattern.compile(String.valueOf(args.get(0)))
          .matcher(String.valueOf(args.get(2))).replaceAll(
              String.valueOf(args.get(1)).replaceAll("\\$\\{?(\\d+)\\}?", "\\$$1"));
      case "match" -> java.util.regex.Pattern.compile(String.valueOf(args.get(0)))
          .matcher(String.valueOf(args.get(1))).find();
      case "and" -> args.stream().allMatch(Templates::truthy);
      case "or" -> args.stream().anyMatch(Templates::truthy);
      default -> operand(head, dot, d);
    };
  }

  private Object operand(String tok, Object dot, TemplateData d) {
    if (tok.startsWith("\"")) {
      return unquote(tok);
    }
    if (tok.startsWith("(")) {
      return eval(tok.substring(1, tok.length() - 1), dot, d);
    }
    if (tok.startsWith("$")) {
      return path(d, tok.substring(1), d);
    }
    if (tok.startsWith(".")) {
      return path(dot, tok, d);
    }
    if (tok.equals("true") || tok.equals("false")) {
      return Boolean.parseBoolean(tok);
    }
    if (tok.equals("nil")) {
      return null;
    }
    if (tok.matches("-?\\d+")) {
      return Integer.parseInt(tok);
    }
    throw new IllegalArgumentException("function \"" + tok + "\" not defined");
  }

  private Object path(Object dot, String p, TemplateData d) {
    Object v = dot;
    for (String f : p.split("\\.")) {
      if (f.isEmpty()) {
        continue;
      }
      v = field(v, f, d);
    }
    return v;
  }

  private static Object field(Object v, String f, TemplateData d) {
    if (v instanceof TemplateData t) {
      return switch (f) {
        case "Receiver" -> t.receiver();
        case "Status" -> t.status();
        case "Alerts" -> new AlertList(t.alerts(), t);
        case "GroupLabels" -> t.groupLabels();
        case "CommonLabels" -> t.commonLabels();
        case "CommonAnnotations" -> t.commonAnnotations();
        case "ExternalURL" -> t.externalURL();
        case "GroupKey" -> t.groupKey();
        default -> null;
      };
    }
    if (v instanceof AlertList l) {
      return switch (f) {
        case "Firing" -> new AlertList(l.data.firing(), l.data);
        case "Resolved" -> new AlertList(l.data.resolved(), l.data);
        default -> null;
      };
    }
    if (v instanceof Alert a) {
      return switch (f) {
        case "Status" -> d.alertStatus(a);
        case "Labels" -> a.labels();
        case "Annotations" -> a.annotations();
        case "StartsAt" -> io.sluice.alerts.types.Times.format(a.startsAt());
        case "EndsAt" -> io.sluice.alerts.types.Times.format(a.endsAt());
        case "GeneratorURL" -> a.generatorURL();
        case "Fingerprint" -> a.fingerprintHex();
        default -> null;
      };
    }
    if (v instanceof Map<?, ?> m) {
      return switch (f) {
        case "Values" -> new ArrayList<>(new TreeMap<>(m).values());
        case "Names" -> new ArrayList<>(new TreeMap<>(m).keySet());
        default -> m.get(f);
      };
    }
    return null;
  }

  /** A list of alerts that also answers {@code .Firing} and {@code .Resolved}. */
  private static final class AlertList extends java.util.AbstractList<Alert> {
    final List<Alert> alerts;
    final TemplateData data;

    AlertList(List<Alert> alerts, TemplateData data) {
      this.alerts = alerts;
      this.data = data;
    }

    @Override
    public Alert get(int index) {
      return alerts.get(index);
    }

    @Override
    public int size() {
      return alerts.size();
    }
  }

  private static int size(Object v) {
    if (v instanceof Collection<?> c) {
      return c.size();
    }
    if (v instanceof Map<?, ?> m) {
      return m.size();
    }
    return v == null ? 0 : String.valueOf(v).length();
  }

  private static int toInt(Object v) {
    return v instanceof Integer i ? i : Integer.parseInt(String.valueOf(v));
  }

  private static List<String> toStrings(Object v) {
    List<String> out = new ArrayList<>();
    if (v instanceof Collection<?> c) {
      c.forEach(x -> out.add(String.valueOf(x)));
    }
    return out;
  }

  private static String title(String s) {
    StringBuilder b = new StringBuilder();
    boolean start = true;
    for (char c : s.toCharArray()) {
      b.append(start ? Character.toUpperCase(c) : c);
      start = !Character.isLetterOrDigit(c);
    }
    return b.toString();
  }

  private static String unquote(String s) {
    if (s.length() >= 2 && s.startsWith("\"") && s.endsWith("\"")) {
      return s.substring(1, s.length() - 1).replace("\\\"", "\"").replace("\\n", "\n");
    }
    return s;
  }
}
