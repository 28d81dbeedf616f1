package io.sluice.sink.jdbc.types;

import io.debezium.connector.jdbc.type.JdbcType;
import io.debezium.sink.valuebinding.ValueBindDescriptor;
import java.util.List;
import org.apache.kafka.connect.data.Schema;

/**
 * A MariaDB or MySQL {@code year} ({@code io.debezium.time.Year}) as the dialect's own type writes it, except the year
 * 0000: the binlog holds a year as its offset from 1900, and Debezium's binlog sources read the year 0000 (offset 0)
 * as 1900, a year those databases do not have (theirs run from 1901 to 2155, and 0000). A year of 1900 can only have
 * been 0000, and is written as 0: MariaDB refused 1900 for its {@code year} (so the row was lost), and PostgreSQL held
 * a year its source never had.
 */
public final class ZeroYear extends DelegatingType {
  /** The Connect schema name of such a value. */
  public static final String SCHEMA_NAME = "io.debezium.time.Year";
  private static final int BINLOG_ZERO = 1900;

  private ZeroYear(JdbcType debezium) {
    super(debezium);
  }

  /** Over the dialect's own type of the name. */
  public static ZeroYear over(JdbcType debezium) {
    return new ZeroYear(debezium);
  }

  @Override
  public String[] getRegistrationKeys() {
    return new String[] {SCHEMA_NAME};
  }

  @Override
  public List<ValueBindDescriptor> bind(int index, Schema schema, Object value) {
    return super.bind(index, schema, value instanceof Number n && n.intValue() == BINLOG_ZERO ? 0 : value);
  }
}
