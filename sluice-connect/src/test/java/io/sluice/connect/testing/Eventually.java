package io.sluice.connect.testing;

import java.time.Duration;
import java.util.function.Supplier;

/** Polls a condition that becomes true asynchronously (a row reaching the sink, a status changing). */
public final class Eventually {
  private Eventually() {}

  public static <T> T await(String what, Duration timeout, Supplier<T> probe, java.util.function.Predicate<T> done) {
    long deadline = System.nanoTime() + timeout.toNanos();
    T last = null;
    while (System.nanoTime() < deadline) {
      last = probe.get();
      if (done.test(last)) {
        return last;
      }
      ConnectClient.sleep(250);
    }
    throw new AssertionError(what + " did not happen within " + timeout.toSeconds() + " s; last seen: " + last);
  }
}
