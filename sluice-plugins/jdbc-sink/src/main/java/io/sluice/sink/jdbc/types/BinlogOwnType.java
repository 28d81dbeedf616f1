package io.sluice.sink.jdbc.types;

import io.debezium.connector.jdbc.type.AbstractType;
import io.debezium.connector.jdbc.type.JdbcType;
import io.debezium.sink.column.ColumnDescriptor;
import io.debezium.sink.valuebinding.ValueBindDescriptor;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;

/**
 * In a MariaDB or MySQL table the sink makes, a column of a MariaDB or MySQL source's own type, found by the source's
 * column type, where Debezium's sink makes another: an unsigned integer of the same width ({@code tinyint unsigned},
 * where Debezium's makes the next wider signed type, {@code smallint}), {@code bit(1)} (Debezium's: {@code tinyint(1)}),
 * {@code tinytext}, {@code text} and {@code mediumtext} (Debezium's: {@code longtext}) and {@code binary(n)}
 * (Debezium's: {@code varbinary(n)}). The values are written as Debezium's type for their Connect type writes them.
 *
 * <p>Only a binlog sink's dialect registers it ({@code OwnTypes}): a PostgreSQL sink keeps its own types for
 * those columns. A source type whose value comes in another Connect type than Debezium's binlog sources give it by
 * default ({@code binary.handling.mode=base64}) keeps the type Debezium's sink makes for that Connect type.
 */
public final class BinlogOwnType extends AbstractType {
  /** The plain schema of each Connect type, by which the dialect finds its own type for it. */
  private static final Map<Schema.Type, Schema> PLAIN = new EnumMap<>(Map.of(Schema.Type.INT16, Schema.INT16_SCHEMA,
      Schema.Type.INT32, Schema.INT32_SCHEMA, Schema.Type.INT64, Schema.INT64_SCHEMA, Schema.Type.BOOLEAN,
      Schema.BOOLEAN_SCHEMA, Schema.Type.STRING, Schema.STRING_SCHEMA, Schema.Type.BYTES, Schema.BYTES_SCHEMA,
      Schema.Type.INT8, Schema.INT8_SCHEMA, Schema.Type.FLOAT32, Schema.FLOAT32_SCHEMA, Schema.Type.FLOAT64,
      Schema.FLOAT64_SCHEMA));

  /** The Connect type Debezium's binlog sources give each source type by default. */
  private static final Map<String, Schema.Type> SOURCE_CONNECT_TYPES = new HashMap<>();

  static {
    SOURCE_CONNECT_TYPES.put("BIT", Schema.Type.BOOLEAN);
    SOURCE_CONNECT_TYPES.put("BINARY", Schema.Type.BYTES);
    for (String text : List.of("TINYTEXT", "TEXT", "MEDIUMTEXT")) {
      SOURCE_CONNECT_TYPES.put(text, Schema.Type.STRING);
    }
    for (String zerofill : List.of("", " ZEROFILL")) {
      SOURCE_CONNECT_TYPES.put("TINYINT UNSIGNED" + zerofill, Schema.Type.INT16);
      SOURCE_CONNECT_TYPES.put("SMALLINT UNSIGNED" + zerofill, Schema.Type.INT32);
      SOURCE_CONNECT_TYPES.put("MEDIUMINT UNSIGNED" + zerofill, Schema.Type.INT32);
      SOURCE_CONNECT_TYPES.put("INT UNSIGNED" + zerofill, Schema.Type.INT64);
      SOURCE_CONNECT_TYPES.put("INTEGER UNSIGNED" + zerofill, Schema.Type.INT64);
    }
  }

  /** One dialect's: each sink's dialect makes its own (see {@code OwnTypes}). */
  public BinlogOwnType() {}

  @Override
  public String[] getRegistrationKeys() {
    return SOURCE_CONNECT_TYPES.keySet().toArray(String[]::new);
  }

  /**
   * The dialect's own type for the value's Connect type, which writes it: the type Debezium's sink would have found
   * without this one.
   */
  private JdbcType connectType(Schema schema) {
    Schema plain = PLAIN.get(schema.type());
    if (plain == null) {
      throw new org.apache.kafka.connect.errors.ConnectException("A " + SourceColumn.type(schema) + " column's value"
          + " of Connect type " + schema.type() + " has no column type in this sink");
    }
    return getDialect().getSchemaType(plain);
  }

  @Override
  public String getQueryBinding(ColumnDescriptor column, Schema schema, Object value) {
    return connectType(schema).getQueryBinding(column, schema, value);
  }

  @Override
  public String getDefaultValueBinding(Schema schema, Object value) {
    return connectType(schema).getDefaultValueBinding(schema, value);
  }

  @Override
  public List<ValueBindDescriptor> bind(int index, Schema schema, Object value) {
    return connectType(schema).bind(index, schema, value);
  }

  @Override
  public String getTypeName(Schema schema, boolean isKey) {
    String own = ownType(schema, isKey);
    return own != null ? own : connectType(schema).getTypeName(schema, isKey);
  }

  /** The source column's own type, as MariaDB's DDL writes it; null where Debezium's is kept. */
  static String ownType(Schema schema, boolean isKey) {
    String type = SourceColumn.type(schema);
    if (schema.type() != SOURCE_CONNECT_TYPES.get(type)) {
      return null; // a value in another form than Debezium's default (binary.handling.mode=base64, …)
    }
    int length = SourceColumn.length(schema).orElse(0);
    if (type.contains(" UNSIGNED")) {
      String integer = type.substring(0, type.indexOf(' ')).toLowerCase(Locale.ROOT);
      String attributes = type.substring(type.indexOf(' ')).toLowerCase(Locale.ROOT);
      return integer + (length > 0 ? "(" + length + ")" : "") + attributes;
    }
    switch (type) {
      case "BIT":
        return length == 1 ? "bit(1)" : null;
      case "BINARY":
        return length > 0 && length <= 255 ? "binary(" + length + ")" : null;
      case "TEXT":
        // A key column needs a length (Debezium's varchar), which a text column has not.
        return !isKey && SourceColumn.binlogText(schema) ? "text" : null;
      case "TINYTEXT":
      case "MEDIUMTEXT":
        return isKey ? null : type.toLowerCase(Locale.ROOT);
      default:
        return null;
    }
  }
}
