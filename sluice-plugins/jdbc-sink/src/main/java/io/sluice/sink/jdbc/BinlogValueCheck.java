package io.sluice.sink.jdbc;

import io.sluice.sink.jdbc.types.InfiniteTemporalType;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Values no MariaDB or MySQL column can hold, found in a record before the sink writes it: NaN and ±Infinity (no
 * FLOAT, DOUBLE or DECIMAL has them) and dates and times outside the years 1 to 9999 (PostgreSQL's {@code infinity}
 * and {@code -infinity}, which Debezium's PostgreSQL source sends as instants millions of years away, and its years
 * before Christ). The database refused some of them with words that name neither the value nor its source type ("Out
 * of range value for column 'c_real'"), others only as a date it could not parse, and outside strict mode it stores 0
 * or a zero date instead: the value changed in silence. So the sink names each such column, its source type and the
 * value, and refuses the record itself.
 */
final class BinlogValueCheck {
  private static final String SOURCE_TYPE = "__debezium.source.column.type";
  private static final String DATE = "io.debezium.time.Date";
  private static final String ZONED_TIMESTAMP = "io.debezium.time.ZonedTimestamp";
  private static final int FIRST_YEAR = 1;
  private static final int LAST_YEAR = 9999;

  /** A column of a record whose value the database cannot hold: its name, its source type, the value and its kind. */
  record Unholdable(String column, String type, String value, Kind kind) {
    @Override
    public String toString() {
      return "column " + column + " (" + type + ") holds " + value;
    }
  }

  /** A number without a finite value, or a date or time beyond the years the database holds. */
  enum Kind { FLOATING, TEMPORAL }

  private record Candidate(Field field, Kind kind) {}

  private final UnaryOperator<String> columnName;
  /** The fields of each row schema that may hold such a value; most rows have none, and are passed at once. */
  private final Map<Schema, List<Candidate>> candidates = new IdentityHashMap<>();

  /** A check that names columns as {@code columnName} names a field's column. */
  BinlogValueCheck(UnaryOperator<String> columnName) {
    this.columnName = columnName;
  }

  /** What the reader is told of the values found: why the database cannot take them. */
  static String why(List<Unholdable> found) {
    List<String> reasons = new ArrayList<>();
    if (found.stream().anyMatch(u -> u.kind() == Kind.FLOATING)) {
      reasons.add("MariaDB and MySQL have no NaN or infinity in any numeric type");
    }
    if (found.stream().anyMatch(u -> u.kind() == Kind.TEMPORAL)) {
      reasons.add("their dates and times hold the years " + FIRST_YEAR + " to " + LAST_YEAR + " and no infinity");
    }
    return String.join("; ", reasons);
  }

  /** The columns of {@code record}'s row whose values the database cannot hold; empty for most records. */
  List<Unholdable> find(SinkRecord record) {
    Struct row = row(record);
    if (row == null) {
      return List.of();
    }
    if (candidates.size() > 10_000) {
      candidates.clear(); // schemas not cached by their converter: look again rather than grow
    }
    List<Candidate> fields = candidates.computeIfAbsent(row.schema(), BinlogValueCheck::candidatesOf);
    if (fields.isEmpty()) {
      return List.of();
    }
    List<Unholdable> out = new ArrayList<>(0);
    for (Candidate c : fields) {
      Object value = row.get(c.field());
      String unholdable = c.kind() == Kind.FLOATING ? nonFinite(value) : beyondYears(c.field().schema(), value);
      if (unholdable != null) {
        out.add(new Unholdable(columnName.apply(c.field().name()), type(c.field().schema()), unholdable, c.kind()));
      }
    }
    return out;
  }

  /** The row a record writes: an envelope's {@code after}, or a flattened value; null for deletes and tombstones. */
  private static Struct row(SinkRecord record) {
    if (!(record.value() instanceof Struct value)) {
      return null;
    }
    String name = value.schema().name();
    if (name != null && name.contains("Envelope")) {
      return value.schema().field("after") == null ? null : value.getStruct("after");
    }
    return value;
  }

  private static List<Candidate> candidatesOf(Schema row) {
    List<Candidate> out = new ArrayList<>(0);
    for (Field f : row.fields()) {
      Schema s = f.schema();
      if (s.type() == Schema.Type.FLOAT32 || s.type() == Schema.Type.FLOAT64) {
        out.add(new Candidate(f, Kind.FLOATING));
      } else if (s.name() != null && InfiniteTemporalType.SCHEMA_NAMES.contains(s.name())) {
        out.add(new Candidate(f, Kind.TEMPORAL));
      }
    }
    return out;
  }

  private static String nonFinite(Object value) {
    if (value instanceof Float f && !Float.isFinite(f)) {
      return f.toString();
    }
    if (value instanceof Double d && !Double.isFinite(d)) {
      return d.toString();
    }
    return null;
  }

  /** The value's text where it lies outside the years the database holds, else null. */
  private static String beyondYears(Schema schema, Object value) {
    if (value == null) {
      return null;
    }
    String infinity = InfiniteTemporalType.infinity(schema.name(), value);
    if (infinity != null) {
      return infinity;
    }
    try {
      if (value instanceof String text) {
        if (!ZONED_TIMESTAMP.equals(schema.name())) {
          return null;
        }
        OffsetDateTime t = OffsetDateTime.parse(text);
        return outside(t.getYear()) ? text : null;
      }
      if (!(value instanceof Number n)) {
        return null;
      }
      if (DATE.equals(schema.name())) {
        LocalDate d = LocalDate.ofEpochDay(n.longValue());
        return outside(d.getYear()) ? d.toString() : null;
      }
      long perSecond = switch (schema.name()) {
        case "io.debezium.time.Timestamp" -> 1_000L;
        case "io.debezium.time.MicroTimestamp" -> 1_000_000L;
        case "io.debezium.time.NanoTimestamp" -> 1_000_000_000L;
        default -> 0L;
      };
      if (perSecond == 0) {
        return null;
      }
      LocalDateTime t = LocalDateTime.ofEpochSecond(Math.floorDiv(n.longValue(), perSecond),
          (int) (Math.floorMod(n.longValue(), perSecond) * (1_000_000_000L / perSecond)), ZoneOffset.UTC);
      return outside(t.getYear()) ? t.toString() : null;
    } catch (DateTimeException notATime) {
      return null; // not a value this check can read: the database judges it
    }
  }

  private static boolean outside(int year) {
    return year < FIRST_YEAR || year > LAST_YEAR;
  }

  /** The source column's type where the source carried it (Sluice's default), else the field's Connect type. */
  private static String type(Schema schema) {
    String source = schema.parameters() == null ? null : schema.parameters().get(SOURCE_TYPE);
    if (source != null) {
      return source;
    }
    return schema.name() != null ? schema.name() : schema.type().getName();
  }
}
