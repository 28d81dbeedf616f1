package io.sluice.alerts.labels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MatchersTest {
  @Test
  void parsesQuotedUnquotedAndBraced() {
    List<Matcher> ms = Matchers.parse("{alertname=\"High Lag\", connector=~\"orders-.*\", env!=prod, x!~\"a,b\"}");
    assertEquals(4, ms.size());
    assertEquals(Matcher.of("alertname", Matcher.Type.EQ, "High Lag"), ms.get(0));
    assertEquals(Matcher.Type.RE, ms.get(1).type());
    assertEquals(Matcher.of("env", Matcher.Type.NE, "prod"), ms.get(2));
    assertEquals("a,b", ms.get(3).value());
    assertEquals(Matcher.eq("severity", "critical"), Matchers.parseOne("severity=critical"));
  }

  @Test
  void regexIsAnchoredAndMissingLabelIsEmpty() {
    Matcher m = Matchers.parseOne("connector=~\"orders\"");
    assertTrue(m.matches(Map.of("connector", "orders")));
    assertFalse(m.matches(Map.of("connector", "orders-source")));
    assertTrue(Matchers.parseOne("slo=~\".*\"").matches(Map.of()));
    assertFalse(Matchers.parseOne("slo=~\".+\"").matches(Map.of()));
    assertTrue(Matchers.parseOne("env!=\"prod\"").matches(Map.of()));
  }

  @Test
  void rejectsBadInput() {
    assertThrows(IllegalArgumentException.class, () -> Matchers.parse("{a=\"b\""));
    assertThrows(IllegalArgumentException.class, () -> Matchers.parse("a~b"));
    assertThrows(IllegalArgumentException.class, () -> Matchers.parse("a=~\"(\""));
  }

  @Test
  void fingerprintIsAlertmanagers() {
    // The value a real Alertmanager 0.25 reports for this label set.
    assertEquals("138f62ccf5e839bc", Matchers.fingerprintHex(Matchers.fingerprint(
        Map.of("alertname", "FpCheck", "connector", "orders", "severity", "critical"))));
  }

  @Test
  void labelSetStringIsSortedLikeAlertmanager() {
    assertEquals("{a=\"1\", b=\"2\"}", Matchers.labelSetString(Map.of("b", "2", "a", "1")));
    assertEquals("a=\"x\\\"y\"", Matcher.eq("a", "x\"y").toString());
  }

  /** Go's RE2, as Alertmanager: linear time whatever the pattern, and RE2's syntax. */
  @Test
  void regexMatchersRunInLinearTimeWithRe2Syntax() {
    Matcher nested = Matchers.parse("connector=~\"(a+)+$\"").get(0);
    String hostile = "a".repeat(5_000) + "b";
    // A backtracking engine needs 2^5000 steps for this; RE2 answers at once.
    org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(10),
        () -> assertFalse(nested.matches(Map.of("connector", hostile))));
    assertTrue(nested.matches(Map.of("connector", "aaa")));
    assertTrue(Matchers.parse("id=~\"\\\\d+\"").get(0).matches(Map.of("id", "42")));
    // Backreferences are not RE2: refused as Go refuses them.
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Matchers.parse("a=~\"(x)\\\\1\""));
    assertTrue(e.getMessage().contains("invalid escape sequence"), e.getMessage());
  }
}
