package io.sluice.gofmt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Prometheus' model.ParseDuration and Duration.String, case by case. */
class GoDurationTest {
  @Test
  void parsesEveryUnitInOrder() {
    assertEquals(Duration.ofMinutes(90), GoDuration.parse("1h30m"));
    assertEquals(Duration.ofMillis(1500), GoDuration.parse("1s500ms"));
    assertEquals(Duration.ofDays(7 + 365 + 1), GoDuration.parse("1y1w1d"));
    assertEquals(Duration.ZERO, GoDuration.parse("0"));
    assertEquals(Duration.ZERO, GoDuration.parse("0s"));
    assertEquals(15 * 86_400_000L, GoDuration.parseMillis("15d"));
  }

  @Test
  void refusesWhatPrometheusRefusesInItsWords() {
    assertEquals("empty duration string", assertThrows(IllegalArgumentException.class,
        () -> GoDuration.parse("")).getMessage());
    // Units out of order or repeated, a bare number, a fraction, a sign, an unknown unit.
    for (String bad : new String[] {"1m1h", "1s1s", "5", "1.5h", "-1m", "1x", "1h 30m", "ms"}) {
      assertEquals("not a valid duration string: \"" + bad + "\"", assertThrows(IllegalArgumentException.class,
          () -> GoDuration.parse(bad)).getMessage(), bad);
    }
    assertEquals("duration out of range", assertThrows(IllegalArgumentException.class,
        () -> GoDuration.parse("300y")).getMessage());
  }

  @Test
  void printsAsPrometheusDoes() {
    assertEquals("0s", GoDuration.format(Duration.ZERO));
    assertEquals("1m30s", GoDuration.format(Duration.ofSeconds(90)));
    assertEquals("1h14m", GoDuration.format(Duration.ofMinutes(74)));
    // Years and weeks only when exact: 90d reads better than 12w6d.
    assertEquals("90d", GoDuration.format(Duration.ofDays(90)));
    assertEquals("2w", GoDuration.format(Duration.ofDays(14)));
    assertEquals("1y", GoDuration.format(Duration.ofDays(365)));
    assertEquals("366d", GoDuration.format(Duration.ofDays(366)));
    assertEquals("1d1ms", GoDuration.format(Duration.ofDays(1).plusMillis(1)));
    for (String s : new String[] {"1h30m", "15d", "5m", "250ms", "2w", "1y"}) {
      assertEquals(s, GoDuration.format(GoDuration.parse(s)), "round trip of " + s);
    }
  }
}
