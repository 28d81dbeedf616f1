package io.sluice.alerts.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.alerts.config.ConfigLoader;
import io.sluice.alerts.types.Alert;
import io.sluice.testing.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Alerts inserted while flushes drop emptied groups: every firing alert must still be notified (none left in a group
 * the dispatcher no longer holds).
 */
class DispatcherConcurrencyTest {

  @Test
  void noAlertIsLostToAGroupBeingDropped() throws Exception {
    Route root = Route.tree(ConfigLoader.parse("""
        route:
          receiver: a
          group_by: [alertname]
          group_wait: 1ms
          group_interval: 1ms
          repeat_interval: 1h
        receivers: [{name: a}]
        """, null, Map.of()).route());
    // Moved by one thread at a time (the flusher, then the main thread after it), read by the other meanwhile.
    TestClock clock = new TestClock(Instant.ofEpochMilli(1_700_000_000_000L));
    Set<Long> notifiedFiring = ConcurrentHashMap.newKeySet();
    Dispatcher d = new Dispatcher(root, n -> {
      for (Alert a : n.alerts()) {
        if (!a.resolvedAt(n.now())) {
          notifiedFiring.add(a.fingerprint());
        }
      }
      return true;
    }, clock, Runnable::run);

    int rounds = 20_000;
    Set<Long> posted = new HashSet<>();
    AtomicBoolean done = new AtomicBoolean();
    Thread flusher = new Thread(() -> {
      while (!done.get()) {
        clock.advance(Duration.ofMillis(1));
        d.flushDue();
      }
    });
    flusher.start();
    for (int k = 0; k < rounds; k++) {
      Instant now = clock.instant();
      // A resolved alert makes the group, the flush sends it and drops the then empty group; the firing alert of
      // the same group arrives around that moment.
      d.process(Alert.of(Map.of("alertname", "G" + k, "i", "resolved"), Map.of(), now.minusSeconds(60),
          now.minusSeconds(1), "", now, false));
      Alert firing = Alert.of(Map.of("alertname", "G" + k, "i", "firing"), Map.of(), now, now.plusSeconds(3600),
          "", now, false);
      posted.add(firing.fingerprint());
      d.process(firing);
    }
    done.set(true);
    flusher.join();
    for (int i = 0; i < 100 && notifiedFiring.size() < posted.size(); i++) {
      clock.advance(Duration.ofMillis(10));
      d.flushDue();
    }
    assertEquals(posted.size(), notifiedFiring.size(), "firing alerts never notified");
    assertEquals(posted, notifiedFiring);
  }
}
