package io.sluice.console.auth;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Slows down guessing: after {@link #FREE} failed logins for a user, or from an address, each further attempt must
 * wait twice as long as the one before (1 s, 2 s, 4 s … up to {@link #MAX_WAIT}); an attempt made too early is refused
 * without checking the password, so waiting is the only way on. A success clears the user's count and the address's.
 * A count is forgotten {@link #FORGET} after its last failure: what is held is the users and addresses that failed
 * lately, not every name ever tried.
 */
public final class LoginThrottle {
  static final int FREE = 3;
  static final Duration MAX_WAIT = Duration.ofMinutes(1);
  static final Duration FORGET = Duration.ofMinutes(15);

  private record Failures(int count, Instant last) {}

  private final Map<String, Failures> failures = new ConcurrentHashMap<>();
  private final Clock clock;
  private volatile Instant nextSweep = Instant.MIN;

  public LoginThrottle(Clock clock) {
    this.clock = clock;
  }

  /** How long this user, from this address, must still wait before the next attempt ({@code ZERO} when free). */
  public Duration wait(String user, String address) {
    Duration a = waitFor("user:" + user);
    Duration b = waitFor("address:" + address);
    return a.compareTo(b) >= 0 ? a : b;
  }

  public void failed(String user, String address) {
    Instant now = clock.instant();
    if (!now.isBefore(nextSweep)) {
      // At most once a minute, so a flood of made-up names costs one pass a minute, not one a failure.
      nextSweep = now.plus(MAX_WAIT);
      failures.values().removeIf(f -> !now.isBefore(f.last().plus(FORGET)));
    }
    for (String key : new String[] {"user:" + user, "address:" + address}) {
      failures.merge(key, new Failures(1, now), (old, one) -> new Failures(old.count() + 1, now));
    }
  }

  public void succeeded(String user, String address) {
    failures.remove("user:" + user);
    failures.remove("address:" + address);
  }

  /** How many users and addresses are remembered for failing lately. */
  int remembered() {
    return failures.size();
  }

  private Duration waitFor(String key) {
    Failures f = failures.get(key);
    if (f == null || f.count() < FREE || !clock.instant().isBefore(f.last().plus(FORGET))) {
      return Duration.ZERO;
    }
    long seconds = 1L << Math.min(20, f.count() - FREE);
    Duration wait = Duration.ofSeconds(seconds);
    if (wait.compareTo(MAX_WAIT) > 0) {
      wait = MAX_WAIT;
    }
    Duration left = Duration.between(clock.instant(), f.last().plus(wait));
    return left.isNegative() ? Duration.ZERO : left;
  }
}
