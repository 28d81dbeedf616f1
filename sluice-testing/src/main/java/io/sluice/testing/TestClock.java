package io.sluice.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock the test moves by hand ({@link #advance}, {@link #set}), or one that moves on by itself at every reading
 * ({@link #ticking()}). Always in UTC.
 */
public final class TestClock extends Clock {
  private final AtomicReference<Instant> now;
  private final Duration tick;

  /** A clock standing at {@code start} until the test moves it. */
  public TestClock(Instant start) {
    this(start, Duration.ZERO);
  }

  private TestClock(Instant start, Duration tick) {
    this.now = new AtomicReference<>(start);
    this.tick = tick;
  }

  /** A clock from the epoch that moves one second on at every reading: whatever looks at it twice has taken "long". */
  public static TestClock ticking() {
    return new TestClock(Instant.EPOCH, Duration.ofSeconds(1));
  }

  public void advance(Duration d) {
    now.updateAndGet(t -> t.plus(d));
  }

  public void set(Instant t) {
    now.set(t);
  }

  @Override
  public Instant instant() {
    return tick.isZero() ? now.get() : now.getAndUpdate(t -> t.plus(tick));
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
