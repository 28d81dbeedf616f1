package io.sluice.ops.offsets;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.source.Engine;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * How one type of source connector stores its position in {@code connect-offsets}, and how to move it. One
 * implementation per database, because each resumes from different fields: editing the wrong one is accepted by
 * Kafka Connect and silently does nothing (or fails the connector on start).
 */
public sealed interface OffsetFormat permits PostgresOffsets, MySqlOffsets, SqlServerOffsets {

  /** The source's engine: MySQL's format serves MariaDB too. */
  Engine engine();

  /** The connector type, as operators name it: PostgreSQL, MySQL, MariaDB, SQL Server. */
  default String database() {
    return engine().displayName();
  }

  /** The {@code set} flags this type takes, for messages. */
  String targetFlags();

  /** The position's fields in the order a person reads them, decoded. */
  List<Field> describe(JsonNode offset);

  /**
   * The position {@code target} means, built from {@code current} so that fields the move does not concern stay as
   * they are. Refuses (IllegalArgumentException) a target of another type, or one this connector would ignore.
   */
  ObjectNode moveTo(ObjectNode current, Target target);

  /**
   * {@code target} with what the operator may leave out filled in from the source (read-only), where this type can
   * work it out; as given otherwise.
   */
  default Target complete(Target target, ObjectNode current, java.util.function.Supplier<SourceDatabase> source) {
    return target;
  }

  /** The position right after the one event that follows {@code current}. */
  ObjectNode skipOne(ObjectNode current, SourceDatabase source);

  /** Refuses (IllegalArgumentException) a position whose fields have types the connector cannot load. */
  void validate(JsonNode offset);

  /** The format of a connector class, if Sluice knows it. */
  static Optional<OffsetFormat> forConnectorClass(String connectorClass) {
    return Engine.ofConnectorClass(connectorClass).flatMap(engine -> switch (engine) {
      case POSTGRESQL -> Optional.of(new PostgresOffsets());
      case MYSQL, MARIADB -> Optional.of(new MySqlOffsets(engine));
      case SQL_SERVER -> Optional.of(new SqlServerOffsets());
      default -> Optional.empty();
    });
  }

  /** The fields of {@code offset}: the known ones first, in {@code order}, then the rest as stored. */
  static List<Field> describe(JsonNode offset, List<String> order, Map<String, java.util.function.Function<JsonNode, String>> shown) {
    List<Field> out = new ArrayList<>();
    for (String name : order) {
      if (offset.has(name)) {
        JsonNode v = offset.get(name);
        var f = shown.get(name);
        out.add(new Field(name, v, v.isNull() || f == null ? v.toString() : f.apply(v)));
      }
    }
    for (Iterator<String> it = offset.fieldNames(); it.hasNext(); ) {
      String name = it.next();
      if (!order.contains(name)) {
        out.add(new Field(name, offset.get(name), offset.get(name).toString()));
      }
    }
    return out;
  }

  static String utcMicros(JsonNode v) {
    long micros = v.asLong();
    return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000), Math.floorMod(micros, 1_000_000) * 1000L) + " ("
        + micros + ")";
  }

  static String utcSeconds(JsonNode v) {
    return Instant.ofEpochSecond(v.asLong()) + " (" + v.asLong() + ")";
  }

  /** Refuses a field that is present with a value that is not a whole number (or null where {@code nullable}). */
  static void requireWholeNumber(JsonNode offset, String field, boolean required, boolean nullable, String database) {
    JsonNode v = offset.get(field);
    if (v == null) {
      if (required) {
        throw new IllegalArgumentException(database + " position has no '" + field + "'");
      }
      return;
    }
    if (v.isNull() && nullable) {
      return;
    }
    if (!v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < 0) {
      throw new IllegalArgumentException("wrong type for '" + field + "': " + database + " connectors load it as a"
          + " whole number (Long), but the value is " + v + "; the connector would fail on start");
    }
  }

  static void requireText(JsonNode offset, String field, boolean required, String database) {
    JsonNode v = offset.get(field);
    if (v == null || v.isNull()) {
      if (required) {
        throw new IllegalArgumentException(database + " position has no '" + field + "'");
      }
      return;
    }
    if (!v.isTextual()) {
      throw new IllegalArgumentException("wrong type for '" + field + "': " + database + " connectors load it as text,"
          + " but the value is " + v);
    }
  }

  /** Snapshot markers make a connector redo or finish a snapshot; a position being set is a streaming one. */
  Set<String> SNAPSHOT_MARKERS = Set.of("snapshot", "last_snapshot_record", "snapshot_completed");

  static void dropSnapshotMarkers(ObjectNode offset) {
    SNAPSHOT_MARKERS.forEach(offset::remove);
  }
}
