package io.sluice.schema.testing;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/** A clock that moves one second on at every reading: whatever looks at it twice has taken "long". */
public final class TickingClock extends Clock {
  private final AtomicLong seconds = new AtomicLong();

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochSecond(seconds.getAndIncrement());
  }
}
