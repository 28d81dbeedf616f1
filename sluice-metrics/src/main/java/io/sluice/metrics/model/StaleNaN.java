package io.sluice.metrics.model;

/** Prometheus's special stale marker and sample-value helpers. */
public final class StaleNaN {
  /** The exact NaN bit pattern Prometheus writes when a series disappears. */
  public static final long BITS = 0x7ff0000000000002L;
  public static final double VALUE = Double.longBitsToDouble(BITS);

  private StaleNaN() {}

  public static boolean is(double v) {
    return Double.doubleToRawLongBits(v) == BITS;
  }
}
