package io.sluice.metrics.rules.unittest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.sluice.gofmt.GoFloat;
import io.sluice.metrics.model.Labels;
import io.sluice.metrics.model.Matcher;
import io.sluice.metrics.promql.Engine;
import io.sluice.metrics.promql.Value;
import io.sluice.metrics.promql.parser.Expr;
import io.sluice.metrics.promql.parser.Parser;
import io.sluice.metrics.rules.Alert;
import io.sluice.metrics.rules.AlertingRule;
import io.sluice.metrics.rules.Group;
import io.sluice.metrics.rules.Rule;
import io.sluice.metrics.rules.Ruler;
import io.sluice.metrics.storage.Appender;
import io.sluice.metrics.tsdb.Db;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Runs rule unit tests written for {@code promtool test rules}: {@code rule_files}, {@code evaluation_interval},
 * {@code group_eval_order} and {@code tests} with {@code input_series}, {@code alert_rule_test} and
 * {@code promql_expr_test}. As promtool does, every group is evaluated from time 0 every evaluation interval up to
 * the last time a test asks about; at each asked time the firing alerts (labels and expanded annotations) must be
 * exactly the expected ones, and expressions must return exactly the expected samples.
 */
public final class RuleUnitTests {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  /** The outcome of one test file: a message per failed check, none when everything passed. */
  public record Result(Path file, int testGroups, List<String> failures) {
    public boolean passed() {
      return failures.isEmpty();
    }
  }

  private RuleUnitTests() {}

  public static Result run(Path testFile) {
    JsonNode root;
    try {
      root = YAML.readTree(Files.readString(testFile));
    } catch (IOException e) {
      return new Result(testFile, 0, List.of("cannot read " + testFile + ": " + e.getMessage()));
    }
    Path dir = testFile.toAbsolutePath().getParent();
    List<String> patterns = new ArrayList<>();
    root.path("rule_files").forEach(n -> patterns.add(n.asText()));
    long evalInterval = duration(root.path("evaluation_interval"), 60_000);
    Map<String, Integer> order = new HashMap<>();
    root.path("group_eval_order").forEach(n -> order.put(n.asText(), order.size()));
    List<Path> files = Ruler.resolve(patterns, dir);
    List<String> failures = new ArrayList<>();
    int groups = 0;
    for (JsonNode tg : root.path("tests")) {
      groups++;
      List<String> errs;
      try {
        errs = runGroup(tg, files, evalInterval, order);
      } catch (RuntimeException e) {
        errs = List.of("    " + e.getMessage());
      }
      if (!errs.isEmpty()) {
        String name = tg.path("name").asText("");
        failures.add((name.isEmpty() ? "" : "    name: " + name + ",\n") + String.join("\n", errs));
      }
    }
    return new Result(testFile, groups, List.copyOf(failures));
  }

  private static List<String> runGroup(JsonNode tg, List<Path> files, long evalInterval, Map<String, Integer> order) {
    long interval = duration(tg.path("interval"), evalInterval);
    Labels.Builder ext = Labels.builder();
    tg.path("external_labels").fields().forEachRemaining(e -> ext.set(e.getKey(), e.getValue().asText()));
    String externalUrl = tg.path("external_url").asText("");
    Engine engine = Engine.builder().defaultSubqueryStep(Duration.ofMillis(evalInterval)).build();
    List<String> errs = new ArrayList<>();
    try (Db db = Db.inMemory()) {
      load(db, tg.path("input_series"), interval);
      List<Group> groups = new ArrayList<>(Ruler.loadGroups(files, Duration.ofMillis(evalInterval)));
      if (!order.isEmpty()) {
        groups.sort(Comparator.comparingInt(g -> order.getOrDefault(g.name(), Integer.MAX_VALUE)));
      }
      Rule.QueryFunction query = Ruler.queryFunction(engine, db);
      Rule.RuleContext ctx = new Rule.RuleContext(ext.build(), externalUrl, 0, Ruler.templateQuery(engine, db));
      TreeMap<Long, List<JsonNode>> alertTests = new TreeMap<>();
      long maxt = 0;
      for (JsonNode at : tg.path("alert_rule_test")) {
        long t = duration(at.path("eval_time"), 0);
        if (at.path("alertname").asText("").isEmpty()) {
          errs.add("    alertname is missing in alert_rule_test at " + Parser.formatDuration(t));
          return errs;
        }
        alertTests.computeIfAbsent(t, k -> new ArrayList<>()).add(at);
        maxt = Math.max(maxt, t);
      }
      for (JsonNode pt : tg.path("promql_expr_test")) {
        maxt = Math.max(maxt, duration(pt.path("eval_time"), 0));
      }
      for (long ts = 0; ts <= maxt; ts += evalInterval) {
        List<String> evalErrs = new ArrayList<>();
        for (Group g : groups) {
          g.eval(ts, db, query, ctx, 60_000, Group.AlertSender.NONE);
          for (Rule r : g.rules()) {
            Rule.Evaluation ev = r.lastEvaluation();
            if (ev.health().equals("err") && ev.timestampMillis() == ts) {
              evalErrs.add("    rule: " + r.name() + ", time: " + Parser.formatDuration(ts) + ", err: "
                  + ev.lastError());
            }
          }
        }
        if (!evalErrs.isEmpty()) {
          errs.addAll(evalErrs);
          return errs;
        }
        // Alert tests between this evaluation and the next are checked against this one.
        for (Map.Entry<Long, List<JsonNode>> e : alertTests.subMap(ts, true, ts + evalInterval, false).entrySet()) {
          for (JsonNode at : e.getValue()) {
            checkAlerts(groups, at, e.getKey(), errs);
          }
        }
      }
      for (JsonNode pt : tg.path("promql_expr_test")) {
        checkExpr(engine, db, pt, errs);
      }
    }
    return errs;
  }

  private static void load(Db db, JsonNode series, long interval) {
    Appender app = db.appender();
    for (JsonNode s : series) {
      Labels labels = metric(s.path("series").asText());
      List<Double> values = SeriesNotation.expand(s.path("values").asText(""));
      for (int i = 0; i < values.size(); i++) {
        if (values.get(i) != null) {
          app.append(labels, i * interval, values.get(i));
        }
      }
    }
    app.commit();
  }

  /** {@code name{a="b"}}, {@code {a="b"}} or {@code {}} as a label set. */
  static Labels metric(String text) {
    String s = text.strip();
    if (s.equals("{}")) {
      return Labels.EMPTY;
    }
    Labels.Builder b = Labels.builder();
    for (Matcher m : Parser.parseSelector(s)) {
      if (m.type() != Matcher.Type.EQ) {
        throw new IllegalArgumentException("invalid series \"" + text + "\": only = matchers describe a series");
      }
      b.set(m.name(), m.value());
    }
    return b.build();
  }

  /** A firing alert as promtool compares them: labels, then annotations. */
  private record LabelsAndAnnotations(Labels labels, Labels annotations) implements Comparable<LabelsAndAnnotations> {
    @Override
    public int compareTo(LabelsAndAnnotations o) {
      int c = labels.compareTo(o.labels);
      return c != 0 ? c : annotations.compareTo(o.annotations);
    }

    @Override
    public String toString() {
      return "Labels:" + labels.toString() + " Annotations:" + annotations.toString();
    }
  }

  private static void checkAlerts(List<Group> groups, JsonNode at, long t, List<String> errs) {
    String name = at.path("alertname").asText();
    List<LabelsAndAnnotations> got = new ArrayList<>();
    for (Group g : groups) {
      for (Rule r : g.rules()) {
        if (r instanceof AlertingRule a && a.name().equals(name)) {
          for (Alert al : a.activeAlerts()) {
            if (al.state() == Alert.State.FIRING) {
              got.add(new LabelsAndAnnotations(al.labels(), Labels.fromMap(al.annotations())));
            }
          }
        }
      }
    }
    List<LabelsAndAnnotations> exp = new ArrayList<>();
    for (JsonNode ea : at.path("exp_alerts")) {
      Labels.Builder lb = Labels.builder();
      ea.path("exp_labels").fields().forEachRemaining(e -> lb.set(e.getKey(), e.getValue().asText()));
      lb.set("alertname", name);
      Labels.Builder ab = Labels.builder();
      ea.path("exp_annotations").fields().forEachRemaining(e -> ab.set(e.getKey(), e.getValue().asText()));
      exp.add(new LabelsAndAnnotations(lb.build(), ab.build()));
    }
    got.sort(null);
    exp.sort(null);
    if (!got.equals(exp)) {
      errs.add("    alertname: " + name + ", time: " + Parser.formatDuration(t) + ",\n        exp:" + exp
          + ",\n        got:" + got);
    }
  }

  private static void checkExpr(Engine engine, Db db, JsonNode pt, List<String> errs) {
    String exprText = pt.path("expr").asText();
    long t = duration(pt.path("eval_time"), 0);
    List<Value.Sample> got;
    try {
      Expr expr = Parser.parse(exprText);
      got = Ruler.queryFunction(engine, db).query(expr, t);
    } catch (RuntimeException e) {
      errs.add("    expr: \"" + exprText + "\", time: " + Parser.formatDuration(t) + ", err: " + e.getMessage());
      return;
    }
    TreeSet<String> gotSet = new TreeSet<>();
    for (Value.Sample s : got) {
      gotSet.add(s.labels() + " " + GoFloat.format(s.v()));
    }
    TreeSet<String> expSet = new TreeSet<>();
    for (Iterator<JsonNode> it = pt.path("exp_samples").elements(); it.hasNext(); ) {
      JsonNode es = it.next();
      Labels l = metric(es.path("labels").asText("{}"));
      double v = es.path("value").isNumber() ? es.path("value").asDouble()
          : SeriesNotation.number(es.path("value").asText());
      expSet.add(l + " " + GoFloat.format(v));
    }
    if (!gotSet.equals(expSet) || got.size() != pt.path("exp_samples").size()) {
      errs.add("    expr: \"" + exprText + "\", time: " + Parser.formatDuration(t) + ",\n        exp: " + expSet
          + "\n        got: " + gotSet);
    }
  }

  private static long duration(JsonNode n, long dflt) {
    if (n == null || n.isMissingNode() || n.isNull() || n.asText().isEmpty()) {
      return dflt;
    }
    return Parser.parseDuration(n.asText());
  }
}
