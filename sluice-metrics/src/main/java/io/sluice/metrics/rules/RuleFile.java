package io.sluice.metrics.rules;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.sluice.metrics.model.Labels;
import io.sluice.metrics.promql.parser.Expr;
import io.sluice.metrics.promql.parser.ParseException;
import io.sluice.metrics.promql.parser.Parser;
import io.sluice.metrics.template.Expander;
import io.sluice.template.Template.TemplateException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A Prometheus rule file ({@code groups:} of recording and alerting rules), parsed and validated as Prometheus's
 * {@code rulefmt} does: unknown fields, missing or unparsable expressions, bad names and templates that do not parse
 * are all errors, reported together with the group and rule they belong to.
 */
public record RuleFile(String path, List<GroupSpec> groups) {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  /** A group as written; {@code intervalMillis} 0 means the global evaluation interval. */
  public record GroupSpec(String name, long intervalMillis, int limit, List<RuleSpec> rules) {}

  /** One rule as written; exactly one of {@code record} and {@code alert} is set. */
  public record RuleSpec(String record, String alert, Expr expr, long forMillis, long keepFiringForMillis,
      Map<String, String> labels, Map<String, String> annotations) {
    public boolean isAlert() {
      return alert != null;
    }

    public String name() {
      return alert != null ? alert : record;
    }
  }

  /** Every problem of a rule file, each with its location, as promtool lists them. */
  public static final class RuleFileException extends RuntimeException {
    private final List<String> errors;

    public RuleFileException(String file, List<String> errors) {
      super(file + ": " + String.join("; ", errors));
      this.errors = List.copyOf(errors);
    }

    public List<String> errors() {
      return errors;
    }
  }

  public static RuleFile load(Path file) {
    String text;
    try {
      text = Files.readString(file);
    } catch (IOException e) {
      throw new RuleFileException(file.toString(), List.of("cannot read: " + e.getMessage()));
    }
    return parse(file.toString(), text);
  }

  public static RuleFile parse(String path, String yaml) {
    JsonNode root;
    try {
      root = YAML.readTree(yaml);
    } catch (IOException e) {
      throw new RuleFileException(path, List.of("invalid YAML: " + e.getMessage()));
    }
    List<String> errors = new ArrayList<>();
    List<GroupSpec> groups = new ArrayList<>();
    if (root == null || root.isNull() || root.isMissingNode()) {
      return new RuleFile(path, List.of());
    }
    unknown(root, Set.of("groups"), "", errors);
    Set<String> names = new HashSet<>();
    for (JsonNode g : root.path("groups")) {
      String name = g.path("name").asText("");
      unknown(g, Set.of("name", "interval", "limit", "rules", "source_tenants"), "group \"" + name + "\": ", errors);
      if (name.isEmpty()) {
        errors.add("groupname must not be empty");
      } else if (!names.add(name)) {
        errors.add("groupname: \"" + name + "\" is repeated in the same file");
      }
      long interval = 0;
      if (g.hasNonNull("interval")) {
        try {
          interval = Parser.parseDuration(g.get("interval").asText());
        } catch (ParseException e) {
          errors.add("group \"" + name + "\": invalid interval: " + e.getMessage());
        }
      }
      List<RuleSpec> rules = new ArrayList<>();
      int i = 0;
      for (JsonNode r : g.path("rules")) {
        i++;
        List<String> rerr = new ArrayList<>();
        RuleSpec spec = rule(r, rerr);
        String rname = r.path("alert").asText(r.path("record").asText(""));
        for (String e : rerr) {
          errors.add("group \"" + name + "\", rule " + i + ", \"" + rname + "\": " + e);
        }
        if (spec != null) {
          rules.add(spec);
        }
      }
      groups.add(new GroupSpec(name, interval, g.path("limit").asInt(0), List.copyOf(rules)));
    }
    if (!errors.isEmpty()) {
      throw new RuleFileException(path, errors);
    }
    return new RuleFile(path, List.copyOf(groups));
  }

  private static RuleSpec rule(JsonNode r, List<String> errors) {
    unknown(r, Set.of("record", "alert", "expr", "for", "keep_firing_for", "labels", "annotations"), "", errors);
    String record = r.hasNonNull("record") ? r.get("record").asText() : null;
    String alert = r.hasNonNull("alert") ? r.get("alert").asText() : null;
    if ((record == null) == (alert == null)) {
      errors.add(record == null ? "one of 'record' or 'alert' must be set"
          : "only one of 'record' and 'alert' must be set");
    }
    Expr expr = null;
    String exprText = r.path("expr").asText("");
    if (exprText.isBlank()) {
      errors.add("field 'expr' must be set in rule");
    } else {
      try {
        expr = Parser.parse(exprText);
      } catch (ParseException e) {
        errors.add("could not parse expression: " + e.getMessage());
      }
    }
    if (record != null) {
      if (r.has("annotations")) {
        errors.add("invalid field 'annotations' in recording rule");
      }
      if (r.has("for")) {
        errors.add("invalid field 'for' in recording rule");
      }
      if (r.has("keep_firing_for")) {
        errors.add("invalid field 'keep_firing_for' in recording rule");
      }
      if (!record.matches("[a-zA-Z_:][a-zA-Z0-9_:]*")) {
        errors.add("invalid recording rule name: " + record);
      }
    }
    long forMs = duration(r, "for", errors);
    long keepMs = duration(r, "keep_firing_for", errors);
    Map<String, String> labels = stringMap(r.path("labels"), errors, "label");
    Map<String, String> annotations = stringMap(r.path("annotations"), errors, "annotation");
    labels.keySet().forEach(n -> {
      if (n.equals(Labels.METRIC_NAME) && record != null) {
        errors.add("invalid recording rule label name: " + n);
      }
    });
    if (alert != null) {
      String tname = "__alert_" + alert;
      for (Map.Entry<String, String> e : labels.entrySet()) {
        checkTemplate(tname, "label", e, errors);
      }
      for (Map.Entry<String, String> e : annotations.entrySet()) {
        checkTemplate(tname, "annotation", e, errors);
      }
    }
    if (!errors.isEmpty()) {
      return null;
    }
    return new RuleSpec(record, alert, expr, forMs, keepMs, Map.copyOf(labels), Map.copyOf(annotations));
  }

  private static void checkTemplate(String name, String what, Map.Entry<String, String> e, List<String> errors) {
    try {
      Expander.check(name, e.getValue());
    } catch (TemplateException ex) {
      errors.add(what + " \"" + e.getKey() + "\": " + ex.getMessage());
    }
  }

  private static long duration(JsonNode r, String field, List<String> errors) {
    if (!r.hasNonNull(field)) {
      return 0;
    }
    try {
      return Parser.parseDuration(r.get(field).asText());
    } catch (ParseException e) {
      errors.add("invalid '" + field + "': not a valid duration string: \"" + r.get(field).asText() + "\"");
      return 0;
    }
  }

  private static Map<String, String> stringMap(JsonNode n, List<String> errors, String what) {
    Map<String, String> out = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      if (!Labels.isValidLabelName(e.getKey())) {
        errors.add("invalid " + what + " name: " + e.getKey());
      }
      out.put(e.getKey(), e.getValue().isNull() ? "" : e.getValue().asText());
    }
    return out;
  }

  private static void unknown(JsonNode n, Set<String> known, String where, List<String> errors) {
    for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!known.contains(f)) {
        errors.add(where + "field " + f + " not found");
      }
    }
  }
}
