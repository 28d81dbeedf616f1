package io.sluice.sink.jdbc.types;

import io.debezium.connector.jdbc.type.connect.ConnectDecimalType;
import org.apache.kafka.connect.data.Schema;

/**
 * Connect's decimal, as Debezium's sink writes it, except that a PostgreSQL {@code money} column stays {@code money}
 * in a PostgreSQL table the sink makes: Debezium's PostgreSQL source sends money as a decimal, and the sink looks up a
 * decimal by its schema name before the source's column type, so the column became {@code numeric(38,2)}.
 */
public final class SourceTypedDecimalType extends DelegatingType {
  public static final SourceTypedDecimalType INSTANCE = new SourceTypedDecimalType();

  private SourceTypedDecimalType() {
    super(ConnectDecimalType.INSTANCE);
  }

  @Override
  public String getTypeName(Schema schema, boolean isKey) {
    return postgres() && "MONEY".equals(getSourceColumnType(schema).orElse("")) ? "money"
        : super.getTypeName(schema, isKey);
  }
}
