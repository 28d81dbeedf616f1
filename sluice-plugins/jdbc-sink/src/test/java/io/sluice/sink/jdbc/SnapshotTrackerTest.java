package io.sluice.sink.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
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
  private final SnapshotTracker tracker = new SnapshotTracker();
  private long offset;

  private SinkRecord event(String topic, int id, String op, String snapshot, long lsn) {
    Struct source = new Struct(SOURCE).put("snapshot", snapshot).put("lsn", lsn);
    return new SinkRecord(topic, 0, Schema.INT32_SCHEMA, id, VALUE, new Struct(VALUE).put("op", op)
        .put("source", source), offset++);
  }

  private SnapshotTracker.Step feed(String topic, String op, String snapshot, long lsn) {
    return tracker.next(event(topic, 0, op, snapshot, lsn));
  }

  @Test
  void aSnapshotFromFirstToLastIsOneWindowAndHoldsItsFirstOffsetUntilItsStateIsKept() {
    SnapshotTracker.Step first = feed("t", "r", "first", 10);
    assertTrue(first.opens());
    assertEquals(Map.of(new TopicPartition("t", 0), 0L), tracker.held());
    first.window().durable = true;
    assertTrue(tracker.held().isEmpty(), "a window kept in the sink database holds no offset");
    assertSame(first.window(), feed("t", "r", "true", 10).window());
    SnapshotTracker.Step last = feed("t", "r", "last", 10);
    assertSame(first.window(), last.window());
    assertTrue(last.closes());
    assertEquals(3, last.window().nextOffset);
    SnapshotTracker.Step streamed = feed("t", "c", "false", 11);
    assertNull(streamed.window(), "streamed changes are not snapshots");
    assertNull(streamed.ended());
  }

  @Test
  void aOneRowFirstTableEndsWithTheFirstStreamedChange() {
    // Debezium marks the single row of the first table "first" and never "last_in_data_collection".
    SnapshotTracker.Window a = feed("a", "r", "first", 10).window();
    assertTrue(feed("b", "r", "first_in_data_collection", 10).opens());
    assertTrue(feed("b", "r", "last", 10).closes());
    assertSame(a, feed("a", "c", "false", 11).ended());
  }

  @Test
  void aSnapshotBegunAgainReplacesTheUnfinishedOne() {
    SnapshotTracker.Window old = feed("t", "r", "first", 10).window();
    feed("t", "r", "true", 10);
    // The source restarted mid-snapshot and took a new one at another log position; its only row is marked last.
    SnapshotTracker.Step step = feed("t", "r", "last", 20);
    assertSame(old, step.abandoned());
    assertTrue(step.opens() && step.closes());
    assertEquals(2, step.window().firstOffset);
  }

  @Test
  void aSnapshotMetInTheMiddleIsNotFollowed() {
    // A task that starts reading mid-snapshot knows nothing of the rows before: their keys would be missing.
    assertNull(feed("t", "r", "true", 10).window());
    assertNull(feed("t", "r", "last_in_data_collection", 10).window());
    feed("t", "c", "false", 11);
    // After a streamed change, a one-row table's snapshot (marked last only) is one whole.
    assertTrue(feed("t", "r", "last_in_data_collection", 20).closes());
  }

  private SnapshotTracker.Window resumed(long first, long next) {
    SnapshotTracker.Window w = new SnapshotTracker.Window("t", 0, first, "lsn=10;");
    w.nextOffset = next;
    w.savedOffset = next;
    assertTrue(tracker.resume(w));
    return w;
  }

  @Test
  void aWindowLeftByAnEarlierTaskIsTakenUpFromTheCommittedOffset() {
    SnapshotTracker.Window w = resumed(3, 8);
    offset = 6; // committed before 8: the task reads records 6 and 7 again
    assertSame(w, feed("t", "r", "true", 10).window());
    assertFalse(w.resumed);
    assertTrue(tracker.held().isEmpty());
    offset = 12; // a gap inside the snapshot (transaction markers) still continues it
    assertSame(w, feed("t", "r", "true", 10).window());
    SnapshotTracker.Step last = feed("t", "r", "last", 10);
    assertSame(w, last.window());
    assertTrue(last.closes());
  }

  @Test
  void aWindowLeftByAnEarlierTaskEndsWithAStreamedChangeRightAfterIt() {
    SnapshotTracker.Window w = resumed(3, 8);
    offset = 8;
    assertSame(w, feed("t", "c", "false", 11).ended());
  }

  @Test
  void aWindowLeftByAnEarlierTaskIsDroppedWhenTheTaskReadsOutsideIt() {
    SnapshotTracker.Window w = resumed(3, 8);
    offset = 9; // past it: the window was ended by a put whose offsets were committed
    SnapshotTracker.Step step = feed("t", "c", "false", 11);
    assertSame(w, step.abandoned());
    assertNull(step.ended(), "a streamed change past the window must not end it");

    SnapshotTracker.Window again = resumed(3, 8);
    offset = 1; // before it: the task reads the window again from its first record, which opens it afresh
    assertSame(again, feed("t", "c", "false", 11).abandoned());
    offset = 3;
    assertTrue(feed("t", "r", "first", 10).opens());
  }

  @Test
  void anIncrementalSnapshotNeverOpensAWindow() {
    // sluice snapshot start --filter reads part of a table: its records must never lead to removing the rest.
    for (int i = 0; i < 3; i++) {
      SnapshotTracker.Step step = feed("t", "r", "incremental", 10 + i);
      assertNull(step.window());
      assertFalse(step.opens());
    }
    assertTrue(tracker.held().isEmpty(), "an incremental snapshot holds no offset");
    assertNull(SnapshotTracker.marker(event("t", 1, "r", "incremental", 12)));
  }

  @Test
  void anIncrementalSnapshotInterleavedWithAnInitialOneEndsItAsAStreamedChangeDoes() {
    SnapshotTracker.Window w = feed("t", "r", "first", 10).window();
    assertSame(w, feed("t", "r", "incremental", 11).ended(), "records after an unfinished snapshot end it, as"
        + " streamed ones do: a window is never kept open across other records");
    assertNull(feed("t", "r", "incremental", 11).window());
  }
}
