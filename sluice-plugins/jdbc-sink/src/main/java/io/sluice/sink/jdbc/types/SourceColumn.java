package io.sluice.sink.jdbc.types;

import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import org.apache.kafka.connect.data.Schema;

/**
 * What a field's schema says of its source column, from the parameters Debezium's sources put on it with
 * {@code column.propagate.source.type} (Sluice's default for its sources): its type, length and scale.
 *
 * <p>The binlog sources (MariaDB, MySQL) and PostgreSQL's give some types the same name ({@code TEXT}, {@code TIME})
 * but not the same length and scale, and those tell them apart: MariaDB's {@code text} has no length (PostgreSQL's
 * has 2147483647, its driver's unknown length), MariaDB's {@code time(p)} has {@code p} as its length and no scale
 * (PostgreSQL's has its text width, 8 to 15, as the length and {@code p} as the scale).
 */
final class SourceColumn {
  static final String TYPE = "__debezium.source.column.type";
  static final String LENGTH = "__debezium.source.column.length";
  static final String SCALE = "__debezium.source.column.scale";
  /** The most fractional digits a MariaDB or MySQL temporal has. */
  private static final int BINLOG_MAX_FRACTION = 6;
  /** The most bytes a MariaDB or MySQL {@code text} holds. */
  private static final int BINLOG_TEXT_BYTES = 65_535;

  private SourceColumn() {}

  /** The source column's type in upper case ({@code INT UNSIGNED}); empty where the schema does not say. */
  static String type(Schema schema) {
    String type = parameter(schema, TYPE);
    return type == null ? "" : type.toUpperCase(Locale.ROOT);
  }

  /** The source column's length; empty where the schema does not say. */
  static OptionalInt length(Schema schema) {
    return number(parameter(schema, LENGTH));
  }

  /** The source column's scale; empty where the schema does not say. */
  static OptionalInt scale(Schema schema) {
    return number(parameter(schema, SCALE));
  }

  /**
   * The fractional-second digits the source column declared: the scale where there is one (PostgreSQL's), else the
   * length (the binlog sources carry {@code p} of {@code datetime(p)} so), else 0, which the binlog sources leave
   * unsaid; empty where the schema carries no source type, and so no declaration at all.
   */
  static OptionalInt fractionDigits(Schema schema) {
    if (type(schema).isEmpty()) {
      return OptionalInt.empty();
    }
    OptionalInt scale = scale(schema);
    return scale.isPresent() ? scale : OptionalInt.of(length(schema).orElse(0));
  }

  /** Whether the source column was a MariaDB or MySQL {@code time}, a duration of -838:59:59 to 838:59:59. */
  static boolean binlogTime(Schema schema) {
    return type(schema).equals("TIME") && scale(schema).isEmpty()
        && length(schema).orElse(0) <= BINLOG_MAX_FRACTION;
  }

  /** Whether the source column was a MariaDB or MySQL {@code text}, of at most 65,535 bytes. */
  static boolean binlogText(Schema schema) {
    return type(schema).equals("TEXT") && length(schema).orElse(0) <= BINLOG_TEXT_BYTES;
  }

  private static String parameter(Schema schema, String name) {
    Map<String, String> parameters = schema.parameters();
    return parameters == null ? null : parameters.get(name);
  }

  private static OptionalInt number(String text) {
    if (text == null) {
      return OptionalInt.empty();
    }
    try {
      return OptionalInt.of(Integer.parseInt(text.trim()));
    } catch (NumberFormatException e) {
      return OptionalInt.empty();
    }
  }
}
