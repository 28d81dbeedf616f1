package io.sluice.sink.jdbc.types;

import io.debezium.connector.jdbc.dialect.postgres.PostgresDatabaseDialect;
import io.debezium.connector.jdbc.type.AbstractType;
import io.debezium.connector.jdbc.type.connect.ConnectDecimalType;
import io.debezium.sink.column.ColumnDescriptor;
import io.debezium.sink.valuebinding.ValueBindDescriptor;
import java.util.List;
import org.apache.kafka.connect.data.Schema;

/**
 * Connect's decimal, as Debezium's sink writes it, except that a PostgreSQL {@code money} column stays {@code money}
 * in a PostgreSQL table the sink makes: Debezium's PostgreSQL source sends money as a decimal, and the sink looks up a
 * decimal by its schema name before the source's column type, so the column became {@code numeric(38,2)}.
 */
public final class SourceTypedDecimalType extends AbstractType {
  public static final SourceTypedDecimalType INSTANCE = new SourceTypedDecimalType();

  private SourceTypedDecimalType() {}

  @Override
  public String[] getRegistrationKeys() {
    return ConnectDecimalType.INSTANCE.getRegistrationKeys();
  }

  @Override
  public String getTypeName(Schema schema, boolean isKey) {
    if (getDialect() instanceof PostgresDatabaseDialect
        && "MONEY".equals(getSourceColumnType(schema).orElse(""))) {
      return "money";
    }
    return ConnectDecimalType.INSTANCE.getTypeName(schema, isKey);
  }

  @Override
  public String getQueryBinding(ColumnDescriptor column, Schema schema, Object value) {
    return ConnectDecimalType.INSTANCE.getQueryBinding(column, schema, value);
  }

  @Override
  public String getDefaultValueBinding(Schema schema, Object value) {
    return ConnectDecimalType.INSTANCE.getDefaultValueBinding(schema, value);
  }

  @Override
  public List<ValueBindDescriptor> bind(int index, Schema schema, Object value) {
    return ConnectDecimalType.INSTANCE.bind(index, schema, value);
  }
}
