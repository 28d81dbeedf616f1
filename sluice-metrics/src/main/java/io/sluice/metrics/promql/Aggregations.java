package io.sluice.metrics.promql;

import io.sluice.gofmt.GoFloat;
import io.sluice.metrics.model.Labels;
import io.sluice.metrics.promql.parser.AggregateOp;
import io.sluice.metrics.promql.parser.Expr;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The aggregation operators, each over groups formed by {@code by} or {@code without}. */
final class Aggregations {
  private Aggregations() {}

  static Labels groupLabels(Labels l, Expr.Aggregate a) {
    if (a.without()) {
      Set<String> drop = new HashSet<>(a.grouping());
      drop.add(Labels.METRIC_NAME);
      return l.drop(drop);
    }
    return l.keep(a.grouping());
  }

  static List<Value.Sample> aggregate(Expr.Aggregate a, List<Value.Sample> in, Double param, String strParam, long t,
      Map<Labels, Labels> groupCache) {
    AggregateOp op = a.op();
    if (op == AggregateOp.COUNT_VALUES) {
      if (!Labels.isValidLabelName(strParam)) {
        throw QueryException.execution("invalid label name \"" + strParam + "\"");
      }
      Map<Labels, Integer> counts = new LinkedHashMap<>();
      for (Value.Sample s : in) {
        Labels g = groupLabels(s.labels(), a).toBuilder().set(strParam, GoFloat.format(s.v())).build();
        counts.merge(g, 1, Integer::sum);
      }
      List<Value.Sample> out = new ArrayList<>();
      counts.forEach((l, c) -> out.add(new Value.Sample(l, t, c)));
      return out;
    }
    Map<Labels, List<Value.Sample>> groups = new LinkedHashMap<>();
    for (Value.Sample s : in) {
      Labels g = groupCache.get(s.labels());
      if (g == null) {
        if (groupCache.size() > 200_000) {
          groupCache.clear();
        }
        g = groupLabels(s.labels(), a);
        // Equal groups share one instance, so the group map below compares by identity.
        Labels canonical = groupCache.putIfAbsent(g, g);
        if (canonical != null) {
          g = canonical;
        }
        groupCache.put(s.labels(), g);
      }
      groups.computeIfAbsent(g, k -> new ArrayList<>()).add(s);
    }
    List<Value.Sample> out = new ArrayList<>(groups.size());
    if (op == AggregateOp.TOPK || op == AggregateOp.BOTTOMK) {
      double kf = param;
      if (Double.isNaN(kf)) {
        throw QueryException.execution("Parameter value is NaN");
      }
      long k = kf >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) kf;
      if (k < 1) {
        return out;
      }
      for (List<Value.Sample> g : groups.values()) {
        List<Value.Sample> sorted = new ArrayList<>(g);
        Comparator<Value.Sample> c = op == AggregateOp.TOPK
            ? (x, y) -> compareTop(x.v(), y.v())
            : (x, y) -> compareBottom(x.v(), y.v());
        sorted.sort(c);
        for (int i = 0; i < Math.min(k, sorted.size()); i++) {
          Value.Sample s = sorted.get(i);
          out.add(new Value.Sample(s.labels(), t, s.v()));
        }
      }
      return out;
    }
    for (Map.Entry<Labels, List<Value.Sample>> e : groups.entrySet()) {
      List<Value.Sample> g = e.getValue();
      double v = switch (op) {
        case SUM -> {
          double sum = 0;
          double c = 0;
          for (Value.Sample s : g) {
            double[] r = kahanInc(s.v(), sum, c);
            sum = r[0];
            c = r[1];
          }
          yield Double.isInfinite(sum) ? sum : sum + c;
        }
        case AVG -> avg(g);
        case COUNT -> g.size();
        case GROUP -> 1;
        case MIN -> {
          double m = g.get(0).v();
          for (Value.Sample s : g) {
            if (m > s.v() || Double.isNaN(m)) {
              m = s.v();
            }
          }
          yield m;
        }
        case MAX -> {
          double m = g.get(0).v();
          for (Value.Sample s : g) {
            if (m < s.v() || Double.isNaN(m)) {
              m = s.v();
            }
          }
          yield m;
        }
        case STDDEV -> Math.sqrt(variance(g));
        case STDVAR -> variance(g);
        case QUANTILE -> {
          double[] vals = new double[g.size()];
          for (int i = 0; i < vals.length; i++) {
            vals[i] = g.get(i).v();
          }
          yield quantile(param, vals);
        }
        default -> throw new IllegalStateException(op.toString());
      };
      out.add(new Value.Sample(e.getKey(), t, v));
    }
    return out;
  }

  /** topk order: larger first, NaN last. */
  private static int compareTop(double a, double b) {
    if (Double.isNaN(a)) {
      return Double.isNaN(b) ? 0 : 1;
    }
    if (Double.isNaN(b)) {
      return -1;
    }
    return Double.compare(b, a);
  }

  private static int compareBottom(double a, double b) {
    if (Double.isNaN(a)) {
      return Double.isNaN(b) ? 0 : 1;
    }
    if (Double.isNaN(b)) {
      return -1;
    }
    return Double.compare(a, b);
  }

  /** Kahan-Babuska-Neumaier step, as Prometheus sums. */
  static double[] kahanInc(double inc, double sum, double c) {
    double t = sum + inc;
    if (Double.isInfinite(t)) {
      c = 0;
    } else if (Math.abs(sum) >= Math.abs(inc)) {
      c += (sum - t) + inc;
    } else {
      c += (inc - t) + sum;
    }
    return new double[] {t, c};
  }

  static double avg(List<Value.Sample> g) {
    double[] v = new double[g.size()];
    for (int i = 0; i < v.length; i++) {
      v[i] = g.get(i).v();
    }
    return mean(v, 0, v.length);
  }

  static double mean(double[] v, int from, int to) {
    double sum = 0;
    double c = 0;
    for (int i = from; i < to; i++) {
      double[] r = kahanInc(v[i], sum, c);
      sum = r[0];
      c = r[1];
    }
    double total = Double.isInfinite(sum) ? sum : sum + c;
    if (!Double.isInfinite(total) || Double.isNaN(total)) {
      return total / (to - from);
    }
    // Infinite sums: fall back to an incremental mean that cannot overflow on finite inputs.
    double m = 0;
    for (int i = from; i < to; i++) {
      m += (v[i] - m) / (i - from + 1);
    }
    return m;
  }

  private static double variance(List<Value.Sample> g) {
    double[] v = new double[g.size()];
    for (int i = 0; i < v.length; i++) {
      v[i] = g.get(i).v();
    }
    return variance(v, 0, v.length);
  }

  /** Population variance by Welford's method. */
  static double variance(double[] v, int from, int to) {
    double count = 0;
    double mean = 0;
    double m2 = 0;
    for (int i = from; i < to; i++) {
      count++;
      double delta = v[i] - mean;
      mean += delta / count;
      m2 += delta * (v[i] - mean);
    }
    return m2 / count;
  }

  /** Prometheus's quantile: linear interpolation between the closest ranks. */
  static double quantile(double q, double[] values) {
    if (values.length == 0 || Double.isNaN(q)) {
      return Double.NaN;
    }
    if (q < 0) {
      return Double.NEGATIVE_INFINITY;
    }
    if (q > 1) {
      return Double.POSITIVE_INFINITY;
    }
    double[] v = values.clone();
    Arrays.sort(v);
    // Go sorts NaN first, Java last; follow Go.
    int nans = 0;
    while (nans < v.length && Double.isNaN(v[v.length - 1 - nans])) {
      nans++;
    }
    if (nans > 0) {
      System.arraycopy(v, 0, v, nans, v.length - nans);
      Arrays.fill(v, 0, nans, Double.NaN);
    }
    int n = v.length;
    double rank = q * (n - 1);
    int lower = (int) Math.max(0, Math.floor(rank));
    int upper = Math.min(n - 1, lower + 1);
    double weight = rank - Math.floor(rank);
    return v[lower] * (1 - weight) + v[upper] * weight;
  }
}
