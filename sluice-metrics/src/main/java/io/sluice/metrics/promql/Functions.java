package io.sluice.metrics.promql;

import io.sluice.gofmt.GoFloat;
import io.sluice.metrics.model.Labels;
import io.sluice.metrics.model.Matcher;
import io.sluice.metrics.promql.Evaluator.Result;
import io.sluice.metrics.promql.Evaluator.Window;
import io.sluice.metrics.promql.parser.Expr;
import io.sluice.metrics.promql.parser.ValueType;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.DoubleUnaryOperator;
import java.util.function.LongUnaryOperator;
import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;

/** Every PromQL function's evaluation: one entry per function in one table. */
final class Functions {
  private Functions() {}

  @FunctionalInterface
  private interface Impl {
    Result apply(Evaluator ev, Expr.Call call, List<Result> args, long t);
  }

  /** A function of one range window; NaN-free "no result" is signalled by returning null. */
  @FunctionalInterface
  interface OverTime {
    Double apply(Window w, double[] params, long[] range);
  }

  private static final Map<String, Impl> TABLE = new HashMap<>();
  /** The functions of one range window, for the engine's series-by-series evaluation of range queries. */
  private static final Map<String, OverTime> OVER_TIME = new HashMap<>();
  private static final Set<String> KEEPS_NAME = new HashSet<>();

  static {
    simple("abs", Math::abs);
    simple("ceil", Math::ceil);
    simple("floor", Math::floor);
    simple("exp", Math::exp);
    simple("sqrt", Math::sqrt);
    simple("ln", Functions::goLog);
    simple("log2", Functions::goLog2);
    simple("log10", v -> goLog(v) * (1 / Math.log(10)));
    simple("sgn", v -> Double.isNaN(v) ? v : Math.signum(v));
    simple("sin", Math::sin);
    simple("cos", Math::cos);
    simple("tan", Math::tan);
    simple("asin", Math::asin);
    simple("acos", Math::acos);
    simple("atan", Math::atan);
    simple("sinh", Math::sinh);
    simple("cosh", Math::cosh);
    simple("tanh", Math::tanh);
    simple("asinh", Functions::asinh);
    simple("acosh", Functions::acosh);
    simple("atanh", Functions::atanh);
    simple("rad", v -> v * Math.PI / 180);
    simple("deg", v -> v * 180 / Math.PI);
    TABLE.put("pi", (ev, c, a, t) -> Result.scalar(Math.PI));

    calendar("year", abs -> GoCalendar.date(abs)[0]);
    calendar("month", abs -> GoCalendar.date(abs)[1]);
    calendar("day_of_month", abs -> GoCalendar.date(abs)[2]);
    calendar("day_of_year", abs -> GoCalendar.date(abs)[3] + 1);
    calendar("day_of_week", GoCalendar::weekday);
    calendar("days_in_month", GoCalendar::daysInMonth);
    calendar("hour", GoCalendar::hour);
    calendar("minute", GoCalendar::minute);

    overTime("rate", true, (w, p, r) -> extrapolatedRate(w, r, true, true));
    overTime("increase", true, (w, p, r) -> extrapolatedRate(w, r, true, false));
    overTime("delta", true, (w, p, r) -> extrapolatedRate(w, r, false, false));
    overTime("irate", true, (w, p, r) -> instantValue(w, true));
    overTime("idelta", true, (w, p, r) -> instantValue(w, false));
    overTime("deriv", true, (w, p, r) -> w.size() < 2 ? null : linearRegression(w, w.ts()[w.from()])[0]);
    overTime("changes", true, (w, p, r) -> {
      int c = 0;
      for (int i = w.from() + 1; i < w.to(); i++) {
        double prev = w.vs()[i - 1];
        double cur = w.vs()[i];
        if (cur != prev && !(Double.isNaN(cur) && Double.isNaN(prev))) {
          c++;
        }
      }
      return (double) c;
    });
    overTime("resets", true, (w, p, r) -> {
      int c = 0;
      for (int i = w.from() + 1; i < w.to(); i++) {
        if (w.vs()[i] < w.vs()[i - 1]) {
          c++;
        }
      }
      return (double) c;
    });
    overTime("avg_over_time", true, (w, p, r) -> Aggregations.mean(w.vs(), w.from(), w.to()));
    overTime("sum_over_time", true, (w, p, r) -> {
      double sum = 0;
      double c = 0;
      for (int i = w.from(); i < w.to(); i++) {
        double[] k = Aggregations.kahanInc(w.vs()[i], sum, c);
        sum = k[0];
        c = k[1];
      }
      return Double.isInfinite(sum) ? sum : sum + c;
    });
    overTime("count_over_time", true, (w, p, r) -> (double) w.size());
    overTime("min_over_time", true, (w, p, r) -> {
      double m = w.vs()[w.from()];
      for (int i = w.from(); i < w.to(); i++) {
        if (m > w.vs()[i] || Double.isNaN(m)) {
          m = w.vs()[i];
        }
      }
      return m;
    });
    overTime("max_over_time", true, (w, p, r) -> {
      double m = w.vs()[w.from()];
      for (int i = w.from(); i < w.to(); i++) {
        if (m < w.vs()[i] || Double.isNaN(m)) {
          m = w.vs()[i];
        }
      }
      return m;
    });
    overTime("last_over_time", false, (w, p, r) -> w.vs()[w.to() - 1]);
    overTime("stddev_over_time", true, (w, p, r) -> Math.sqrt(Aggregations.variance(w.vs(), w.from(), w.to())));
    overTime("stdvar_over_time", true, (w, p, r) -> Aggregations.variance(w.vs(), w.from(), w.to()));
    overTime("present_over_time", true, (w, p, r) -> 1.0);
    overTime("quantile_over_time", true, (w, p, r) -> {
      double[] vals = new double[w.size()];
      System.arraycopy(w.vs(), w.from(), vals, 0, vals.length);
      return Aggregations.quantile(p[0], vals);
    });
    overTime("holt_winters", true, (w, p, r) -> holtWinters(w, p[0], p[1]));
    overTime("predict_linear", true, (w, p, r) -> {
      if (w.size() < 2) {
        return null;
      }
      double[] si = linearRegression(w, r[2]);
      return si[1] + si[0] * p[0];
    });

    TABLE.put("absent_over_time", (ev, c, a, t) -> a.get(0).matrix().isEmpty()
        ? absent(c.args().get(0), t) : Result.vector(List.of()));
    TABLE.put("absent", (ev, c, a, t) -> a.get(0).vector().isEmpty()
        ? absent(c.args().get(0), t) : Result.vector(List.of()));
    TABLE.put("time", (ev, c, a, t) -> Result.scalar(t / 1000.0));
    TABLE.put("vector", (ev, c, a, t) -> Result.vector(List.of(new Value.Sample(Labels.EMPTY, t, a.get(0).scalar()))));
    TABLE.put("scalar", (ev, c, a, t) -> Result.scalar(a.get(0).vector().size() == 1
        ? a.get(0).vector().get(0).v() : Double.NaN));
    TABLE.put("timestamp", (ev, c, a, t) -> {
      // Only a plain selector reports its samples' own times; anything computed happens at the evaluation time.
      boolean ownTime = Expr.unwrap(c.args().get(0)) instanceof Expr.VectorSelector;
      List<Value.Sample> out = new ArrayList<>();
      for (Value.Sample s : a.get(0).vector()) {
        out.add(new Value.Sample(s.labels().withoutName(), t, (ownTime ? s.t() : t) / 1000.0));
      }
      return Result.vector(out);
    });
    TABLE.put("clamp", (ev, c, a, t) -> {
      double min = a.get(1).scalar();
      double max = a.get(2).scalar();
      if (max < min) {
        return Result.vector(List.of());
      }
      return map(a.get(0), t, v -> goMax(min, goMin(max, v)));
    });
    TABLE.put("clamp_min", (ev, c, a, t) -> {
      double min = a.get(1).scalar();
      return map(a.get(0), t, v -> goMax(min, v));
    });
    TABLE.put("clamp_max", (ev, c, a, t) -> {
      double max = a.get(1).scalar();
      return map(a.get(0), t, v -> goMin(max, v));
    });
    TABLE.put("round", (ev, c, a, t) -> {
      double toNearest = a.size() > 1 ? a.get(1).scalar() : 1;
      double inverse = 1 / toNearest;
      return map(a.get(0), t, v -> Math.floor(v * inverse + 0.5) / inverse);
    });
    TABLE.put("sort", (ev, c, a, t) -> sorted(a.get(0), false));
    TABLE.put("sort_desc", (ev, c, a, t) -> sorted(a.get(0), true));
    TABLE.put("histogram_quantile", (ev, c, a, t) -> histogramQuantile(a.get(0).scalar(), a.get(1).vector(), t));
    TABLE.put("label_replace", (ev, c, a, t) -> labelReplace(a, t));
    TABLE.put("label_join", (ev, c, a, t) -> labelJoin(a, t));
  }

  /** The window function of a range-vector function such as rate, or null for other functions. */
  static OverTimeFunction overTime(String name) {
    OverTime f = OVER_TIME.get(name);
    return f == null ? null : new OverTimeFunction(f, !KEEPS_NAME.contains(name));
  }

  /** A window function and whether its results lose the metric name. */
  record OverTimeFunction(OverTime f, boolean dropName) {
    Double apply(Window w, double[] params, long[] range) {
      return f.apply(w, params, range);
    }
  }

  static Result call(Evaluator ev, Expr.Call call, List<Result> args, long t) {
    Impl impl = TABLE.get(call.function().name());
    if (impl == null) {
      throw QueryException.execution("function \"" + call.function().name() + "\" is not implemented");
    }
    return impl.apply(ev, call, args, t);
  }

  private static void simple(String name, DoubleUnaryOperator f) {
    TABLE.put(name, (ev, c, a, t) -> map(a.get(0), t, f));
  }

  /**
   * A calendar function of Unix seconds (the sample values, truncated as Go does), UTC; without an argument, of the
   * evaluation time.
   */
  private static void calendar(String name, LongUnaryOperator ofAbsoluteSeconds) {
    TABLE.put(name, (ev, c, a, t) -> {
      if (a.isEmpty()) {
        double v = ofAbsoluteSeconds.applyAsLong(GoCalendar.abs(t / 1000));
        return Result.vector(List.of(new Value.Sample(Labels.EMPTY, t, v)));
      }
      return map(a.get(0), t, v -> ofAbsoluteSeconds.applyAsLong(GoCalendar.abs(GoCalendar.goInt64(v))));
    });
  }

  /**
   * Go's math.Log as Prometheus runs it on amd64, in assembly that reads a subnormal's exponent field as it stands
   * (no normalization): a positive subnormal x gives log(0.5 + its mantissa bits) - 1022 ln 2, about -709.09.
   */
  static double goLog(double x) {
    if (x > 0 && x < Double.MIN_NORMAL) {
      double f = Double.longBitsToDouble((Double.doubleToRawLongBits(x) & 0x000FFFFFFFFFFFFFL) | 0x3FE0000000000000L);
      return Math.log(f) - 1022 * Math.log(2);
    }
    return Math.log(x);
  }

  /** Go's math.Max: +Inf wins even over NaN; otherwise NaN wins; +0 is above -0. */
  static double goMax(double x, double y) {
    if (x == Double.POSITIVE_INFINITY || y == Double.POSITIVE_INFINITY) {
      return Double.POSITIVE_INFINITY;
    }
    return Math.max(x, y);
  }

  /** Go's math.Min: -Inf wins even over NaN; otherwise NaN wins; -0 is below +0. */
  static double goMin(double x, double y) {
    if (x == Double.NEGATIVE_INFINITY || y == Double.NEGATIVE_INFINITY) {
      return Double.NEGATIVE_INFINITY;
    }
    return Math.min(x, y);
  }

  /** Go's math.Log2: x as frac × 2^exp with frac in [0.5, 1); exact for powers of two. */
  static double goLog2(double x) {
    if (!(x > 0) || Double.isInfinite(x)) {
      return Math.log(x);
    }
    int shift = 0;
    if (x < Double.MIN_NORMAL) {
      x *= 0x1p52;
      shift = 52;
    }
    int exp = Math.getExponent(x) + 1;
    double frac = Math.scalb(x, -exp);
    exp -= shift;
    if (frac == 0.5) {
      return exp - 1;
    }
    return goLog(frac) * (1 / Math.log(2)) + exp;
  }

  /** Inverse hyperbolic sine; Java's Math has none. Accurate near zero (log1p) and for huge arguments (no x*x). */
  static double asinh(double x) {
    if (Double.isNaN(x) || Double.isInfinite(x) || x == 0) {
      return x;
    }
    double a = Math.abs(x);
    double r;
    if (a > 0x1p28) {
      r = Math.log(a) + Math.log(2);
    } else if (a > 2) {
      r = Math.log(2 * a + 1 / (Math.sqrt(a * a + 1) + a));
    } else {
      r = Math.log1p(a + a * a / (1 + Math.sqrt(1 + a * a)));
    }
    return x < 0 ? -r : r;
  }

  /** Inverse hyperbolic cosine: NaN below 1. */
  static double acosh(double x) {
    if (Double.isNaN(x) || x < 1) {
      return Double.NaN;
    }
    if (x == 1) {
      return 0;
    }
    if (x >= 0x1p28) {
      return Math.log(x) + Math.log(2);
    }
    if (x > 2) {
      return Math.log(2 * x - 1 / (x + Math.sqrt(x * x - 1)));
    }
    double t = x - 1;
    return Math.log1p(t + Math.sqrt(2 * t + t * t));
  }

  /** Inverse hyperbolic tangent: ±Inf at ±1, NaN beyond. */
  static double atanh(double x) {
    if (Double.isNaN(x) || x < -1 || x > 1) {
      return Double.NaN;
    }
    if (x == 1) {
      return Double.POSITIVE_INFINITY;
    }
    if (x == -1) {
      return Double.NEGATIVE_INFINITY;
    }
    if (x == 0) {
      return x;
    }
    double a = Math.abs(x);
    double r = a < 0.5 ? 0.5 * Math.log1p(2 * a + 2 * a * a / (1 - a)) : 0.5 * Math.log1p(2 * a / (1 - a));
    return x < 0 ? -r : r;
  }

  /**
   * Double exponential smoothing of a window with smoothing factor {@code sf} and trend factor {@code tf}, both
   * strictly between 0 and 1; fewer than two samples give no result.
   */
  private static Double holtWinters(Window w, double sf, double tf) {
    if (sf <= 0 || sf >= 1) {
      throw QueryException.execution("invalid smoothing factor. Expected: 0 < sf < 1, got: " + GoFloat.f(sf, 6));
    }
    if (tf <= 0 || tf >= 1) {
      throw QueryException.execution("invalid trend factor. Expected: 0 < tf < 1, got: " + GoFloat.f(tf, 6));
    }
    if (w.size() < 2) {
      return null;
    }
    double[] vs = w.vs();
    int first = w.from();
    double smoothed = vs[first];
    double previous = 0;
    double trend = vs[first + 1] - vs[first];
    for (int i = first + 1; i < w.to(); i++) {
      double x = sf * vs[i];
      // The trend of the first step is the difference of the first two samples; after that it is smoothed.
      if (i > first + 1) {
        trend = tf * (smoothed - previous) + (1 - tf) * trend;
      }
      double y = (1 - sf) * (smoothed + trend);
      previous = smoothed;
      smoothed = x + y;
    }
    return smoothed;
  }

  private static Result map(Result vec, long t, DoubleUnaryOperator f) {
    List<Value.Sample> out = new ArrayList<>(vec.vector().size());
    for (Value.Sample s : vec.vector()) {
      out.add(new Value.Sample(s.labels().withoutName(), t, f.applyAsDouble(s.v())));
    }
    return Result.vector(out);
  }

  /**
   * A function over each window of a range vector. Scalar parameters come before the range (quantile_over_time) or
   * after it (predict_linear). The range passed is {start, end, evaluation time}.
   */
  private static void overTime(String name, boolean dropName, OverTime f) {
    OVER_TIME.put(name, f);
    if (!dropName) {
      KEEPS_NAME.add(name);
    }
    TABLE.put(name, (ev, c, a, t) -> {
      int matrixArg = c.args().get(0).type() == ValueType.MATRIX ? 0 : 1;
      double[] params = new double[a.size() - 1];
      for (int i = 0, p = 0; i < a.size(); i++) {
        if (i != matrixArg) {
          params[p++] = a.get(i).scalar();
        }
      }
      long[] r = ev.rangeOf(c.args().get(matrixArg), t);
      long[] range = {r[0], r[1], t};
      List<Value.Sample> out = new ArrayList<>(a.get(matrixArg).matrix().size());
      for (Window w : a.get(matrixArg).matrix()) {
        Double v = f.apply(w, params, range);
        if (v != null) {
          out.add(new Value.Sample(dropName ? w.labels().withoutName() : w.labels(), t, v));
        }
      }
      return Result.vector(out);
    });
  }

  /**
   * rate, increase and delta: the change over the window, extrapolated to the window's edges unless the first or
   * last sample is more than 1.1 average intervals away from them (then only half an interval is added), and for
   * counters never extrapolated below zero.
   */
  static Double extrapolatedRate(Window w, long[] range, boolean isCounter, boolean isRate) {
    if (w.size() < 2) {
      return null;
    }
    long[] ts = w.ts();
    double[] vs = w.vs();
    int first = w.from();
    int last = w.to() - 1;
    double result = vs[last] - vs[first];
    if (isCounter) {
      double prev = vs[first];
      for (int i = first + 1; i <= last; i++) {
        if (vs[i] < prev) {
          result += prev;
        }
        prev = vs[i];
      }
    }
    double rangeStart = range[0];
    double rangeEnd = range[1];
    double durationToStart = (ts[first] - rangeStart) / 1000.0;
    double durationToEnd = (rangeEnd - ts[last]) / 1000.0;
    double sampled = (ts[last] - ts[first]) / 1000.0;
    double avgInterval = sampled / (w.size() - 1);
    if (isCounter && result > 0 && vs[first] >= 0) {
      double durationToZero = sampled * (vs[first] / result);
      if (durationToZero < durationToStart) {
        durationToStart = durationToZero;
      }
    }
    double threshold = avgInterval * 1.1;
    double extrapolateTo = sampled;
    extrapolateTo += durationToStart < threshold ? durationToStart : avgInterval / 2;
    extrapolateTo += durationToEnd < threshold ? durationToEnd : avgInterval / 2;
    result = result * (extrapolateTo / sampled);
    if (isRate) {
      result = result / ((range[1] - range[0]) / 1000.0);
    }
    return result;
  }

  private static Double instantValue(Window w, boolean isRate) {
    if (w.size() < 2) {
      return null;
    }
    int last = w.to() - 1;
    double lastV = w.vs()[last];
    double prevV = w.vs()[last - 1];
    double result;
    if (isRate && lastV < prevV) {
      result = lastV;
    } else {
      result = lastV - prevV;
    }
    if (isRate) {
      long interval = w.ts()[last] - w.ts()[last - 1];
      if (interval == 0) {
        return null;
      }
      result = result / (interval / 1000.0);
    }
    return result;
  }

  /**
   * {slope, intercept} of the least-squares line, x in seconds relative to {@code interceptTime}, the sums compensated;
   * a constant window is flat, or NaN when that constant is infinite.
   */
  static double[] linearRegression(Window w, long interceptTime) {
    double n = 0;
    double[] sumX = {0, 0};
    double[] sumY = {0, 0};
    double[] sumXY = {0, 0};
    double[] sumX2 = {0, 0};
    double initY = w.vs()[w.from()];
    boolean constY = true;
    for (int i = w.from(); i < w.to(); i++) {
      double y = w.vs()[i];
      if (constY && i > w.from() && y != initY) {
        constY = false;
      }
      n++;
      double x = (w.ts()[i] - interceptTime) / 1e3;
      sumX = Aggregations.kahanInc(x, sumX[0], sumX[1]);
      sumY = Aggregations.kahanInc(y, sumY[0], sumY[1]);
      sumXY = Aggregations.kahanInc(x * y, sumXY[0], sumXY[1]);
      sumX2 = Aggregations.kahanInc(x * x, sumX2[0], sumX2[1]);
    }
    if (constY) {
      return Double.isInfinite(initY) ? new double[] {Double.NaN, Double.NaN} : new double[] {0, initY};
    }
    double sx = sumX[0] + sumX[1];
    double sy = sumY[0] + sumY[1];
    double sxy = sumXY[0] + sumXY[1];
    double sx2 = sumX2[0] + sumX2[1];
    double covXY = sxy - sx * sy / n;
    double varX = sx2 - sx * sx / n;
    double slope = covXY / varX;
    double intercept = sy / n - slope * sx / n;
    return new double[] {slope, intercept};
  }

  private static Result absent(Expr arg, long t) {
    Expr e = Expr.unwrap(arg);
    List<Matcher> matchers = List.of();
    if (e instanceof Expr.VectorSelector vs) {
      matchers = vs.matchers();
    } else if (e instanceof Expr.MatrixSelector ms) {
      matchers = ms.selector().matchers();
    }
    Map<String, String> labels = new LinkedHashMap<>();
    Set<String> ambiguous = new HashSet<>();
    for (Matcher m : matchers) {
      if (m.name().equals(Labels.METRIC_NAME)) {
        continue;
      }
      if (m.type() == Matcher.Type.EQ && !labels.containsKey(m.name()) && !ambiguous.contains(m.name())) {
        labels.put(m.name(), m.value());
      } else {
        labels.remove(m.name());
        ambiguous.add(m.name());
      }
    }
    return Result.vector(List.of(new Value.Sample(Labels.fromMap(labels), t, 1)));
  }

  private static Result sorted(Result vec, boolean descending) {
    List<Value.Sample> out = new ArrayList<>(vec.vector());
    Comparator<Value.Sample> c = (x, y) -> {
      boolean xn = Double.isNaN(x.v());
      boolean yn = Double.isNaN(y.v());
      if (xn || yn) {
        return Boolean.compare(xn, yn);
      }
      return descending ? Double.compare(y.v(), x.v()) : Double.compare(x.v(), y.v());
    };
    out.sort(c);
    return Result.vector(out);
  }

  private record Bucket(double upperBound, double count) {}

  private static Result histogramQuantile(double q, List<Value.Sample> in, long t) {
    Map<Labels, List<Bucket>> groups = new LinkedHashMap<>();
    for (Value.Sample s : in) {
      String le = s.labels().get("le");
      double ub;
      try {
        ub = parseGoFloat(le);
      } catch (NumberFormatException e) {
        continue;
      }
      // Series of different names stay apart, and then collide once the name is dropped.
      Labels key = s.labels().drop(Set.of("le"));
      groups.computeIfAbsent(key, k -> new ArrayList<>()).add(new Bucket(ub, s.v()));
    }
    List<Value.Sample> out = new ArrayList<>();
    groups.forEach((l, b) -> out.add(new Value.Sample(l.withoutName(), t, bucketQuantile(q, b))));
    return Result.vector(out);
  }

  /** A bucket bound as Prometheus reads it: Go's strconv.ParseFloat. */
  static double parseGoFloat(String s) {
    return GoFloat.parse(s);
  }

  /** Prometheus's classic-histogram quantile: linear interpolation inside the bucket holding the rank. */
  static double bucketQuantile(double q, List<Bucket> input) {
    if (Double.isNaN(q)) {
      return Double.NaN;
    }
    if (q < 0) {
      return Double.NEGATIVE_INFINITY;
    }
    if (q > 1) {
      return Double.POSITIVE_INFINITY;
    }
    List<Bucket> buckets = new ArrayList<>(input);
    buckets.sort(Comparator.comparingDouble(Bucket::upperBound));
    if (buckets.isEmpty() || buckets.get(buckets.size() - 1).upperBound() != Double.POSITIVE_INFINITY) {
      return Double.NaN;
    }
    // Buckets with the same bound (from differently labelled series) are added up.
    List<Bucket> merged = new ArrayList<>();
    for (Bucket b : buckets) {
      if (!merged.isEmpty() && merged.get(merged.size() - 1).upperBound() == b.upperBound()) {
        Bucket prev = merged.remove(merged.size() - 1);
        merged.add(new Bucket(b.upperBound(), prev.count() + b.count()));
      } else {
        merged.add(b);
      }
    }
    buckets = merged;
    // Counts scraped at slightly different moments can decrease; treat them as monotonic.
    double max = Double.NEGATIVE_INFINITY;
    for (int i = 0; i < buckets.size(); i++) {
      double c = buckets.get(i).count();
      if (c > max) {
        max = c;
      } else if (c < max) {
        buckets.set(i, new Bucket(buckets.get(i).upperBound(), max));
      }
    }
    if (buckets.size() < 2) {
      return Double.NaN;
    }
    double observations = buckets.get(buckets.size() - 1).count();
    if (observations == 0) {
      return Double.NaN;
    }
    double rank = q * observations;
    int b = 0;
    while (b < buckets.size() - 1 && buckets.get(b).count() < rank) {
      b++;
    }
    if (b == buckets.size() - 1) {
      return buckets.get(buckets.size() - 2).upperBound();
    }
    if (b == 0 && buckets.get(0).upperBound() <= 0) {
      return buckets.get(0).upperBound();
    }
    double bucketStart = 0;
    double bucketEnd = buckets.get(b).upperBound();
    double count = buckets.get(b).count();
    if (b > 0) {
      bucketStart = buckets.get(b - 1).upperBound();
      count -= buckets.get(b - 1).count();
      rank -= buckets.get(b - 1).count();
    }
    return bucketStart + (bucketEnd - bucketStart) * (rank / count);
  }

  private static Result labelReplace(List<Result> a, long t) {
    String dst = a.get(1).string();
    String replacement = a.get(2).string();
    String src = a.get(3).string();
    String regex = a.get(4).string();
    Pattern p;
    try {
      p = Pattern.compile("^(?:" + regex + ")$");
    } catch (PatternSyntaxException e) {
      throw QueryException.execution("invalid regular expression in label_replace(): " + regex);
    }
    if (!Labels.isValidLabelName(dst)) {
      throw QueryException.execution("invalid destination label name in label_replace(): " + dst);
    }
    List<Value.Sample> out = new ArrayList<>();
    for (Value.Sample s : a.get(0).vector()) {
      com.google.re2j.Matcher m = p.matcher(s.labels().get(src));
      Labels l = s.labels();
      if (m.matches()) {
        l = l.toBuilder().set(dst, expand(replacement, m)).build();
      }
      out.add(new Value.Sample(l, t, s.v()));
    }
    return Result.vector(out);
  }

  /**
   * Go's Regexp.Expand: {@code $name} or {@code ${name}}, a name being letters, digits and underscores; a name that is a
   * number without leading zeros (below 10^8) is a group's index, any other a group's name, and a group that does not
   * exist or did not take part is empty; {@code $$} is a dollar, and a {@code $} without a valid name is itself.
   */
  static String expand(String template, com.google.re2j.Matcher m) {
    StringBuilder sb = new StringBuilder();
    int i = 0;
    int n = template.length();
    while (i < n) {
      int dollar = template.indexOf('$', i);
      if (dollar < 0) {
        break;
      }
      sb.append(template, i, dollar);
      i = dollar + 1;
      if (i < n && template.charAt(i) == '$') {
        sb.append('$');
        i++;
        continue;
      }
      boolean brace = i < n && template.charAt(i) == '{';
      int nameStart = brace ? i + 1 : i;
      int j = nameStart;
      while (j < n) {
        int cp = template.codePointAt(j);
        if (!Character.isLetter(cp) && !Character.isDigit(cp) && cp != '_') {
          break;
        }
        j += Character.charCount(cp);
      }
      if (j == nameStart || (brace && (j >= n || template.charAt(j) != '}'))) {
        sb.append('$');
        continue;
      }
      String name = template.substring(nameStart, j);
      i = brace ? j + 1 : j;
      sb.append(group(m, name));
    }
    if (i < n) {
      sb.append(template, i, n);
    }
    return sb.toString();
  }

  private static String group(com.google.re2j.Matcher m, String name) {
    int num = 0;
    for (int k = 0; k < name.length(); k++) {
      char c = name.charAt(k);
      if (c < '0' || c > '9' || num >= 100_000_000) {
        num = -1;
        break;
      }
      num = num * 10 + (c - '0');
    }
    if (name.charAt(0) == '0' && name.length() > 1) {
      num = -1;
    }
    String g;
    if (num >= 0) {
      g = num <= m.groupCount() ? m.group(num) : null;
    } else {
      try {
        g = m.group(name);
      } catch (IllegalArgumentException noSuchGroup) {
        g = null;
      }
    }
    return g == null ? "" : g;
  }

  private static Result labelJoin(List<Result> a, long t) {
    String dst = a.get(1).string();
    String sep = a.get(2).string();
    for (int i = 3; i < a.size(); i++) {
      if (!Labels.isValidLabelName(a.get(i).string())) {
        throw QueryException.execution("invalid source label name in label_join(): " + a.get(i).string());
      }
    }
    if (!Labels.isValidLabelName(dst)) {
      throw QueryException.execution("invalid destination label name in label_join(): " + dst);
    }
    List<Value.Sample> out = new ArrayList<>();
    for (Value.Sample s : a.get(0).vector()) {
      StringBuilder sb = new StringBuilder();
      for (int i = 3; i < a.size(); i++) {
        if (i > 3) {
          sb.append(sep);
        }
        sb.append(s.labels().get(a.get(i).string()));
      }
      out.add(new Value.Sample(s.labels().toBuilder().set(dst, sb.toString()).build(), t, s.v()));
    }
    return Result.vector(out);
  }
}
