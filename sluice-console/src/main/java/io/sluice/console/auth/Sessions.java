package io.sluice.console.auth;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Logged-in sessions, in memory: a random id (the {@code HttpOnly}, {@code SameSite=Strict} cookie) names the user,
 * the CSRF token every state-changing request must carry, and whether the password must still be changed. A session
 * ends at logout, after {@link #IDLE} without a request, or {@link #ABSOLUTE} after login, whichever comes first; a
 * restart of the console ends them all. Each login first drops the sessions that have ended, so that what is held is
 * the live sessions, not every login since the start.
 */
public final class Sessions {
  public static final Duration IDLE = Duration.ofHours(1);
  public static final Duration ABSOLUTE = Duration.ofHours(12);
  private static final SecureRandom RANDOM = new SecureRandom();

  /**
   * One session; its id and token are secrets and never printed.
   *
   * @param credential the account's password hash when the session began (or changed the password itself): a
   *     session whose user's password has changed since, from the CLI for instance, has ended
   */
  public record Session(String id, String user, String csrf, boolean mustChange, Instant started, Instant lastSeen,
      String credential) {
    @Override
    public String toString() {
      return "Session[" + user + "]";
    }
  }

  private final Map<String, Session> sessions = new ConcurrentHashMap<>();
  private final Clock clock;

  public Sessions(Clock clock) {
    this.clock = clock;
  }

  public static String randomToken() {
    byte[] b = new byte[32];
    RANDOM.nextBytes(b);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }

  public Session start(String user, boolean mustChange, String credential) {
    Instant now = clock.instant();
    sessions.values().removeIf(s -> ended(s, now));
    Session s = new Session(randomToken(), user, randomToken(), mustChange, now, now, credential);
    sessions.put(s.id(), s);
    return s;
  }

  /** The live session of this id, its idle clock restarted; empty when unknown or expired. */
  public Optional<Session> find(String id) {
    if (id == null) {
      return Optional.empty();
    }
    Session s = sessions.get(id);
    if (s == null) {
      return Optional.empty();
    }
    Instant now = clock.instant();
    if (ended(s, now)) {
      sessions.remove(id);
      return Optional.empty();
    }
    Session seen = new Session(s.id(), s.user(), s.csrf(), s.mustChange(), s.started(), now, s.credential());
    sessions.put(id, seen);
    return Optional.of(seen);
  }

  private static boolean ended(Session s, Instant now) {
    return now.isAfter(s.lastSeen().plus(IDLE)) || now.isAfter(s.started().plus(ABSOLUTE));
  }

  /** How many sessions are held. */
  int held() {
    return sessions.size();
  }

  /** The session changed its user's password: it may show data now, and it goes on under the new one. */
  public void passwordChanged(Session s, String credential) {
    sessions.computeIfPresent(s.id(), (k, old) -> new Session(old.id(), old.user(), old.csrf(), false,
        old.started(), old.lastSeen(), credential));
  }

  public void end(String id) {
    if (id != null) {
      sessions.remove(id);
    }
  }
}
