package io.sluice.alerts.labels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The hand-written Map behaves as any other Map of the same pairs, and shares what it promises to share. */
class LabelMapTest {
  @Test
  void builderSortsKeepsTheLastValueAndDropsEmptyLabels() {
    LabelMap m = new LabelMap.Builder().put("severity", "critical").put("alertname", "A").put("job", "")
        .put("alertname", "B").build(true);
    assertEquals(List.of("alertname", "severity"), List.copyOf(m.keySet()));
    assertEquals(List.of("B", "critical"), List.copyOf(m.values()));
    assertEquals("B", m.get("alertname"));
    assertEquals(null, m.get("job"));
    LabelMap kept = new LabelMap.Builder().put("job", "").build(false);
    assertEquals(Map.of("job", ""), kept);
  }

  @Test
  void equalsAndHashCodeFollowTheMapContract() {
    Map<String, String> plain = new TreeMap<>(Map.of("a", "1", "b", "2", "c", "3"));
    LabelMap m = LabelMap.of(plain);
    assertEquals(plain, m);
    assertEquals(m, plain);
    assertEquals(plain.hashCode(), m.hashCode());
    assertEquals(plain.toString(), m.toString());
    assertEquals(plain.entrySet(), m.entrySet());
    assertNotEquals(LabelMap.of(Map.of("a", "1")), m);
    assertThrows(UnsupportedOperationException.class, () -> m.put("d", "4"));
    // Same names, same array; equal sets hash alike by content too.
    LabelMap other = LabelMap.of(Map.of("a", "x", "b", "y", "c", "z"));
    assertSame(m.name(0), other.name(0));
    assertEquals(m.contentHash(), LabelMap.of(new TreeMap<>(plain)).contentHash());
    assertNotEquals(LabelMap.of(Map.of("n", "Bench12")).contentHash(), LabelMap.of(Map.of("n", "Bench21")).contentHash());
  }

  @Test
  void sharedAnnotationSetsAndStrings() {
    LabelMap first = new LabelMap.Builder().put("summary", "lag is high").buildShared();
    LabelMap second = new LabelMap.Builder().put("summary", new String("lag is high")).buildShared();
    assertSame(first, second);
    char[] chars = "xcritical".toCharArray();
    assertSame(SharedStrings.share("critical"), SharedStrings.share(chars, 1, 8));
  }
}
