package io.sluice.metrics.tsdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

class XorChunkTest {

  private static void roundTrip(long[] ts, double[] vs) {
    XorChunk c = new XorChunk();
    for (int i = 0; i < ts.length; i++) {
      c.append(ts[i], vs[i]);
    }
    XorChunk.Reader r = new XorChunk.Reader(c.encoded());
    for (int i = 0; i < ts.length; i++) {
      assertTrue(r.next(), "sample " + i);
      assertEquals(ts[i], r.t(), "t " + i);
      assertEquals(Double.doubleToRawLongBits(vs[i]), Double.doubleToRawLongBits(r.v()), "v " + i);
    }
    assertFalse(r.next());
  }

  @Test
  void roundTripsEdgeCases() {
    long[] ts = {-5000, 0, 1, 8193, 8193 + 8194, 100_000, 100_000 + 70_000, 1L << 40, (1L << 40) + 15_000,
        (1L << 40) + 15_001, (1L << 40) + 2_000_000};
    double[] vs = {0, -0.0, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.MIN_VALUE,
        Double.MAX_VALUE, 1.5, 1.5, 0x7ff0000000000002L, Double.longBitsToDouble(0x7ff0000000000002L)};
    roundTrip(ts, vs);
  }

  @Test
  void roundTripsRandomData() {
    Random rnd = new Random(42);
    for (int round = 0; round < 200; round++) {
      int n = 1 + rnd.nextInt(120);
      long[] ts = new long[n];
      double[] vs = new double[n];
      long t = rnd.nextLong() >> 20;
      for (int i = 0; i < n; i++) {
        t += rnd.nextInt(4) == 0 ? rnd.nextInt(1 << 22) : 15_000 + rnd.nextInt(3) - 1;
        ts[i] = t;
        vs[i] = switch (rnd.nextInt(4)) {
          case 0 -> rnd.nextDouble();
          case 1 -> Double.longBitsToDouble(rnd.nextLong());
          case 2 -> i > 0 ? vs[i - 1] : 0;
          default -> rnd.nextInt(1000);
        };
      }
      roundTrip(ts, vs);
    }
  }

  /**
   * Bytes per sample over 10 chunks of one series; timestamps 15 s apart. The scrape loop aligns timestamps within
   * 2 ms of the schedule (as Prometheus's scrape timestamp tolerance does), so only every tenth is off, by up to 5 ms.
   */
  private static double bytesPerSample(java.util.function.DoubleUnaryOperator next, long seed) {
    Random rnd = new Random(seed);
    long bytes = 0;
    double v = 0;
    long t = 1_700_000_000_000L;
    for (int chunk = 0; chunk < 10; chunk++) {
      XorChunk c = new XorChunk();
      for (int i = 0; i < 120; i++) {
        c.append(rnd.nextInt(10) == 0 ? t + rnd.nextInt(11) - 5 : t, v);
        t += 15_000;
        v = next.applyAsDouble(v);
      }
      bytes += c.encoded().length;
    }
    return bytes / 1200.0;
  }

  @Test
  void realisticCountersAndGaugesTakeAtMostTwoBytesPerSample() {
    Random rnd = new Random(7);
    // A CDC counter: records polled, idle about half the time, otherwise bursts of up to a few hundred.
    double counter = bytesPerSample(v -> rnd.nextBoolean() ? v : v + rnd.nextInt(300), 1);
    // A gauge such as a running ratio or lag that changes now and then.
    double gauge = bytesPerSample(v -> rnd.nextInt(10) == 0 ? Math.round(rnd.nextDouble() * 1000) / 1000.0 : v, 2);
    assertTrue(counter <= 2.0, "counter bytes per sample " + counter);
    assertTrue(gauge <= 2.0, "gauge bytes per sample " + gauge);
  }
}
