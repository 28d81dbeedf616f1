package io.sluice.metrics.promql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.metrics.model.Labels;
import io.sluice.metrics.model.Matcher;
import io.sluice.metrics.storage.Appender;
import io.sluice.metrics.storage.Querier;
import io.sluice.metrics.tsdb.Db;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a query may take into memory is bounded by the engine's sample limit, checked before the store decodes the
 * samples, and the series and label endpoints read the index, not the samples. 200 series of 10,000 samples each
 * (two days at 15 s, in blocks on disk and the head): decoded, 32 MB.
 */
class QueryMemoryTest {
  private static final int SERIES = 200;
  private static final int SAMPLES = 10_000;
  private static final long STEP = 15_000;
  @TempDir static Path dir;
  private static Db db;

  @BeforeAll
  static void fill() {
    db = Db.open(dir, Duration.ofDays(15), Duration.ofHours(2));
    Appender app = db.appender();
    for (int i = 0; i < SAMPLES; i++) {
      for (int s = 0; s < SERIES; s++) {
        app.append(Labels.of("__name__", "m", "series", Integer.toString(s)), i * STEP, i);
      }
      app.commit();
    }
    assertTrue(db.stats().blocks() > 10, "most of it in blocks: " + db.stats());
  }

  @AfterAll
  static void close() {
    db.close();
  }

  /** Bytes the test's thread has allocated so far: what it allocated over some work bounds what that work held. */
  private static long allocatedSoFar() {
    return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
  }

  private static long allocated(Runnable work) {
    long before = allocatedSoFar();
    work.run();
    return allocatedSoFar() - before;
  }

  @Test
  void aQueryOverTheSampleLimitFailsBeforeItDecodesTheSamples() {
    Engine engine = Engine.builder().maxSamples(100_000).build();
    long end = SAMPLES * STEP;
    long before = allocatedSoFar();
    QueryException e = assertThrows(QueryException.class,
        () -> engine.instantQuery(db, "count_over_time(m[3d])", end));
    long used = allocatedSoFar() - before;
    assertEquals("execution", e.errorType());
    assertEquals("query processing would load too many samples into memory in query execution", e.getMessage());
    System.out.printf("a query of %,d samples refused at 100,000: %,d bytes allocated%n", (long) SERIES * SAMPLES,
        used);
    // Decoding the 2,000,000 samples before counting them (as before) allocates over 32 MB.
    assertTrue(used < 12L << 20, "the refused query allocated " + used + " bytes");

    // Within the limit the same store answers.
    Value.Vector v = (Value.Vector) Engine.builder().build().instantQuery(db, "count_over_time(m[3d])", end);
    assertEquals(SERIES, v.samples().size());
    assertEquals(SAMPLES, v.samples().get(0).v());
  }

  @Test
  void theSeriesAndLabelsOfAWindowAreReadWithoutDecodingItsSamples() {
    List<Matcher> all = List.of(Matcher.eq("__name__", "m"));
    try (Querier q = db.querier(Long.MIN_VALUE, Long.MAX_VALUE)) {
      long series = allocated(() -> q.series(all));
      long values = allocated(() -> q.labelValues("series", List.of()));
      System.out.printf("series of %,d samples: %,d bytes allocated; label values: %,d%n", (long) SERIES * SAMPLES,
          series, values);
      // Selecting them decodes 2,000,000 samples: over 32 MB.
      assertTrue(series < 8L << 20, "series allocated " + series + " bytes");
      assertTrue(values < 8L << 20, "label values allocated " + values + " bytes");
      assertEquals(SERIES, q.series(all).size());
      assertEquals(SERIES, q.labelValues("series", List.of()).size());
      assertEquals(List.of("__name__", "series"), q.labelNames(List.of()));
    }
    try (Querier q = db.querier(SAMPLES * STEP + 60_000, Long.MAX_VALUE)) {
      assertEquals(List.of(), q.series(all), "nothing after the last sample");
    }
  }
}
