package io.sluice.sink.jdbc.types;

import io.debezium.connector.jdbc.type.JdbcType;
import io.debezium.sink.valuebinding.ValueBindDescriptor;
import java.util.List;
import org.apache.kafka.connect.data.Schema;

/**
 * A time of day with an offset ({@code io.debezium.time.ZonedTime}, PostgreSQL's {@code timetz}) as Debezium's sink
 * writes it into PostgreSQL, and as its text ({@code 07:04:56.789012Z}) elsewhere. MariaDB and MySQL have no such type:
 * Debezium's sink makes the column {@code time with time zone}, which they refuse, so a table with one could not be
 * made at all; the text keeps the offset the event carries.
 */
public final class ZonedTimeText extends DelegatingType {
  /** The Connect schema name of such a value. */
  public static final String SCHEMA_NAME = "io.debezium.time.ZonedTime";

  private ZonedTimeText(JdbcType debezium) {
    super(debezium);
  }

  /** Over the dialect's own type of the name. */
  public static ZonedTimeText over(JdbcType debezium) {
    return new ZonedTimeText(debezium);
  }

  @Override
  public String getTypeName(Schema schema, boolean isKey) {
    return postgres() ? super.getTypeName(schema, isKey) : "varchar(32)";
  }

  @Override
  public String getDefaultValueBinding(Schema schema, Object value) {
    return postgres() ? super.getDefaultValueBinding(schema, value) : null;
  }

  @Override
  public List<ValueBindDescriptor> bind(int index, Schema schema, Object value) {
    return postgres() ? super.bind(index, schema, value) : List.of(new ValueBindDescriptor(index, value));
  }
}
