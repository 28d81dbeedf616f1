package io.sluice.sink.jdbc.types;

import io.debezium.connector.jdbc.dialect.postgres.PostgresDatabaseDialect;
import io.debezium.connector.jdbc.type.AbstractType;
import io.debezium.connector.jdbc.type.JdbcType;
import io.debezium.sink.column.ColumnDescriptor;
import org.apache.kafka.connect.data.Schema;

/**
 * A string the sink writes into PostgreSQL as a type the record's schema names, making the column with that type
 * and casting each value to it on the way in (bound as varchar, PostgreSQL refuses it for an enum, inet or interval
 * column unless the driver sends text untyped); where the schema names none, a string as Debezium writes one.
 */
abstract class PostgresCastString extends AbstractType {
  /** The dialect's own string type ({@code ConnectStringType}), which writes a string the schema names no type for. */
  private final JdbcType string;

  PostgresCastString(JdbcType string) {
    this.string = string;
  }

  /** The PostgreSQL type of {@code schema}'s values; null where the string is written as Debezium writes it. */
  abstract String postgresType(Schema schema);

  @Override
  public String getTypeName(Schema schema, boolean isKey) {
    String type = postgresType(schema);
    return type != null ? type : string.getTypeName(schema, isKey);
  }

  @Override
  public String getQueryBinding(ColumnDescriptor column, Schema schema, Object value) {
    String type = postgresType(schema);
    return type != null ? "cast(? as " + type + ")"
        : string.getQueryBinding(column, schema, value);
  }

  /** Whether the task writes to MariaDB or MySQL (Debezium's MariaDB dialect is its MySQL one's). */
  boolean binlog() {
    return getDialect() instanceof io.debezium.connector.jdbc.dialect.mysql.MySqlDatabaseDialect;
  }

  /** Whether the task writes to PostgreSQL. */
  boolean postgres() {
    return getDialect() instanceof PostgresDatabaseDialect;
  }
}
