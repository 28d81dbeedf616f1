package io.sluice.console.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.testing.TestClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AuthTest {
  @TempDir Path dir;

  @Test
  void theDefaultAccountMustChangeItsPasswordAndBadPasswordsAreRefused() throws Exception {
    Accounts accounts = Accounts.in(dir);
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("users.json"))));
    Accounts.Account admin = accounts.verify("admin", "admin").orElseThrow();
    assertTrue(admin.mustChange());
    assertTrue(accounts.verify("admin", "wrong").isEmpty());
    assertTrue(accounts.verify("nobody", "admin").isEmpty());
    assertThrows(IllegalArgumentException.class, () -> accounts.setPassword("admin", "admin"));
    assertThrows(IllegalArgumentException.class, () -> accounts.setPassword("admin", "short"));
    accounts.setPassword("admin", "a-good-password");
    assertFalse(accounts.verify("admin", "a-good-password").orElseThrow().mustChange());
    assertThrows(IllegalArgumentException.class, () -> accounts.setPassword("admin", "a-good-password"),
        "the same password again");
    accounts.add("ops", "ops-password-1");
    assertThrows(IllegalArgumentException.class, () -> accounts.add("ops", "another-one-1"));
    assertThrows(IllegalArgumentException.class, () -> accounts.add("bad name", "another-one-1"));
    assertEquals(2, Accounts.in(dir).list().size(), "kept in the file");
    assertFalse(Files.readString(dir.resolve("users.json")).contains("a-good-password"), "only hashes");
  }

  @Test
  void failedLoginsAreSlowedPerUserAndPerAddress() {
    TestClock clock = new TestClock(Instant.parse("2026-11-25T10:00:00Z"));
    LoginThrottle t = new LoginThrottle(clock);
    for (int i = 0; i < LoginThrottle.FREE; i++) {
      assertEquals(Duration.ZERO, t.wait("admin", "10.0.0.1"));
      t.failed("admin", "10.0.0.1");
    }
    assertEquals(Duration.ofSeconds(1), t.wait("admin", "10.0.0.2"), "the user, from anywhere");
    assertEquals(Duration.ofSeconds(1), t.wait("other", "10.0.0.1"), "the address, for any user");
    assertEquals(Duration.ZERO, t.wait("other", "10.0.0.2"));
    clock.advance(Duration.ofSeconds(1));
    t.failed("admin", "10.0.0.1");
    assertEquals(Duration.ofSeconds(2), t.wait("admin", "10.0.0.1"), "each failure doubles the wait");
    for (int i = 0; i < 20; i++) {
      t.failed("admin", "10.0.0.1");
    }
    assertEquals(LoginThrottle.MAX_WAIT, t.wait("admin", "10.0.0.1"));
    t.succeeded("admin", "10.0.0.1");
    assertEquals(Duration.ZERO, t.wait("admin", "10.0.0.1"));
  }

  @Test
  void sessionsExpireWhenIdleAndAfterTheirLifetime() {
    TestClock clock = new TestClock(Instant.parse("2026-11-25T10:00:00Z"));
    Sessions sessions = new Sessions(clock);
    Sessions.Session s = sessions.start("ops", false, "hash");
    assertFalse(s.toString().contains(s.id()) || s.toString().contains(s.csrf()));
    clock.advance(Sessions.IDLE.minusMinutes(1));
    assertTrue(sessions.find(s.id()).isPresent());
    clock.advance(Sessions.IDLE.plusMinutes(1));
    assertTrue(sessions.find(s.id()).isEmpty(), "idle too long");
    Sessions.Session busy = sessions.start("ops", false, "hash");
    for (int i = 0; i < 13; i++) {
      clock.advance(Duration.ofMinutes(59));
      sessions.find(busy.id());
    }
    assertTrue(sessions.find(busy.id()).isEmpty(), "past its lifetime however busy");
    assertTrue(sessions.find("made-up").isEmpty());
  }

  /** A script that logs in every minute and never logs out leaves its ended sessions behind: each login drops them. */
  @Test
  void sessionsThatEndedAreDroppedNotHeldForever() {
    TestClock clock = new TestClock(Instant.parse("2026-11-25T10:00:00Z"));
    Sessions sessions = new Sessions(clock);
    for (int i = 0; i < 24 * 60; i++) {
      sessions.start("ops", false, "hash");
      clock.advance(Duration.ofMinutes(1));
    }
    assertTrue(sessions.held() <= 61, "the last hour's logins (idle ones end after an hour): " + sessions.held());
  }

  /** Failed logins under made-up names are remembered for a while, not for ever. */
  @Test
  void failuresAreForgottenAfterAWhile() {
    TestClock clock = new TestClock(Instant.parse("2026-11-25T10:00:00Z"));
    LoginThrottle t = new LoginThrottle(clock);
    for (int i = 0; i < 10_000; i++) {
      t.failed("guess-" + i, "10.0.0." + (i % 250));
      clock.advance(Duration.ofSeconds(1));
    }
    assertTrue(t.remembered() < 250 + 16 * 60 + 1, "the names and addresses of the last quarter of an hour: "
        + t.remembered());
    for (int i = 0; i < LoginThrottle.FREE + 1; i++) {
      t.failed("admin", "10.0.0.1");
    }
    assertTrue(t.wait("admin", "10.0.0.9").compareTo(Duration.ZERO) > 0);
    clock.advance(LoginThrottle.FORGET);
    assertEquals(Duration.ZERO, t.wait("admin", "10.0.0.9"), "forgotten a quarter of an hour after the last");
  }
}
