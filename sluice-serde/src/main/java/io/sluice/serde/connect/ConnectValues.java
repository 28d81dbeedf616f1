package io.sluice.serde.connect;

import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;

/** Reading Connect values as the converters write them. */
final class ConnectValues {
  private ConnectValues() {}

  /**
   * The value of {@code field} as it was put: a null in a nullable field stays null even where the field's schema has
   * a default ({@link Struct#get} would answer the default: a NULL in a column with a DEFAULT would arrive as the
   * default). Only a required field left null takes its default, as it cannot be written null.
   */
  static Object get(Struct struct, Field field) {
    Object v = struct.getWithoutDefault(field.name());
    return v == null && !field.schema().isOptional() ? field.schema().defaultValue() : v;
  }
}
