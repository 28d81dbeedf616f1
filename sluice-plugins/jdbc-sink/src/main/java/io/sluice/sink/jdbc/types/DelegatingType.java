package io.sluice.sink.jdbc.types;

import io.debezium.connector.jdbc.dialect.postgres.PostgresDatabaseDialect;
import io.debezium.connector.jdbc.type.AbstractType;
import io.debezium.connector.jdbc.type.JdbcType;
import io.debezium.sink.column.ColumnDescriptor;
import io.debezium.sink.valuebinding.ValueBindDescriptor;
import java.util.List;
import org.apache.kafka.connect.data.Schema;

/**
 * One of Debezium's column types with a case of Sluice's own: everything the subclass does not take is Debezium's
 * type's, the instance of it that belongs to the same dialect (see {@code OwnTypes}) and stays configured by it.
 */
abstract class DelegatingType extends AbstractType {
  final JdbcType debezium;

  DelegatingType(JdbcType debezium) {
    this.debezium = debezium;
  }

  @Override
  public String[] getRegistrationKeys() {
    return debezium.getRegistrationKeys();
  }

  @Override
  public String getTypeName(Schema schema, boolean isKey) {
    return debezium.getTypeName(schema, isKey);
  }

  @Override
  public String getQueryBinding(ColumnDescriptor column, Schema schema, Object value) {
    return debezium.getQueryBinding(column, schema, value);
  }

  @Override
  public String getDefaultValueBinding(Schema schema, Object value) {
    return debezium.getDefaultValueBinding(schema, value);
  }

  @Override
  public List<ValueBindDescriptor> bind(int index, Schema schema, Object value) {
    return debezium.bind(index, schema, value);
  }

  /** Whether the task writes to PostgreSQL, where Sluice's cases apply. */
  boolean postgres() {
    return getDialect() instanceof PostgresDatabaseDialect;
  }

  /** Whether the task writes to MariaDB or MySQL (Debezium's MariaDB dialect is its MySQL one's). */
  boolean binlog() {
    return getDialect() instanceof io.debezium.connector.jdbc.dialect.mysql.MySqlDatabaseDialect;
  }
}
