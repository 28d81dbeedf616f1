package io.sluice.ops.offsets;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.source.Engine;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Debezium PostgreSQL positions: partition {@code {"server": <topic.prefix>}}, offset {@code lsn}, {@code lsn_proc}
 * (last change completely processed), {@code lsn_commit} (last commit processed), {@code txId}, {@code ts_usec} and
 * a few more. On start the connector asks the server for changes from the stored LSN and then skips, inside that
 * stream, everything up to {@code lsn_proc} of transactions committed up to {@code lsn_commit}: so a move sets all
 * three, and editing {@code lsn} alone changes nothing.
 */
final class PostgresOffsets implements OffsetFormat {
  static final List<String> LSN_FIELDS = List.of("lsn", "lsn_proc", "lsn_commit");
  /** Debezium 3.7+: how many messages at {@code lsn_proc} were processed, for messages that share an LSN. */
  static final String EVENTS_PROCESSED = "lsn_events_processed";
  private static final List<String> ORDER =
      List.of("lsn", "lsn_proc", "lsn_commit", "txId", "ts_usec", "messageType", "lsn_events_processed",
      "transaction_id", "xmin");

  @Override
  public Engine engine() {
    return Engine.POSTGRESQL;
  }

  @Override
  public String targetFlags() {
    return "--lsn";
  }

  static String hex(long lsn) {
    return String.format(Locale.ROOT, "%X/%X", lsn >>> 32, lsn & 0xFFFFFFFFL);
  }

  @Override
  public List<Field> describe(JsonNode offset) {
    java.util.function.Function<JsonNode, String> lsn = v -> v.isIntegralNumber() ? hex(v.asLong()) + " (" + v.asLong()
        + ")" : v.toString();
    return OffsetFormat.describe(offset, ORDER,
        Map.of("lsn", lsn, "lsn_proc", lsn, "lsn_commit", lsn, "ts_usec", OffsetFormat::utcMicros));
  }

  @Override
  public ObjectNode moveTo(ObjectNode current, Target target) {
    if (!(target instanceof Target.Lsn lsn)) {
      throw new IllegalArgumentException("wrong position type for a " + database() + " source: its position is an"
          + " LSN (use --lsn), not " + describeTarget(target));
    }
    ObjectNode next = current.deepCopy();
    for (String f : LSN_FIELDS) {
      next.put(f, lsn.value());
    }
    if (next.has("messageType")) {
      // The target is a commit position: what follows it is sent again from its transaction's start.
      next.put("messageType", "COMMIT");
    }
    next.remove(EVENTS_PROCESSED);
    OffsetFormat.dropSnapshotMarkers(next);
    return next;
  }

  /**
   * Skips the change the connector would emit next. When it is the last change of its transaction (always so for a
   * single-statement transaction) the new position is that transaction's commit, the form the connector itself
   * stores between transactions; otherwise it is the change itself, marked as processed with its type and its count
   * among the messages sharing its LSN.
   */
  @Override
  public ObjectNode skipOne(ObjectNode current, SourceDatabase source) {
    if (source == null) {
      throw new IllegalArgumentException("skipping a change of a PostgreSQL source needs read access to it, to find"
          + " the change after the current position");
    }
    Long lsnProc = longOrNull(current, "lsn_proc");
    Long lsnCommit = longOrNull(current, "lsn_commit");
    List<PostgresWal.Message> pending = PostgresWal.peek(source, 100_000);
    PostgresWal.Message next = PostgresWal.nextChange(pending, lsnCommit, lsnProc,
        current.path("messageType").asText(null), current.path(EVENTS_PROCESSED).asLong(0));
    if (next == null) {
      throw new IllegalArgumentException("there is no change after the current position (" + hex(current.path("lsn")
          .asLong()) + ") in replication slot " + source.slotName() + ": nothing to skip");
    }
    PostgresWal.Message commit = PostgresWal.commitOf(pending, next);
    ObjectNode after = current.deepCopy();
    after.put("txId", next.xid());
    after.remove(EVENTS_PROCESSED);
    if (commit != null && !PostgresWal.moreChangesInTransaction(pending, next)) {
      for (String f : LSN_FIELDS) {
        after.put(f, commit.lsn());
      }
      after.put("messageType", "COMMIT");
    } else {
      after.put("lsn", next.lsn());
      after.put("lsn_proc", next.lsn());
      after.put("lsn_commit", PostgresWal.lastCommitBefore(pending, next, lsnCommit == null
          ? current.path("lsn").asLong() : lsnCommit));
      after.put("messageType", next.operation());
      after.put(EVENTS_PROCESSED, PostgresWal.eventsAtLsnThrough(pending, next));
    }
    OffsetFormat.dropSnapshotMarkers(after);
    return after;
  }

  @Override
  public void validate(JsonNode offset) {
    OffsetFormat.requireWholeNumber(offset, "lsn", true, false, database());
    OffsetFormat.requireWholeNumber(offset, "lsn_proc", false, true, database());
    OffsetFormat.requireWholeNumber(offset, "lsn_commit", false, true, database());
    OffsetFormat.requireWholeNumber(offset, "txId", false, true, database());
    OffsetFormat.requireWholeNumber(offset, "ts_usec", false, false, database());
    OffsetFormat.requireWholeNumber(offset, "xmin", false, true, database());
  }

  /** The lowest LSN the connector will ask the server for. */
  static long lowestLsn(JsonNode offset) {
    long min = Long.MAX_VALUE;
    for (String f : LSN_FIELDS) {
      if (offset.path(f).isIntegralNumber()) {
        min = Math.min(min, offset.get(f).asLong());
      }
    }
    return min;
  }

  private static Long longOrNull(JsonNode offset, String field) {
    return offset.path(field).isIntegralNumber() ? offset.get(field).asLong() : null;
  }

  static String describeTarget(Target t) {
    if (t instanceof Target.Binlog) {
      return "a binlog file and position (--file/--pos, MySQL)";
    }
    if (t instanceof Target.ChangeLsn) {
      return "a change/commit LSN pair (--change-lsn/--commit-lsn, SQL Server)";
    }
    return "an LSN (--lsn, PostgreSQL)";
  }
}
