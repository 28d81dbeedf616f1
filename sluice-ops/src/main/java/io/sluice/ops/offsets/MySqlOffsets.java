package io.sluice.ops.offsets;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.source.Engine;
import java.util.List;
import java.util.Map;

/**
 * Debezium MySQL (and MariaDB) positions: partition {@code {"server": <topic.prefix>}}, offset {@code file},
 * {@code pos} (start of the transaction to resume in), {@code event} and {@code row} (how many events and rows of it
 * were already sent), {@code gtids} (the GTID set, which wins over file/pos when present), {@code ts_sec},
 * {@code server_id}.
 */
final class MySqlOffsets implements OffsetFormat {
  private final Engine engine;

  /** MySQL's or MariaDB's: the same binlog position, the same fields. */
  MySqlOffsets(Engine engine) {
    this.engine = engine;
  }

  MySqlOffsets() {
    this(Engine.MYSQL);
  }

  private static final List<String> ORDER =
      List.of("file", "pos", "gtids", "row", "event", "ts_sec", "server_id", "transaction_id");

  @Override
  public Engine engine() {
    return engine;
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

  /**
   * On MariaDB, the GTID position at {@code --file}/{@code --pos} when the connector resumes from GTIDs and none was
   * given: the server tells it ({@code BINLOG_GTID_POS}), so {@code set --file F --pos P} moves a MariaDB connector
   * as it moves one without GTIDs. MySQL cannot tell it: there {@code --gtids} stays required. A server that cannot be
   * asked refuses the move with why (the connection's error), not with a bare request for {@code --gtids}.
   */
  @Override
  public Target complete(Target target, ObjectNode current, java.util.function.Supplier<SourceDatabase> source) {
    if (!(target instanceof Target.Binlog binlog) || binlog.gtids() != null || !current.hasNonNull("gtids")
        || !Target.GTID_SET.matcher(current.get("gtids").asText()).matches()
        || current.get("gtids").asText().contains(":")) {
      return target;
    }
    SourceDatabase db;
    try {
      db = source.get();
      if (db == null || !BinlogEvents.isMariaDb(db)) {
        return target;
      }
    } catch (IllegalArgumentException | IllegalStateException unreachable) {
      throw new IllegalArgumentException("this connector resumes from its GTID set (" + current.get("gtids").asText()
          + "), which wins over --file/--pos, and the GTID position at " + binlog.file() + ":" + binlog.pos()
          + " could not be asked of the server: " + unreachable.getMessage() + ". Give --gtids as well, or let Sluice"
          + " reach the database", unreachable);
    }
    String gtids = BinlogEvents.mariaDbGtidPosition(db, binlog.file(), binlog.pos());
    if (gtids == null) {
      throw new IllegalArgumentException("MariaDB cannot tell the GTID position at " + binlog.file() + ":"
          + binlog.pos() + " (is the file still on the server, and is " + binlog.pos() + " the start of an event?):"
          + " this connector resumes from GTIDs, which win over --file/--pos; give --gtids as well");
    }
    return new Target.Binlog(binlog.file(), binlog.pos(), gtids);
  }

  /**
   * The position that makes the connector pass over exactly the next change: the first row of the next row event, or
   * the next statement logged on its own (DDL), read from the server's binary log.
   *
   * <p>How Debezium resumes (BinlogStreamingChangeEventSource): it starts at the transaction that begins at
   * {@code pos} (with GTIDs: the first one after {@code gtids}), counts the events of that transaction from its
   * BEGIN (MariaDB: its GTID event) inclusive, passes over the first {@code event} of them, then over the first
   * {@code row} rows of the next row event; the transaction's commit ends all skipping. So one more {@code event}
   * passes over a BEGIN or a table map, not a change (what {@code event + 1} did), and a change in a later transaction
   * needs {@code pos} (and {@code gtids}) moved to that transaction's start. Skipping a change is therefore: the
   * transaction holding the next row event, {@code event} = the count of events before it, {@code row} = 1.
   *
   * <p>A stored position with {@code row > 0} means that many rows of the row event at {@code event} were sent. When
   * the event holds more (a statement that changed several rows), the next change is its next row: the same position
   * with {@code row + 1}. Otherwise the event is done and the next change is in a later event. The row count is not
   * visible through SQL; {@link BinlogRows} reads it from the log as a replica does.
   */
  @Override
  public ObjectNode skipOne(ObjectNode current, SourceDatabase source) {
    if (source == null) {
      throw new IllegalArgumentException("skipping a change of a " + database() + " source needs read access to its"
          + " binary log, to find the change after the current position");
    }
    validate(current);
    String file = current.path("file").asText();
    long pos = current.path("pos").asLong();
    long eventsDone = current.path("event").asLong(0);
    boolean rowsDone = current.path("row").asLong(0) > 0;
    boolean mariaDb = BinlogEvents.isMariaDb(source);

    // Debezium applies event/row to the first transaction it meets from pos on; later ones start from scratch.
    boolean inResumed = true;
    boolean inTransaction = false;
    long counted = -1;
    BinlogEvents.Event start = null;
    for (BinlogEvents.Event e : BinlogEvents.from(source, file, pos)) {
      if (!inTransaction) {
        if (e.isGtid() || (e.isBeginQuery() && start == null)) {
          start = e;
        } else if (!e.isBeginQuery()) {
          start = null;
        }
        if (e.opensMariaDbTransaction() || e.isBeginQuery()) {
          inTransaction = true;
          counted = 0;
        } else if (e.isStatement()) {
          // A statement logged on its own (DDL) is a change of its own: resume right after it.
          return at(current, e.file(), e.end(), mariaDb ? gtidsAt(source, e.file(), e.end(), current) : null);
        }
        continue;
      }
      if (e.isCommit()) {
        inTransaction = false;
        inResumed = false;
        start = null;
        continue;
      }
      if (e.isQueryAnnotation()) {
        continue;
      }
      counted++;
      if (inResumed && counted == eventsDone && rowsDone && !e.isRows()) {
        throw new IllegalArgumentException("the stored position (" + file + ":" + pos + ", event " + eventsDone
            + ", row " + current.path("row").asLong() + ") does not point at a row event in the binary log (event "
            + counted + " of the transaction there is " + e.type() + " at " + e.file() + ":" + e.pos() + "): cannot"
            + " tell which change comes next; move the connector with set instead");
      }
      if (inResumed && counted == eventsDone && rowsDone) {
        long rowsSent = current.path("row").asLong();
        if (BinlogRows.count(source, file, pos, e) > rowsSent) {
          ObjectNode next = current.deepCopy();
          next.put("row", rowsSent + 1);
          OffsetFormat.dropSnapshotMarkers(next);
          return next;
        }
      }
      boolean sent = inResumed && (counted < eventsDone || (counted == eventsDone && rowsDone));
      if (e.isRows() && !sent) {
        ObjectNode next;
        if (inResumed) {
          next = current.deepCopy();
        } else if (start == null) {
          throw new IllegalArgumentException("cannot find where the transaction holding the next change (at "
              + e.file() + ":" + e.pos() + ") begins in the binary log");
        } else {
          next = at(current, start.file(), start.pos(),
              mariaDb ? gtidsAt(source, start.file(), start.pos(), current) : null);
        }
        next.put("event", counted);
        next.put("row", 1);
        OffsetFormat.dropSnapshotMarkers(next);
        return next;
      }
    }
    throw new IllegalArgumentException("there is no change after the current position (" + file + ":" + pos
        + ", event " + eventsDone + ") in the binary log: nothing to skip");
  }

  /** The start of a transaction (or the place after a statement) as a position: nothing of it sent yet. */
  private ObjectNode at(ObjectNode current, String file, long pos, String mariaDbGtids) {
    ObjectNode next = current.deepCopy();
    next.put("file", file);
    next.put("pos", pos);
    if (current.hasNonNull("gtids")) {
      if (mariaDbGtids == null) {
        throw new IllegalArgumentException("the next change is in a later transaction and this connector resumes from"
            + " its GTID set (" + current.get("gtids").asText() + "), which Sluice cannot advance on a MySQL server:"
            + " use set --file " + file + " --pos " + pos + " --gtids <the GTID set executed before it>");
      }
      next.put("gtids", mariaDbGtids);
    }
    next.put("event", 0);
    next.put("row", 0);
    OffsetFormat.dropSnapshotMarkers(next);
    return next;
  }

  private static String gtidsAt(SourceDatabase source, String file, long pos, ObjectNode current) {
    if (!current.hasNonNull("gtids")) {
      return null;
    }
    String gtids = BinlogEvents.mariaDbGtidPosition(source, file, pos);
    if (gtids == null) {
      throw new IllegalArgumentException("MariaDB cannot tell the GTID position at " + file + ":" + pos);
    }
    return gtids;
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
