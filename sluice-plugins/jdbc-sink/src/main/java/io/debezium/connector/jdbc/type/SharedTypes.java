package io.debezium.connector.jdbc.type;

import io.debezium.connector.jdbc.dialect.DatabaseDialect;
import io.debezium.connector.jdbc.type.connect.ConnectStringType;

/**
 * Sluice's, in Debezium's package: which dialect a column type answers for. {@link AbstractType} keeps its dialect
 * behind a protected getter, which a class of the same package (and, in a Connect plugin, of the same class loader) can
 * call; see {@code io.sluice.sink.jdbc.SinkDialects} for why Sluice's sink must know it.
 */
public final class SharedTypes {
  private SharedTypes() {}

  /**
   * The dialect made last in this class loader: each dialect, as it is made, configures Debezium's shared types (here
   * {@code ConnectStringType.INSTANCE}) with itself.
   */
  public static DatabaseDialect boundDialect() {
    return dialectOf(ConnectStringType.INSTANCE);
  }

  /** The dialect {@code type} answers for; null for a type that does not say. */
  public static DatabaseDialect dialectOf(JdbcType type) {
    return type instanceof AbstractType t ? t.getDialect() : null;
  }
}
