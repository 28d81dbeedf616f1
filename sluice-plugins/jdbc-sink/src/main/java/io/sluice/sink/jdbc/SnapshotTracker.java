package io.sluice.sink.jdbc;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Follows, topic by topic, the snapshot a Debezium source writes of a table, from the change events' own marks
 * ({@code source.snapshot}: {@code first}, {@code first_in_data_collection}, {@code true},
 * {@code last_in_data_collection}, {@code last}), and says when one has been written whole.
 *
 * <p>A snapshot ends with its table's last-marked record, or, where Debezium marks none (a table of one row that is
 * also the snapshot's first record), with the first streamed change after it. A snapshot begun again before it ended
 * (the source restarted mid-snapshot; its records carry another log position) replaces the unfinished one: only a
 * snapshot seen from its first record to its last says which rows the table holds. For the same reason a snapshot
 * is followed only from its beginning: a first-marked record, or a record whose predecessor in the topic was seen
 * and belongs to no snapshot of its position. A task that starts reading in the middle of a snapshot it knows nothing
 * of writes the rest of it as Debezium's sink would, and removes nothing at its end.
 *
 * <p>A window outlives the task that opened it ({@link #resume}): loaded back, it is taken up again by the next
 * record of its partition if that record continues it, and dropped ({@link Step#abandoned}) if the task is reading
 * past it, which happens only once the window was completed, or given up, in a put whose offsets were committed.
 */
final class SnapshotTracker {
  private static final String STREAMED = "\u0000streamed";

  /** A snapshot in progress on one topic: where it began in the topic and how far it has been written. */
  static final class Window {
    final String topic;
    final int partition;
    final long firstOffset;
    final String position;
    /** The offset after the window's last record in its partition. */
    long nextOffset;
    /** How far the window's keys are kept for good (its {@code nextOffset} when last saved). */
    long savedOffset;
    boolean keyless;
    boolean spread;
    /** The keys kept may not be the window's keys exactly (keeping them failed): nothing is removed at its end. */
    boolean unsure;
    /** The window's state is kept outside the task; otherwise the task holds its offset at the first record. */
    boolean durable;
    /** Loaded from an earlier task and not yet met by a record of its partition. */
    boolean resumed;

    Window(String topic, int partition, long firstOffset, String position) {
      this.topic = topic;
      this.partition = partition;
      this.firstOffset = firstOffset;
      this.position = position;
      this.nextOffset = firstOffset;
      this.savedOffset = firstOffset;
    }
  }

  /**
   * What one record means: the window it shows to have ended before it ({@code ended}), one that can never end now
   * ({@code abandoned}: replaced by a new snapshot, or left behind by an earlier task), and the window it belongs to
   * ({@code window}, null for a record of no followed snapshot), which it {@code opens} or {@code closes}.
   */
  record Step(Window ended, Window abandoned, Window window, boolean opens, boolean closes) {}

  private final Map<String, Window> open = new HashMap<>();
  /** Per topic, the source position of the last record seen ({@link #STREAMED} for a streamed change). */
  private final Map<String, String> seen = new HashMap<>();

  /** Takes up a window that an earlier task left open; false where this task follows its topic already. */
  boolean resume(Window w) {
    if (open.containsKey(w.topic)) {
      return false;
    }
    w.resumed = true;
    w.durable = true;
    open.put(w.topic, w);
    return true;
  }

  /** Follows one record, in the order of its partition. */
  Step next(SinkRecord record) {
    String topic = record.topic();
    String marker = marker(record);
    String position = marker == null ? STREAMED : position(record);
    Window w = open.get(topic);
    Window abandoned = null;
    if (w != null && w.resumed && record.originalKafkaPartition() == w.partition) {
      long offset = record.originalKafkaOffset();
      boolean continues = offset >= w.firstOffset
          && (offset <= w.nextOffset || position.equals(w.position)); // past it: a gap only within the snapshot
      if (continues) {
        w.resumed = false;
      } else {
        // Before it: the task reads the window again from its first record, which opens it afresh.
        abandoned = w;
        open.remove(topic);
        w = null;
      }
    }
    String before = seen.put(topic, position);
    if (marker == null) {
      return new Step(w == null ? null : open.remove(topic), abandoned, null, false, false);
    }
    boolean begins = marker.equals("first") || marker.equals("first_in_data_collection");
    if (w != null && (begins || !w.position.equals(position))) {
      abandoned = open.remove(topic);
      w = null;
    }
    boolean opens = w == null;
    if (opens) {
      if (!begins && (before == null || before.equals(position))) {
        return new Step(null, abandoned, null, false, false);
      }
      w = new Window(topic, record.originalKafkaPartition(), record.originalKafkaOffset(), position);
      open.put(topic, w);
    }
    if (record.originalKafkaPartition() != w.partition) {
      w.spread = true;
    } else {
      w.nextOffset = record.originalKafkaOffset() + 1;
    }
    boolean closes = marker.equals("last") || marker.equals("last_in_data_collection");
    if (closes) {
      open.remove(topic);
    }
    return new Step(null, abandoned, w, opens, closes);
  }

  /**
   * The offsets the sink must not commit past: the first record of every open window whose state is not kept
   * outside the task, so that a task started again reads such a snapshot again from its start.
   */
  Map<TopicPartition, Long> held() {
    Map<TopicPartition, Long> out = new HashMap<>();
    open.values().stream().filter(w -> !w.durable)
        .forEach(w -> out.merge(new TopicPartition(w.topic, w.partition), w.firstOffset, Math::min));
    return out;
  }

  /** Drops what was followed on partitions this task no longer reads; their next owner takes it up from there. */
  void forget(Collection<TopicPartition> partitions) {
    partitions.forEach(tp -> {
      open.values().removeIf(w -> w.topic.equals(tp.topic()) && w.partition == tp.partition());
      seen.remove(tp.topic());
    });
  }

  /** The record's snapshot mark, lower case; null for a streamed change, a tombstone or a non-Debezium record. */
  static String marker(SinkRecord record) {
    Struct source = source(record);
    if (source == null || source.schema().field("snapshot") == null) {
      return null;
    }
    Object op = ((Struct) record.value()).schema().field("op") == null ? null : ((Struct) record.value()).get("op");
    Object mark = source.get("snapshot");
    if (!"r".equals(op) || mark == null) {
      return null;
    }
    String m = mark.toString().toLowerCase(java.util.Locale.ROOT);
    return m.equals("false") || m.equals("incremental") ? null : m;
  }

  /** Where in the source's log the snapshot was taken; every record of one snapshot carries the same. */
  private static String position(SinkRecord record) {
    Struct source = source(record);
    StringBuilder out = new StringBuilder();
    for (String name : new String[] {"lsn", "file", "pos", "gtid", "commit_lsn", "scn"}) {
      Field f = source.schema().field(name);
      if (f != null) {
        out.append(name).append('=').append(Objects.toString(source.get(f))).append(';');
      }
    }
    return out.toString();
  }

  private static Struct source(SinkRecord record) {
    if (!(record.value() instanceof Struct value) || value.schema().field("source") == null) {
      return null;
    }
    return value.get("source") instanceof Struct s ? s : null;
  }
}
