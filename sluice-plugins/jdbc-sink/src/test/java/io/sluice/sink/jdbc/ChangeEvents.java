package io.sluice.sink.jdbc;

import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Debezium change events of one table in partition 0 of one topic, shaped as a PostgreSQL source writes them (key,
 * envelope with {@code after}, {@code source} with the snapshot mark and the log position, {@code op}), numbered as
 * the topic would number them.
 */
final class ChangeEvents {
  private static final Schema SOURCE = SchemaBuilder.struct().name("io.debezium.connector.postgresql.Source")
      .field("connector", Schema.STRING_SCHEMA).field("snapshot", Schema.OPTIONAL_STRING_SCHEMA)
      .field("lsn", Schema.OPTIONAL_INT64_SCHEMA).field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA).build();

  final String topic;
  private final Schema key;
  private final Schema row;
  private final Schema envelope;
  /** The offset of the next event. */
  long offset;
  /** The commit time in the source that the next events carry ({@code source.ts_ms}); null for none. */
  Long committedAt;

  /** Events of a table whose columns are {@code row}'s fields; the key is the fields that {@code key} names. */
  ChangeEvents(String topic, Schema key, Schema row) {
    this.topic = topic;
    this.key = key;
    this.row = row;
    this.envelope = SchemaBuilder.struct().name(topic + ".Envelope").field("before", row).field("after", row)
        .field("source", SOURCE).field("op", Schema.STRING_SCHEMA).field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA)
        .build();
  }

  /** A table of an int key {@code id} and a text column {@code item}. */
  static ChangeEvents ofIntKey(String topic) {
    return new ChangeEvents(topic, SchemaBuilder.struct().name(topic + ".Key").field("id", Schema.INT32_SCHEMA).build(),
        SchemaBuilder.struct().name(topic + ".Value").optional().field("id", Schema.INT32_SCHEMA)
            .field("item", Schema.STRING_SCHEMA).build());
  }

  /** A row of an {@link #ofIntKey} table. */
  Struct row(int id) {
    return new Struct(row).put("id", id).put("item", "item-" + id);
  }

  /** A row with its values in the order of the row schema's fields. */
  Struct row(Object... values) {
    Struct out = new Struct(row);
    for (int i = 0; i < values.length; i++) {
      out.put(row.fields().get(i), values[i]);
    }
    return out;
  }

  /** A snapshot read of {@code after}, marked {@code mark}, of the snapshot taken at log position {@code lsn}. */
  SinkRecord snapshot(String mark, long lsn, Struct after) {
    return event("r", mark, lsn, after);
  }

  /** A streamed insert of {@code after} at log position {@code lsn}. */
  SinkRecord insert(long lsn, Struct after) {
    return event("c", "false", lsn, after);
  }

  /** A streamed update to {@code after} at log position {@code lsn}. */
  SinkRecord update(long lsn, Struct after) {
    return event("u", "false", lsn, after);
  }

  /** A streamed delete of {@code before} at log position {@code lsn}. */
  SinkRecord delete(long lsn, Struct before) {
    Struct source = new Struct(SOURCE).put("connector", "postgresql").put("snapshot", "false").put("lsn", lsn)
        .put("ts_ms", committedAt);
    Struct value = new Struct(envelope).put("before", before).put("source", source).put("op", "d")
        .put("ts_ms", System.currentTimeMillis());
    return new SinkRecord(topic, 0, key, key(before), envelope, value, offset++);
  }

  /** The tombstone Debezium writes after a delete of {@code before}, for compaction. */
  SinkRecord tombstone(Struct before) {
    return new SinkRecord(topic, 0, key, key(before), null, null, offset++);
  }

  private Struct key(Struct row) {
    Struct k = new Struct(key);
    for (Field f : key.fields()) {
      k.put(f, row.get(f.name()));
    }
    return k;
  }

  private SinkRecord event(String op, String mark, long lsn, Struct after) {
    Struct source = new Struct(SOURCE).put("connector", "postgresql").put("snapshot", mark).put("lsn", lsn)
        .put("ts_ms", committedAt);
    Struct value = new Struct(envelope).put("after", after).put("source", source).put("op", op)
        .put("ts_ms", System.currentTimeMillis());
    return new SinkRecord(topic, 0, key, key(after), envelope, value, offset++);
  }
}
