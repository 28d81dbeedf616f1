package io.sluice.sink.jdbc;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
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
 * snapshot seen from its first record to its last says which rows the table holds.
 */
final class SnapshotTracker {
  /** A snapshot in progress on one topic: where it began in the topic, and the keys it has written. */
  static final class Window {
    final String topic;
    final int partition;
    final long firstOffset;
    private final String position;
    final Set<String> keys = new HashSet<>();
    boolean keyless;
    boolean spread;
    SinkRecord last;

    private Window(String topic, int partition, long firstOffset, String position) {
      this.topic = topic;
      this.partition = partition;
      this.firstOffset = firstOffset;
      this.position = position;
    }
  }

  private final Map<String, Window> open = new HashMap<>();
  private final Function<SinkRecord, Optional<String>> keyOf;

  /** {@code keyOf} gives a record's key as {@link KeyText}, empty for a record without one. */
  SnapshotTracker(Function<SinkRecord, Optional<String>> keyOf) {
    this.keyOf = keyOf;
  }

  /** The snapshot that {@code record} shows to have ended before it: a streamed change after snapshot records. */
  Optional<Window> endedBefore(SinkRecord record) {
    if (marker(record) != null) {
      return Optional.empty();
    }
    return Optional.ofNullable(open.remove(record.topic()));
  }

  /** Counts a snapshot record in its topic's snapshot; the snapshot when this record is its last. */
  Optional<Window> record(SinkRecord record) {
    String marker = marker(record);
    if (marker == null) {
      return Optional.empty();
    }
    String position = position(record);
    Window w = open.get(record.topic());
    boolean begins = marker.equals("first") || marker.equals("first_in_data_collection");
    if (w != null && (begins || !w.position.equals(position))) {
      w = null;
    }
    if (w == null) {
      w = new Window(record.topic(), record.originalKafkaPartition(), record.originalKafkaOffset(), position);
      open.put(record.topic(), w);
    }
    if (record.originalKafkaPartition() != w.partition) {
      w.spread = true;
    }
    Optional<String> key = keyOf.apply(record);
    if (key.isEmpty()) {
      w.keyless = true;
    } else {
      w.keys.add(key.get());
    }
    w.last = record;
    if (marker.equals("last") || marker.equals("last_in_data_collection")) {
      open.remove(record.topic());
      return Optional.of(w);
    }
    return Optional.empty();
  }

  /**
   * The offsets the sink must not commit past: the first record of every snapshot still open, so that a task
   * started again reads the whole snapshot again instead of its second half.
   */
  Map<TopicPartition, Long> held() {
    Map<TopicPartition, Long> out = new HashMap<>();
    open.values().forEach(w -> out.merge(new TopicPartition(w.topic, w.partition), w.firstOffset, Math::min));
    return out;
  }

  /** Drops what was followed on partitions this task no longer reads; their next owner starts from the held offset. */
  void forget(Collection<TopicPartition> partitions) {
    partitions.forEach(tp -> open.values().removeIf(w -> w.topic.equals(tp.topic()) && w.partition == tp.partition()));
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
