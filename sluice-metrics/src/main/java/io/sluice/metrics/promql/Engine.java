package io.sluice.metrics.promql;

import io.sluice.metrics.model.Labels;
import io.sluice.metrics.model.StaleNaN;
import io.sluice.metrics.promql.parser.Expr;
import io.sluice.metrics.promql.parser.ParseException;
import io.sluice.metrics.promql.parser.Parser;
import io.sluice.metrics.promql.parser.ValueType;
import io.sluice.metrics.storage.Queryable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Evaluates PromQL over any {@link Queryable}. Each query first loads, once per selector, every sample any step can
 * need, then evaluates the expression tree step by step over those samples.
 *
 * <p>Prometheus 2.x semantics where 2.x and 3.x differ: the lookback window of an instant selector and the window of
 * a range selector are closed on both ends ({@code [t - range, t]}), and a subquery's first step is the first
 * multiple of its step at or after {@code t - range}.
 */
public final class Engine {
  private final long lookbackDelta;
  private final long timeoutNanos;
  private final long maxSamples;
  private final long defaultSubqueryStep;

  private Engine(Builder b) {
    this.lookbackDelta = b.lookbackDelta.toMillis();
    this.timeoutNanos = b.timeout.toNanos();
    this.maxSamples = b.maxSamples;
    this.defaultSubqueryStep = b.defaultSubqueryStep.toMillis();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** This engine with a shorter timeout (a query's own {@code timeout} parameter never extends the server's). */
  public Engine withTimeout(Duration timeout) {
    Builder b = new Builder().lookbackDelta(Duration.ofMillis(lookbackDelta)).maxSamples(maxSamples)
        .defaultSubqueryStep(Duration.ofMillis(defaultSubqueryStep))
        .timeout(Duration.ofNanos(Math.min(timeoutNanos, timeout.toNanos())));
    return b.build();
  }

  /** Engine limits; defaults are Prometheus's. */
  public static final class Builder {
    private Duration lookbackDelta = Duration.ofMinutes(5);
    private Duration timeout = Duration.ofMinutes(2);
    private long maxSamples = 50_000_000;
    private Duration defaultSubqueryStep = Duration.ofMinutes(1);

    public Builder lookbackDelta(Duration d) {
      this.lookbackDelta = d;
      return this;
    }

    public Builder timeout(Duration d) {
      this.timeout = d;
      return this;
    }

    public Builder maxSamples(long n) {
      this.maxSamples = n;
      return this;
    }

    /** The step of subqueries that give none: the global evaluation interval. */
    public Builder defaultSubqueryStep(Duration d) {
      this.defaultSubqueryStep = d;
      return this;
    }

    public Engine build() {
      return new Engine(this);
    }
  }

  /** Evaluates at one instant (milliseconds). */
  public Value instantQuery(Queryable storage, String query, long time) {
    Expr expr = Parser.parse(query);
    return instantQuery(storage, expr, time);
  }

  public Value instantQuery(Queryable storage, Expr expr, long time) {
    Evaluator ev = new Evaluator(this, storage, time, time, 0);
    ev.prefetch(expr);
    Evaluator.Result r = ev.eval(expr, time);
    return switch (r.type()) {
      case SCALAR -> new Value.Scalar(time, r.scalar());
      case STRING -> new Value.StringValue(time, r.string());
      case VECTOR -> {
        Evaluator.checkDuplicates(r.vector());
        yield new Value.Vector(time, r.vector());
      }
      case MATRIX -> {
        List<Value.Series> out = new ArrayList<>();
        for (Evaluator.Window w : r.matrix()) {
          out.add(w.toSeries());
        }
        yield new Value.Matrix(out);
      }
    };
  }

  /** Evaluates at {@code start, start + step, ... <= end}; the result is always a matrix. */
  public Value.Matrix rangeQuery(Queryable storage, String query, long start, long end, long step) {
    Expr expr = Parser.parse(query);
    return rangeQuery(storage, expr, start, end, step);
  }

  public Value.Matrix rangeQuery(Queryable storage, Expr expr, long start, long end, long step) {
    if (expr.type() != ValueType.SCALAR && expr.type() != ValueType.VECTOR) {
      throw new ParseException("invalid expression type \""
          + expr.type().description() + "\" for range query, must be Scalar or instant Vector");
    }
    Evaluator ev = new Evaluator(this, storage, start, end, step);
    ev.prefetch(expr);
    ev.precompute(expr, start, end, step);
    Map<Labels, SeriesBuilder> out = new LinkedHashMap<>();
    long points = 0;
    for (long t = start; t <= end; t += step) {
      ev.checkDeadline();
      Evaluator.Result r = ev.eval(expr, t);
      if (r.type() == ValueType.SCALAR) {
        out.computeIfAbsent(Labels.EMPTY, k -> new SeriesBuilder()).add(t, r.scalar());
        points++;
        continue;
      }
      List<Value.Sample> vec = r.vector();
      for (Value.Sample s : vec) {
        SeriesBuilder b = out.computeIfAbsent(s.labels(), k -> new SeriesBuilder());
        if (b.n > 0 && b.ts[b.n - 1] == t) {
          throw QueryException.execution("vector cannot contain metrics with the same labelset");
        }
        b.add(t, s.v());
      }
      points += vec.size();
      if (points > maxSamples) {
        throw QueryException.tooManySamples();
      }
    }
    List<Value.Series> series = new ArrayList<>(out.size());
    out.forEach((l, b) -> series.add(new Value.Series(l, Arrays.copyOf(b.ts, b.n),
        Arrays.copyOf(b.vs, b.n))));
    series.sort((a, b) -> a.labels().compareTo(b.labels()));
    return new Value.Matrix(series);
  }

  private static final class SeriesBuilder {
    long[] ts = new long[16];
    double[] vs = new double[16];
    int n;

    void add(long t, double v) {
      if (n == ts.length) {
        ts = Arrays.copyOf(ts, n * 2);
        vs = Arrays.copyOf(vs, n * 2);
      }
      ts[n] = t;
      vs[n] = v;
      n++;
    }
  }

  long lookbackDelta() {
    return lookbackDelta;
  }

  long timeoutNanos() {
    return timeoutNanos;
  }

  long maxSamples() {
    return maxSamples;
  }

  long defaultSubqueryStep() {
    return defaultSubqueryStep;
  }

  static boolean isStale(double v) {
    return StaleNaN.is(v);
  }
}
