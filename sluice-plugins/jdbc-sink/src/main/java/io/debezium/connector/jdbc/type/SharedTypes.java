package io.debezium.connector.jdbc.type;

import io.debezium.connector.jdbc.dialect.DatabaseDialect;
import io.debezium.connector.jdbc.type.connect.ConnectStringType;

/**
 * Sluice's, in Debezium's package: which dialect Debezium's shared column types answer for now. {@link AbstractType}
 * keeps its dialect behind a protected getter, which a class of the same package (and, in a Connect plugin, of the
 * same class loader) can call; see {@code io.sluice.sink.jdbc.SinkDialects} for why Sluice's sink must know it.
 */
public final class SharedTypes {
  private SharedTypes() {}

  /** The dialect the last dialect made in this class loader configured every registered type with. */
  public static DatabaseDialect boundDialect() {
    return ConnectStringType.INSTANCE.getDialect();
  }
}
