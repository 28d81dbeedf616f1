package io.sluice.ops.dlq;

import java.util.function.LongSupplier;

/** Spaces out work to at most a given rate, without bursts beyond the schedule. */
final class Pacer {
  /** Waits; a test supplies one that advances its clock instead. */
  interface Sleeper {
    void sleepNanos(long nanos) throws InterruptedException;
  }

  private final double perSecond;
  private final LongSupplier nanoTime;
  private final Sleeper sleeper;
  private long startNanos;
  private long count;

  Pacer(double perSecond, LongSupplier nanoTime, Sleeper sleeper) {
    this.perSecond = perSecond;
    this.nanoTime = nanoTime;
    this.sleeper = sleeper;
  }

  static Pacer system(double perSecond) {
    return new Pacer(perSecond, System::nanoTime, nanos -> Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000)));
  }

  /** Returns when the next unit of work may start. */
  void acquire() {
    if (perSecond <= 0) {
      return;
    }
    if (count == 0) {
      startNanos = nanoTime.getAsLong();
    }
    long due = startNanos + (long) (count * 1_000_000_000d / perSecond);
    count++;
    long wait = due - nanoTime.getAsLong();
    if (wait > 0) {
      try {
        sleeper.sleepNanos(wait);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }
  }
}
