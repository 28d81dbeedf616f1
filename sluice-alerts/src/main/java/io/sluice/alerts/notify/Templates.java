package io.sluice.alerts.notify;

import io.sluice.alerts.types.Alert;
import io.sluice.alerts.types.Times;
import io.sluice.template.Builtins;
import io.sluice.template.GoFormat;
import io.sluice.template.Template;
import io.sluice.template.Template.Definitions;
import io.sluice.template.Template.Environment;
import io.sluice.template.Template.Members;
import io.sluice.template.Template.Stringer;
import io.sluice.template.Template.TemplateFunction;
import io.sluice.template.TextFunctions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Alertmanager's notification templates over the shared Go-template engine ({@code sluice-template}): its data model
 * ({@code .Alerts.Firing}, {@code .CommonLabels.SortedPairs}, ...), its functions beyond Go's builtins, and its
 * default named templates ({@link DefaultTemplates}). Template files ({@code templates:}) define named templates that
 * override a default of the same name, as in Alertmanager.
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
    return render(template, d, false);
  }

  /**
   * Renders as Alertmanager renders a text sent as HTML (Telegram's and Pushover's HTML modes) with Go's
   * {@code html/template}: every value the template prints is escaped, the template's own text is not, and
   * {@code safeHtml} marks a value to print as it is. Sluice escapes as {@code html/template} does between tags
   * (its rule for text, also right for a quoted attribute).
   */
  String renderHtml(String template, TemplateData d) {
    return render(template, d, true);
  }

  private String render(String template, TemplateData d, boolean html) {
    if (template == null || template.isEmpty()) {
      return "";
    }
    Template t = parsed.computeIfAbsent(template, text -> Template.parse("", text, FUNCTIONS));
    return t.execute(d, new Rendering(d, html).environment);
  }

  /** Parses {@code template} as a receiver's text would be; throws {@link IllegalArgumentException} if it does not. */
  static void parse(String template) {
    Template.parse("", template, FUNCTIONS);
  }

  /** A value {@code safeHtml} returned: printed as it is, in HTML too. */
  record TrustedHtml(String html) implements Stringer {
    @Override
    public String string() {
      return html;
    }
  }

  /** Go's {@code html/template} escaping of text between tags. */
  static String escapeHtml(String s) {
    StringBuilder b = new StringBuilder(s.length() + 16);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '\0' -> b.append('\uFFFD');
        case '"' -> b.append("&#34;");
        case '&' -> b.append("&amp;");
        case '\'' -> b.append("&#39;");
        case '+' -> b.append("&#43;");
        case '<' -> b.append("&lt;");
        case '>' -> b.append("&gt;");
        default -> b.append(c);
      }
    }
    return b.toString();
  }

  private static String printHtml(Object value) {
    return value instanceof TrustedHtml t ? t.html() : escapeHtml(GoFormat.print(value));
  }

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
  private final class Rendering implements Definitions, Members, DefaultTemplates.Parts {
    private final TemplateData data;
    private final boolean html;
    final Environment environment;

    Rendering(TemplateData data, boolean html) {
      this.data = data;
      this.html = html;
      this.environment = new Environment(this, this, html ? Templates::printHtml : null);
    }

    @Override
    public String execute(String name, Object dot) {
      Template custom = definitions.get(name);
      if (custom != null) {
        return custom.executeDefinition(name, dot, environment);
      }
      return DefaultTemplates.render(name, dot, data, this);
    }

    @Override
    public String escape(String value) {
      return html ? escapeHtml(value) : value;
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
          case "Names" -> sortedPairs(m).stream().map(Pair::name).toList();
          case "Values" -> sortedPairs(m).stream().map(Pair::value).toList();
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
  static Pairs sortedPairs(Map<?, ?> m) {
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
    f.put("safeHtml", a -> new TrustedHtml(Builtins.string(a.get(0))));
    return Map.copyOf(f);
  }
}
