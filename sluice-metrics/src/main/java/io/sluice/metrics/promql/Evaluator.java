package io.sluice.metrics.promql;

import io.sluice.metrics.model.Labels;
import io.sluice.metrics.promql.parser.BinaryOp;
import io.sluice.metrics.promql.parser.Expr;
import io.sluice.metrics.promql.parser.ValueType;
import io.sluice.metrics.promql.parser.VectorMatching;
import io.sluice.metrics.storage.Querier;
import io.sluice.metrics.storage.Queryable;
import io.sluice.metrics.storage.SeriesData;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** One query's evaluation: the samples its selectors loaded, and the per-step evaluation of the tree. */
final class Evaluator {
  private final Engine engine;
  private final Queryable storage;
  /** The query's start and end: what {@code @ start()} and {@code @ end()} refer to. */
  final long start;
  final long end;
  private final long deadline;
  private long loadedSamples;
  /**
   * Samples the store decoded for this query, every one it holds (an instant selector's whole lookback window): kept
   * under the same limit as Prometheus's count, and checked before the store decodes them, so that a query over the
   * limit fails before it takes the memory.
   */
  private long decodedSamples;
  /** Steps of the query: an instant selector holds at most one sample per series and step, as Prometheus counts. */
  private final long steps;
  private final Map<Expr, List<SeriesData>> data = new IdentityHashMap<>();
  /**
   * Per selector: for each series, the index of the last sample at or before the previous step's reference time, and
   * of the first sample in the previous step's range. Steps move forward, so advancing the cursors replaces binary
   * searches; a step back (subqueries) falls back to searching.
   */
  private final Map<Expr, Cursor> cursors = new IdentityHashMap<>();

  private static final class Cursor {
    final int[] hi;
    final int[] lo;
    long lastRef = Long.MIN_VALUE;
    long lastFrom = Long.MIN_VALUE;

    Cursor(int n) {
      hi = new int[n];
      lo = new int[n];
      Arrays.fill(hi, -1);
    }
  }

  /** Index of the last sample at or before {@code ref}, moving the cursor. */
  private static int advanceHi(Cursor c, int i, long[] ts, int n, long ref) {
    int h = c.hi[i];
    while (h + 1 < n && ts[h + 1] <= ref) {
      h++;
    }
    c.hi[i] = h;
    return h;
  }

  /** Index of the first sample at or after {@code from}, moving the cursor. */
  private static int advanceLo(Cursor c, int i, long[] ts, int n, long from) {
    int l = c.lo[i];
    while (l < n && ts[l] < from) {
      l++;
    }
    c.lo[i] = l;
    return l;
  }

  private Cursor cursor(Expr key, int n, long ref, long from) {
    Cursor c = cursors.get(key);
    if (c == null || ref < c.lastRef || from < c.lastFrom) {
      c = new Cursor(n);
      List<SeriesData> series = data.get(key);
      for (int i = 0; i < n; i++) {
        SeriesData s = series.get(i);
        c.hi[i] = lastAtOrBefore(s.timestamps(), s.size(), ref);
        c.lo[i] = lastAtOrBefore(s.timestamps(), s.size(), from - 1) + 1;
      }
      cursors.put(key, c);
    }
    c.lastRef = ref;
    c.lastFrom = from;
    return c;
  }

  /** Per aggregation: a series' labels to its group's (and each group to its one instance); series keep their Labels. */
  private final Map<Expr, Map<Labels, Labels>> groupCaches = new IdentityHashMap<>();
  /** Per aggregation over a precomputed call: its series' groups, found once for all steps. */
  private final Map<Expr, Aggregations.ColumnGroups> columnGroups = new IdentityHashMap<>();

  Evaluator(Engine engine, Queryable storage, long start, long end, long step) {
    this.engine = engine;
    this.storage = storage;
    this.start = start;
    this.end = end;
    this.deadline = System.nanoTime() + engine.timeoutNanos();
    this.steps = step > 0 ? (end - start) / step + 1 : 1;
  }

  void checkDeadline() {
    if (System.nanoTime() - deadline > 0) {
      throw QueryException.timeout();
    }
  }

  /** The result of evaluating a node at one step. */
  record Result(ValueType type, double scalar, String string, List<Value.Sample> vector, List<Window> matrix) {
    static Result scalar(double v) {
      return new Result(ValueType.SCALAR, v, null, null, null);
    }

    static Result vector(List<Value.Sample> v) {
      return new Result(ValueType.VECTOR, 0, null, v, null);
    }

    static Result matrix(List<Window> m) {
      return new Result(ValueType.MATRIX, 0, null, null, m);
    }

    static Result string(String s) {
      return new Result(ValueType.STRING, 0, s, null, null);
    }
  }

  /** A range vector element: a series' samples {@code [from, to)} of the shared arrays. */
  record Window(Labels labels, long[] ts, double[] vs, int from, int to) {
    int size() {
      return to - from;
    }

    Value.Series toSeries() {
      return new Value.Series(labels, Arrays.copyOfRange(ts, from, to), Arrays.copyOfRange(vs, from, to));
    }
  }

  // ---- loading

  /** Loads every selector's samples for the whole query, widened by ranges, offsets, lookback and subqueries. */
  void prefetch(Expr root) {
    load(root, start, end);
  }

  private long atTime(Expr.At at, long t) {
    if (at == null) {
      return t;
    }
    return switch (at.kind()) {
      case START -> start;
      case END -> end;
      case TIME -> at.timestamp();
    };
  }

  private void load(Expr e, long from, long to) {
    if (e instanceof Expr.VectorSelector vs) {
      long f = (vs.at() != null ? atTime(vs.at(), from) : from) - vs.offset();
      long t = (vs.at() != null ? atTime(vs.at(), to) : to) - vs.offset();
      fetch(vs, vs, f - engine.lookbackDelta(), t, false);
    } else if (e instanceof Expr.MatrixSelector ms) {
      Expr.VectorSelector vs = ms.selector();
      long f = (vs.at() != null ? atTime(vs.at(), from) : from) - vs.offset();
      long t = (vs.at() != null ? atTime(vs.at(), to) : to) - vs.offset();
      fetch(ms, vs, f - ms.range(), t, true);
    } else if (e instanceof Expr.Subquery sq) {
      long f = (sq.at() != null ? atTime(sq.at(), from) : from) - sq.offset();
      long t = (sq.at() != null ? atTime(sq.at(), to) : to) - sq.offset();
      load(sq.expr(), f - sq.range(), t);
    } else if (e instanceof Expr.Paren p) {
      load(p.expr(), from, to);
    } else if (e instanceof Expr.Unary u) {
      load(u.expr(), from, to);
    } else if (e instanceof Expr.Binary b) {
      load(b.lhs(), from, to);
      load(b.rhs(), from, to);
    } else if (e instanceof Expr.Call c) {
      for (Expr a : c.args()) {
        load(a, from, to);
      }
    } else if (e instanceof Expr.Aggregate a) {
      load(a.expr(), from, to);
      if (a.param() != null) {
        load(a.param(), from, to);
      }
    }
  }

  private void fetch(Expr key, Expr.VectorSelector vs, long mint, long maxt, boolean dropStale) {
    List<SeriesData> series;
    try (Querier q = storage.querier(mint, maxt)) {
      series = q.select(vs.matchers(), samples -> {
        decodedSamples += samples;
        if (decodedSamples > engine.maxSamples()) {
          throw QueryException.tooManySamples();
        }
      });
    }
    List<SeriesData> kept = new ArrayList<>(series.size());
    for (SeriesData s : series) {
      loadedSamples += dropStale ? s.size() : Math.min(s.size(), steps);
      if (loadedSamples > engine.maxSamples()) {
        throw QueryException.tooManySamples();
      }
      // Range selectors never see stale markers; instant selectors need them to end a series early.
      if (dropStale) {
        s = withoutStale(s);
      }
      if (s.size() > 0) {
        kept.add(s);
      }
    }
    data.put(key, kept);
  }

  private static SeriesData withoutStale(SeriesData s) {
    int stale = 0;
    for (double v : s.values()) {
      if (Engine.isStale(v)) {
        stale++;
      }
    }
    if (stale == 0) {
      return s;
    }
    long[] ts = new long[s.size() - stale];
    double[] vs = new double[ts.length];
    int n = 0;
    for (int i = 0; i < s.size(); i++) {
      if (!Engine.isStale(s.values()[i])) {
        ts[n] = s.timestamps()[i];
        vs[n] = s.values()[i];
        n++;
      }
    }
    return new SeriesData(s.labels(), ts, vs);
  }

  // ---- series-by-series evaluation of range queries

  /** Per precomputed call: each series' labels and its value (if any) at every step, kept primitive. */
  private record Precomputed(Labels[] labels, double[][] values, boolean[][] present) {}

  private final Map<Expr, Precomputed> precomputed = new IdentityHashMap<>();
  private long preStart;
  private long preStep;
  private int preSteps;

  /**
   * Before a range query's step loop: evaluates every range-vector function over a plain range selector (rate(x[5m])
   * and friends) for all steps at once, one series after the other. Walking each series' samples once, in order,
   * is much kinder to caches than visiting all series at every step. Subqueries are left alone: their steps are not
   * the query's.
   */
  void precompute(Expr root, long start, long end, long step) {
    preStart = start;
    preStep = step;
    preSteps = (int) ((end - start) / step) + 1;
    walk(root);
  }

  private void walk(Expr e) {
    if (e instanceof Expr.Paren p) {
      walk(p.expr());
    } else if (e instanceof Expr.Unary u) {
      walk(u.expr());
    } else if (e instanceof Expr.Binary b) {
      walk(b.lhs());
      walk(b.rhs());
    } else if (e instanceof Expr.Aggregate a) {
      walk(a.expr());
    } else if (e instanceof Expr.Call c) {
      if (!precomputeCall(c)) {
        for (Expr a : c.args()) {
          walk(a);
        }
      }
    }
  }

  private boolean precomputeCall(Expr.Call c) {
    Functions.OverTimeFunction f = Functions.overTime(c.function().name());
    if (f == null) {
      return false;
    }
    Expr.MatrixSelector ms = null;
    List<Double> params = new ArrayList<>();
    for (Expr a : c.args()) {
      Expr u = Expr.unwrap(a);
      if (u instanceof Expr.MatrixSelector m) {
        ms = m;
      } else if (u instanceof Expr.NumberLiteral n) {
        params.add(n.value());
      } else {
        return false;
      }
    }
    if (ms == null) {
      return false;
    }
    double[] p = new double[params.size()];
    for (int i = 0; i < p.length; i++) {
      p[i] = params.get(i);
    }
    List<SeriesData> series = data.get(ms);
    Labels[] outLabels = new Labels[series.size()];
    double[][] outValues = new double[series.size()][];
    boolean[][] outPresent = new boolean[series.size()][];
    Expr.VectorSelector vs = ms.selector();
    long[] range = new long[3];
    for (int k = 0; k < series.size(); k++) {
      SeriesData s = series.get(k);
      checkDeadline();
      double[] values = new double[preSteps];
      boolean[] present = new boolean[preSteps];
      outValues[k] = values;
      outPresent[k] = present;
      long[] ts = s.timestamps();
      int n = s.size();
      int lo = 0;
      int hi = -1;
      outLabels[k] = f.dropName() ? s.labels().withoutName() : s.labels();
      for (int j = 0; j < preSteps; j++) {
        long t = preStart + j * preStep;
        long ref = atTime(vs.at(), t) - vs.offset();
        long from = ref - ms.range();
        if (vs.at() != null && j > 0) {
          lo = 0;
          hi = -1;
        }
        while (hi + 1 < n && ts[hi + 1] <= ref) {
          hi++;
        }
        while (lo < n && ts[lo] < from) {
          lo++;
        }
        if (hi < 0 || lo > hi) {
          continue;
        }
        range[0] = from;
        range[1] = ref;
        range[2] = t;
        Double v = f.apply(new Window(s.labels(), ts, s.values(), lo, hi + 1), p, range);
        if (v != null) {
          values[j] = v;
          present[j] = true;
          if (++loadedSamples > engine.maxSamples()) {
            throw QueryException.tooManySamples();
          }
        }
      }
    }
    if (!hasFixedName(ms)) {
      Set<Labels> distinct = new HashSet<>(Arrays.asList(outLabels));
      if (distinct.size() < outLabels.length) {
        // Two series became one label set; fail exactly at the steps where both have a value.
        for (int j = 0; j < preSteps; j++) {
          checkDuplicates(column(new Precomputed(outLabels, outValues, outPresent), j, preStart + j * preStep));
        }
      }
    }
    precomputed.put(c, new Precomputed(outLabels, outValues, outPresent));
    return true;
  }

  /** The range query's step that {@code t} is, or -1 when it is none (a subquery's own times); after precompute. */
  private int precomputedStep(long t) {
    long d = t - preStart;
    return d >= 0 && d % preStep == 0 && d / preStep < preSteps ? (int) (d / preStep) : -1;
  }

  private static List<Value.Sample> column(Precomputed p, int j, long t) {
    List<Value.Sample> out = new ArrayList<>(p.labels().length);
    for (int k = 0; k < p.labels().length; k++) {
      if (p.present()[k][j]) {
        out.add(new Value.Sample(p.labels()[k], t, p.values()[k][j]));
      }
    }
    return out;
  }

  // ---- evaluation

  Result eval(Expr e, long t) {
    if (!precomputed.isEmpty()) {
      Precomputed pre = precomputed.get(e);
      int j = pre == null ? -1 : precomputedStep(t);
      if (j >= 0) {
        return Result.vector(column(pre, j, t));
      }
    }
    if (e instanceof Expr.NumberLiteral n) {
      return Result.scalar(n.value());
    }
    if (e instanceof Expr.StringLiteral s) {
      return Result.string(s.value());
    }
    if (e instanceof Expr.Paren p) {
      return eval(p.expr(), t);
    }
    if (e instanceof Expr.VectorSelector vs) {
      return Result.vector(selectInstant(vs, t));
    }
    if (e instanceof Expr.MatrixSelector ms) {
      return Result.matrix(selectRange(ms, t));
    }
    if (e instanceof Expr.Subquery sq) {
      return Result.matrix(subquery(sq, t));
    }
    if (e instanceof Expr.Unary u) {
      Result r = eval(u.expr(), t);
      if (r.type() == ValueType.SCALAR) {
        return Result.scalar(-r.scalar());
      }
      List<Value.Sample> out = new ArrayList<>(r.vector().size());
      for (Value.Sample s : r.vector()) {
        out.add(new Value.Sample(s.labels().withoutName(), t, -s.v()));
      }
      return Result.vector(out);
    }
    if (e instanceof Expr.Binary b) {
      return binary(b, t);
    }
    if (e instanceof Expr.Call c) {
      List<Result> args = new ArrayList<>(c.args().size());
      for (Expr a : c.args()) {
        args.add(eval(a, t));
      }
      Result r = Functions.call(this, c, args, t);
      if (r.type() == ValueType.VECTOR && mayCollide(c, args)) {
        checkDuplicates(r.vector());
      }
      return r;
    }
    if (e instanceof Expr.Aggregate a) {
      Double param = null;
      String strParam = null;
      if (a.param() != null) {
        Result p = eval(a.param(), t);
        if (p.type() == ValueType.STRING) {
          strParam = p.string();
        } else {
          param = p.scalar();
        }
      }
      if (param == null && strParam == null && Aggregations.ColumnGroups.handles(a.op())) {
        Precomputed pre = precomputed.isEmpty() ? null : precomputed.get(Expr.unwrap(a.expr()));
        int j = pre == null ? -1 : precomputedStep(t);
        if (j >= 0) {
          Aggregations.ColumnGroups groups = columnGroups.computeIfAbsent(a,
              k -> new Aggregations.ColumnGroups(pre.labels(), a));
          return Result.vector(groups.aggregate(a.op(), pre.values(), pre.present(), j, t));
        }
      }
      Map<Labels, Labels> cache = groupCaches.computeIfAbsent(a, k -> new HashMap<>());
      return Result.vector(Aggregations.aggregate(a, eval(a.expr(), t).vector(), param, strParam, t, cache));
    }
    throw new IllegalStateException("unknown node " + e);
  }

  /**
   * Whether a function's output can hold two equal label sets: only when it rewrites labels, or drops metric names of
   * an input with more than one. Skipping the check otherwise keeps a hash set per step off the hot path.
   */
  private static boolean mayCollide(Expr.Call c, List<Result> args) {
    String f = c.function().name();
    if (f.equals("label_replace") || f.equals("label_join")) {
      return true;
    }
    for (int ai = 0; ai < args.size(); ai++) {
      if (hasFixedName(c.args().get(ai))) {
        continue;
      }
      Result a = args.get(ai);
      String first = null;
      if (a.type() == ValueType.VECTOR) {
        for (Value.Sample s : a.vector()) {
          String n = s.labels().metricName();
          if (first == null) {
            first = n;
          } else if (!first.equals(n)) {
            return true;
          }
        }
      } else if (a.type() == ValueType.MATRIX) {
        for (Window w : a.matrix()) {
          String n = w.labels().metricName();
          if (first == null) {
            first = n;
          } else if (!first.equals(n)) {
            return true;
          }
        }
      }
    }
    return false;
  }

  private static boolean hasFixedName(Expr e) {
    Expr u = Expr.unwrap(e);
    Expr.VectorSelector vs = u instanceof Expr.MatrixSelector ms ? ms.selector()
        : u instanceof Expr.VectorSelector v ? v : null;
    return vs != null && vs.name() != null;
  }

  static void checkDuplicates(List<Value.Sample> vector) {
    if (vector.size() < 2) {
      return;
    }
    Set<Labels> seen = new HashSet<>(vector.size() * 2);
    for (Value.Sample s : vector) {
      if (!seen.add(s.labels())) {
        throw QueryException.execution("vector cannot contain metrics with the same labelset");
      }
    }
  }

  /** Index of the last sample at or before {@code t}, or -1. */
  static int lastAtOrBefore(long[] ts, int n, long t) {
    int lo = 0;
    int hi = n - 1;
    int found = -1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (ts[mid] <= t) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  private List<Value.Sample> selectInstant(Expr.VectorSelector vs, long t) {
    long ref = atTime(vs.at(), t) - vs.offset();
    List<SeriesData> series = data.get(vs);
    Cursor c = cursor(vs, series.size(), ref, Long.MIN_VALUE);
    List<Value.Sample> out = new ArrayList<>(series.size());
    for (int k = 0; k < series.size(); k++) {
      SeriesData s = series.get(k);
      int i = advanceHi(c, k, s.timestamps(), s.size(), ref);
      if (i < 0) {
        continue;
      }
      long st = s.timestamps()[i];
      double v = s.values()[i];
      if (st < ref - engine.lookbackDelta() || Engine.isStale(v)) {
        continue;
      }
      out.add(new Value.Sample(s.labels(), st, v));
    }
    return out;
  }

  private List<Window> selectRange(Expr.MatrixSelector ms, long t) {
    Expr.VectorSelector vs = ms.selector();
    long ref = atTime(vs.at(), t) - vs.offset();
    long from = ref - ms.range();
    List<SeriesData> series = data.get(ms);
    Cursor c = cursor(ms, series.size(), ref, from);
    List<Window> out = new ArrayList<>(series.size());
    for (int k = 0; k < series.size(); k++) {
      SeriesData s = series.get(k);
      int hi = advanceHi(c, k, s.timestamps(), s.size(), ref);
      if (hi < 0) {
        continue;
      }
      int lo = advanceLo(c, k, s.timestamps(), s.size(), from);
      if (lo > hi) {
        continue;
      }
      out.add(new Window(s.labels(), s.timestamps(), s.values(), lo, hi + 1));
    }
    return out;
  }

  /** The range and evaluation time of a range-vector argument, for rate()'s extrapolation. */
  long[] rangeOf(Expr arg, long t) {
    Expr e = Expr.unwrap(arg);
    if (e instanceof Expr.MatrixSelector ms) {
      long ref = atTime(ms.selector().at(), t) - ms.selector().offset();
      return new long[] {ref - ms.range(), ref};
    }
    if (e instanceof Expr.Subquery sq) {
      long ref = atTime(sq.at(), t) - sq.offset();
      return new long[] {ref - sq.range(), ref};
    }
    throw new IllegalStateException("not a range: " + arg);
  }

  private List<Window> subquery(Expr.Subquery sq, long t) {
    long ref = atTime(sq.at(), t) - sq.offset();
    long step = sq.step() > 0 ? sq.step() : engine.defaultSubqueryStep();
    long from = ref - sq.range();
    long first = Math.floorDiv(from, step) * step;
    if (first < from) {
      first += step;
    }
    Map<Labels, long[]> tsBy = new LinkedHashMap<>();
    Map<Labels, double[]> vsBy = new HashMap<>();
    Map<Labels, int[]> nBy = new HashMap<>();
    int capacity = (int) ((ref - first) / step) + 1;
    for (long it = first; it <= ref; it += step) {
      checkDeadline();
      Result r = eval(sq.expr(), it);
      for (Value.Sample s : r.vector()) {
        long[] ts = tsBy.computeIfAbsent(s.labels(), k -> new long[capacity]);
        double[] vs = vsBy.computeIfAbsent(s.labels(), k -> new double[capacity]);
        int[] n = nBy.computeIfAbsent(s.labels(), k -> new int[1]);
        ts[n[0]] = it;
        vs[n[0]] = s.v();
        n[0]++;
      }
    }
    List<Window> out = new ArrayList<>(tsBy.size());
    tsBy.forEach((l, ts) -> out.add(new Window(l, ts, vsBy.get(l), 0, nBy.get(l)[0])));
    return out;
  }

  // ---- binary operators

  private Result binary(Expr.Binary b, long t) {
    Result l = eval(b.lhs(), t);
    Result r = eval(b.rhs(), t);
    BinaryOp op = b.op();
    if (l.type() == ValueType.SCALAR && r.type() == ValueType.SCALAR) {
      double v = BinaryOps.scalar(op, l.scalar(), r.scalar(), b.returnBool());
      return Result.scalar(v);
    }
    if (l.type() == ValueType.VECTOR && r.type() == ValueType.VECTOR) {
      return Result.vector(BinaryOps.vectorVector(b, l.vector(), r.vector(), t));
    }
    if (l.type() == ValueType.VECTOR) {
      return Result.vector(BinaryOps.vectorScalar(op, l.vector(), r.scalar(), false, b.returnBool(), t));
    }
    return Result.vector(BinaryOps.vectorScalar(op, r.vector(), l.scalar(), true, b.returnBool(), t));
  }

  static VectorMatching matchingOf(Expr.Binary b) {
    return b.matching() != null ? b.matching() : VectorMatching.defaultFor(b.op());
  }
}
