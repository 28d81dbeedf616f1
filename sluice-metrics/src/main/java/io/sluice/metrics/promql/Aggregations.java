package io.sluice.metrics.promql;

import io.sluice.gofmt.GoFloat;
import io.sluice.metrics.model.Labels;
import io.sluice.metrics.promql.parser.AggregateOp;
import io.sluice.metrics.promql.parser.Expr;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
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

  /**
   * An aggregation without a parameter over the series of a precomputed range-vector call (the usual {@code
   * sum by (x) (rate(m[5m]))}): each series' group is found once for the whole query instead of once per step, and a
   * step folds the values straight from the precomputed arrays into per-group accumulators, with no sample objects in
   * between. Results, their order (groups in the order their first series has a value at that step) and the
   * arithmetic (the same operations in the same order) are those of {@link #aggregate}.
   */
  static final class ColumnGroups {
    private final int[] groupOf;
    private final Labels[] groups;
    private final int[] stamp;
    private final int[] order;
    private final double[] acc;
    private final int[] count;
    private int step;

    ColumnGroups(Labels[] series, Expr.Aggregate a) {
      groupOf = new int[series.length];
      Map<Labels, Integer> index = new java.util.HashMap<>();
      List<Labels> distinct = new ArrayList<>();
      for (int k = 0; k < series.length; k++) {
        Labels g = groupLabels(series[k], a);
        Integer i = index.get(g);
        if (i == null) {
          i = distinct.size();
          index.put(g, i);
          distinct.add(g);
        }
        groupOf[k] = i;
      }
      groups = distinct.toArray(new Labels[0]);
      stamp = new int[groups.length];
      order = new int[groups.length];
      acc = new double[groups.length];
      count = new int[groups.length];
    }

    static boolean handles(AggregateOp op) {
      return switch (op) {
        case SUM, AVG, COUNT, GROUP, MIN, MAX -> true;
        default -> false;
      };
    }

    List<Value.Sample> aggregate(AggregateOp op, double[][] values, boolean[][] present, int j, long t) {
      int mark = ++step;
      int n = 0;
      for (int k = 0; k < groupOf.length; k++) {
        if (!present[k][j]) {
          continue;
        }
        double v = values[k][j];
        int g = groupOf[k];
        if (stamp[g] != mark) {
          stamp[g] = mark;
          order[n++] = g;
          count[g] = 1;
          acc[g] = op == AggregateOp.SUM ? 0 + v : v;
          continue;
        }
        int c = ++count[g];
        double m = acc[g];
        switch (op) {
          case SUM -> acc[g] = m + v;
          case AVG -> {
            if (!(Double.isInfinite(m) && keepsInfiniteMean(m, v))) {
              acc[g] = m + (v / c - m / c);
            }
          }
          case MIN -> acc[g] = m > v || Double.isNaN(m) ? v : m;
          case MAX -> acc[g] = m < v || Double.isNaN(m) ? v : m;
          default -> { }
        }
      }
      List<Value.Sample> out = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        int g = order[i];
        double v = switch (op) {
          case COUNT -> count[g];
          case GROUP -> 1;
          default -> acc[g];
        };
        out.add(new Value.Sample(groups[g], t, v));
      }
      return out;
    }
  }

  static List<Value.Sample> aggregate(Expr.Aggregate a, List<Value.Sample> in, Double param, String strParam, long t,
      Map<Labels, Labels> groupCache) {
    AggregateOp op = a.op();
    long k = 0;
    if (op == AggregateOp.TOPK || op == AggregateOp.BOTTOMK) {
      double kf = param;
      // Prometheus's own bounds: the largest float64 below 2^63, and -2^63.
      if (!(kf <= 9223372036854774784.0 && kf >= -0x1p63)) {
        throw QueryException.execution("Scalar value " + GoFloat.g(kf, -1) + " overflows int64");
      }
      k = (long) kf;
      if (k < 1) {
        return new ArrayList<>();
      }
    }
    if (op == AggregateOp.COUNT_VALUES) {
      if (!Labels.isValidLabelName(strParam)) {
        throw QueryException.execution("invalid label name \"" + strParam + "\"");
      }
      Expr.Aggregate byValue = a;
      if (!a.without()) {
        List<String> grouping = new ArrayList<>(a.grouping());
        grouping.add(strParam);
        byValue = new Expr.Aggregate(op, a.expr(), a.param(), grouping, false);
      }
      Map<Labels, Integer> counts = new LinkedHashMap<>();
      for (Value.Sample s : in) {
        Labels withValue = s.labels().toBuilder().set(strParam, GoFloat.format(s.v())).build();
        counts.merge(groupLabels(withValue, byValue), 1, Integer::sum);
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
      groups.computeIfAbsent(g, x -> new ArrayList<>()).add(s);
    }
    List<Value.Sample> out = new ArrayList<>(groups.size());
    if (op == AggregateOp.TOPK || op == AggregateOp.BOTTOMK) {
      for (List<Value.Sample> g : groups.values()) {
        List<Value.Sample> kept = selectK(g, k, op == AggregateOp.TOPK);
        kept.sort(op == AggregateOp.TOPK ? (x, y) -> compareTop(x.v(), y.v()) : (x, y) -> compareBottom(x.v(), y.v()));
        for (Value.Sample s : kept) {
          out.add(new Value.Sample(s.labels(), t, s.v()));
        }
      }
      return out;
    }
    for (Map.Entry<Labels, List<Value.Sample>> e : groups.entrySet()) {
      List<Value.Sample> g = e.getValue();
      double v = switch (op) {
        case SUM -> {
          // A plain sum, as Prometheus 2.42 adds (compensated summation came to aggregations later).
          double sum = 0;
          for (Value.Sample s : g) {
            sum += s.v();
          }
          yield sum;
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

  /**
   * The k samples topk (or bottomk) keeps, chosen as Prometheus chooses them, so that ties and NaN pick the same
   * series: a binary heap of at most k samples whose root is the one to drop next (NaN first, then the smallest for
   * topk, the largest for bottomk); a sample replaces the root when the heap is full and it beats the root or the root
   * is NaN.
   */
  private static List<Value.Sample> selectK(List<Value.Sample> in, long k, boolean top) {
    List<Value.Sample> heap = new ArrayList<>();
    for (Value.Sample s : in) {
      if (heap.isEmpty()) {
        heap.add(s);
        continue;
      }
      double root = heap.get(0).v();
      boolean beats = top ? root < s.v() : root > s.v();
      if (heap.size() < k || beats || Double.isNaN(root)) {
        if (heap.size() == k) {
          if (k == 1) {
            heap.set(0, s);
            continue;
          }
          int n = heap.size() - 1;
          Collections.swap(heap, 0, n);
          down(heap, 0, n, top);
          heap.remove(n);
        }
        heap.add(s);
        up(heap, heap.size() - 1, top);
      }
    }
    return heap;
  }

  /** Whether heap element i goes before j: NaN first, then the smaller (topk) or larger (bottomk) value. */
  private static boolean less(List<Value.Sample> h, int i, int j, boolean top) {
    double a = h.get(i).v();
    if (Double.isNaN(a)) {
      return true;
    }
    return top ? a < h.get(j).v() : a > h.get(j).v();
  }

  private static void up(List<Value.Sample> h, int j, boolean top) {
    while (true) {
      int i = (j - 1) / 2;
      if (i == j || !less(h, j, i, top)) {
        break;
      }
      Collections.swap(h, i, j);
      j = i;
    }
  }

  private static void down(List<Value.Sample> h, int i, int n, boolean top) {
    while (true) {
      int j1 = 2 * i + 1;
      if (j1 >= n || j1 < 0) {
        break;
      }
      int j = j1;
      int j2 = j1 + 1;
      if (j2 < n && less(h, j2, j1, top)) {
        j = j2;
      }
      if (!less(h, j, i, top)) {
        break;
      }
      Collections.swap(h, i, j);
      i = j;
    }
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

  /** Kahan-Babuska-Neumaier step, as Prometheus sums over time: {new sum, new compensation}. */
  static double[] kahanInc(double inc, double sum, double c) {
    double t = sum + inc;
    if (Math.abs(sum) >= Math.abs(inc)) {
      c += (sum - t) + inc;
    } else {
      c += (inc - t) + sum;
    }
    return new double[] {t, c};
  }

  /**
   * avg: a running mean that cannot overflow on finite inputs (each side divided by the count before subtracting);
   * once the mean is infinite, finite values and infinities of its sign leave it alone.
   */
  static double avg(List<Value.Sample> g) {
    double mean = g.get(0).v();
    int count = 1;
    for (int i = 1; i < g.size(); i++) {
      double v = g.get(i).v();
      count++;
      if (Double.isInfinite(mean) && keepsInfiniteMean(mean, v)) {
        continue;
      }
      mean += v / count - mean / count;
    }
    return mean;
  }

  private static boolean keepsInfiniteMean(double mean, double v) {
    if (Double.isInfinite(v)) {
      return (mean > 0) == (v > 0);
    }
    return !Double.isNaN(v);
  }

  /** avg_over_time: the running mean of {@link #avg}, its increments summed with compensation. */
  static double mean(double[] v, int from, int to) {
    double mean = 0;
    double c = 0;
    double count = 0;
    for (int i = from; i < to; i++) {
      count++;
      if (Double.isInfinite(mean) && keepsInfiniteMean(mean, v[i])) {
        continue;
      }
      double[] r = kahanInc(v[i] / count - mean / count, mean, c);
      mean = r[0];
      c = r[1];
    }
    return Double.isInfinite(mean) ? mean : mean + c;
  }

  /** Population variance of an aggregation group by Welford's method, starting from the first sample. */
  private static double variance(List<Value.Sample> g) {
    double mean = g.get(0).v();
    double m2 = 0;
    double count = 1;
    for (int i = 1; i < g.size(); i++) {
      double v = g.get(i).v();
      count++;
      double delta = v - mean;
      mean += delta / count;
      m2 += delta * (v - mean);
    }
    return m2 / count;
  }

  /** Population variance over time: Welford's method with both running sums compensated. */
  static double variance(double[] v, int from, int to) {
    double count = 0;
    double mean = 0;
    double cMean = 0;
    double aux = 0;
    double cAux = 0;
    for (int i = from; i < to; i++) {
      count++;
      double delta = v[i] - (mean + cMean);
      double[] r = kahanInc(delta / count, mean, cMean);
      mean = r[0];
      cMean = r[1];
      r = kahanInc(delta * (v[i] - (mean + cMean)), aux, cAux);
      aux = r[0];
      cAux = r[1];
    }
    return (aux + cAux) / count;
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
