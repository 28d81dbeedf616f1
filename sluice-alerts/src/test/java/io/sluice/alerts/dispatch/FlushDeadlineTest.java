package io.sluice.alerts.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.sluice.alerts.config.ConfigLoader;
import io.sluice.alerts.types.Alert;
import io.sluice.testing.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * When the dispatcher flushes a group: at its deadline to the nanosecond (group_wait after its first alert, then every
 * group_interval), not on a later tick or millisecond. The timer sleeps for {@link Dispatcher#untilDue}; these tests
 * check that decision with a clock they move, not how long a thread actually sleeps.
 */
class FlushDeadlineTest {
  private static final Instant T0 = Instant.parse("2026-11-26T12:00:00.000123456Z");
  private final TestClock clock = new TestClock(T0);
  private final List<Notification> sent = new ArrayList<>();
  private final Dispatcher d = new Dispatcher(Route.tree(ConfigLoader.parse("""
      route:
        receiver: a
        group_by: [alertname]
        group_wait: 1s
        group_interval: 5m
        repeat_interval: 4h
      receivers: [{name: a}]
      """, null, Map.of()).route()), n -> sent.add(n), clock, Runnable::run);

  private void fire(String name) {
    Instant now = clock.instant();
    d.process(Alert.of(Map.of("alertname", name), Map.of(), now, now.plusSeconds(3600), "", now, false));
  }

  @Test
  void theTimerSleepsExactlyUntilGroupWaitEnds() {
    fire("A");
    assertEquals(T0.plusSeconds(1), d.nextDue());
    assertEquals(Duration.ofSeconds(1), d.untilDue(Duration.ofSeconds(10)));
    clock.advance(Duration.ofMillis(999).plusNanos(999_999));
    // One nanosecond before the deadline: the timer sleeps that nanosecond, not up to the next millisecond or tick.
    assertEquals(Duration.ofNanos(1), d.untilDue(Duration.ofSeconds(10)));
    assertEquals(0, d.flushDue());
    assertEquals(List.of(), sent);
    clock.advance(Duration.ofNanos(1));
    assertEquals(Duration.ZERO, d.untilDue(Duration.ofSeconds(10)));
    assertEquals(1, d.flushDue());
    assertEquals(1, sent.size());
    assertEquals(T0.plusSeconds(1), sent.get(0).now());
  }

  @Test
  void theNextFlushIsGroupIntervalAfterTheLastToTheNanosecond() {
    fire("A");
    clock.advance(Duration.ofSeconds(1));
    d.flushDue();
    assertEquals(T0.plusSeconds(1).plus(Duration.ofMinutes(5)), d.nextDue());
    assertEquals(Duration.ofMinutes(5), d.untilDue(Duration.ofHours(1)));
    // The bound still applies, so a timer notices a reload or a clock jump.
    assertEquals(Duration.ofSeconds(1), d.untilDue(Duration.ofSeconds(1)));
  }

  @Test
  void anEarlierGroupMovesTheTimersDeadlineForward() {
    clock.advance(Duration.ofMillis(300));
    fire("Late");
    Instant lateDue = clock.instant().plusSeconds(1);
    clock.set(T0);
    // An alert posted with an earlier clock reading (another thread's) makes an earlier deadline: it comes first.
    fire("Early");
    assertEquals(T0.plusSeconds(1), d.nextDue());
    clock.set(T0.plusSeconds(1));
    assertEquals(1, d.flushDue());
    assertEquals(lateDue, d.nextDue());
    assertEquals(Duration.ofMillis(300), d.untilDue(Duration.ofSeconds(10)));
  }

  @Test
  void theTimerKeepsOneDueFlushForItselfAndHandsOverTheOthers() {
    List<Runnable> handedOver = new ArrayList<>();
    Dispatcher timed = new Dispatcher(d.root(), n -> sent.add(n), clock, handedOver::add);
    Instant now = clock.instant();
    for (String name : List.of("A", "B", "C")) {
      timed.process(Alert.of(Map.of("alertname", name), Map.of(), now, now.plusSeconds(3600), "", now, false));
    }
    assertNull(timed.flushDueKeepingOne());
    clock.advance(Duration.ofSeconds(1));
    Runnable mine = timed.flushDueKeepingOne();
    // The three groups are flushing: one flush for the caller's own thread, two for the executor, none sent yet.
    assertEquals(2, handedOver.size());
    assertEquals(List.of(), sent);
    assertNull(timed.flushDueKeepingOne());
    mine.run();
    handedOver.forEach(Runnable::run);
    assertEquals(List.of("A", "B", "C"), sent.stream().map(n -> n.groupLabels().get("alertname")).sorted().toList());
    assertEquals(T0.plusSeconds(1).plus(Duration.ofMinutes(5)), timed.nextDue());
  }
}
