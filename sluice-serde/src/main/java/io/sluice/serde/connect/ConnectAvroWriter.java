package io.sluice.serde.connect;

import io.sluice.serde.avro.AvroSchemas;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.avro.io.BinaryData;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;

/**
 * Writes Connect values of one schema as Avro binary, straight from the values: the very bytes Avro's
 * {@code GenericDatumWriter} writes for the same value turned into {@code GenericRecord}s under the schema
 * {@link ConnectAvro} gives it, without building those records. Building them (a record, a map or an array per
 * nested value, and a union lookup by type name per optional field) cost about as much as the encoding itself.
 *
 * <p>A writer is compiled once per schema into a tree of {@link Slot}s, one per place a value can stand (the top, each
 * field, element, map key and value), each knowing its union branches and its conversion, so a record costs one walk
 * over its values. Numbers are encoded by Avro's own {@link BinaryData}, strings as Avro's encoder writes them.
 */
final class ConnectAvroWriter {
  private final Slot root;
  /** The size of a recent record: the next one's buffer starts there, so it rarely grows. Racy on purpose. */
  private int sizeHint = 64;

  private ConnectAvroWriter(Slot root) {
    this.root = root;
  }

  /** The writer of values of {@code schema}, whose Avro schema ({@link ConnectAvro#avroSchema}) is {@code avro}. */
  static ConnectAvroWriter of(Schema schema, org.apache.avro.Schema avro) {
    return new ConnectAvroWriter(slot(schema, avro));
  }

  /** The Avro binary of a non-null value, after {@code offset} bytes left free for the caller (a header). */
  byte[] write(Object value, int offset) {
    Output out = new Output(offset, sizeHint);
    root.write(value, out);
    sizeHint = out.pos - offset + 16;
    return out.bytes();
  }

  private static Slot slot(Schema schema, org.apache.avro.Schema avro) {
    Value value = value(schema, AvroSchemas.nonNull(avro));
    if (avro.getType() != org.apache.avro.Schema.Type.UNION) {
      return new Slot(schema, -1, -1, value);
    }
    List<org.apache.avro.Schema> branches = avro.getTypes();
    int nullBranch = -1;
    for (int i = 0; i < branches.size(); i++) {
      if (branches.get(i).getType() == org.apache.avro.Schema.Type.NULL) {
        nullBranch = i;
        break;
      }
    }
    return new Slot(schema, nullBranch, branches.indexOf(AvroSchemas.nonNull(avro)), value);
  }

  private static Value value(Schema schema, org.apache.avro.Schema avro) {
    String name = schema.name();
    if (Decimal.LOGICAL_NAME.equals(name)) {
      return new DecimalValue(schema);
    }
    if (Date.LOGICAL_NAME.equals(name)) {
      return Scalar.DATE;
    }
    if (Time.LOGICAL_NAME.equals(name)) {
      return Scalar.TIME;
    }
    if (Timestamp.LOGICAL_NAME.equals(name)) {
      return Scalar.TIMESTAMP;
    }
    return switch (schema.type()) {
      case INT8, INT16, INT32 -> Scalar.INT;
      case INT64 -> Scalar.LONG;
      case FLOAT32 -> Scalar.FLOAT;
      case FLOAT64 -> Scalar.DOUBLE;
      case BOOLEAN -> Scalar.BOOLEAN;
      case STRING -> Scalar.STRING;
      case BYTES -> Scalar.BYTES;
      case ARRAY -> new ArrayValue(slot(schema.valueSchema(), avro.getElementType()));
      case MAP -> {
        if (avro.getType() == org.apache.avro.Schema.Type.MAP) {
          yield new MapValue(new Slot(schema.keySchema(), -1, -1, Scalar.STRING),
              slot(schema.valueSchema(), avro.getValueType()));
        }
        org.apache.avro.Schema entry = avro.getElementType();
        yield new MapValue(slot(schema.keySchema(), entry.getFields().get(0).schema()),
            slot(schema.valueSchema(), entry.getFields().get(1).schema()));
      }
      case STRUCT -> {
        List<Field> fields = schema.fields();
        List<org.apache.avro.Schema.Field> avroFields = avro.getFields();
        Slot[] slots = new Slot[fields.size()];
        for (int i = 0; i < slots.length; i++) {
          slots[i] = slot(fields.get(i).schema(), avroFields.get(i).schema());
        }
        yield new RecordValue(schema, fields.toArray(new Field[0]), slots);
      }
    };
  }

  /**
   * A place a value stands: a missing value of a required schema becomes its default (or fails, without one), and
   * under a union the branch index comes first. {@code nullBranch} and {@code valueBranch} are -1 where the Avro
   * schema is not a union.
   */
  private record Slot(Schema schema, int nullBranch, int valueBranch, Value value) {
    void write(Object v, Output out) {
      if (v == null && !schema.isOptional()) { // a null of a nullable schema stays null, default or not
        if (schema.defaultValue() == null) {
          throw new DataException("Conversion error: null value for field that is required and has no default value");
        }
        v = schema.defaultValue();
      }
      if (valueBranch < 0) {
        if (v == null) {
          throw new DataException("Conversion error: null value where the Avro schema has no null branch");
        }
        value.write(v, out);
      } else if (v == null) {
        out.writeInt(nullBranch);
      } else {
        out.writeInt(valueBranch);
        value.write(v, out);
      }
    }
  }

  /** How one Connect type is written, the value never null. */
  private sealed interface Value permits Scalar, DecimalValue, ArrayValue, MapValue, RecordValue {
    void write(Object v, Output out);
  }

  /**
   * The types that need nothing of their schema (Connect's Date, Time and Timestamp conversions check only its name).
   * Connect's bytes are a {@code byte[]} or a {@code ByteBuffer}, of which the remaining bytes are the value.
   */
  private enum Scalar implements Value {
    INT, LONG, FLOAT, DOUBLE, BOOLEAN, STRING, BYTES, DATE, TIME, TIMESTAMP;

    @Override
    public void write(Object v, Output out) {
      switch (this) {
        case INT -> out.writeInt(((Number) v).intValue());
        case LONG -> out.writeLong(((Number) v).longValue());
        case FLOAT -> out.writeFloat(((Number) v).floatValue());
        case DOUBLE -> out.writeDouble(((Number) v).doubleValue());
        case BOOLEAN -> out.writeBoolean((Boolean) v);
        case STRING -> out.writeString(((CharSequence) v).toString());
        case BYTES -> {
          if (v instanceof byte[] b) {
            out.writeBytes(b, 0, b.length);
          } else {
            ByteBuffer b = (ByteBuffer) v;
            byte[] array = b.hasArray() ? b.array() : ConnectAvro.bytes(b);
            out.writeBytes(array, b.hasArray() ? b.arrayOffset() + b.position() : 0, b.remaining());
          }
        }
        case DATE -> out.writeInt(Date.fromLogical(Date.SCHEMA, (java.util.Date) v));
        case TIME -> out.writeInt(Time.fromLogical(Time.SCHEMA, (java.util.Date) v));
        case TIMESTAMP -> out.writeLong(Timestamp.fromLogical(Timestamp.SCHEMA, (java.util.Date) v));
      }
    }
  }

  /** A decimal is its unscaled value's bytes, once its scale is checked against the schema's. */
  private record DecimalValue(Schema schema) implements Value {
    @Override
    public void write(Object v, Output out) {
      byte[] unscaled = Decimal.fromLogical(schema, (BigDecimal) v);
      out.writeBytes(unscaled, 0, unscaled.length);
    }
  }

  /** Avro's blocks: the count (when not empty), the items, and a zero count to end. */
  private record ArrayValue(Slot element) implements Value {
    @Override
    public void write(Object v, Output out) {
      Collection<?> items = (Collection<?>) v;
      if (!items.isEmpty()) {
        out.writeLong(items.size());
        for (Object item : items) {
          element.write(item, out);
        }
      }
      out.writeInt(0);
    }
  }

  /**
   * A map with string keys is Avro's map, one with other keys an array of {@code MapEntry} records; in binary both are
   * blocks of a key, then its value.
   */
  private record MapValue(Slot key, Slot value) implements Value {
    @Override
    public void write(Object v, Output out) {
      Map<?, ?> map = (Map<?, ?>) v;
      if (!map.isEmpty()) {
        out.writeLong(map.size());
        for (Map.Entry<?, ?> e : map.entrySet()) {
          key.write(e.getKey(), out);
          value.write(e.getValue(), out);
        }
      }
      out.writeInt(0);
    }
  }

  private record RecordValue(Schema schema, Field[] fields, Slot[] slots) implements Value {
    @Override
    public void write(Object v, Output out) {
      Struct struct = (Struct) v;
      if (!struct.schema().equals(schema)) {
        throw new DataException("Mismatching struct schema");
      }
      for (int i = 0; i < slots.length; i++) {
        slots[i].write(ConnectValues.get(struct, fields[i]), out);
      }
    }
  }

  /** Avro's binary encoding on the shared buffer. */
  private static final class Output extends ByteOutput {
    Output(int offset, int sizeHint) {
      super(offset, sizeHint);
    }

    void writeInt(int n) {
      ensure(5);
      pos += BinaryData.encodeInt(n, buf, pos);
    }

    void writeLong(long n) {
      ensure(10);
      pos += BinaryData.encodeLong(n, buf, pos);
    }

    void writeFloat(float f) {
      ensure(4);
      pos += BinaryData.encodeFloat(f, buf, pos);
    }

    void writeDouble(double d) {
      ensure(8);
      pos += BinaryData.encodeDouble(d, buf, pos);
    }

    void writeBoolean(boolean b) {
      ensure(1);
      pos += BinaryData.encodeBoolean(b, buf, pos);
    }

    void writeBytes(byte[] b, int from, int length) {
      writeInt(length);
      put(b, from, length);
    }

    /** UTF-8 after its length; ASCII, the common case, copied as it is checked, as Avro's encoder does. */
    void writeString(String s) {
      int length = s.length();
      int start = pos;
      writeInt(length);
      ensure(length);
      if (!ascii(s)) {
        pos = start;
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        writeBytes(utf8, 0, utf8.length);
      }
    }
  }
}
