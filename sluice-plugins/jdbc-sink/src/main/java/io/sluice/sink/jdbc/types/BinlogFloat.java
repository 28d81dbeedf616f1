package io.sluice.sink.jdbc.types;

import io.debezium.connector.jdbc.type.JdbcType;
import io.debezium.sink.valuebinding.ValueBindDescriptor;
import java.util.List;
import org.apache.kafka.connect.data.Schema;

/**
 * A 32-bit float ({@code FLOAT32}, PostgreSQL's {@code real}) as the dialect's own type writes it, except into MariaDB
 * or MySQL, where it is bound as the double of the same value: the driver sends a float as its shortest decimal form
 * (the largest, 3.4028235E38), which the server reads as a number beyond its FLOAT's limit of 3.402823466E+38 and
 * refused ("Out of range value for column"), so the row was lost; the double's longer form is the same float once
 * stored.
 */
public final class BinlogFloat extends DelegatingType {
  /** The Connect type it stands in for. */
  public static final String KEY = "FLOAT32";

  private BinlogFloat(JdbcType debezium) {
    super(debezium);
  }

  /** Over the dialect's own type of the key. */
  public static BinlogFloat over(JdbcType debezium) {
    return new BinlogFloat(debezium);
  }

  @Override
  public String[] getRegistrationKeys() {
    return new String[] {KEY};
  }

  @Override
  public List<ValueBindDescriptor> bind(int index, Schema schema, Object value) {
    return super.bind(index, schema, binlog() && value instanceof Float f ? Double.valueOf(f) : value);
  }
}
