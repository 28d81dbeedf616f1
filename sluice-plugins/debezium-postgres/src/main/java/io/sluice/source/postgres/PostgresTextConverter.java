package io.sluice.source.postgres;

import io.debezium.connector.postgresql.PostgresValueConverter;
import io.debezium.data.SpecialValueDecimal;
import io.debezium.spi.converter.CustomConverter;
import io.debezium.spi.converter.RelationalColumn;
import java.math.BigDecimal;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.postgresql.PGStatement;
import org.postgresql.util.PGobject;

/**
 * Carries the PostgreSQL columns whose Debezium representation loses information, or which Debezium drops, as
 * PostgreSQL's own text form of the value, so that a PostgreSQL sink writes back exactly what was read:
 * <ul>
 *   <li>{@code numeric} without a scale, and arrays of it: Debezium's variable-scale decimal has no NaN or infinity,
 *       and sinks write it as a double (3.14159265358979323846264338327950288 arrives as 3.141592653589793) or, in
 *       an array, cannot write it at all;
 *   <li>{@code interval}: Debezium's microseconds count a month as 30 days (1 year 2 mons arrives as 10,200 hours);
 *   <li>{@code varbit}: Debezium sends the bytes and the declared length, not the value's (B'101' in a varbit(16)
 *       arrives as 16 bits);
 *   <li>{@code xml}: the snapshot's read drops an XML declaration;
 *   <li>arrays of dates, times, timestamps and of the types above: the sink cannot bind Debezium's date and time
 *       numbers in an array, and Debezium has no schema for arrays of the others;
 *   <li>{@code hstore}: Debezium's JSON form turns a NULL value into the string {@code "null"};
 *   <li>the geometric types: Debezium leaves {@code box}, {@code lseg}, {@code path} and {@code polygon} out of the
 *       change event, and writes {@code point} as PostGIS' WKB, which a sink writes back only where PostGIS is
 *       installed ({@code line} and {@code circle} travel as its own structs no sink knows).
 * </ul>
 * And, with {@value #DATES}{@code =}{@value #EPOCH_DAYS} (Sluice's default for a source with Debezium's default
 * {@code time.precision.mode}), {@code date} columns as Debezium's own {@code io.debezium.time.Date} with one
 * difference: a snapshot reads {@code infinity} and {@code -infinity} through {@code java.sql.Date}, whose magic
 * millisecond values overflow Debezium's day number into the opposite sign ({@code -infinity} arrived as
 * {@code infinity}); here they get the day numbers the replication stream gives them, so a row reads the same in a
 * snapshot and streamed.
 * Each such field is a string named {@link #NAME} whose parameter {@link #TYPE} says the column's type as PostgreSQL
 * spells it; Sluice's JDBC sink creates and writes the column with that type. Every other column is Debezium's as
 * always. Configured on a source as {@code converters=sluice} and {@code sluice.type=} this class, which Sluice fills
 * in for PostgreSQL sources.
 */
public final class PostgresTextConverter implements CustomConverter<SchemaBuilder, RelationalColumn> {
  /** The name of the Connect schema of a value in PostgreSQL's text form. */
  public static final String NAME = "io.sluice.data.PostgresText";
  /** The schema parameter holding the column's PostgreSQL type, as a column definition would spell it. */
  public static final String TYPE = "io.sluice.postgres.type";
  /** Beyond PostgreSQL's largest declared numeric precision (1,000): Debezium's length of an unconstrained numeric. */
  private static final int MAX_DECLARED_PRECISION = 1000;
  /**
   * Element types whose arrays travel as text: Debezium's sink binds an array's elements as Debezium's numbers (days,
   * microseconds), which PostgreSQL refuses for a date ("invalid input syntax for type date: 10957"), and Debezium
   * has no schema at all for arrays of the other types here.
   */
  private static final Set<String> TEXT_ARRAYS = Set.of("date", "time", "timetz", "timestamp", "timestamptz",
      "interval", "money", "xml", "varbit", "bit", "box", "lseg", "path", "polygon", "point", "line", "circle");
  private static final Set<String> GEOMETRIC = Set.of("box", "lseg", "path", "polygon", "point", "line", "circle");
  /** The key (under the converter's prefix) that has it take {@code date} columns, and its one value. */
  public static final String DATES = "dates";
  public static final String EPOCH_DAYS = "epoch.days";

  private boolean dates;

  @Override
  public void configure(Properties props) {
    // Which columns it takes is decided by their type alone, dates apart: their schema must be the one Debezium's
    // time.precision.mode gives, which a converter cannot read, so Sluice says so only for the default mode.
    dates = EPOCH_DAYS.equals(props.getProperty(DATES));
  }

  @Override
  public void converterFor(RelationalColumn column, ConverterRegistration<SchemaBuilder> registration) {
    if (dates && "date".equalsIgnoreCase(column.typeName())) {
      SchemaBuilder schema = io.debezium.time.Date.builder();
      if (column.isOptional()) {
        schema.optional();
      }
      // A NOT NULL column without a value (a key-only old row) gets Debezium's fallback, the epoch, as it would.
      Object missing = column.isOptional() ? null : 0;
      registration.register(schema, value -> value == null ? missing : epochDay(value));
      return;
    }
    String type = postgresType(column);
    if (type == null) {
      return;
    }
    SchemaBuilder schema = SchemaBuilder.string().name(NAME).parameter(TYPE, type);
    if (column.isOptional()) {
      schema.optional();
    }
    registration.register(schema, PostgresTextConverter::text);
  }

  /** The column's type where this converter carries it, as a column definition spells it; null for the rest. */
  static String postgresType(RelationalColumn column) {
    String name = column.typeName() == null ? "" : column.typeName().toLowerCase(Locale.ROOT);
    switch (name) {
      case "numeric", "decimal", "_numeric" -> {
        // No length, or none declared: the snapshot's column says 131,089, the replication stream's -1.
        int length = column.length().orElse(-1);
        boolean unconstrained = length <= 0 || length > MAX_DECLARED_PRECISION;
        return unconstrained ? (name.startsWith("_") ? "numeric[]" : "numeric") : null;
      }
      case "interval", "xml", "hstore" -> {
        return name;
      }
      case "varbit", "bit varying" -> {
        boolean declared = column.length().isPresent() && column.length().getAsInt() > 0
            && column.length().getAsInt() < Integer.MAX_VALUE;
        return declared ? "varbit(" + column.length().getAsInt() + ")" : "varbit";
      }
      default -> {
        if (name.startsWith("_") && TEXT_ARRAYS.contains(name.substring(1))) {
          return name.substring(1) + "[]";
        }
        return GEOMETRIC.contains(name) ? name : null;
      }
    }
  }

  /**
   * PostgreSQL's text form of a value as Debezium read it: a string as the replication stream decoded it, a PGobject
   * (interval, the geometric types) or a special-value decimal as the snapshot's query read it.
   */
  static Object text(Object value) {
    if (value == null || value instanceof String) {
      return value;
    }
    if (value instanceof PGobject object) {
      return object.getValue();
    }
    if (value instanceof java.sql.Array array) {
      return array.toString(); // PgJDBC's array as PostgreSQL wrote it: {1.5,NULL,-2.25}
    }
    if (value instanceof java.sql.SQLXML xml) {
      try {
        return xml.getString();
      } catch (java.sql.SQLException e) {
        throw new org.apache.kafka.connect.errors.DataException("cannot read an xml value: " + e.getMessage(), e);
      }
    }
    if (value instanceof java.util.Map<?, ?> hstore) {
      return hstore(hstore);
    }
    if (value instanceof SpecialValueDecimal decimal) {
      return decimal.getDecimalValue().map(BigDecimal::toPlainString).orElseGet(() -> special(decimal));
    }
    if (value instanceof BigDecimal decimal) {
      return decimal.toPlainString();
    }
    return value.toString();
  }

  /**
   * A date's day number as Debezium's {@code io.debezium.time.Date} counts it, {@code infinity} and {@code -infinity}
   * from a snapshot's {@code java.sql.Date} included: the numbers the replication stream gives them (Debezium parses
   * the stream's text into its own two sentinel dates).
   */
  static int epochDay(Object value) {
    if (value instanceof java.sql.Date date) {
      if (date.getTime() == PGStatement.DATE_POSITIVE_INFINITY) {
        value = PostgresValueConverter.POSITIVE_INFINITY_LOCAL_DATE;
      } else if (date.getTime() == PGStatement.DATE_NEGATIVE_INFINITY) {
        value = PostgresValueConverter.NEGATIVE_INFINITY_LOCAL_DATE;
      }
    }
    return io.debezium.time.Date.toEpochDay(value, null);
  }

  /** An hstore as PostgreSQL writes one: each key and value quoted, a NULL value bare. */
  static String hstore(java.util.Map<?, ?> pairs) {
    StringBuilder out = new StringBuilder();
    pairs.forEach((k, v) -> {
      if (out.length() > 0) {
        out.append(", ");
      }
      out.append(quoted(String.valueOf(k))).append("=>").append(v == null ? "NULL" : quoted(String.valueOf(v)));
    });
    return out.toString();
  }

  private static String quoted(String s) {
    return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
  }

  private static String special(SpecialValueDecimal decimal) {
    if (SpecialValueDecimal.POSITIVE_INF.equals(decimal)) {
      return "Infinity";
    }
    if (SpecialValueDecimal.NEGATIVE_INF.equals(decimal)) {
      return "-Infinity";
    }
    return "NaN";
  }
}
