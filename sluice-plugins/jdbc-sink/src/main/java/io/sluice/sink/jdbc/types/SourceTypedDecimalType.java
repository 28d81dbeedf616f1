package io.sluice.sink.jdbc.types;

import io.debezium.connector.jdbc.type.JdbcType;
import org.apache.kafka.connect.data.Schema;

/**
 * Connect's decimal, as Debezium's sink writes it, except that a PostgreSQL {@code money} column stays {@code money}
 * in a PostgreSQL table the sink makes: Debezium's PostgreSQL source sends money as a decimal, and the sink looks up a
 * decimal by its schema name before the source's column type, so the column became {@code numeric(38,2)}. And that a
 * table the sink makes holds a decimal of as many digits as the database does (MariaDB and MySQL 65, PostgreSQL
 * 1,000): Debezium's dialects cap the precision at 38, so a {@code decimal(65,30)} became {@code decimal(38,30)} and
 * refused every value of more than 8 integer digits.
 */
public final class SourceTypedDecimalType extends DelegatingType {
  private SourceTypedDecimalType(JdbcType decimal) {
    super(decimal);
  }

  /** One dialect's, over its own {@code ConnectDecimalType}. */
  public static SourceTypedDecimalType over(JdbcType decimal) {
    return new SourceTypedDecimalType(decimal);
  }

  /** The widest decimal MariaDB and MySQL have. */
  static final int BINLOG_MAX_PRECISION = 65;
  /** The widest declared numeric PostgreSQL has. */
  static final int POSTGRES_MAX_PRECISION = 1000;

  @Override
  public String getTypeName(Schema schema, boolean isKey) {
    if (postgres() && "MONEY".equals(getSourceColumnType(schema).orElse(""))) {
      return "money";
    }
    if (binlog() || postgres()) {
      int precision = Integer.parseInt(getSchemaParameter(schema, "connect.decimal.precision")
          .orElseGet(() -> getSourceColumnSize(schema).orElse("0")));
      int scale = Integer.parseInt(getSchemaParameter(schema, "scale").orElse("0"));
      int max = postgres() ? POSTGRES_MAX_PRECISION : BINLOG_MAX_PRECISION;
      if (precision > getDialect().getDefaultDecimalPrecision() && precision <= max && scale >= 0
          && scale <= precision) {
        return (postgres() ? "numeric(" : "decimal(") + precision + "," + scale + ")";
      }
    }
    return super.getTypeName(schema, isKey);
  }
}
