package io.sluice.metrics.promql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.sluice.metrics.model.Labels;
import io.sluice.metrics.model.Matcher;
import io.sluice.metrics.promql.parser.Expr;
import io.sluice.metrics.promql.parser.ParseException;
import io.sluice.metrics.promql.parser.Parser;
import io.sluice.metrics.rules.unittest.SeriesNotation;
import io.sluice.metrics.storage.Appender;
import io.sluice.metrics.tsdb.Db;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs test scripts in the spirit of Prometheus's promql test language:
 *
 * <pre>
 * load 1m
 *   metric{a="b"} 0+10x5 _ 1 stale
 * eval instant at 5m sum(metric)
 *   {} 50
 * eval_ordered instant at 5m sort(metric)
 * eval_fail instant at 0 foo[
 * eval range from 0 to 10m step 5m metric
 *   metric{a="b"} 0 50 1
 * clear
 * </pre>
 *
 * Values compare equal within 1e-9 relative; NaN equals NaN.
 */
final class ScriptRunner {
  private final Engine engine = Engine.builder().build();
  private Db db = Db.inMemory();
  private final String name;

  ScriptRunner(String name) {
    this.name = name;
  }

  static void runResource(String resource) throws IOException {
    try (InputStream in = ScriptRunner.class.getResourceAsStream("/promql/" + resource)) {
      if (in == null) {
        throw new IOException("no resource " + resource);
      }
      new ScriptRunner(resource).run(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
  }

  void run(String script) {
    String[] lines = script.split("\n");
    int i = 0;
    while (i < lines.length) {
      String line = lines[i].strip();
      int lineNo = i + 1;
      i++;
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      List<String> body = new ArrayList<>();
      while (i < lines.length && (lines[i].startsWith(" ") || lines[i].startsWith("\t"))
          && !lines[i].isBlank()) {
        body.add(lines[i].strip());
        i++;
      }
      String where = name + ":" + lineNo + ": " + line;
      try {
        if (line.startsWith("load ")) {
          load(Parser.parseDuration(line.substring(5).strip()), body);
        } else if (line.equals("clear")) {
          db = Db.inMemory();
        } else if (line.startsWith("eval")) {
          eval(line, body, where);
        } else {
          fail("unknown command " + where);
        }
      } catch (AssertionError e) {
        throw new AssertionError(where + "\n" + e.getMessage(), e);
      } catch (RuntimeException e) {
        throw new AssertionError(where + "\nunexpected " + e, e);
      }
    }
  }

  private void load(long interval, List<String> body) {
    Appender app = db.appender();
    for (String l : body) {
      int split = seriesEnd(l);
      Labels labels = parseSeries(l.substring(0, split));
      List<Double> values = SeriesNotation.expand(l.substring(split));
      for (int idx = 0; idx < values.size(); idx++) {
        if (values.get(idx) != null) {
          app.append(labels, idx * interval, values.get(idx));
        }
      }
    }
    app.commit();
  }

  private static double num(String s) {
    return Functions.parseGoFloat(s);
  }

  private static int seriesEnd(String l) {
    int brace = l.indexOf('{');
    int space = l.indexOf(' ');
    if (brace >= 0 && (space < 0 || brace < space)) {
      return l.indexOf('}') + 1;
    }
    return space < 0 ? l.length() : space;
  }

  static Labels parseSeries(String s) {
    s = s.strip();
    if (s.equals("{}")) {
      return Labels.EMPTY;
    }
    Expr e = Parser.parse(s);
    Expr.VectorSelector vs = (Expr.VectorSelector) e;
    Labels.Builder b = Labels.builder();
    for (Matcher m : vs.matchers()) {
      b.set(m.name(), m.value());
    }
    return b.build();
  }

  private void eval(String line, List<String> body, String where) {
    boolean expectFail = line.startsWith("eval_fail");
    boolean ordered = line.startsWith("eval_ordered");
    String rest = line.substring(line.indexOf(' ') + 1).strip();
    if (rest.startsWith("instant at ")) {
      rest = rest.substring("instant at ".length());
      int sp = rest.indexOf(' ');
      long t = time(rest.substring(0, sp));
      String query = rest.substring(sp + 1);
      Value v;
      try {
        v = engine.instantQuery(db, query, t);
      } catch (ParseException | QueryException e) {
        if (expectFail) {
          if (!body.isEmpty() && body.get(0).startsWith("expected_fail_message ")) {
            assertEquals(body.get(0).substring("expected_fail_message ".length()), e.getMessage());
          }
          return;
        }
        throw e;
      }
      if (expectFail) {
        fail("expected failure, got " + v);
      }
      checkInstant(v, body, ordered);
    } else if (rest.startsWith("range from ")) {
      String[] p = rest.split("\\s+", 7);
      long start = time(p[2]);
      long end = time(p[4]);
      long step = Parser.parseDuration(p[6].split("\\s+")[0]);
      String query = p[6].substring(p[6].indexOf(' ') + 1);
      Value.Matrix m;
      try {
        m = engine.rangeQuery(db, query, start, end, step);
      } catch (ParseException | QueryException e) {
        if (expectFail) {
          return;
        }
        throw e;
      }
      if (expectFail) {
        fail("expected failure, got " + m);
      }
      checkRange(m, body, start, step);
    } else {
      fail("bad eval " + where);
    }
  }

  private static long time(String s) {
    if (s.matches("\\d+")) {
      return Long.parseLong(s) * 1000;
    }
    return Parser.parseDuration(s);
  }

  private static void checkInstant(Value v, List<String> body, boolean ordered) {
    if (v instanceof Value.Scalar s) {
      assertEquals(1, body.size(), "scalar result " + s.v());
      assertClose(num(body.get(0)), s.v(), "scalar");
      return;
    }
    if (v instanceof Value.StringValue s) {
      assertEquals(body.get(0), "\"" + s.v() + "\"");
      return;
    }
    if (v instanceof Value.Matrix m) {
      Map<Labels, String> expected = new HashMap<>();
      for (String l : body) {
        int split = seriesEnd(l);
        expected.put(parseSeries(l.substring(0, split)), l.substring(split).strip());
      }
      assertEquals(expected.size(), m.series().size(), "series count: " + m.series());
      for (Value.Series s : m.series()) {
        String exp = expected.get(s.labels());
        assertTrue(exp != null, "unexpected series " + s.labels());
        String[] vals = exp.split("\\s+");
        assertEquals(vals.length, s.vs().length, "points of " + s.labels());
        for (int k = 0; k < vals.length; k++) {
          assertClose(num(vals[k]), s.vs()[k], s.labels().toString());
        }
      }
      return;
    }
    List<Value.Sample> samples = ((Value.Vector) v).samples();
    List<Labels> expLabels = new ArrayList<>();
    List<Double> expValues = new ArrayList<>();
    for (String l : body) {
      int split = seriesEnd(l);
      expLabels.add(parseSeries(l.substring(0, split)));
      expValues.add(num(l.substring(split).strip()));
    }
    assertEquals(expLabels.size(), samples.size(), "result size, got " + samples);
    for (int k = 0; k < samples.size(); k++) {
      Value.Sample s = samples.get(k);
      int idx = ordered ? k : expLabels.indexOf(s.labels());
      assertTrue(idx >= 0, "unexpected sample " + s.labels() + " " + s.v() + " in " + samples);
      assertEquals(expLabels.get(idx), s.labels(), "labels at " + k);
      assertClose(expValues.get(idx), s.v(), s.labels().toString());
    }
  }

  private static void checkRange(Value.Matrix m, List<String> body, long start, long step) {
    Map<Labels, String[]> expected = new HashMap<>();
    for (String l : body) {
      int split = seriesEnd(l);
      expected.put(parseSeries(l.substring(0, split)), l.substring(split).strip().split("\\s+"));
    }
    assertEquals(expected.size(), m.series().size(), "series: " + m.series().stream().map(Value.Series::labels)
        .toList());
    for (Value.Series s : m.series()) {
      String[] exp = expected.get(s.labels());
      assertTrue(exp != null, "unexpected series " + s.labels());
      int p = 0;
      for (int k = 0; k < exp.length; k++) {
        if (exp[k].equals("_")) {
          continue;
        }
        long t = start + k * step;
        assertTrue(p < s.ts().length && s.ts()[p] == t, s.labels() + ": expected point at " + t + " got "
            + java.util.Arrays.toString(s.ts()));
        assertClose(num(exp[k]), s.vs()[p], s.labels() + "@" + t);
        p++;
      }
      assertEquals(p, s.ts().length, "extra points for " + s.labels());
    }
  }

  static void assertClose(double expected, double actual, String what) {
    if (Double.isNaN(expected) && Double.isNaN(actual)) {
      return;
    }
    if (expected == actual) {
      return;
    }
    double diff = Math.abs(expected - actual);
    assertTrue(diff <= 1e-9 * Math.max(Math.abs(expected), Math.abs(actual)) || diff < 1e-12,
        what + ": expected " + expected + " got " + actual);
  }
}
