package io.sluice.ops.offsets;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.source.Engine;
import java.util.List;
import java.util.Map;

/**
 * Debezium SQL Server positions: partition {@code {"server": <topic.prefix>, "database": <name>}}, offset
 * {@code change_lsn} and {@code commit_lsn} (each {@code xxxxxxxx:xxxxxxxx:xxxx}) and {@code event_serial_no}
 * (which change of that LSN pair was sent last). On resume the connector skips changes up to that position.
 */
final class SqlServerOffsets implements OffsetFormat {
  private static final List<String> ORDER = List.of("change_lsn", "commit_lsn", "event_serial_no", "transaction_id");

  @Override
  public Engine engine() {
    return Engine.SQL_SERVER;
  }

  @Override
  public String targetFlags() {
    return "--change-lsn C --commit-lsn C";
  }

  @Override
  public List<Field> describe(JsonNode offset) {
    return OffsetFormat.describe(offset, ORDER, Map.of());
  }

  @Override
  public ObjectNode moveTo(ObjectNode current, Target target) {
    if (!(target instanceof Target.ChangeLsn lsn)) {
      throw new IllegalArgumentException("wrong position type for a " + database() + " source: its position is a"
          + " change LSN and commit LSN (use --change-lsn and --commit-lsn), not "
          + PostgresOffsets.describeTarget(target));
    }
    ObjectNode next = current.deepCopy();
    next.put("change_lsn", lsn.changeLsn());
    next.put("commit_lsn", lsn.commitLsn());
    // Serial 0: no change of that LSN pair was sent yet, so all of them are.
    next.put("event_serial_no", 0);
    OffsetFormat.dropSnapshotMarkers(next);
    return next;
  }

  @Override
  public ObjectNode skipOne(ObjectNode current, SourceDatabase source) {
    ObjectNode next = current.deepCopy();
    next.put("event_serial_no", current.path("event_serial_no").asLong(0) + 1);
    return next;
  }

  @Override
  public void validate(JsonNode offset) {
    OffsetFormat.requireText(offset, "commit_lsn", true, database());
    OffsetFormat.requireText(offset, "change_lsn", false, database());
    OffsetFormat.requireWholeNumber(offset, "event_serial_no", false, false, database());
    for (String f : List.of("change_lsn", "commit_lsn")) {
      String v = offset.path(f).asText("");
      if (offset.hasNonNull(f) && !v.equals("NULL") && !Target.SQLSERVER_LSN.matcher(v).matches()) {
        throw new IllegalArgumentException("malformed '" + f + "': " + v + " is not xxxxxxxx:xxxxxxxx:xxxx");
      }
    }
  }
}
