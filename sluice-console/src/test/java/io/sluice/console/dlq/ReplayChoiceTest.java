package io.sluice.console.dlq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.ops.dlq.RecordFilter;
import io.sluice.ops.dlq.ReplayTarget;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What the console replays: as sluice dlq replay would, each choice in a replay group of its own. */
class ReplayChoiceTest {
  @Test
  void aGroupIsTheCliFilterOnItsExceptionAndStageToTheOriginalTopicsWithoutWhatWouldLoop() {
    ReplayChoice c = ReplayChoice.group("orders-dlq", "org.apache.kafka.connect.errors.DataException",
        "VALUE_CONVERTER");
    assertEquals(RecordFilter.parse(List.of("exception=org.apache.kafka.connect.errors.DataException",
        "stage=VALUE_CONVERTER")), c.request().filter());
    assertEquals(new ReplayTarget.Original(), c.request().target());
    assertFalse(c.request().includeReplayed(), "a record replayed before that failed again is passed over");
    assertFalse(c.request().dryRun());
    assertEquals(Map.of(), c.request().records());
    assertTrue(c.request().group().startsWith("sluice-dlq-replay.orders-dlq.console-"), c.request().group());
    assertEquals("org.apache.kafka.connect.errors.DataException in VALUE_CONVERTER", c.what());
  }

  @Test
  void theSameChoiceResumesInTheSameGroupAndAnotherHasItsOwn() {
    String a = ReplayChoice.group("t", "X", "KEY_CONVERTER").request().group();
    assertEquals(a, ReplayChoice.group("t", "X", "KEY_CONVERTER").request().group());
    assertNotEquals(a, ReplayChoice.group("t", "X", "VALUE_CONVERTER").request().group());
    assertNotEquals(a, ReplayChoice.group("u", "X", "KEY_CONVERTER").request().group());
    List<String> picked = new ArrayList<>(List.of("0:12", "1:3", "0:4"));
    String p = ReplayChoice.records("t", picked).request().group();
    Collections.reverse(picked);
    assertEquals(p, ReplayChoice.records("t", picked).request().group(), "the order of picking does not matter");
    assertNotEquals(p, ReplayChoice.records("t", List.of("0:12")).request().group());
  }

  @Test
  void pickedRecordsAreReplayedAloneEveryOtherPassedOver() {
    ReplayChoice c = ReplayChoice.records("t", List.of("0:12", "1:3", "0:4"));
    assertEquals(Map.of(0, Set.of(4L, 12L), 1, Set.of(3L)), c.request().records());
    assertTrue(c.request().chosen(0, 12) && c.request().chosen(1, 3));
    assertFalse(c.request().chosen(0, 3) || c.request().chosen(2, 12));
    assertEquals("3 picked records", c.what());
    assertEquals("record 0:7", ReplayChoice.records("t", List.of("0:7")).what());
  }

  @Test
  void badChoicesAreRefusedWithWhatWasExpected() {
    assertTrue(assertThrows(IllegalArgumentException.class, () -> ReplayChoice.records("t", List.of()))
        .getMessage().contains("pick at least one"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> ReplayChoice.records("t", List.of("0-12")))
        .getMessage().contains("partition:offset such as 0:12, not '0-12'"));
    List<String> many = new ArrayList<>();
    for (int i = 0; i <= ReplayChoice.MAX_PICKED; i++) {
      many.add("0:" + i);
    }
    assertTrue(assertThrows(IllegalArgumentException.class, () -> ReplayChoice.records("t", many)).getMessage()
        .contains("at most " + ReplayChoice.MAX_PICKED));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> ReplayChoice.group("t", "", "X")).getMessage()
        .contains("needs its exception class"));
  }
}
