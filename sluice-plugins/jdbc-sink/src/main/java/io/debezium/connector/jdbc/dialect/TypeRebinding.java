package io.debezium.connector.jdbc.dialect;

import io.debezium.connector.jdbc.type.JdbcType;

/**
 * Sluice's, in Debezium's package: points Debezium's shared column types at one dialect again, as that dialect did
 * when it was made ({@link GeneralDatabaseDialect#registerTypes} is protected, callable from its own package). See
 * {@code io.sluice.sink.jdbc.SinkDialects}.
 */
public final class TypeRebinding {
  private TypeRebinding() {}

  /** Whether {@code dialect} can be bound again: every dialect Debezium ships extends the general one. */
  public static boolean supports(DatabaseDialect dialect) {
    return dialect instanceof GeneralDatabaseDialect;
  }

  /** Configures every type {@code dialect} registers with {@code dialect} (its DDL names, precision, time zone). */
  public static void bind(DatabaseDialect dialect) {
    ((GeneralDatabaseDialect) dialect).registerTypes();
    extend(dialect);
  }

  /**
   * Adds Sluice's column types to {@code dialect}'s ({@link GeneralDatabaseDialect#registerType} is protected too):
   * the values Sluice's sources carry in a form of their own, which Debezium's sink has no type for.
   */
  public static void extend(DatabaseDialect dialect) {
    for (JdbcType type : SLUICE_TYPES) {
      ((GeneralDatabaseDialect) dialect).registerType(type);
    }
    // Each stands in for the dialect's own type of its name, which differs by dialect.
    for (String name : io.sluice.sink.jdbc.types.InfiniteTemporalType.SCHEMA_NAMES) {
      JdbcType own = dialect.getSchemaType(org.apache.kafka.connect.data.SchemaBuilder.int64().name(name).build());
      if (!(own instanceof io.sluice.sink.jdbc.types.InfiniteTemporalType)) {
        ((GeneralDatabaseDialect) dialect).registerType(io.sluice.sink.jdbc.types.InfiniteTemporalType.over(own, name));
      }
    }
    // A database without arrays gets PostgreSQL's text of one; PostgreSQL keeps Debezium's array type. The binlog
    // sources' own types are made as such only where the database has them.
    if (dialect instanceof io.debezium.connector.jdbc.dialect.mysql.MySqlDatabaseDialect) {
      ((GeneralDatabaseDialect) dialect).registerType(io.sluice.sink.jdbc.types.ArrayText.INSTANCE);
      ((GeneralDatabaseDialect) dialect).registerType(io.sluice.sink.jdbc.types.BinlogOwnType.INSTANCE);
    }
    JdbcType year = dialect.getSchemaType(org.apache.kafka.connect.data.SchemaBuilder.int32()
        .name(io.sluice.sink.jdbc.types.ZeroYear.SCHEMA_NAME).build());
    if (!(year instanceof io.sluice.sink.jdbc.types.ZeroYear)) {
      ((GeneralDatabaseDialect) dialect).registerType(io.sluice.sink.jdbc.types.ZeroYear.over(year));
    }
    JdbcType real = dialect.getSchemaType(org.apache.kafka.connect.data.SchemaBuilder.float32().build());
    if (!(real instanceof io.sluice.sink.jdbc.types.BinlogFloat)) {
      ((GeneralDatabaseDialect) dialect).registerType(io.sluice.sink.jdbc.types.BinlogFloat.over(real));
    }
    JdbcType zonedTime = dialect.getSchemaType(org.apache.kafka.connect.data.SchemaBuilder.string()
        .name(io.sluice.sink.jdbc.types.ZonedTimeText.SCHEMA_NAME).build());
    if (!(zonedTime instanceof io.sluice.sink.jdbc.types.ZonedTimeText)) {
      ((GeneralDatabaseDialect) dialect).registerType(io.sluice.sink.jdbc.types.ZonedTimeText.over(zonedTime));
    }
  }

  private static final java.util.List<JdbcType> SLUICE_TYPES =
      java.util.List.of(io.sluice.sink.jdbc.types.PostgresTextType.INSTANCE,
          io.sluice.sink.jdbc.types.SourceTypedDecimalType.INSTANCE,
          io.sluice.sink.jdbc.types.SourceNamedType.MACADDR8,
          io.sluice.sink.jdbc.types.EnumTypeOfTarget.INSTANCE,
          io.sluice.sink.jdbc.types.FullDayTimeType.MILLIS,
          io.sluice.sink.jdbc.types.FullDayTimeType.MICROS,
          io.sluice.sink.jdbc.types.FullDayTimeType.NANOS);
}
