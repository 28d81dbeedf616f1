package io.sluice.registry.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SubjectVersionsTest {
  /** "version:id", with a "-" for a soft-deleted one. */
  private static List<String> rows(SubjectVersions vs) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < vs.size(); i++) {
      out.add(vs.version(i) + ":" + vs.id(i) + (vs.deleted(i) ? "-" : ""));
    }
    return out;
  }

  @Test
  void versionsStayAscendingWhateverOrderTheyCome() {
    // Import mode may register any version number, below the highest too.
    SubjectVersions vs = SubjectVersions.EMPTY.with(1, 10).with(5, 50).with(3, 30);
    assertEquals(List.of("1:10", "3:30", "5:50"), rows(vs));
    assertEquals(1, vs.indexOf(3));
    assertTrue(vs.indexOf(4) < 0);
    assertEquals(List.of("1:10", "3:31", "5:50"), rows(vs.with(3, 31)), "a version of that number is replaced");
  }

  @Test
  void softAndHardDeletes() {
    SubjectVersions vs = SubjectVersions.EMPTY.with(1, 10).with(2, 20);
    SubjectVersions soft = vs.softDeleted(0);
    assertEquals(List.of("1:10-", "2:20"), rows(soft));
    assertEquals(List.of("1:10", "2:20"), rows(vs), "copies: the original is unchanged");
    assertTrue(soft.anyLive());
    assertFalse(soft.allSoftDeleted().anyLive());
    List<Integer> released = new ArrayList<>();
    assertEquals(List.of("2:20"), rows(soft.without(0, released::add)));
    assertEquals(List.of(10), released);
  }

  @Test
  void registeringAgainDropsTheSoftDeletedVersionsBelowHoldingTheSameId() {
    SubjectVersions vs = SubjectVersions.EMPTY.with(1, 10).with(2, 20).with(3, 10).softDeleted(0).softDeleted(2)
        .with(4, 10);
    List<Integer> released = new ArrayList<>();
    assertEquals(List.of("2:20", "4:10"), rows(vs.withoutSoftDeletedBelow(4, 10, released::add)));
    assertEquals(List.of(10, 10), released);
    assertSame(vs, vs.withoutSoftDeletedBelow(4, 99, released::add), "nothing to drop, no copy");
  }
}
