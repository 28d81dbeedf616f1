package io.sluice.alerts.notify;

import io.sluice.alerts.types.Alert;
import io.sluice.alerts.types.Times;
import io.sluice.template.Builtins;
import io.sluice.template.Template;
import io.sluice.template.Template.Definitions;
import io.sluice.template.Template.Environment;
import io.sluice.template.Template.Members;
import io.sluice.template.Template.Stringer;
import io.sluice.template.Template.TemplateFunction;
import io.sluice.template.TextFunctions;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Alertmanager's notification templates over the shared Go-template engine ({@code sluice-template}): its data model
 * ({@code .Alerts.Firing}, {@code .CommonLabels.SortedPairs}, ...), its functions beyond Go's builtins, and its
 * default named templates, computed here with the exact output of Alertmanager's default.tmpl. Template files
 * ({@code templates:}) define named templates that override a default of the same name, as in Alertmanager.
 */
final class Templates {
  /** The defaults only, for configurations without template files. */
  static final Templates DEFAULT = new Templates(Map.of());

  /** Alertmanager's functions beside Go's builtins (its template.DefaultFuncs that Sluice's texts use). */
  private static final Map<String, TemplateFunction> FUNCTIONS = functions();

  /** User-defined templates by name, each the parsed file that defines it (the last file defining a name wins). */
  private final Map<String, Template> definitions;
  /** Receiver texts come from the configuration, a bounded set: each is parsed once. */
  private final Map<String, Template> parsed = new ConcurrentHashMap<>();

  private Templates(Map<String, Template> definitions) {
    this.definitions = definitions;
  }

  /**
   * Parses template files ({@code {{ define "name" }}...{{ end }}} blocks) as listed under {@code templates:};
   * a definition overrides the default of the same name, as in Alertmanager. Throws {@link IllegalArgumentException}
   * (a {@link Template.TemplateException}) when a file does not parse.
   */
  static Templates load(List<String> texts) {
    Map<String, Template> defs = new HashMap<>();
    for (String text : texts) {
      Template t = Template.parse("templates", text, FUNCTIONS);
      for (String name : t.definedNames()) {
        defs.put(name, t);
      }
    }
    return new Templates(Map.copyOf(defs));
  }

  String render(String template, TemplateData d) {
    if (template == null || template.isEmpty()) {
      return "";
    }
    Template t = parsed.computeIfAbsent(template, text -> Template.parse("", text, FUNCTIONS));
    return t.execute(d, new Rendering(d).environment);
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

  /** Alertmanager's email.default.html, with its {@code __subject} and {@code __alertmanagerURL} as rendered. */
  static String emailHtml(TemplateData d, String subject, String alertmanagerUrl) {
    StringBuilder b = new StringBuilder("<!DOCTYPE html><html><head><meta charset=\"UTF-8\"><title>")
        .append(esc(subject)).append("</title></head><body><h2>")
        .append(d.firing().size()).append(" alert").append(d.firing().size() == 1 ? "" : "s").append(" for ")
        .append(esc(String.join(" ", d.groupLabels().values()))).append("</h2><p><a href=\"")
        .append(esc(alertmanagerUrl)).append("\">View in Alertmanager</a></p>");
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

  /**
   * Alertmanager's default named templates, computed in Java; null for a name that is none of them. The defaults
   * read the notification's data whatever dot they are given, except the alert list, which lists the alerts given.
   */
  private static String defaultTemplate(String name, Object dot, TemplateData d) {
    return switch (name) {
      case "__subject" -> subject(d);
      case "__alertmanager" -> "Alertmanager";
      case "__alertmanagerURL" -> alertmanagerUrl(d);
      case "slack.default.text", "slack.default.pretext", "slack.default.iconemoji", "slack.default.iconurl",
          "slack.default.footer", "slack.default.callbackid" -> "";
      case "__text_alert_list" -> textAlertList(dot instanceof List<?> l ? only(l, Alert.class) : d.alerts());
      default -> null;
    };
  }

  /**
   * Defaults that are nothing but another template in Alertmanager's default.tmpl ({@code {{ template "__subject" .
   * }}}): a template file that overrides the one they call changes them too.
   */
  private static final Map<String, String> CALLS = Map.of(
      "slack.default.title", "__subject",
      "pagerduty.default.description", "__subject",
      "email.default.subject", "__subject",
      "webhook.default.title", "__subject",
      "slack.default.username", "__alertmanager",
      "pagerduty.default.client", "__alertmanager",
      "slack.default.titlelink", "__alertmanagerURL",
      "pagerduty.default.clientURL", "__alertmanagerURL",
      "pagerduty.default.instances", "__text_alert_list");

  /** The elements of {@code l} that are {@code type}s: a list from a template holds any values. */
  private static <T> List<T> only(List<?> l, Class<T> type) {
    List<T> out = new ArrayList<>();
    for (Object o : l) {
      if (type.isInstance(o)) {
        out.add(type.cast(o));
      }
    }
    return out;
  }

  /** One rendering: the named templates and the data model's members, both tied to one notification's data. */
  private final class Rendering implements Definitions, Members {
    private final TemplateData data;
    final Environment environment = new Environment(this, this);

    Rendering(TemplateData data) {
      this.data = data;
    }

    @Override
    public String execute(String name, Object dot) {
      Template custom = definitions.get(name);
      if (custom != null) {
        return custom.executeDefinition(name, dot, environment);
      }
      String called = CALLS.get(name);
      if (called != null) {
        return execute(called, dot);
      }
      return switch (name) {
        case "slack.default.fallback" ->
            execute("slack.default.title", dot) + " | " + execute("slack.default.titlelink", dot);
        case "email.default.html" -> emailHtml(data, execute("__subject", dot), execute("__alertmanagerURL", dot));
        default -> defaultTemplate(name, dot, data);
      };
    }

    /** Alertmanager's data: template.Data, Alert, Alerts (Firing, Resolved), KV (SortedPairs, Names, Values, Remove). */
    @Override
    public Object get(Object receiver, String name, List<Object> args) {
      if (!args.isEmpty()) {
        return receiver instanceof Map<?, ?> m && name.equals("Remove") ? remove(m, args) : NONE;
      }
      if (receiver instanceof TemplateData t) {
        return switch (name) {
          case "Receiver" -> t.receiver();
          case "Status" -> t.status();
          case "Alerts" -> t.alerts();
          case "GroupLabels" -> t.groupLabels();
          case "CommonLabels" -> t.commonLabels();
          case "CommonAnnotations" -> t.commonAnnotations();
          case "ExternalURL" -> t.externalURL();
          case "GroupKey" -> t.groupKey();
          default -> NONE;
        };
      }
      if (receiver instanceof Alert a) {
        return switch (name) {
          case "Status" -> data.alertStatus(a);
          case "Labels" -> a.labels();
          case "Annotations" -> a.annotations();
          case "StartsAt" -> Times.format(a.startsAt());
          case "EndsAt" -> Times.format(a.endsAt());
          case "GeneratorURL" -> a.generatorURL();
          case "Fingerprint" -> a.fingerprintHex();
          default -> NONE;
        };
      }
      if (receiver instanceof Pair p) {
        return switch (name) {
          case "Name" -> p.name();
          case "Value" -> p.value();
          default -> NONE;
        };
      }
      if (receiver instanceof List<?> l) {
        return switch (name) {
          case "Firing" -> only(l, Alert.class).stream().filter(a -> !a.resolvedAt(data.now())).toList();
          case "Resolved" -> only(l, Alert.class).stream().filter(a -> a.resolvedAt(data.now())).toList();
          case "Names" -> only(l, Pair.class).stream().map(Pair::name).toList();
          case "Values" -> only(l, Pair.class).stream().map(Pair::value).toList();
          default -> NONE;
        };
      }
      if (receiver instanceof Map<?, ?> m) {
        return switch (name) {
          case "Names" -> new ArrayList<>(new TreeMap<>(m).keySet());
          case "Values" -> new ArrayList<>(new TreeMap<>(m).values());
          case "SortedPairs" -> sortedPairs(m);
          default -> NONE;
        };
      }
      return NONE;
    }
  }

  /** One label or annotation of Alertmanager's {@code SortedPairs}; prints as Go prints the struct. */
  record Pair(String name, String value) implements Stringer {
    @Override
    public String string() {
      return "{" + name + " " + value + "}";
    }
  }

  /** Alertmanager's {@code Pairs}: a list to range over that prints as {@code name=value, name=value}. */
  static final class Pairs extends ArrayList<Pair> implements Stringer {
    @Override
    public String string() {
      StringBuilder b = new StringBuilder();
      for (Pair p : this) {
        if (!b.isEmpty()) {
          b.append(", ");
        }
        b.append(p.name()).append('=').append(p.value());
      }
      return b.toString();
    }
  }

  /** Alertmanager's KV.SortedPairs: by name, except that alertname comes first. */
  private static Pairs sortedPairs(Map<?, ?> m) {
    Pairs out = new Pairs();
    Object alertname = m.get("alertname");
    if (alertname != null) {
      out.add(new Pair("alertname", String.valueOf(alertname)));
    }
    new TreeMap<>(m).forEach((k, v) -> {
      if (!k.equals("alertname")) {
        out.add(new Pair(String.valueOf(k), String.valueOf(v)));
      }
    });
    return out;
  }

  /** Alertmanager's KV.Remove(keys): the map without those keys. */
  private static Map<String, Object> remove(Map<?, ?> m, List<Object> args) {
    if (args.size() != 1 || !(args.get(0) instanceof List<?> keys)) {
      throw new IllegalArgumentException("Remove takes one list of names (stringSlice)");
    }
    Map<String, Object> out = new TreeMap<>();
    m.forEach((k, v) -> out.put(String.valueOf(k), v));
    keys.forEach(k -> out.remove(String.valueOf(k)));
    return out;
  }

  private static Map<String, TemplateFunction> functions() {
    Map<String, TemplateFunction> f = new HashMap<>(TextFunctions.ALL);
    f.put("join", a -> {
      List<String> parts = new ArrayList<>();
      for (Object o : (List<?>) a.get(1)) {
        parts.add(Builtins.string(o));
      }
      return String.join(Builtins.string(a.get(0)), parts);
    });
    f.put("trimSpace", a -> Builtins.string(a.get(0)).strip());
    f.put("stringSlice", a -> List.copyOf(a));
    return Map.copyOf(f);
  }
}
