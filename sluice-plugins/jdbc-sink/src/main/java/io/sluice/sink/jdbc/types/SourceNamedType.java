package io.sluice.sink.jdbc.types;

import io.debezium.connector.jdbc.dialect.postgres.PostgresDatabaseDialect;
import io.debezium.connector.jdbc.type.AbstractType;
import io.debezium.connector.jdbc.type.connect.ConnectStringType;
import io.debezium.sink.column.ColumnDescriptor;
import java.util.Locale;
import org.apache.kafka.connect.data.Schema;

/**
 * A PostgreSQL string type that Debezium's sink has no entry for, found by the source's column type: in a PostgreSQL
 * table the sink makes, the column gets that type ({@code macaddr8} rather than {@code text}); elsewhere the string
 * as Debezium writes it.
 */
public final class SourceNamedType extends AbstractType {
  public static final SourceNamedType MACADDR8 = new SourceNamedType("MACADDR8");

  private final String sourceType;

  private SourceNamedType(String sourceType) {
    this.sourceType = sourceType;
  }

  @Override
  public String[] getRegistrationKeys() {
    return new String[] {sourceType};
  }

  @Override
  public String getTypeName(Schema schema, boolean isKey) {
    return postgres() ? sourceType.toLowerCase(Locale.ROOT) : ConnectStringType.INSTANCE.getTypeName(schema, isKey);
  }

  @Override
  public String getQueryBinding(ColumnDescriptor column, Schema schema, Object value) {
    return postgres() ? "cast(? as " + sourceType.toLowerCase(Locale.ROOT) + ")"
        : ConnectStringType.INSTANCE.getQueryBinding(column, schema, value);
  }

  private boolean postgres() {
    return getDialect() instanceof PostgresDatabaseDialect;
  }
}
