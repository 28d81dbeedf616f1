package io.debezium.connector.jdbc.dialect;

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
  }
}
