package io.sluice.testing;

import java.lang.management.ManagementFactory;

/**
 * What the heap holds after full collections: the live data of the test's JVM, for tests that show a structure does
 * not grow with the data it passes (DESIGN.md, principle 7). Measure before, then in the middle of the work (from a
 * callback or an output stream the work writes to), and compare; a difference of a few MB is noise, so such tests
 * pass tens of MB through and allow a fraction of that.
 */
public final class RetainedHeap {
  private RetainedHeap() {}

  /** Heap in use after full collections, in bytes: the least of a few, as one may run while others still allocate. */
  public static long bytes() {
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 4; i++) {
      System.gc();
      used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
    }
    return used;
  }
}
