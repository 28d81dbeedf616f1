package io.sluice.sink.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/** How snapshots are told apart from Debezium's marks, including the cases where a mark is missing. */
class SnapshotTrackerTest {
  private static final Schema SOURCE = SchemaBuilder.struct().field("snapshot", Schema.OPTIONAL_STRING_SCHEMA)
      .field("lsn", Schema.OPTIONAL_INT64_SCHEMA).build();
  private static final Schema VALUE = SchemaBuilder.struct().field("op", Schema.STRING_SCHEMA)
      .field("source", SOURCE).build();
  private long offset;

  private SinkRecord event(String topic, int id, String op, String snapshot, long lsn) {
    Struct source = new Struct(SOURCE).put("snapshot", snapshot).put("lsn", lsn);
    return new SinkRecord(topic, 0, Schema.INT32_SCHEMA, id, VALUE, new Struct(VALUE).put("op", op)
        .put("source", source), offset++);
  }

  private final SnapshotTracker tracker = new SnapshotTracker(r -> Optional.of(KeyText.of(List.of(r.key()))));

  /** Feeds one record as the task does; the snapshot it completes, before or with it. */
  private Optional<SnapshotTracker.Window> feed(SinkRecord r) {
    Optional<SnapshotTracker.Window> before = tracker.endedBefore(r);
    Optional<SnapshotTracker.Window> with = tracker.record(r);
    return before.isPresent() ? before : with;
  }

  @Test
  void aSnapshotFromFirstToLastCompletesWithItsKeysAndHoldsItsFirstOffsetMeanwhile() {
    assertTrue(feed(event("t", 1, "r", "first", 10)).isEmpty());
    assertTrue(feed(event("t", 2, "r", "true", 10)).isEmpty());
    assertEquals(Map.of(new TopicPartition("t", 0), 0L), tracker.held());
    SnapshotTracker.Window done = feed(event("t", 3, "r", "last", 10)).orElseThrow();
    assertEquals(3, done.keys.size());
    assertTrue(done.keys.contains("3"));
    assertTrue(tracker.held().isEmpty());
    assertTrue(feed(event("t", 4, "c", "false", 11)).isEmpty(), "streamed changes are not snapshots");
  }

  @Test
  void aOneRowFirstTableEndsWithTheFirstStreamedChange() {
    // Debezium marks the single row of the first table "first" and never "last_in_data_collection".
    assertTrue(feed(event("a", 1, "r", "first", 10)).isEmpty());
    assertTrue(feed(event("b", 7, "r", "first_in_data_collection", 10)).isEmpty());
    assertEquals(2, feed(event("b", 8, "r", "last", 10)).orElseThrow().keys.size());
    SnapshotTracker.Window a = feed(event("a", 2, "c", "false", 11)).orElseThrow();
    assertEquals("a", a.topic);
    assertEquals(1, a.keys.size());
  }

  @Test
  void aSnapshotBegunAgainReplacesTheUnfinishedOne() {
    feed(event("t", 1, "r", "first", 10));
    feed(event("t", 2, "r", "true", 10));
    // The source restarted mid-snapshot and took a new one at another log position; its only row is marked last.
    SnapshotTracker.Window done = feed(event("t", 1, "r", "last", 20)).orElseThrow();
    assertEquals(1, done.keys.size(), "only the complete snapshot's keys count");
    assertEquals(2, done.firstOffset);
  }
}
