package io.sluice.console.topics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Paging through partitions side by side: no record skipped, none shown twice, the position in the URL. */
class PageChoiceTest {
  record R(int partition, long offset, long timestamp) implements PageChoice.Positioned {}

  @Test
  void forwardTakesTheEarliestByTimeAndEachPartitionGoesOnAfterWhatItGave() {
    Map<Integer, List<R>> kept = new TreeMap<>(Map.of(
        0, List.of(new R(0, 10, 100), new R(0, 11, 300), new R(0, 12, 500)),
        1, List.of(new R(1, 4, 200), new R(1, 5, 400))));
    PageChoice.Choice<R> c = PageChoice.forward(kept, Map.of(0, 13L, 1, 6L), 3);
    assertEquals(List.of(new R(0, 10, 100), new R(1, 4, 200), new R(0, 11, 300)), c.page());
    assertEquals(Map.of(0, 12L, 1, 5L), c.next(), "each partition restarts at its first record not shown");
  }

  @Test
  void aPartitionThatGaveNothingGoesOnWhereItsReadStopped() {
    Map<Integer, List<R>> kept = new TreeMap<>(Map.of(0, List.of(new R(0, 3, 1)), 1, List.of()));
    PageChoice.Choice<R> c = PageChoice.forward(kept, Map.of(0, 4L, 1, 900L), 50);
    assertEquals(Map.of(0, 4L, 1, 900L), c.next());
  }

  @Test
  void timestampsThatGoBackInAPartitionNeverMakeItSkipARecord() {
    // Offset 2 has an earlier timestamp than offset 1: taking it alone would skip offset 1 on the next page.
    Map<Integer, List<R>> kept = new TreeMap<>(Map.of(0, List.of(new R(0, 1, 500), new R(0, 2, 100)),
        1, List.of(new R(1, 7, 300))));
    PageChoice.Choice<R> c = PageChoice.forward(kept, Map.of(0, 3L, 1, 8L), 1);
    assertEquals(List.of(new R(1, 7, 300)), c.page());
    assertEquals(Map.of(0, 1L, 1, 8L), c.next());
  }

  @Test
  void pagingForwardShowsEveryRecordOnce() {
    // Three partitions of interleaved records, read a page of 4 at a time from the positions each page gives.
    List<R> all = new ArrayList<>();
    for (int p = 0; p < 3; p++) {
      for (long o = 0; o < 10; o++) {
        all.add(new R(p, o, o * 3 + p));
      }
    }
    Map<Integer, Long> at = new TreeMap<>(Map.of(0, 0L, 1, 0L, 2, 0L));
    List<R> seen = new ArrayList<>();
    for (int page = 0; page < 20 && at.values().stream().anyMatch(o -> o < 10); page++) {
      Map<Integer, List<R>> kept = new TreeMap<>();
      Map<Integer, Long> readTo = new TreeMap<>();
      for (int p = 0; p < 3; p++) {
        int partition = p;
        long from = at.get(p);
        List<R> mine = all.stream().filter(r -> r.partition() == partition && r.offset() >= from).limit(4).toList();
        kept.put(p, mine);
        readTo.put(p, mine.isEmpty() ? from : mine.get(mine.size() - 1).offset() + 1);
      }
      PageChoice.Choice<R> c = PageChoice.forward(kept, readTo, 4);
      seen.addAll(c.page());
      at = new TreeMap<>(c.next());
    }
    assertEquals(30, seen.size());
    assertEquals(30, seen.stream().distinct().count(), "no record twice");
  }

  @Test
  void backwardTakesTheNewestAndGoesOnOlderFromTheOldestShown() {
    Map<Integer, List<R>> kept = new TreeMap<>(Map.of(
        0, List.of(new R(0, 20, 100), new R(0, 21, 300)),
        1, List.of(new R(1, 8, 200), new R(1, 9, 400))));
    PageChoice.Choice<R> c = PageChoice.backward(kept, Map.of(0, 20L, 1, 8L), 3);
    assertEquals(List.of(new R(1, 9, 400), new R(0, 21, 300), new R(1, 8, 200)), c.page());
    assertEquals(Map.of(0, 21L, 1, 8L), c.next(), "older: before the oldest shown, or after the newest not shown");
  }

  @Test
  void positionsParseAndPrintAsTheUrlWritesThem() {
    BrowsePosition at = BrowsePosition.parse("start", null, null, null, "0:120,1:98", null);
    assertEquals(BrowsePosition.From.AT, at.from());
    assertEquals(Map.of(0, 120L, 1, 98L), at.positions());
    assertEquals("0:120,1:98", BrowsePosition.format(at.positions()));
    assertTrue(BrowsePosition.parse(null, "all", null, null, null, "0:5").from() == BrowsePosition.From.BEFORE);
    assertEquals(BrowsePosition.From.END, BrowsePosition.parse(null, null, null, null, null, null).from());
    BrowsePosition offset = BrowsePosition.parse("offset", "2", "17", null, null, null);
    assertEquals(17, offset.offset());
    assertEquals(2, offset.partition());
    assertEquals(Instant.parse("2026-11-26T08:00:00Z"),
        BrowsePosition.parse("time", null, null, "2026-11-26T08:00:00Z", null, null).time());
    assertEquals(Instant.ofEpochMilli(1700000000000L),
        BrowsePosition.parse("time", null, null, "1700000000000", null, null).time());
    IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
        () -> BrowsePosition.parse("offset", null, "ten", null, null, null));
    assertTrue(bad.getMessage().contains("whole number"), bad.getMessage());
    assertThrows(IllegalArgumentException.class, () -> BrowsePosition.parse("later", null, null, null, null, null));
    assertThrows(IllegalArgumentException.class, () -> BrowsePosition.parse(null, null, null, null, "0-5", null));
    assertThrows(IllegalArgumentException.class, () -> BrowsePosition.parse("time", null, null, "yesterday", null,
        null));
  }

  @Test
  void aSinkTasksConsumerNamesItsTask() {
    assertEquals(0, KafkaInventory.taskOf("connector-consumer-orders-sink-0", "orders-sink"));
    assertEquals(12, KafkaInventory.taskOf("connector-consumer-orders-sink-12", "orders-sink"));
    assertEquals(null, KafkaInventory.taskOf("connector-consumer-orders-sink-x", "orders-sink"));
    assertEquals(null, KafkaInventory.taskOf("consumer-1", "orders-sink"));
  }
}
