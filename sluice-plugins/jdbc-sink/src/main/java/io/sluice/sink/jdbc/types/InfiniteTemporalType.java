package io.sluice.sink.jdbc.types;

import io.debezium.connector.jdbc.type.JdbcType;
import io.debezium.sink.column.ColumnDescriptor;
import io.debezium.sink.valuebinding.ValueBindDescriptor;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import org.apache.kafka.connect.data.Schema;

/**
 * A date or timestamp as the dialect's own type writes it, except PostgreSQL's {@code infinity} and
 * {@code -infinity}: Debezium's PostgreSQL source sends them as instants far outside the range PostgreSQL holds
 * ("date out of range: 5877611-06-21", "timestamp out of range: 292278994-08-16"), which the database refused. A value
 * beyond PostgreSQL's range can only have been an infinity, and is written as one.
 *
 * <p>In a MariaDB or MySQL table the sink makes, a timestamp with a time zone that was not a MariaDB or MySQL
 * {@code timestamp} at its source (PostgreSQL's {@code timestamptz}) is a {@code datetime}, written in the sink's
 * database time zone: Debezium's dialect makes it a {@code timestamp}, which holds only 1970 to 2038 and refused the
 * rest. A date-time whose source column declared no fractional digits (MariaDB's {@code datetime} and
 * {@code timestamp}, PostgreSQL's {@code timestamp(0)}) is made with none, in either database, not with Debezium's six.
 */
public final class InfiniteTemporalType extends DelegatingType {
  /** The unit of a Debezium temporal type's number, by its schema name. */
  private enum Unit {
    DAYS("io.debezium.time.Date", 1),
    MILLIS("io.debezium.time.Timestamp", 1_000L),
    MICROS("io.debezium.time.MicroTimestamp", 1_000_000L),
    NANOS("io.debezium.time.NanoTimestamp", 1_000_000_000L),
    ZONED("io.debezium.time.ZonedTimestamp", 0);

    final String schemaName;
    final long perSecond;

    Unit(String schemaName, long perSecond) {
      this.schemaName = schemaName;
      this.perSecond = perSecond;
    }
  }

  /** The schema names this type stands in for: Debezium's dates and timestamps. */
  public static final List<String> SCHEMA_NAMES = java.util.Arrays.stream(Unit.values()).map(u -> u.schemaName)
      .toList();

  // PostgreSQL's range: 4713-01-01 BC to 5874897-12-31 for dates, 294276-12-31 23:59:59.999999 for timestamps.
  private static final long FIRST_DAY = LocalDate.of(-4712, 1, 1).toEpochDay();
  private static final long LAST_DAY = LocalDate.of(5_874_897, 12, 31).toEpochDay();
  private static final long FIRST_SECOND = LocalDateTime.of(-4712, 1, 1, 0, 0).toEpochSecond(ZoneOffset.UTC);
  private static final long LAST_SECOND = LocalDateTime.of(294_276, 12, 31, 23, 59, 59).toEpochSecond(ZoneOffset.UTC);

  private final Unit unit;

  private InfiniteTemporalType(JdbcType debezium, Unit unit) {
    super(debezium);
    this.unit = unit;
  }

  /** Stands in for {@code debezium}, the type the dialect has for the schema name {@code schemaName}. */
  public static InfiniteTemporalType over(JdbcType debezium, String schemaName) {
    for (Unit u : Unit.values()) {
      if (u.schemaName.equals(schemaName)) {
        return new InfiniteTemporalType(debezium, u);
      }
    }
    throw new IllegalArgumentException(schemaName);
  }

  @Override
  public String[] getRegistrationKeys() {
    return new String[] {unit.schemaName};
  }

  @Override
  public String getTypeName(Schema schema, boolean isKey) {
    if (unit == Unit.DAYS || !(binlog() || postgres())) {
      return super.getTypeName(schema, isKey);
    }
    boolean timestamp = unit == Unit.ZONED && "TIMESTAMP".equals(SourceColumn.type(schema));
    java.util.OptionalInt declared = SourceColumn.fractionDigits(schema);
    if (declared.isPresent() && declared.getAsInt() == 0) {
      // Debezium's sink reads a declared 0 as none and makes the column with six digits.
      if (postgres()) {
        return unit == Unit.ZONED ? "timestamp(0) with time zone" : "timestamp(0)";
      }
      return timestamp ? "timestamp" : "datetime";
    }
    if (postgres()) {
      return super.getTypeName(schema, isKey);
    }
    if (unit == Unit.ZONED && !timestamp) {
      int precision = declared.orElse(0);
      int max = getDialect().getMaxTimestampPrecision();
      return "datetime(" + (precision > 0 && precision <= max ? precision : max) + ")";
    }
    return super.getTypeName(schema, isKey);
  }

  @Override
  public String getQueryBinding(ColumnDescriptor column, Schema schema, Object value) {
    // A statement's binding is made once for all its rows: cast, so that the text of an infinity is read as the type.
    return postgres() ? "cast(? as " + debezium.getTypeName(schema, false) + ")"
        : super.getQueryBinding(column, schema, value);
  }

  @Override
  public List<ValueBindDescriptor> bind(int index, Schema schema, Object value) {
    if (postgres()) {
      String infinity = infinity(value);
      if (infinity != null) {
        return List.of(new ValueBindDescriptor(index, infinity));
      }
    }
    return super.bind(index, schema, value);
  }

  /**
   * Whether this type binds a {@code ZonedTimestamp}'s text, other than an infinity, as Debezium's own zoned timestamp
   * type does: parsed, and bound as that instant.
   */
  public boolean bindsZonedTextAsItsInstant() {
    return unit == Unit.ZONED
        && debezium instanceof io.debezium.connector.jdbc.type.debezium.DebeziumZonedTimestampType;
  }

  /** {@code infinity} or {@code -infinity} where {@code value} lies beyond PostgreSQL's range, else null. */
  private String infinity(Object value) {
    return infinity(unit, value);
  }

  /**
   * {@code infinity} or {@code -infinity} where {@code value}, of the Debezium date or timestamp type named
   * {@code schemaName}, lies beyond PostgreSQL's range (so could only have been one), else null; null for any other
   * type.
   */
  public static String infinity(String schemaName, Object value) {
    for (Unit u : Unit.values()) {
      if (u.schemaName.equals(schemaName)) {
        return infinity(u, value);
      }
    }
    return null;
  }

  private static String infinity(Unit unit, Object value) {
    if (value instanceof String s) {
      return s.equals("infinity") || s.equals("-infinity") ? s : null;
    }
    if (!(value instanceof Number n)) {
      return null;
    }
    long v = n.longValue();
    if (unit == Unit.DAYS) {
      return v > LAST_DAY ? "infinity" : v < FIRST_DAY ? "-infinity" : null;
    }
    long seconds = Math.floorDiv(v, unit.perSecond);
    return seconds > LAST_SECOND || v == Long.MAX_VALUE ? "infinity"
        : seconds < FIRST_SECOND || v == Long.MIN_VALUE ? "-infinity" : null;
  }
}
