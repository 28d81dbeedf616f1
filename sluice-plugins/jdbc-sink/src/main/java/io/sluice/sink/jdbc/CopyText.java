package io.sluice.sink.jdbc;

import io.debezium.connector.jdbc.type.JdbcType;
import io.debezium.sink.valuebinding.ValueBindDescriptor;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;

/**
 * A field's values in PostgreSQL's COPY text form, for the pairs of a Connect schema and a column type where that text
 * gives the column exactly the value Debezium's sink binds: the same text or number the driver sends, read by the
 * same input function of the column's type.
 *
 * <p>Each pair here follows what Debezium 3.6's PostgreSQL dialect binds for the schema (its type registry is keyed by
 * schema name, else by Connect type) and what PgJDBC then sends:
 * <ul>
 *   <li>integers (no schema name) into {@code int2/int4/int8}: the number;
 *   <li>{@code FLOAT64} into {@code float8}: Java's shortest text of a double reads back as the same double, as the
 *       driver's binary or text form does ({@code FLOAT32} is left out: the driver sends it as a double, and a text
 *       read as float4 need not round the same way);
 *   <li>{@code BOOLEAN} into {@code bool}; {@code STRING} into {@code text/varchar}, and into {@code json/jsonb/uuid},
 *       where Debezium casts the string to the column's type, which reads the same text;
 *   <li>{@code io.debezium.data.Json} into {@code json/jsonb} (Debezium casts to json); {@code io.debezium.data.Uuid}
 *       into {@code uuid};
 *   <li>{@code BYTES} into {@code bytea}: hex; Connect's {@code Decimal} into {@code numeric}: the BigDecimal's text;
 *   <li>{@code io.debezium.time.Date} (days since the epoch) into {@code date}: the ISO date, which the server reads
 *       as year-month-day whatever its {@code DateStyle};
 *   <li>{@code io.debezium.time.ZonedTimestamp} into {@code timestamptz}: the same instant with its offset written
 *       out (Debezium moves it to the database time zone, which keeps the instant); whole microseconds only, as the
 *       driver and the server round half a microsecond differently;
 *   <li>{@code io.debezium.time.MicroTimestamp} and {@code Timestamp} into {@code timestamp}: the UTC local date-time
 *       Debezium binds, when its time zone ({@code use.time.zone}) has a fixed offset (elsewhere it shifts times
 *       that fall in a gap).
 * </ul>
 * Years outside 1–9999 are left to Debezium's path.
 *
 * <p>A field whose schema carries the source's column type ({@code column.propagate.source.type}, Sluice's default
 * for its sources), and any other field none of the pairs above takes, goes by what the task's own dialect does with
 * it ({@link #bound}): Debezium looks the type up by schema name, then by that source type, then by Connect type, so
 * the same Connect schema may bind as another type ({@code BOOLEAN} of a {@code bit(1)} as the character
 * {@code '1'} cast to {@code bit}). There the dialect's type binds each value, as it does on Debezium's path; COPY
 * writes the Java value it bound as the driver sends it, into a staging column of the type the driver gives that
 * parameter, and the merge applies the dialect's own query binding ({@code cast(? as inet)}) to the staged column,
 * as Debezium's statement applies it to the parameter: the column gets what the same expression makes of the same
 * value.
 */
final class CopyText {
  /** Which column types each schema may be copied into; the key is the schema name, or the Connect type. */
  private static final Map<String, Set<String>> COLUMNS = Map.ofEntries(
      Map.entry("INT8", Set.of("int2", "int4", "int8")),
      Map.entry("INT16", Set.of("int2", "int4", "int8")),
      Map.entry("INT32", Set.of("int2", "int4", "int8")),
      Map.entry("INT64", Set.of("int2", "int4", "int8")),
      Map.entry("FLOAT64", Set.of("float8")),
      Map.entry("BOOLEAN", Set.of("bool")),
      Map.entry("STRING", Set.of("text", "varchar", "json", "jsonb", "uuid")),
      Map.entry("BYTES", Set.of("bytea")),
      Map.entry(Decimal.LOGICAL_NAME, Set.of("numeric")),
      Map.entry("io.debezium.data.Json", Set.of("json", "jsonb")),
      Map.entry("io.debezium.data.Uuid", Set.of("uuid")),
      Map.entry("io.debezium.time.Date", Set.of("date")),
      Map.entry("io.debezium.time.ZonedTimestamp", Set.of("timestamptz")),
      Map.entry("io.debezium.time.MicroTimestamp", Set.of("timestamp")),
      Map.entry("io.debezium.time.Timestamp", Set.of("timestamp")));
  private static final String SOURCE_COLUMN_TYPE = "__debezium.source.column.type";
  private static final String ZONED_TIMESTAMP = "io.debezium.time.ZonedTimestamp";
  private static final HexFormat HEX = HexFormat.of();

  /** How one field's value becomes text: the text, or empty when this value must go Debezium's way. */
  @FunctionalInterface
  interface Encoder {
    Optional<String> text(Object value);
  }

  private CopyText() {}

  /**
   * The encoder for a field of {@code schema} written into a column of type {@code columnType} (pg_type's
   * {@code typname}); empty where COPY's value is not provably Debezium's. {@code fixedOffsetZone} says whether the
   * sink's {@code use.time.zone} has a fixed offset.
   */
  static Optional<Encoder> encoder(Schema schema, String columnType, boolean fixedOffsetZone) {
    if (sourceTyped(schema)) {
      return Optional.empty();
    }
    String kind = schema.name() != null ? schema.name() : schema.type().name();
    if (!COLUMNS.getOrDefault(kind, Set.of()).contains(columnType)) {
      return Optional.empty();
    }
    return switch (kind) {
      case "INT8", "INT16", "INT32", "INT64" -> Optional.of(v -> Optional.of(Long.toString(((Number) v).longValue())));
      case "FLOAT64" -> Optional.of(v -> Optional.of(Double.toString((Double) v)));
      case "BOOLEAN" -> Optional.of(v -> Optional.of((Boolean) v ? "t" : "f"));
      case "STRING", "io.debezium.data.Json", "io.debezium.data.Uuid" -> Optional.of(v -> Optional.of((String) v));
      case "BYTES" -> Optional.of(CopyText::bytes);
      case Decimal.LOGICAL_NAME -> Optional.of(v -> Optional.of(((BigDecimal) v).toString()));
      case "io.debezium.time.Date" -> Optional.of(CopyText::date);
      case "io.debezium.time.ZonedTimestamp" -> Optional.of(CopyText::zoned);
      case "io.debezium.time.MicroTimestamp" -> fixedOffsetZone
          ? Optional.of(v -> local(Instant.EPOCH.plus(((Number) v).longValue(), java.time.temporal.ChronoUnit.MICROS)))
          : Optional.empty();
      case "io.debezium.time.Timestamp" -> fixedOffsetZone
          ? Optional.of(v -> local(Instant.ofEpochMilli(((Number) v).longValue())))
          : Optional.empty();
      default -> Optional.empty();
    };
  }

  /** Whether {@code schema} carries its source column's type, which Debezium's dialect may map to another type. */
  static boolean sourceTyped(Schema schema) {
    return schema.parameters() != null && schema.parameters().containsKey(SOURCE_COLUMN_TYPE);
  }

  /**
   * A field's column in a COPY: how its values become text, the type of its staging column (null: the target
   * column's own), and the merge's expression of the staged column, {@code ?} standing for it.
   */
  record Column(Encoder encoder, String stageType, String binding) {
    /** The expression that writes the staged column {@code staged} into the table. */
    String expression(String staged) {
      return binding.replace("?", staged);
    }
  }

  /** A parameter as the driver sends it: its PostgreSQL type and its text in that type. */
  private record Param(String type, String text) {}

  /** The query bindings whose parameter this writer can stand a staged column in for: the parameter, or a cast of it. */
  private static final java.util.regex.Pattern BINDING =
      java.util.regex.Pattern.compile("\\?|cast\\(\\? as [A-Za-z_][A-Za-z0-9_ ,()\\[\\]]*\\)");
  /** An array's element type name the driver looks up as it is, with no length or precision to resolve. */
  private static final java.util.regex.Pattern ELEMENT_TYPE = java.util.regex.Pattern.compile("[a-z_][a-z0-9_ ]*");

  /**
   * The column of a field whose values {@code type} (the task's dialect's type for {@code schema}) binds into a
   * statement with {@code binding} (its query binding for the column), judged by {@code sample}, a value of the
   * put's that is not null (null where every value is): empty where a bound value is not one this writer can send as
   * the driver does. {@code untypedAs} is null where the driver sends a string as {@code varchar} (its default
   * {@code stringtype}); where it sends strings untyped ({@code stringtype=unspecified}, Sluice's default for a
   * PostgreSQL sink), the type the server gives such a parameter in this binding, without length or precision: the
   * cast's type, or the column's for a bare {@code ?}. The server reads the text with that type's input function and
   * then applies the length or precision, cast or column, so a staged column of that type, put through the same
   * binding, gets the same.
   *
   * <p>Every value is bound by {@code type}, as on Debezium's path, and must bind as one parameter of the sample's
   * parameter type, or the whole put goes Debezium's way. A field whose values are all null is staged in the target
   * column's own type and written as it is: NULL whatever the binding. A bind that fails leaves the put to Debezium's
   * path, where it fails as it always has.
   */
  static Optional<Column> bound(JdbcType type, Schema schema, String binding, Object sample, String untypedAs) {
    if (sample == null) {
      return Optional.of(new Column(v -> Optional.empty(), null, "?"));
    }
    if (binding == null || !BINDING.matcher(binding).matches()) {
      return Optional.empty();
    }
    Optional<Param> first = param(type, schema, sample, untypedAs);
    if (first.isEmpty()) {
      return Optional.empty();
    }
    String stageType = first.get().type();
    boolean cast = !binding.equals("?");
    Encoder bound = v -> param(type, schema, v, untypedAs)
        .filter(p -> p.type().equals(stageType) || cast && infinityOf(p, stageType)).map(Param::text);
    // A timestamp with time zone as Debezium's PostgreSQL source writes it: the instant it binds, which the server
    // reads from the text itself, so it goes as it is, without the parse and format that cost more than the rest.
    boolean utcText = stageType.equals("timestamptz") && ZONED_TIMESTAMP.equals(schema.name())
        && type instanceof io.sluice.sink.jdbc.types.InfiniteTemporalType t && t.bindsZonedTextAsItsInstant();
    Encoder encoder = !utcText ? bound
        : v -> v instanceof String s && isUtcIso(s) && innerYear(s) ? Optional.of(s) : bound.text(v);
    return Optional.of(new Column(encoder, stageType, binding));
  }

  /**
   * Whether {@code p} is an infinity Sluice's temporal types bind as a string ({@code InfiniteTemporalType}) where the
   * field's other values bind as a date or timestamp of {@code stageType}. Cast from the string, as Debezium's
   * statement casts it, or staged as that type and then cast, it is the same infinity: every cast between
   * {@code date}, {@code timestamp} and {@code timestamptz} keeps an infinity as it is.
   */
  private static boolean infinityOf(Param p, String stageType) {
    return (p.text().equals("infinity") || p.text().equals("-infinity"))
        && (stageType.equals("date") || stageType.equals("timestamp") || stageType.equals("timestamptz"));
  }

  /** The parameter {@code type} binds {@code value} as; empty where it is not one this writer sends as the driver does. */
  private static Optional<Param> param(JdbcType type, Schema schema, Object value, String untypedAs) {
    java.util.List<ValueBindDescriptor> bound;
    try {
      bound = type.bind(1, schema, value);
    } catch (RuntimeException e) {
      return Optional.empty();
    }
    if (bound == null || bound.size() != 1) {
      return Optional.empty();
    }
    ValueBindDescriptor b = bound.get(0);
    Object v = b.getValue();
    Integer sqlType = b.getTargetSqlType();
    if (v == null) {
      return Optional.empty();
    }
    if (sqlType != null) {
      // What PgJDBC's setObject does with these targets: a local date-time as setTimestamp's, an offset one as its
      // own, a collection through createArrayOf with the element type named.
      if (sqlType == java.sql.Types.TIMESTAMP && v instanceof LocalDateTime t) {
        return localDateTime(t);
      }
      if (sqlType == java.sql.Types.TIMESTAMP_WITH_TIMEZONE && v instanceof OffsetDateTime t) {
        return offsetDateTime(t);
      }
      if (sqlType == java.sql.Types.ARRAY && v instanceof java.util.Collection<?> elements) {
        return array(b.getElementTypeName(), elements);
      }
      return Optional.empty();
    }
    // PgJDBC's setObject without a target: each class as its own setter sends it (42.7: setFloat as float4).
    if (v instanceof String s) {
      return Optional.of(new Param(untypedAs != null ? untypedAs : "varchar", s));
    }
    if (v instanceof Character c) {
      return Optional.of(new Param(untypedAs != null ? untypedAs : "varchar", c.toString()));
    }
    if (v instanceof Short || v instanceof Byte) {
      return Optional.of(new Param("int2", v.toString()));
    }
    if (v instanceof Integer) {
      return Optional.of(new Param("int4", v.toString()));
    }
    if (v instanceof Long) {
      return Optional.of(new Param("int8", v.toString()));
    }
    // Java's shortest text of a float or double reads back as the same number, as the driver's binary form does.
    if (v instanceof Float f) {
      return Optional.of(new Param("float4", Float.toString(f)));
    }
    if (v instanceof Double d) {
      return Optional.of(new Param("float8", Double.toString(d)));
    }
    if (v instanceof Boolean flag) {
      return Optional.of(new Param("bool", flag ? "t" : "f"));
    }
    if (v instanceof BigDecimal d) {
      return Optional.of(new Param("numeric", d.toString()));
    }
    if (v instanceof byte[] b2) {
      return Optional.of(new Param("bytea", "\\x" + HEX.formatHex(b2)));
    }
    if (v instanceof LocalDate d) {
      return d.getYear() < 1 || d.getYear() > 9999 ? Optional.empty()
          : Optional.of(new Param("date", TemporalText.date(d)));
    }
    if (v instanceof LocalDateTime t) {
      return localDateTime(t);
    }
    if (v instanceof OffsetDateTime t) {
      return offsetDateTime(t);
    }
    if (v instanceof OffsetTime t) {
      // The driver rounds a fraction finer than a microsecond, the server too, each its own way: those go Debezium's.
      return t.getNano() % 1000 != 0 ? Optional.empty() : Optional.of(new Param("timetz", TemporalText.offsetTime(t)));
    }
    return Optional.empty();
  }

  private static Optional<Param> localDateTime(LocalDateTime t) {
    return t.getNano() % 1000 != 0 || t.getYear() < 1 || t.getYear() > 9999 ? Optional.empty()
        : Optional.of(new Param("timestamp", TemporalText.local(t)));
  }

  private static Optional<Param> offsetDateTime(OffsetDateTime t) {
    // An offset with seconds (a zone's local mean time, before about 1900) goes Debezium's way: the driver writes
    // its seconds, which this text leaves out.
    return t.getNano() % 1000 != 0 || t.getYear() < 1 || t.getYear() > 9999
        || t.getOffset().getTotalSeconds() % 60 != 0 ? Optional.empty()
        : Optional.of(new Param("timestamptz", TemporalText.zoned(t)));
  }

  /**
   * An array as {@code createArrayOf(elementType, elements)} binds it, in the array type of {@code elementType}: each
   * element quoted, so that {@code array_in} gives it exactly its text, and NULL bare. Integers and strings only,
   * whose text the driver sends as {@code toString} gives it.
   */
  private static Optional<Param> array(String elementType, java.util.Collection<?> elements) {
    if (elementType == null || !ELEMENT_TYPE.matcher(elementType).matches()) {
      return Optional.empty();
    }
    StringBuilder out = new StringBuilder("{");
    for (Object e : elements) {
      if (out.length() > 1) {
        out.append(',');
      }
      if (e == null) {
        out.append("NULL");
      } else if (e instanceof String || e instanceof Integer || e instanceof Long || e instanceof Short) {
        String text = e.toString();
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
          char c = text.charAt(i);
          if (c == '"' || c == '\\') {
            out.append('\\');
          }
          out.append(c);
        }
        out.append('"');
      } else {
        return Optional.empty();
      }
    }
    return Optional.of(new Param(elementType + "[]", out.append('}').toString()));
  }

  private static Optional<String> bytes(Object v) {
    byte[] b;
    if (v instanceof ByteBuffer buffer) {
      b = buffer.array(); // what Debezium binds: the whole backing array
    } else if (v instanceof byte[] array) {
      b = array;
    } else {
      return Optional.empty();
    }
    return Optional.of("\\x" + HEX.formatHex(b));
  }

  /** Days since the epoch, as Debezium binds them: the {@code LocalDate}, which the driver sends as ISO text. */
  private static Optional<String> date(Object v) {
    LocalDate d = LocalDate.ofEpochDay(((Number) v).longValue());
    return d.getYear() < 1 || d.getYear() > 9999 ? Optional.empty() : Optional.of(TemporalText.date(d));
  }

  private static Optional<String> zoned(Object v) {
    String s = (String) v;
    if (s.equals("infinity") || s.equals("-infinity") || isUtcIso(s)) {
      return Optional.of(s);
    }
    ZonedDateTime t;
    try {
      t = ZonedDateTime.parse(s, io.debezium.time.ZonedTimestamp.FORMATTER);
    } catch (java.time.format.DateTimeParseException e) {
      return Optional.empty(); // Debezium's path fails on it as it always has
    }
    if (t.getNano() % 1000 != 0 || t.getYear() < 1 || t.getYear() > 9999
        || t.getOffset().getTotalSeconds() % 60 != 0) {
      return Optional.empty(); // an offset with seconds too: the text below leaves them out, the driver does not
    }
    return Optional.of(TemporalText.zoned(t.toOffsetDateTime()));
  }

  /**
   * Whether {@code s} is what Debezium's PostgreSQL source writes, {@code 2026-11-28T20:50:01.123456Z}: a valid UTC
   * date-time of years 1–9999 with at most six fractional digits. The server reads that text as the instant Debezium
   * binds, so it goes as it is, without the parse and format that cost more than the rest of a row.
   */
  static boolean isUtcIso(String s) {
    int n = s.length();
    if (n < 20 || n > 27 || s.charAt(4) != '-' || s.charAt(7) != '-' || s.charAt(10) != 'T' || s.charAt(13) != ':'
        || s.charAt(16) != ':' || s.charAt(n - 1) != 'Z' || (n > 20 && (s.charAt(19) != '.' || n == 21))) {
      return false;
    }
    for (int i = 0; i < n - 1; i++) {
      if (i != 4 && i != 7 && i != 10 && i != 13 && i != 16 && i != 19 && (s.charAt(i) < '0' || s.charAt(i) > '9')) {
        return false;
      }
    }
    int year = digits(s, 0, 4);
    int month = digits(s, 5, 7);
    int day = digits(s, 8, 10);
    return year >= 1 && month >= 1 && month <= 12 && day >= 1
        && day <= java.time.YearMonth.of(year, month).lengthOfMonth() && digits(s, 11, 13) <= 23
        && digits(s, 14, 16) <= 59 && digits(s, 17, 19) <= 59;
  }

  /** Whether the year of an ISO text ({@link #isUtcIso}) lies within 2–9998, its four digits read once. */
  private static boolean innerYear(String s) {
    int year = digits(s, 0, 4);
    return year > 1 && year < 9999;
  }

  private static int digits(String s, int from, int to) {
    int out = 0;
    for (int i = from; i < to; i++) {
      out = out * 10 + (s.charAt(i) - '0');
    }
    return out;
  }

  private static Optional<String> local(Instant instant) {
    LocalDateTime t = LocalDateTime.ofInstant(instant, ZoneOffset.UTC);
    if (t.getYear() < 1 || t.getYear() > 9999) {
      return Optional.empty();
    }
    return Optional.of(TemporalText.local(t));
  }

  /** Appends {@code text} as one field of COPY's text format: backslash, tab, newline and return escaped. */
  static void appendField(StringBuilder out, String text) {
    int first = 0;
    while (first < text.length() && !escaped(text.charAt(first))) {
      first++;
    }
    if (first == text.length()) {
      out.append(text); // one copy of the whole text, as for most values: nothing to escape
      return;
    }
    out.append(text, 0, first);
    for (int i = first; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '\\' -> out.append("\\\\");
        case '\t' -> out.append("\\t");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        default -> out.append(c);
      }
    }
  }

  private static boolean escaped(char c) {
    return c == '\\' || c == '\t' || c == '\n' || c == '\r';
  }

  /** COPY's text for SQL NULL. */
  static final String NULL = "\\N";

  static boolean fixedOffset(String zone) {
    try {
      return java.time.ZoneId.of(zone).getRules().isFixedOffset();
    } catch (java.time.DateTimeException e) {
      return false;
    }
  }
}
