package io.sluice.metrics.promql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.metrics.model.Labels;
import io.sluice.metrics.storage.Appender;
import io.sluice.metrics.tsdb.Db;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A range query folds an aggregation over a precomputed rate straight from its arrays ({@link
 * Aggregations.ColumnGroups}); an instant query at the same time goes through the sample-by-sample path. Both must
 * give the same groups, in the same order, with the same bits, including NaN, infinities and series that come and go.
 */
class ColumnAggregationTest {
  private static final long STEP = 15_000;

  @Test
  void aRangeQueryAggregatesAsEachInstantQueryDoes() {
    Db db = Db.inMemory();
    Random rnd = new Random(7);
    Appender app = db.appender();
    double[] counters = new double[40];
    for (int i = 0; i < 400; i++) {
      for (int s = 0; s < counters.length; s++) {
        // Series 0-4 stop half way, 5-9 start half way: groups appear and vanish between steps.
        if (s < 5 && i > 200 || s >= 5 && s < 10 && i < 200) {
          continue;
        }
        double inc = switch (rnd.nextInt(50)) {
          case 0 -> Double.NaN;
          case 1 -> Double.POSITIVE_INFINITY;
          default -> rnd.nextInt(1000) / 7.0;
        };
        counters[s] = Double.isNaN(inc) || Double.isInfinite(inc) ? inc : (Double.isNaN(counters[s])
            || Double.isInfinite(counters[s]) ? 0 : counters[s]) + inc;
        app.append(Labels.of("__name__", "m", "job", "j" + (s % 3), "zone", "z" + (s % 4), "i", "" + s),
            i * STEP, counters[s]);
      }
      app.commit();
    }
    Engine engine = Engine.builder().build();
    long start = 10 * STEP;
    long end = 390 * STEP;
    int checked = 0;
    for (String op : List.of("sum", "avg", "count", "group", "min", "max")) {
      for (String grouping : List.of("by (job)", "without (i)", "", "by (zone, job)")) {
        String q = op + " " + grouping + " (rate(m[2m]))";
        Value.Matrix range = engine.rangeQuery(db, q, start, end, STEP);
        for (long t = start; t <= end; t += STEP) {
          List<Value.Sample> instant = ((Value.Vector) engine.instantQuery(db, q, t)).samples();
          StringBuilder want = new StringBuilder();
          for (Value.Sample s : instant.stream().sorted((a, b) -> a.labels().compareTo(b.labels())).toList()) {
            want.append(s.labels()).append('=').append(Double.doubleToRawLongBits(s.v())).append(' ');
          }
          StringBuilder got = new StringBuilder();
          for (Value.Series s : range.series()) {
            for (int k = 0; k < s.ts().length; k++) {
              if (s.ts()[k] == t) {
                got.append(s.labels()).append('=').append(Double.doubleToRawLongBits(s.vs()[k])).append(' ');
              }
            }
          }
          assertEquals(want.toString(), got.toString(), q + " at " + t);
          checked += instant.size();
        }
      }
    }
    assertTrue(checked > 10_000, "checked " + checked);
    db.close();
  }
}
