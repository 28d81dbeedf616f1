package io.sluice.metrics.differential;

import io.sluice.metrics.differential.RemoteWrite.Batch;
import io.sluice.metrics.model.Labels;
import io.sluice.metrics.model.StaleNaN;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * The series both stores hold, every 15 seconds over two hours from {@code t0}: counters with resets and gaps, float
 * and small-integer gauges, classic histograms (well-formed and not), an info metric; values that are NaN, ±Inf, ±0
 * and extreme; series that end with a stale marker, come back after one, flap, or just stop; millisecond timestamps off
 * the grid; two metric names with the same labels; label values with a newline, quotes and non-ASCII.
 */
final class DifferentialData {
  static final long STEP = 15_000;
  static final int POINTS = 2 * 240;
  /** The index around which series go stale, stop or come back: T0 + 75 minutes. */
  static final int STALE_AT = 300;

  private DifferentialData() {}

  /** A value that stands for "no sample here" while a series is built; never sent. */
  private static final double ABSENT = Double.longBitsToDouble(0x7ff8deadbeef0000L);

  private static boolean absent(double v) {
    return Double.doubleToRawLongBits(v) == Double.doubleToRawLongBits(ABSENT);
  }

  static List<Batch> generate(long t0) {
    Random rnd = new Random(20261122);
    List<Batch> out = new ArrayList<>();
    for (int inst = 0; inst < 5; inst++) {
      for (String mode : List.of("read", "write")) {
        double[] v = new double[POINTS];
        double c = rnd.nextInt(1000);
        for (int i = 0; i < POINTS; i++) {
          if (inst == 1 && mode.equals("read") && i == 200) {
            c = rnd.nextInt(5); // counter reset
          }
          c += rnd.nextDouble() * 20;
          v[i] = c;
        }
        if (inst == 2) {
          Arrays.fill(v, 100, 140, ABSENT); // a 10-minute gap
        }
        out.add(grid(t0, Labels.of("__name__", "dt_requests_total", "job", inst < 3 ? "api" : "db", "instance",
            "i" + inst, "mode", mode), v));
      }
      double[] g = new double[POINTS];
      double[] ig = new double[POINTS];
      double level = rnd.nextDouble() * 100;
      for (int i = 0; i < POINTS; i++) {
        level += rnd.nextGaussian();
        g[i] = level;
        ig[i] = rnd.nextInt(4) == 0 ? rnd.nextInt(6) : (i > 0 ? ig[i - 1] : 0);
      }
      out.add(grid(t0, Labels.of("__name__", "dt_temperature", "job", inst < 3 ? "api" : "db", "instance", "i" + inst),
          g));
      out.add(grid(t0, Labels.of("__name__", "dt_queue_depth", "job", inst < 3 ? "api" : "db", "instance", "i" + inst),
          ig));
      double[] info = new double[POINTS];
      Arrays.fill(info, 1);
      out.add(grid(t0, Labels.of("__name__", "dt_build_info", "instance", "i" + inst, "version", "v" + (inst % 2)),
          info));
    }
    String[] les = {"0.05", "0.1", "0.5", "1", "5", "+Inf"};
    for (int inst = 0; inst < 3; inst++) {
      double[][] buckets = new double[les.length][POINTS];
      double[] counts = new double[les.length];
      for (int i = 0; i < POINTS; i++) {
        int obs = rnd.nextInt(30);
        for (int o = 0; o < obs; o++) {
          double x = Math.exp(rnd.nextGaussian() - 1);
          for (int b = 0; b < les.length; b++) {
            if (b == les.length - 1 || x <= Double.parseDouble(les[b])) {
              counts[b]++;
            }
          }
        }
        for (int b = 0; b < les.length; b++) {
          buckets[b][i] = counts[b];
        }
      }
      for (int b = 0; b < les.length; b++) {
        out.add(grid(t0, Labels.of("__name__", "dt_latency_seconds_bucket", "job", "api", "instance", "i" + inst, "le",
            les[b]), buckets[b]));
      }
    }
    special(t0, rnd, out);
    stale(t0, rnd, out);
    odd(t0, rnd, out);
    return out;
  }

  /** NaN, infinities, signed zeros and the extremes of float64, among ordinary values. */
  private static void special(long t0, Random rnd, List<Batch> out) {
    double[] nan = new double[POINTS];
    double[] inf = new double[POINTS];
    double[] extreme = new double[POINTS];
    double[] zero = new double[POINTS];
    double[] cycle = {1e308, -1e308, Double.MIN_VALUE, -0.0, 0.0, Double.MAX_VALUE, 1, Double.NaN,
        Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -Double.MAX_VALUE, 0.5};
    double level = 10;
    for (int i = 0; i < POINTS; i++) {
      level += rnd.nextGaussian();
      nan[i] = i % 7 == 3 ? Double.NaN : level;
      inf[i] = i % 50 == 10 ? Double.POSITIVE_INFINITY : i % 50 == 30 ? Double.NEGATIVE_INFINITY : level * 2;
      extreme[i] = cycle[(i / 3) % cycle.length];
      zero[i] = 0;
    }
    out.add(grid(t0, Labels.of("__name__", "dt_special", "kind", "nan"), nan));
    out.add(grid(t0, Labels.of("__name__", "dt_special", "kind", "inf"), inf));
    out.add(grid(t0, Labels.of("__name__", "dt_special", "kind", "extreme"), extreme));
    out.add(grid(t0, Labels.of("__name__", "dt_special", "kind", "zero"), zero));
  }

  /** Stale markers: a series that ends with one, one that comes back after one, one that flaps; one just stops. */
  private static void stale(long t0, Random rnd, List<Batch> out) {
    double[] ends = new double[POINTS];
    double[] returns = new double[POINTS];
    double[] flaps = new double[POINTS];
    double[] stops = new double[POINTS];
    double c = 0;
    for (int i = 0; i < POINTS; i++) {
      c += rnd.nextInt(10);
      ends[i] = i < STALE_AT ? c : i == STALE_AT ? StaleNaN.VALUE : ABSENT;
      returns[i] = i == STALE_AT - 50 ? StaleNaN.VALUE : i > STALE_AT - 50 && i < STALE_AT - 30 ? ABSENT : c / 3;
      flaps[i] = i % 20 == 0 ? StaleNaN.VALUE : rnd.nextInt(8);
      stops[i] = i < STALE_AT ? c * 2 : ABSENT;
    }
    out.add(grid(t0, Labels.of("__name__", "dt_stale", "phase", "ends"), ends));
    out.add(grid(t0, Labels.of("__name__", "dt_stale", "phase", "returns"), returns));
    out.add(grid(t0, Labels.of("__name__", "dt_stale", "phase", "flaps"), flaps));
    out.add(grid(t0, Labels.of("__name__", "dt_stale", "phase", "stops"), stops));
  }

  /** Millisecond timestamps, colliding label sets, label values that need escaping, malformed histograms. */
  private static void odd(long t0, Random rnd, List<Batch> out) {
    long[] jts = new long[POINTS];
    double[] jvs = new double[POINTS];
    double c = 0;
    for (int i = 0; i < POINTS; i++) {
      jts[i] = t0 + i * STEP + rnd.nextInt((int) STEP);
      c += rnd.nextDouble() * 3;
      if (i == 333) {
        c = 1; // a counter reset
      }
      jvs[i] = c;
    }
    out.add(new Batch(Labels.of("__name__", "dt_jitter", "job", "api"), jts, jvs));

    double[] a = new double[POINTS];
    double[] b = new double[POINTS];
    double[] a2 = new double[POINTS];
    for (int i = 0; i < POINTS; i++) {
      a[i] = i;
      b[i] = 2 * i;
      a2[i] = 3;
    }
    out.add(grid(t0, Labels.of("__name__", "dt_collide_a", "x", "1"), a));
    out.add(grid(t0, Labels.of("__name__", "dt_collide_b", "x", "1"), b));
    out.add(grid(t0, Labels.of("__name__", "dt_collide_a", "x", "2"), a2));

    String[] values = {"line\nbreak", "quote\"back\\slash", "ünïcödé ✓", "x.y", "xzy"};
    for (int k = 0; k < values.length; k++) {
      double[] v = new double[POINTS];
      Arrays.fill(v, k + 1);
      out.add(grid(t0, Labels.of("__name__", "dt_labels", "v", values[k], "k", "k" + k), v));
    }

    // Histograms that are not well formed: a bound written twice (1 and 1.0), no +Inf bucket, counts that fall,
    // negative bounds, no observations, and a bound that is not a number.
    hist(t0, out, "coalesce", new String[] {"0.5", "1", "1.0", "+Inf"}, new double[] {1, 2, 1, 5});
    hist(t0, out, "noinf", new String[] {"0.5", "1", "2"}, new double[] {1, 2, 3});
    hist(t0, out, "falling", new String[] {"0.5", "1", "2", "+Inf"}, new double[] {3, 2, 4, 4});
    hist(t0, out, "negative", new String[] {"-2", "-1", "0", "+Inf"}, new double[] {1, 2, 2, 3});
    hist(t0, out, "empty", new String[] {"0.5", "1", "+Inf"}, new double[] {0, 0, 0});
    hist(t0, out, "onebucket", new String[] {"+Inf"}, new double[] {4});
    hist(t0, out, "badle", new String[] {"0.5", "abc", "1e0", "0x1p1", "+Inf"}, new double[] {1, 2, 2, 3, 4});
  }

  /** A histogram whose bucket counts grow by {@code perStep} every step. */
  private static void hist(long t0, List<Batch> out, String name, String[] les, double[] perStep) {
    for (int b = 0; b < les.length; b++) {
      double[] v = new double[POINTS];
      for (int i = 0; i < POINTS; i++) {
        v[i] = perStep[b] * (i + 1);
      }
      out.add(grid(t0, Labels.of("__name__", "dt_odd_bucket", "case", name, "le", les[b]), v));
    }
  }

  private static Batch grid(long t0, Labels labels, double[] v) {
    int n = 0;
    for (double x : v) {
      if (!absent(x)) {
        n++;
      }
    }
    long[] ts = new long[n];
    double[] vs = new double[n];
    int k = 0;
    for (int i = 0; i < v.length; i++) {
      if (!absent(v[i])) {
        ts[k] = t0 + i * STEP;
        vs[k] = v[i];
        k++;
      }
    }
    return new Batch(labels, ts, vs);
  }
}
