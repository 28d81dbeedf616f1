package io.sluice.metrics.differential;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The queries both servers answer: every function, aggregation, operator and modifier of Prometheus 2.42's PromQL
 * (native histograms aside), over ordinary data and over NaN, ±Inf, empty vectors, stale series and label-matching
 * corners, and queries both must refuse the same way.
 */
final class DifferentialCorpus {
  private DifferentialCorpus() {}

  /** Prometheus 2.42's functions (promql/parser/functions.go) less the three that read native histograms. */
  static final List<String> FUNCTIONS = List.of("abs", "absent", "absent_over_time", "acos", "acosh", "asin", "asinh",
      "atan", "atanh", "avg_over_time", "ceil", "changes", "clamp", "clamp_max", "clamp_min", "cos", "cosh",
      "count_over_time", "days_in_month", "day_of_month", "day_of_week", "day_of_year", "deg", "delta", "deriv", "exp",
      "floor", "histogram_quantile", "holt_winters", "hour", "idelta", "increase", "irate", "label_replace",
      "label_join", "last_over_time", "ln", "log10", "log2", "max_over_time", "min_over_time", "minute", "month", "pi",
      "predict_linear", "present_over_time", "quantile_over_time", "rad", "rate", "resets", "round", "scalar", "sgn",
      "sin", "sinh", "sort", "sort_desc", "sqrt", "stddev_over_time", "stdvar_over_time", "sum_over_time", "tan",
      "tanh", "time", "timestamp", "vector", "year");

  static final List<String> AGGREGATIONS = List.of("sum", "avg", "min", "max", "count", "group", "stddev", "stdvar",
      "count_values", "topk", "bottomk", "quantile");

  /** Operators and modifiers, each as it appears in a query. */
  static final List<String> OPERATORS = List.of(" + ", " - ", " * ", " / ", " % ", " ^ ", " atan2 ", " == ", " != ",
      " > ", " < ", " >= ", " <= ", " and ", " or ", " unless ", " bool ", "on(", "ignoring(", "group_left",
      "group_right", " offset ", " @ ", "start()", "end()", ":", " by (", " without (");

  static final String COUNTER = "dt_requests_total";
  static final String GAUGE = "dt_temperature";

  static List<String> queries(long t0, long tend) {
    Set<String> q = new LinkedHashSet<>();
    overTime(q);
    math(q);
    calendar(q, t0);
    aggregations(q);
    operators(q);
    matching(q);
    labels(q);
    histograms(q);
    selectors(q, t0, tend);
    absentAndEmpty(q);
    errors(q);
    return new ArrayList<>(q);
  }

  private static void overTime(Set<String> q) {
    List<String> selectors = List.of(COUNTER, GAUGE + "{job=\"api\"}", "dt_special", "dt_stale", "dt_jitter");
    for (String f : List.of("rate", "irate", "increase", "delta", "idelta", "deriv", "changes", "resets",
        "avg_over_time", "min_over_time", "max_over_time", "sum_over_time", "count_over_time", "last_over_time",
        "stddev_over_time", "stdvar_over_time", "present_over_time", "absent_over_time")) {
      for (String sel : selectors) {
        for (String range : List.of("1m", "5m", "17m")) {
          q.add(f + "(" + sel + "[" + range + "])");
        }
      }
      // A window with one sample, and one that no sample reaches.
      q.add(f + "(" + COUNTER + "[15s])");
      q.add(f + "(" + COUNTER + "[1s])");
      q.add(f + "(dt_stale[30s] offset 1m)");
      q.add(f + "(" + GAUGE + "[10m:1m])");
      q.add(f + "(dt_special[5m:45s])");
    }
    for (String p : List.of("-1", "0", "0.25", "0.5", "0.9", "1", "2", "NaN")) {
      q.add("quantile_over_time(" + p + ", " + GAUGE + "[10m])");
      q.add("quantile_over_time(" + p + ", dt_special[10m])");
    }
    q.add("quantile_over_time(scalar(dt_queue_depth{instance=\"i0\"}) / 5, " + GAUGE + "[10m])");
    for (String f : List.of("0.1, 0.9", "0.5, 0.5", "0.9, 0.1", "0.01, 0.99")) {
      q.add("holt_winters(" + GAUGE + "[10m], " + f + ")");
      q.add("holt_winters(dt_special[10m], " + f + ")");
      q.add("holt_winters(" + COUNTER + "[30s], " + f + ")");
    }
    for (String bad : List.of("0, 0.5", "1, 0.5", "0.5, 0", "0.5, 1", "-1, 2", "NaN, 0.5", "0.5, NaN")) {
      q.add("holt_winters(" + GAUGE + "[10m], " + bad + ")");
    }
    q.add("holt_winters(nonexistent[10m], 2, 2)");
    q.add("holt_winters(rate(" + COUNTER + "[5m])[30m:1m], 0.3, 0.3)");
    q.add("holt_winters(" + GAUGE + "[10m], scalar(dt_queue_depth{instance=\"i0\"}) / 10, 0.5)");
    q.add("predict_linear(rate(" + COUNTER + "[5m])[30m:1m], 600)");
    q.add("deriv(dt_stale[10m:30s])");
    for (String d : List.of("600", "-300", "0", "NaN", "Inf")) {
      q.add("predict_linear(" + GAUGE + "[10m], " + d + ")");
      q.add("predict_linear(dt_special[10m], " + d + ")");
    }
    q.add("predict_linear(" + COUNTER + "[30m] offset 10m, 3600)");
    q.add("deriv(dt_special{kind=\"zero\"}[10m])");
    q.add("rate(dt_stale{phase=\"flaps\"}[2m])");
    q.add("count_over_time(dt_stale[1h])");
    q.add("last_over_time(dt_stale[10m])");
  }

  private static void math(Set<String> q) {
    List<String> inputs = List.of(GAUGE + " - 50", "dt_special", "-dt_special", "dt_special / 1e3", "dt_queue_depth / 5",
        "dt_collide_a");
    for (String f : List.of("abs", "ceil", "floor", "exp", "sqrt", "ln", "log2", "log10", "sgn", "sin", "cos", "tan",
        "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "deg", "rad", "round")) {
      for (String in : inputs) {
        q.add(f + "(" + in + ")");
      }
      q.add(f + "(nonexistent)");
    }
    for (String to : List.of("0.25", "3", "-2", "0", "NaN", "Inf", "1e-300")) {
      q.add("round(" + GAUGE + ", " + to + ")");
      q.add("round(dt_special, " + to + ")");
    }
    q.add("round(" + GAUGE + " * 2 + 0.5)");
    q.add("round(-2.5 + dt_queue_depth * 0)");
    for (String[] b : new String[][] {{"20", "60"}, {"60", "20"}, {"-Inf", "Inf"}, {"NaN", "10"}, {"10", "NaN"},
        {"40", "40"}}) {
      q.add("clamp(" + GAUGE + ", " + b[0] + ", " + b[1] + ")");
      q.add("clamp(dt_special, " + b[0] + ", " + b[1] + ")");
    }
    for (String b : List.of("40", "NaN", "Inf", "-Inf")) {
      q.add("clamp_min(" + GAUGE + ", " + b + ")");
      q.add("clamp_max(" + GAUGE + ", " + b + ")");
      q.add("clamp_min(dt_special, " + b + ")");
      q.add("clamp_max(dt_special, " + b + ")");
    }
    q.add("pi()");
    q.add("pi() * 2");
    q.add(GAUGE + " * pi()");
    q.add("time()");
    q.add("time() - 3600");
    q.add("vector(time())");
    q.add("vector(pi())");
    q.add("vector(NaN)");
    q.add("vector(-Inf)");
    for (String v : List.of("1", "-1", "0.5", "-0.5", "2", "1e300", "-1e-300", "NaN", "Inf", "-Inf", "0", "-0")) {
      for (String f : List.of("asinh", "acosh", "atanh", "sinh", "cosh", "tanh", "asin", "acos", "atan", "exp", "ln",
          "sgn", "sqrt", "tan", "deg", "rad")) {
        q.add(f + "(vector(" + v + "))");
      }
    }
  }

  private static void calendar(Set<String> q, long t0) {
    List<String> fs = List.of("year", "month", "day_of_month", "day_of_year", "day_of_week", "days_in_month", "hour",
        "minute");
    for (String f : fs) {
      q.add(f + "()");
      q.add(f + "(timestamp(" + GAUGE + "))");
      q.add(f + "(dt_special)");
      q.add(f + "(nonexistent)");
      q.add(f + "(" + GAUGE + " * 1e7)");
      for (String v : List.of("NaN", "Inf", "-Inf", "1e18", "-1e18", "-1.5", "951782400", "951868800", "4107542400",
          "1e10", "-62135596801", "253402300800", "9.2e18", "-9.3e18", "1709251199.999")) {
        q.add(f + "(vector(" + v + "))");
      }
    }
    q.add("sum_over_time(minute()[50m:1m])");
    q.add("hour() - hour(vector(time()))");
    q.add("minute(" + GAUGE + " @ " + (t0 / 1000 + 1500) + ")");
    q.add("day_of_week() + day_of_month() * 10");
  }

  private static void aggregations(Set<String> q) {
    List<String> inputs = List.of(COUNTER, GAUGE, "dt_special", "rate(" + COUNTER + "[5m])", "nonexistent",
        "dt_stale", "dt_labels");
    List<String> groupings = List.of("", " by (job)", " without (instance)", " by (__name__)", " by (nonexistent)",
        " without (__name__, kind)", " by ()");
    for (String agg : List.of("sum", "avg", "min", "max", "count", "group", "stddev", "stdvar")) {
      for (String in : inputs) {
        for (String g : groupings) {
          q.add(agg + g + " (" + in + ")");
        }
      }
      q.add(agg + "(" + GAUGE + ") by (job, instance)");
      q.add(agg + "(dt_special{kind=\"inf\"} or dt_special{kind=\"nan\"})");
    }
    for (String k : List.of("0", "1", "2", "3", "100", "-1", "NaN", "1e20", "1.5", "Inf", "9.2e18")) {
      q.add("topk(" + k + ", " + GAUGE + ")");
      q.add("bottomk(" + k + ", " + GAUGE + ")");
      q.add("topk(" + k + ", dt_special)");
      q.add("bottomk(" + k + ", dt_special)");
    }
    for (String k : List.of("1", "3")) {
      q.add("topk by (job) (" + k + ", " + GAUGE + ")");
      q.add("bottomk without (instance) (" + k + ", rate(" + COUNTER + "[5m]))");
      q.add("topk(" + k + ", dt_queue_depth)");
      q.add("bottomk(" + k + ", dt_queue_depth)");
      q.add("topk(" + k + ", dt_build_info)");
      q.add("bottomk(" + k + ", dt_build_info)");
    }
    q.add("topk(scalar(dt_queue_depth{instance=\"i0\"}), " + GAUGE + ")");
    for (String p : List.of("-0.5", "0", "0.1", "0.5", "0.99", "1", "1.5", "NaN")) {
      q.add("quantile(" + p + ", " + GAUGE + ")");
      q.add("quantile by (job) (" + p + ", rate(" + COUNTER + "[5m]))");
      q.add("quantile(" + p + ", dt_special)");
      q.add("quantile(" + p + ", nonexistent)");
    }
    for (String l : List.of("\"depth\"", "\"job\"", "\"__name__\"", "\"instance\"", "\"bad-label\"", "\"\"")) {
      q.add("count_values(" + l + ", dt_queue_depth)");
      q.add("count_values by (job) (" + l + ", dt_queue_depth)");
      q.add("count_values without (instance) (" + l + ", dt_queue_depth)");
      q.add("count_values(" + l + ", dt_special)");
    }
    q.add("count_values without (depth) (\"depth\", dt_queue_depth)");
    q.add("count_values(\"v\", " + GAUGE + " * 1e25)");
    q.add("count_values(\"v\", vector(1e-7))");
    q.add("sum(sum by (job) (" + COUNTER + "))");
    q.add("max by (mode) (rate(" + COUNTER + "[5m])) / min by (mode) (rate(" + COUNTER + "[5m]))");
  }

  private static void operators(Set<String> q) {
    for (String op : List.of("+", "-", "*", "/", "%", "^", "atan2")) {
      q.add(GAUGE + " " + op + " 3");
      q.add("2 " + op + " " + GAUGE);
      q.add("dt_special " + op + " dt_special");
      q.add("dt_special " + op + " 0");
      q.add("0 " + op + " dt_special");
      q.add("dt_special " + op + " -Inf");
      q.add("NaN " + op + " dt_special");
      q.add(GAUGE + " " + op + " on(instance) dt_queue_depth");
      q.add(GAUGE + " " + op + " ignoring(job) dt_queue_depth");
      q.add("rate(" + COUNTER + "[5m]) " + op + " ignoring(mode) group_left rate(" + COUNTER + "{mode=\"read\"}[5m])");
      q.add("3 " + op + " 2");
      q.add("-7 " + op + " 0");
      q.add("Inf " + op + " -Inf");
      q.add("-1 " + op + " Inf");
      q.add("1 " + op + " NaN");
      q.add(GAUGE + " " + op + " nonexistent");
      q.add("dt_special{kind=\"extreme\"} " + op + " ignoring(kind) dt_special{kind=\"inf\"}");
    }
    for (String op : List.of("==", "!=", ">", "<", ">=", "<=")) {
      q.add(GAUGE + " " + op + " 50");
      q.add("50 " + op + " " + GAUGE);
      q.add(GAUGE + " " + op + " bool 50");
      q.add("50 " + op + " bool " + GAUGE);
      q.add("dt_special " + op + " 0");
      q.add("dt_special " + op + " bool NaN");
      q.add("dt_special " + op + " dt_special");
      q.add("dt_special " + op + " bool dt_special");
      q.add("1 " + op + " bool 2");
      q.add("NaN " + op + " bool NaN");
      q.add("Inf " + op + " bool Inf");
      q.add("dt_queue_depth " + op + " on(instance) dt_queue_depth offset 5m");
      q.add("dt_queue_depth " + op + " bool ignoring(job) group_left dt_build_info");
      q.add("dt_queue_depth " + op + " bool on(instance) group_left(version) dt_build_info");
      q.add(GAUGE + " " + op + " " + GAUGE + " offset 1m");
    }
    q.add("dt_queue_depth * on(instance) group_left(version) dt_build_info");
    q.add("dt_build_info * on(instance) group_right(version) dt_queue_depth");
    q.add(COUNTER + " / on(job, instance) group_left sum by (job, instance) (" + COUNTER + ")");
    q.add("sum by (instance) (" + COUNTER + ") / on(instance) group_right sum by (instance, mode) (" + COUNTER + ")");
    q.add(GAUGE + " and " + GAUGE + " > 50");
    q.add(GAUGE + " or dt_queue_depth");
    q.add(GAUGE + " unless on(instance) dt_queue_depth > 2");
    q.add(COUNTER + " and on(instance) dt_build_info{version=\"v1\"}");
    q.add("dt_queue_depth or on(job) " + GAUGE);
    q.add("dt_queue_depth or ignoring(instance) " + GAUGE);
    q.add("dt_special and dt_special > 0");
    q.add("dt_special unless dt_special");
    q.add("dt_special or vector(1)");
    q.add("vector(1) or dt_special");
    q.add("nonexistent or " + GAUGE);
    q.add(GAUGE + " and nonexistent");
    q.add(GAUGE + " unless nonexistent");
    q.add("dt_collide_a or dt_collide_b");
    q.add("dt_collide_a and on(x) dt_collide_b");
    q.add("dt_collide_a unless ignoring(__name__) dt_collide_b");
    q.add("(dt_collide_a or dt_collide_b) + 1");
    q.add(GAUGE + " and on() vector(1)");
    q.add(GAUGE + " unless on() nonexistent");
    q.add("1 + 2 * 3 - 4 / 2 ^ 2 ^ 0.5");
    q.add("2 ^ 3 ^ 2");
    q.add("-2 ^ 2");
    q.add("1 - 2 - 3");
    q.add("10 / 2 * 5 % 3");
    q.add("-" + GAUGE + " + 2 * -3");
    q.add("-" + GAUGE);
    q.add("+" + GAUGE);
    q.add("-(-" + GAUGE + ")");
    q.add("(" + GAUGE + " + 1) * 2 > bool 100 or vector(7)");
    q.add(GAUGE + " > 40 < 60");
    q.add(GAUGE + " > bool 40 == bool 1");
    q.add("1 atan2 " + GAUGE + " atan2 2");
    q.add("dt_queue_depth % 2 == 1");
    q.add("dt_queue_depth % -2");
    q.add("-dt_queue_depth % 3");
    q.add("dt_special % Inf");
    q.add("(-1) ^ 0.5");
    q.add("0 ^ -1");
    q.add("(-8) ^ (1/3)");
    q.add("-1 ^ Inf");
    q.add("1 ^ NaN");
    q.add("NaN ^ 0");
    q.add("dt_special ^ 0");
    q.add("dt_special ^ 1");
    q.add("-Inf ^ -Inf");
    q.add("(-0) ^ -3");
    q.add("1 / 0");
    q.add("-1 / 0");
    q.add("0 / 0");
    q.add("-0 * 1");
    q.add("5 % -3");
    q.add("-5 % 3");
    q.add("5.5 % 2");
    q.add("Inf % 2");
    q.add("2 % Inf");
    q.add("0 atan2 -0");
    q.add("-0 atan2 -1");
  }

  private static void matching(Set<String> q) {
    // Duplicates on the "one" side, ambiguous one-to-one, and results that collide.
    q.add(GAUGE + " * on(job) dt_queue_depth");
    q.add(GAUGE + " * on(job) group_left dt_queue_depth");
    q.add(GAUGE + " * on(job) group_right dt_queue_depth");
    q.add("dt_queue_depth * on(instance) dt_build_info");
    q.add("dt_queue_depth * ignoring(job) dt_build_info");
    q.add("dt_queue_depth * on(instance) group_left(version, instance) dt_build_info");
    q.add("dt_queue_depth * on(instance) group_left(job) dt_build_info");
    q.add("dt_queue_depth * on(instance) group_left(nonexistent) dt_build_info");
    q.add("dt_queue_depth * on(instance) group_left(__name__) dt_build_info");
    q.add("dt_queue_depth > on(instance) group_left(__name__) dt_build_info");
    q.add("dt_build_info > on(instance) group_right(__name__) dt_queue_depth");
    q.add("dt_queue_depth + on() group_left vector(1)");
    q.add("vector(1) + on() group_right dt_queue_depth");
    q.add("dt_queue_depth + on() vector(1)");
    q.add("sum(dt_queue_depth) + on() dt_queue_depth");
    q.add(COUNTER + " + on(instance) group_left " + GAUGE);
    q.add(COUNTER + " + on(instance) " + GAUGE);
    q.add(GAUGE + " + on(instance) group_right " + COUNTER);
    q.add(COUNTER + " * on(job, instance, mode) " + COUNTER);
    q.add(COUNTER + " * ignoring(mode) group_left " + COUNTER);
    q.add("dt_collide_a + dt_collide_b");
    q.add("dt_collide_a + ignoring(__name__) dt_collide_b");
    q.add("dt_collide_a > dt_collide_b");
    q.add("dt_collide_a == bool on(x) dt_collide_b");
    q.add("{__name__=~\"dt_collide_.\"} + 0");
    q.add("{__name__=~\"dt_collide_.\"} > 0");
    q.add("{__name__=~\"dt_collide_.\"} * on(x) group_left vector(1)");
    q.add("{__name__=~\"dt_collide_.\", x=\"1\"} and on(x) dt_collide_a");
    q.add("dt_build_info * on (instance) group_left(mode) " + COUNTER);
    q.add("dt_labels * on(v) dt_labels");
    q.add("dt_labels{v=~\"x.y\"} + on(k) group_left(v) dt_labels");
    q.add("dt_stale + on(phase) dt_stale offset 2m");
    q.add("count by (job) (" + GAUGE + ") * on(job) group_right sum by (job, instance) (" + GAUGE + ")");
  }

  private static void labels(Set<String> q) {
    q.add("label_replace(" + GAUGE + ", \"host\", \"h-$1\", \"instance\", \"i(.*)\")");
    q.add("label_replace(" + GAUGE + ", \"instance\", \"\", \"instance\", \".*\")");
    q.add("label_replace(" + GAUGE + ", \"x\", \"$2\", \"instance\", \"(i)(.)\")");
    q.add("label_replace(" + GAUGE + ", \"x\", \"$1x\", \"instance\", \"(i)(.)\")");
    q.add("label_replace(" + GAUGE + ", \"x\", \"${1}x\", \"instance\", \"(i)(.)\")");
    q.add("label_replace(" + GAUGE + ", \"x\", \"$$1 ${bad $\", \"instance\", \"(i)(.)\")");
    q.add("label_replace(" + GAUGE + ", \"x\", \"${ 1} $01 $10 $name\", \"instance\", \"(?P<name>i)(.)\")");
    q.add("label_replace(" + GAUGE + ", \"x\", \"$3\", \"instance\", \"(i)(.)|(zzz)\")");
    q.add("label_replace(" + GAUGE + ", \"__name__\", \"renamed\", \"instance\", \"i0\")");
    q.add("label_replace(" + GAUGE + ", \"__name__\", \"\", \"\", \"\")");
    q.add("label_replace(" + GAUGE + ", \"job\", \"same\", \"\", \"\")");
    q.add("label_replace(" + GAUGE + ", \"x\", \"y\", \"nonexistent\", \"\")");
    q.add("label_replace(" + GAUGE + ", \"x\", \"y\", \"nonexistent\", \".+\")");
    q.add("label_replace(" + GAUGE + ", \"x\", \"y\", \"instance\", \"(\")");
    q.add("label_replace(" + GAUGE + ", \"bad-name\", \"y\", \"instance\", \".*\")");
    q.add("label_replace(nonexistent, \"bad-name\", \"y\", \"instance\", \".*\")");
    q.add("label_replace(dt_labels, \"m\", \"$1\", \"v\", \"(.*)\")");
    q.add("label_replace(dt_labels, \"m\", \"yes\", \"v\", \"x.y\")");
    q.add("label_replace(dt_labels, \"m\", \"yes\", \"v\", \"line.break\")");
    q.add("label_replace(dt_labels, \"m\", \"yes\", \"v\", \"(?s)line.break\")");
    q.add("label_replace(dt_labels, \"m\", \"$1\", \"v\", \"(.)\\\\p{L}.*\")");
    q.add("label_replace(dt_labels, \"k\", \"same\", \"\", \"\")");
    q.add("label_replace(dt_labels, \"v\", \"x\", \"v\", \"x.y|xzy\")");
    q.add("label_join(" + GAUGE + ", \"both\", \"/\", \"job\", \"instance\")");
    q.add("label_join(" + GAUGE + ", \"job\", \"\", \"instance\")");
    q.add("label_join(" + GAUGE + ", \"job\", \"-\")");
    q.add("label_join(" + GAUGE + ", \"job\", \"-\", \"nonexistent\")");
    q.add("label_join(" + GAUGE + ", \"job\", \"-\", \"nonexistent\", \"nonexistent2\")");
    q.add("label_join(" + GAUGE + ", \"__name__\", \"_\", \"__name__\", \"job\")");
    q.add("label_join(" + GAUGE + ", \"x\", \"-\", \"job\", \"bad-name\")");
    q.add("label_join(" + GAUGE + ", \"bad-name\", \"-\", \"job\")");
    q.add("label_join(dt_labels, \"j\", \"|\", \"v\", \"k\", \"v\")");
    q.add("label_join(dt_collide_a, \"x\", \"\", \"nonexistent\")");
  }

  private static void histograms(Set<String> q) {
    for (String p : List.of("-1", "0", "0.1", "0.5", "0.99", "1", "2", "NaN")) {
      q.add("histogram_quantile(" + p + ", rate(dt_latency_seconds_bucket[5m]))");
      q.add("histogram_quantile(" + p + ", sum by (le) (rate(dt_latency_seconds_bucket[10m])))");
      q.add("histogram_quantile(" + p + ", dt_odd_bucket)");
      q.add("histogram_quantile(" + p + ", rate(dt_odd_bucket[5m]))");
    }
    q.add("histogram_quantile(0.5, {__name__=~\"dt_(latency_seconds|odd)_bucket\"})");
    q.add("histogram_quantile(0.5, label_replace(dt_latency_seconds_bucket, \"__name__\", \"other\", \"instance\","
        + " \"i1\"))");
    q.add("histogram_quantile(0.5, nonexistent)");
    q.add("histogram_quantile(0.5, " + GAUGE + ")");
    q.add("histogram_quantile(0.5, dt_latency_seconds_bucket * 0)");
    q.add("histogram_quantile(scalar(dt_queue_depth{instance=\"i0\"}) / 5, dt_latency_seconds_bucket)");
  }

  private static void selectors(Set<String> q, long t0, long tend) {
    long t0s = t0 / 1000;
    q.add(GAUGE);
    q.add(GAUGE + " offset 10m");
    q.add(GAUGE + " offset -10m");
    q.add(GAUGE + " offset 1h30m");
    q.add("rate(" + COUNTER + "[5m] offset 30m)");
    q.add(GAUGE + " @ " + (t0s + 3600));
    q.add(GAUGE + " @ " + (t0s + 3600) + ".123");
    q.add("rate(" + COUNTER + "[5m] @ " + (t0s + 3600) + ")");
    q.add(GAUGE + " @ end()");
    q.add(GAUGE + " @ start()");
    q.add("rate(" + COUNTER + "[5m] @ start())");
    q.add("sum_over_time(" + GAUGE + "[10m] @ end() offset 5m)");
    q.add(GAUGE + " offset 5m @ " + (t0s + 3600));
    q.add(GAUGE + " @ " + (t0s + 3600) + " offset -5m");
    q.add(GAUGE + " @ " + (t0s - 3600));
    q.add("-" + GAUGE + " @ " + (t0s + 3600));
    q.add("timestamp(" + GAUGE + " @ " + (t0s + 3600) + ")");
    q.add("timestamp(" + GAUGE + ")");
    q.add("timestamp(" + GAUGE + " offset 7m)");
    q.add("timestamp((" + GAUGE + "))");
    q.add("timestamp(-" + GAUGE + ")");
    q.add("timestamp(" + GAUGE + " + 1)");
    q.add("timestamp(timestamp(" + GAUGE + "))");
    q.add("timestamp(dt_jitter)");
    q.add("timestamp(dt_stale)");
    q.add("timestamp(sum(" + GAUGE + "))");
    q.add("timestamp(vector(1))");
    q.add("timestamp(sort(" + GAUGE + "))");
    q.add("max_over_time(" + GAUGE + "[10m:1m])");
    q.add("max_over_time(rate(" + COUNTER + "[2m])[10m:30s])");
    q.add("avg_over_time(" + GAUGE + "[7m:45s] offset 3m)");
    q.add("rate(" + COUNTER + "[10m:1m])");
    q.add("sum_over_time(sum by (job) (" + GAUGE + ")[15m:2m])");
    q.add("sum_over_time(" + GAUGE + "[10m:] )");
    q.add("sum_over_time(" + GAUGE + "[10m:1m] @ " + (t0s + 3600) + ")");
    q.add("sum_over_time(" + GAUGE + "[10m:1m] @ end())");
    q.add("sum_over_time(" + GAUGE + "[10m:1m] offset -3m)");
    q.add("min_over_time(max_over_time(" + GAUGE + "[5m:1m])[20m:4m])");
    q.add("count_over_time(dt_stale[10m:1m])");
    q.add("last_over_time(dt_stale[10m:10s])");
    q.add("sum_over_time(vector(time())[5m:1m])");
    q.add("sum_over_time(timestamp(" + GAUGE + ")[5m:1m])");
    q.add("sum_over_time(timestamp(timestamp(" + GAUGE + "))[5m:1m])");
    q.add("rate(dt_jitter[1m])");
    q.add("irate(dt_jitter[1m] offset 30s)");
    q.add("rate(dt_jitter[10m:10s])");
    q.add(GAUGE + "[3m]");
    q.add("dt_requests_total[1m] offset 1h");
    q.add("dt_stale[5m]");
    q.add("dt_special[1m]");
    q.add(GAUGE + "[10m:2m]");
    q.add("(" + GAUGE + ")[5m:1m]");
    q.add("dt_jitter[1m] @ " + (t0s + 3000));
    q.add("dt_stale");
    q.add("dt_stale offset 1m");
    q.add("dt_stale @ " + (t0s + DifferentialData.STALE_AT * 15L));
    q.add("dt_stale @ " + (t0s + DifferentialData.STALE_AT * 15L - 1));
    q.add("dt_stale{phase=\"stops\"} @ " + (t0s + DifferentialData.STALE_AT * 15L + 299));
    q.add("dt_stale{phase=\"stops\"} @ " + (t0s + DifferentialData.STALE_AT * 15L + 285));
    q.add("dt_stale{phase=\"stops\"} @ " + (t0s + DifferentialData.STALE_AT * 15L + 300));
    q.add("dt_jitter");
    q.add("dt_special");
    q.add("dt_labels");
    q.add("dt_requests_total{mode=~\"r.*\", instance!~\"i[01]\"}");
    q.add("{__name__=~\"dt_(temperature|queue_depth)\", job=\"db\"}");
    q.add("sum by (__name__) ({__name__=~\"dt_(temperature|queue_depth)\"})");
    q.add("{__name__=\"dt_temperature\"}");
    q.add("dt_temperature{__name__=~\"dt_.*\"}");
    q.add("{job=\"api\", __name__!~\".*bucket\"}");
    q.add("dt_labels{v=~\"x.y\"}");
    q.add("dt_labels{v=~\".*\"}");
    q.add("dt_labels{v=~\"line.break\"}");
    q.add("dt_labels{v=~\"(?s)line.break\"}");
    q.add("dt_labels{v=~\"line\\nbreak\"}");
    q.add("dt_labels{v=\"quote\\\"back\\\\slash\"}");
    q.add("dt_labels{v=~\".*✓\"}");
    q.add("dt_labels{v!~\"x.*\"}");
    q.add("dt_labels{nonexistent=\"\"}");
    q.add("dt_labels{nonexistent!=\"\"}");
    q.add("dt_labels{v=~\"\"}");
    q.add("dt_labels{k=~\"k[0-2]\", k!=\"k1\"}");
    q.add("dt_labels{k=\"k1\", k=\"k2\"}");
    q.add("{__name__=~\"dt_labels|dt_collide_a\", v!=\"\"}");
    q.add("changes(dt_queue_depth[30m])");
    q.add("resets(dt_requests_total[2h])");
    q.add("increase(dt_requests_total{instance=\"i2\"}[15m])");
    q.add("rate(dt_requests_total{instance=\"i2\"}[3m])");
    q.add("1");
    q.add("-1.5e3");
    q.add("0x1F");
    q.add("Inf");
    q.add("-inf");
    q.add("NaN");
    q.add(".5");
    q.add("\"a string\"");
    q.add("'single'");
    q.add("`raw\\n`");
    q.add("\"esc\\u00e9\\x41\\t\"");
  }

  private static void absentAndEmpty(Set<String> q) {
    q.add("absent(nonexistent{job=\"x\"})");
    q.add("absent(" + GAUGE + ")");
    q.add("absent(nonexistent{job=\"x\", job=\"y\"})");
    q.add("absent(nonexistent{job=\"x\", job=~\"y\"})");
    q.add("absent(nonexistent{job=~\"x\", instance!=\"y\", a=\"b\"})");
    q.add("absent({__name__=\"nonexistent\", a=\"b\"})");
    q.add("absent(sum(nonexistent{job=\"x\"}))");
    q.add("absent(nonexistent{job=\"x\"} offset 5m)");
    q.add("absent(nonexistent{job=\"x\"} @ 100)");
    q.add("absent(rate(nonexistent{job=\"x\"}[5m]))");
    q.add("absent(vector(1))");
    q.add("absent(" + GAUGE + " > 1000)");
    q.add("absent(dt_stale{phase=\"ends\"})");
    q.add("absent(nonexistent{job=\"x\"} + 1)");
    q.add("absent_over_time(nonexistent{job=\"x\", a=~\"b\"}[5m])");
    q.add("absent_over_time(" + GAUGE + "[5m])");
    q.add("absent_over_time(nonexistent{job=\"x\"}[5m:1m])");
    q.add("absent_over_time((" + GAUGE + " > 1000)[5m:1m])");
    q.add("absent_over_time(dt_stale{phase=\"ends\"}[1m])");
    q.add("absent_over_time(dt_stale{phase=\"stops\"}[1m])");
    q.add("present_over_time(dt_stale{phase=\"ends\"}[1m])");
    q.add("scalar(sum(" + GAUGE + "))");
    q.add("scalar(" + GAUGE + ")");
    q.add("scalar(nonexistent)");
    q.add("scalar(dt_special{kind=\"nan\"})");
    q.add(GAUGE + " * scalar(dt_queue_depth{instance=\"i0\"})");
    q.add("vector(scalar(nonexistent))");
    q.add("sort(" + GAUGE + " - 50)");
    q.add("sort_desc(" + GAUGE + " - 50)");
    q.add("sort(dt_special)");
    q.add("sort_desc(dt_special)");
    q.add("sort(nonexistent)");
    q.add("sort_desc(rate(" + COUNTER + "[5m]))");
    for (String f : List.of("abs", "ceil", "floor", "round", "absent", "sort", "sort_desc", "timestamp")) {
      q.add(f + "(" + GAUGE + " - 50)");
    }
    q.add("sum(nonexistent) + 1");
    q.add("count(nonexistent)");
    q.add("nonexistent");
    q.add("nonexistent[5m]");
    q.add("rate(nonexistent[5m])");
    q.add("vector(1) and nonexistent");
    q.add("time() + scalar(nonexistent)");
    q.add("topk(2, nonexistent)");
    q.add("count_values(\"x\", nonexistent)");
  }

  private static void errors(Set<String> q) {
    q.add("rate(" + GAUGE + ")");
    q.add("sum(");
    q.add("foo bar");
    q.add("unknown_function(" + GAUGE + ")");
    q.add("abs(" + GAUGE + ", 1)");
    q.add("hour(" + GAUGE + ", " + GAUGE + ")");
    q.add("round(" + GAUGE + ", 1, 2)");
    q.add("label_join(" + GAUGE + ")");
    q.add(GAUGE + "[5m] + 1");
    q.add("\"a\" + 1");
    q.add(GAUGE + "{}");
    q.add("{job=~\".*\"}");
    q.add(GAUGE + " + on(job) group_left(job) " + GAUGE);
    q.add(GAUGE + " and bool " + GAUGE);
    q.add(GAUGE + " + bool 1");
    q.add("1 and 1");
    q.add(GAUGE + " offset");
    q.add(GAUGE + "[5m:1m:1m]");
    q.add("rate(" + GAUGE + "[5m])[10m]");
    q.add(GAUGE + " @ foo()");
    q.add(GAUGE + "[0s]");
    q.add("topk(\"a\", " + GAUGE + ")");
    q.add("count_values(1, " + GAUGE + ")");
    q.add("quantile(" + GAUGE + ")");
    q.add("sum by (job) without (instance) (" + GAUGE + ")");
    q.add(GAUGE + "{job=~\"(\"}");
    q.add("time(1)");
    q.add("pi");
    for (String bad : List.of("sum(a, b)", "sum()", "topk(a)", "foo)", "foo]", "foo[5m", "foo{a=\"b\"", "(foo", "foo[5]",
        "foo[]", "foo[abc]", "x offset 5m [5m]", "x @ 5 [5m]", "(x) offset 5m", "sum(x) @ 5", "-x[5m]", "1 + x[5m]",
        "a and on(x) group_left b", "1 and on(x) group_left vector(1)", "abs(x,)", "foo{a=~\"a**\"}",
        "foo{a=~\"\\\\q\"}", "foo{a:b=\"c\"}", "foo{a!b=\"c\"}", "rate(x[5m])[5m:][1m:]", "\"a\"[5m:]",
        "foo offset 0s", "x[5m:0s]", "x offset 5m offset 1m", "x @ 1 @ 2", "quantile(0.5, \"a\")",
        "label_join(a, \"x\", \"y\", 1)", "hour(foo[5m])", "x{__name__=\"y\"}", "1 < 2", "a + bool b",
        "label_replace(vector(1), \"a\", \"b\", \"c\", \"a**\")", "-\"a\"", "sum by (a) without (b) (c)")) {
      q.add(bad);
    }
    // Accepted, though they look wrong.
    for (String odd : List.of("a + on() 1", "1 + ignoring() " + GAUGE, "x{}", "foo{a=\"b\",}", "rate((" + COUNTER
        + "[5m]))", "sum(" + GAUGE + ") without ()", "(((" + GAUGE + ")))")) {
      q.add(odd);
    }
  }
}
