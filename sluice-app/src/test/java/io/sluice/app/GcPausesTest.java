package io.sluice.app;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class GcPausesTest {
  @Test
  void countsYoungAndFullPausesOfAParallelCollectorsLog() {
    GcPauses p = GcPauses.of(List.of(
        "[0.004s] Using Parallel",
        "[0.567s] GC(0) Pause Young (Allocation Failure) 16M->4M(61M) 8.654ms",
        "[0.659s] GC(1) Pause Young (Allocation Failure) 20M->17M(61M) 13.095ms",
        "[0.691s] GC(2) Pause Full (Ergonomics) 49M->5M(61M) 14.180ms",
        "[2.000s] GC(3) Pause Full (System.gc()) 9M->5M(61M) 5.820ms"));
    assertEquals(2, p.young());
    assertEquals(21.749, p.youngMillis(), 1e-9);
    assertEquals(13.095, p.longestYoungMillis(), 1e-9);
    assertEquals(2, p.full());
    assertEquals(14.180, p.longestFullMillis(), 1e-9);
    assertEquals(2.0, p.seconds(), 1e-9);
    assertEquals(0.0209, p.share(), 1e-4);
  }
}
