package io.sluice.alerts.types;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The compact table behaves as a LinkedHashMap keyed by fingerprint, through growth, removals and compaction. */
class AlertTableTest {
  static Alert alert(long fp, int version) {
    Instant t = Instant.EPOCH.plusSeconds(version);
    return new Alert(Map.of("n", Long.toString(fp)), Map.of(), t, t.plusSeconds(60), "", t, false, fp);
  }

  @Test
  void matchesALinkedHashMapUnderRandomOperations() {
    Random rnd = new Random(42);
    AlertTable table = new AlertTable();
    Map<Long, Alert> model = new LinkedHashMap<>();
    for (int step = 0; step < 200_000; step++) {
      // Few distinct keys, some sharing their low bits, so probe runs collide and wrap.
      long fp = rnd.nextInt(3) == 0 ? rnd.nextInt(64) << 20 : rnd.nextInt(2_000);
      int op = rnd.nextInt(10);
      if (op < 4) {
        Alert a = alert(fp, step);
        assertSame(model.put(fp, a), table.put(a));
      } else if (op < 5) {
        // An update sees what a get would, and stores what it returns in the same place.
        Alert a = alert(fp, step);
        Alert before = model.get(fp);
        assertSame(a, table.update(fp, old -> {
          assertSame(before, old);
          return a;
        }));
        model.put(fp, a);
      } else if (op < 8) {
        assertSame(model.remove(fp), table.remove(fp));
      } else if (op < 9) {
        Alert cur = model.get(fp);
        if (cur != null && rnd.nextBoolean()) {
          assertEquals(true, table.remove(fp, cur));
          model.remove(fp);
        } else {
          assertEquals(false, table.remove(fp, alert(fp, -1)));
        }
      } else {
        assertSame(model.get(fp), table.get(fp));
      }
      assertEquals(model.size(), table.size());
      if (step % 1_000 == 0) {
        assertEquals(new ArrayList<>(model.values()), table.toList());
      }
    }
    table.removeIf(a -> a.fingerprint() % 2 == 0);
    model.values().removeIf(a -> a.fingerprint() % 2 == 0);
    assertEquals(new ArrayList<>(model.values()), table.toList());
    for (Long fp : List.copyOf(model.keySet())) {
      assertSame(model.remove(fp), table.remove(fp));
    }
    assertEquals(0, table.size());
    assertNull(table.first(a -> true));
  }
}
