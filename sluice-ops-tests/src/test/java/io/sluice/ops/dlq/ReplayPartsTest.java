package io.sluice.ops.dlq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The pieces of replay that need no broker: filters, targets, commit metadata, pacing. */
class ReplayPartsTest {
  @Test
  void filtersParseAndRejectUnknownFields() {
    RecordFilter f = RecordFilter.parse(List.of("exception=DataException|stage=value_converter", "connector=s"));
    assertEquals(3, f.conditions().size());
    assertEquals(RecordFilter.Field.STAGE, f.conditions().get(1).field());
    IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
        () -> RecordFilter.parse(List.of("colour=red")));
    assertTrue(bad.getMessage().contains("exception, stage, connector or topic"), bad.getMessage());
    assertThrows(IllegalArgumentException.class, () -> RecordFilter.parse(List.of("stage")));
  }

  @Test
  void targetsAreOriginalOrAValidTopic() {
    assertEquals(new ReplayTarget.Original(), ReplayTarget.parse("original"));
    assertEquals(new ReplayTarget.Topic("orders.v2"), ReplayTarget.parse("orders.v2"));
    assertThrows(IllegalArgumentException.class, () -> ReplayTarget.parse("no spaces"));
  }

  @Test
  void targetMarksRoundTripAndRefuseToOutgrowTheMetadataLimit() {
    Map<TopicPartition, Long> marks = Map.of(new TopicPartition("orders.v1", 0), 12L,
        new TopicPartition("orders.v1", 3), 40L, new TopicPartition("x-y_z", 1), 5L);
    assertEquals(marks, TargetMarks.decode(TargetMarks.encode(marks)));
    assertEquals(Map.of(), TargetMarks.decode("written by another tool"));
    assertEquals(Map.of(), TargetMarks.decode(TargetMarks.encode(Map.of())));
    assertEquals(Map.of(), TargetMarks.decode(""), "kafka-consumer-groups --reset-offsets writes none");
    assertEquals(Map.of(), TargetMarks.decode(null));
    for (String damaged : List.of("sluice-dlq-replay/1 orders.v1:0=12,3", "sluice-dlq-replay/1 orders.v1:0=x",
        "sluice-dlq-replay/1 orders.v1", "sluice-dlq-replay/1 orders.v1:0=12;")) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TargetMarks.decode(damaged),
          damaged);
      assertTrue(e.getMessage().startsWith("its replay marks '" + damaged + "' are damaged: "), e.getMessage());
    }
    IllegalArgumentException newer = assertThrows(IllegalArgumentException.class,
        () -> TargetMarks.decode("sluice-dlq-replay/2 orders.v1:0=12"));
    assertTrue(newer.getMessage().contains("of a format this version of Sluice does not read (it reads"
        + " sluice-dlq-replay/1)"), newer.getMessage());
    Map<TopicPartition, Long> many = new java.util.HashMap<>();
    for (int p = 0; p < 400; p++) {
      many.put(new TopicPartition("a-rather-long-topic-name", p), 1_000_000L + p);
    }
    assertThrows(IllegalStateException.class, () -> TargetMarks.encode(many));
  }

  @Test
  void pacerSpacesWorkToTheRate() {
    long[] now = {0};
    List<Long> sleeps = new ArrayList<>();
    Pacer pacer = new Pacer(4, () -> now[0], nanos -> {
      sleeps.add(nanos);
      now[0] += nanos;
    });
    for (int i = 0; i < 5; i++) {
      pacer.acquire();
    }
    assertEquals(List.of(250_000_000L, 250_000_000L, 250_000_000L, 250_000_000L), sleeps);
    assertEquals(1_000_000_000L, now[0], "five at 4/s take one second after the first");
    Pacer unlimited = new Pacer(0, () -> now[0], nanos -> sleeps.add(-1L));
    unlimited.acquire();
    assertEquals(4, sleeps.size());
  }

  @Test
  void samplesAreSpreadEvenly() {
    List<Integer> items = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      items.add(i);
    }
    assertEquals(List.of(10, 30, 50, 70, 90), DlqReader.spread(items, 5));
    assertEquals(List.of(1, 2), DlqReader.spread(List.of(1, 2), 5));
  }
}
