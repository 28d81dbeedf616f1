package io.sluice.ops.offsets;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;

/**
 * Debezium MySQL (and MariaDB) positions: partition {@code {"server": <topic.prefix>}}, offset {@code file},
 * {@code pos} (start of the transaction to resume in), {@code event} and {@code row} (how many events and rows of it
 * were already sent), {@code gtids} (the GTID set, which wins over file/pos when present), {@code ts_sec},
 * {@code server_id}.
 */
final class MySqlOffsets implements OffsetFormat {
  private static final List<String> ORDER =
      List.of("file", "pos", "gtids", "row", "event", "ts_sec", "server_id", "transaction_id");

  @Override
  public String database() {
    return "MySQL";
  }

  @Override
  public String targetFlags() {
    return "--file F --pos P [--gtids G]";
  }

  @Override
  public List<Field> describe(JsonNode offset) {
    return OffsetFormat.describe(offset, ORDER, Map.of("ts_sec", OffsetFormat::utcSeconds));
  }

  @Override
  public ObjectNode moveTo(ObjectNode current, Target target) {
    if (!(target instanceof Target.Binlog binlog)) {
      throw new IllegalArgumentException("wrong position type for a " + database() + " source: its position is a"
          + " binlog file and position (use --file and --pos), not " + PostgresOffsets.describeTarget(target));
    }
    if (binlog.gtids() == null && current.hasNonNull("gtids")) {
      throw new IllegalArgumentException("this connector resumes from its GTID set (" + current.get("gtids").asText()
          + "), which wins over --file/--pos: give --gtids as well, or the move does nothing");
    }
    ObjectNode next = current.deepCopy();
    next.put("file", binlog.file());
    next.put("pos", binlog.pos());
    if (binlog.gtids() != null) {
      next.put("gtids", binlog.gtids());
    }
    // The new position is the start of a transaction: nothing of it was sent yet.
    next.put("event", 0);
    next.put("row", 0);
    OffsetFormat.dropSnapshotMarkers(next);
    return next;
  }

  /** One more event of the transaction at {@code pos} counts as sent: the connector skips it on resume. */
  @Override
  public ObjectNode skipOne(ObjectNode current, SourceDatabase source) {
    ObjectNode next = current.deepCopy();
    next.put("event", current.path("event").asLong(0) + 1);
    next.put("row", 0);
    return next;
  }

  @Override
  public void validate(JsonNode offset) {
    OffsetFormat.requireText(offset, "file", true, database());
    OffsetFormat.requireWholeNumber(offset, "pos", true, false, database());
    OffsetFormat.requireWholeNumber(offset, "event", false, false, database());
    OffsetFormat.requireWholeNumber(offset, "row", false, false, database());
    OffsetFormat.requireWholeNumber(offset, "ts_sec", false, false, database());
    OffsetFormat.requireWholeNumber(offset, "server_id", false, false, database());
    OffsetFormat.requireText(offset, "gtids", false, database());
  }
}
