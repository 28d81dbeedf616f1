package io.sluice.sink.jdbc.types;

import io.debezium.connector.jdbc.type.JdbcType;
import org.apache.kafka.connect.data.Schema;

/**
 * A MariaDB or MySQL {@code set} ({@code io.debezium.data.EnumSet}) in a table the sink makes: a {@code set} of the
 * values the source's allows, each escaped ({@link EnumTypeOfTarget#binlogMembers}). Debezium's dialect quotes them as
 * they are, so a member with a quote or a backslash made DDL the database refused.
 */
public final class BinlogSetType extends DelegatingType {
  /** The Connect schema name of such a value. */
  public static final String SCHEMA_NAME = "io.debezium.data.EnumSet";

  private BinlogSetType(JdbcType debezium) {
    super(debezium);
  }

  /** Over the dialect's own type of the name. */
  public static BinlogSetType over(JdbcType debezium) {
    return new BinlogSetType(debezium);
  }

  @Override
  public String[] getRegistrationKeys() {
    return new String[] {SCHEMA_NAME};
  }

  @Override
  public String getTypeName(Schema schema, boolean isKey) {
    String set = binlog() ? EnumTypeOfTarget.binlogMembers("set", schema) : null;
    return set != null ? set : super.getTypeName(schema, isKey);
  }
}
