package io.sluice.serde.connect;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;

/**
 * Writes a Connect struct as the Protobuf message {@link ConnectProtobuf} declares for its schema, straight from the
 * values: the very bytes {@code DynamicMessage.writeTo} writes for the message {@link ConnectProtobuf#message} builds,
 * without building it. Building it (a builder, a field set and a reflective type check per field, a map entry message
 * per map entry, a serialized-size pass before the bytes) cost more than twice the encoding.
 *
 * <p>The plan is compiled once per schema from the schema and its descriptor, so every decision the
 * {@code DynamicMessage} makes is read from the same place: field numbers, wire types, which fields have presence (a
 * field without it is not written at its default, {@code -0.0} and NaN not being the default), which repeated fields
 * are packed. Fields are written in number order, which is the Connect field order. A nested message is written
 * behind a one-byte length that is widened once its size is known. A value the plan cannot take (a wrong Java type)
 * fails here as well, and the converter then lets the {@code DynamicMessage} path fail it with its own words.
 */
final class ConnectProtobufWriter {
  private final MessageWriter root;
  /** The size of a recent record: the next one's buffer starts there, so it rarely grows. Racy on purpose. */
  private int sizeHint = 64;

  private ConnectProtobufWriter(MessageWriter root) {
    this.root = root;
  }

  /**
   * The writer of structs of {@code schema} as {@code message}, the descriptor {@link ConnectProtobuf#written} gives
   * it. Throws {@link IllegalArgumentException} where the pair is not what that mapping makes.
   */
  static ConnectProtobufWriter of(Schema schema, Descriptor message) {
    return new ConnectProtobufWriter(message(schema, message));
  }

  /** The message's bytes after {@code offset} bytes left free for the caller (the framing). */
  byte[] write(Struct value, int offset) {
    Output out = new Output(offset, sizeHint);
    root.write(value, out);
    sizeHint = out.pos - offset + 16;
    return out.bytes();
  }

  // ---- the plan ---------------------------------------------------------------------------------------------------

  private static MessageWriter message(Schema schema, Descriptor d) {
    if (schema.type() != Schema.Type.STRUCT) {
      throw new IllegalArgumentException("not a struct: " + schema.type());
    }
    List<Field> fields = schema.fields();
    if (d.getFields().size() != fields.size()) {
      throw new IllegalArgumentException(d.getFullName() + " has not the fields of its schema");
    }
    FieldWriter[] writers = new FieldWriter[fields.size()];
    int[] nullable = new int[fields.size()];
    int nullables = 0;
    for (int i = 0; i < writers.length; i++) {
      Field f = fields.get(i);
      FieldDescriptor fd = d.getFields().get(i); // declared in the struct's order, whatever its number
      Schema fs = f.schema();
      if ((fs.type() == Schema.Type.ARRAY || fs.type() == Schema.Type.MAP) && fs.isOptional()) {
        nullable[nullables++] = i;
      }
      writers[i] = switch (fs.type()) {
        case ARRAY -> {
          Value element = value(fs.valueSchema(), fd);
          if (!fd.isRepeated() || fd.isMapField()) {
            throw new IllegalArgumentException(fd.getFullName() + " is not a repeated field");
          }
          yield fd.isPacked() ? new PackedWriter(f.name(), tag(fd.getNumber(), 2), element)
              : new RepeatedWriter(f.name(), tag(fd.getNumber(), wireType(fd)), element);
        }
        case MAP -> {
          if (!fd.isMapField()) {
            throw new IllegalArgumentException(fd.getFullName() + " is not a map field");
          }
          Descriptor entry = fd.getMessageType();
          FieldDescriptor kd = entry.findFieldByNumber(1);
          FieldDescriptor vd = entry.findFieldByNumber(2);
          int valueWireType = wireType(vd);
          yield new MapWriter(tag(fd.getNumber(), 2), tag(1, wireType(kd)), value(fs.keySchema(), kd),
              tag(2, valueWireType), value(fs.valueSchema(), vd));
        }
        default -> {
          if (fd.isRepeated()) {
            throw new IllegalArgumentException(fd.getFullName() + " is repeated");
          }
          yield new SingularWriter(f.name(), fs.isOptional(), tag(fd.getNumber(), wireType(fd)), fd.hasPresence(),
              value(fs, fd));
        }
      };
    }
    return new MessageWriter(fields.toArray(new Field[0]), writers, Arrays.copyOf(nullable, nullables));
  }

  /** How a value of Connect schema {@code s} is written into field {@code fd}, as {@code scalarOrMessage} does. */
  private static Value value(Schema s, FieldDescriptor fd) {
    if (fd.getJavaType() == FieldDescriptor.JavaType.MESSAGE && s.type() != Schema.Type.STRUCT
        && ConnectProtobuf.isWrapper(fd.getMessageType())) {
      FieldDescriptor inner = fd.getMessageType().findFieldByNumber(1);
      return new WrapperValue(tag(1, wireType(inner)), value(s, inner));
    }
    String name = s.name();
    Value v;
    FieldDescriptor.Type expected;
    if (Decimal.LOGICAL_NAME.equals(name)) {
      v = new DecimalValue(s);
      expected = FieldDescriptor.Type.BYTES;
    } else if (Date.LOGICAL_NAME.equals(name)) {
      v = new DateValue(s);
      expected = FieldDescriptor.Type.INT32;
    } else if (Time.LOGICAL_NAME.equals(name)) {
      v = new TimeValue(s);
      expected = FieldDescriptor.Type.INT32;
    } else if (Timestamp.LOGICAL_NAME.equals(name)) {
      v = new TimestampValue(s);
      expected = FieldDescriptor.Type.INT64;
    } else {
      switch (s.type()) {
        case INT8, INT16 -> {
          v = Scalar.SMALL_INT;
          expected = FieldDescriptor.Type.INT32;
        }
        case INT32 -> {
          v = Scalar.INT32;
          expected = FieldDescriptor.Type.INT32;
        }
        case INT64 -> {
          v = Scalar.INT64;
          expected = FieldDescriptor.Type.INT64;
        }
        case FLOAT32 -> {
          v = Scalar.FLOAT;
          expected = FieldDescriptor.Type.FLOAT;
        }
        case FLOAT64 -> {
          v = Scalar.DOUBLE;
          expected = FieldDescriptor.Type.DOUBLE;
        }
        case BOOLEAN -> {
          v = Scalar.BOOLEAN;
          expected = FieldDescriptor.Type.BOOL;
        }
        case STRING -> {
          v = Scalar.STRING;
          expected = FieldDescriptor.Type.STRING;
        }
        case BYTES -> {
          v = Scalar.BYTES;
          expected = FieldDescriptor.Type.BYTES;
        }
        case STRUCT -> {
          v = new MessageValue(message(s, fd.getMessageType()));
          expected = FieldDescriptor.Type.MESSAGE;
        }
        default -> throw new IllegalArgumentException("no Protobuf value for " + s.type());
      }
    }
    if (fd.getType() != expected) {
      throw new IllegalArgumentException(fd.getFullName() + " is " + fd.getType() + ", not " + expected);
    }
    return v;
  }

  private static int wireType(FieldDescriptor fd) {
    return switch (fd.getType()) {
      case INT32, INT64, BOOL -> 0;
      case DOUBLE -> 1;
      case FLOAT -> 5;
      case STRING, BYTES, MESSAGE -> 2;
      default -> throw new IllegalArgumentException("Connect values are never written as " + fd.getType());
    };
  }

  private static int tag(int number, int wireType) {
    return number << 3 | wireType;
  }

  // ---- writing ----------------------------------------------------------------------------------------------------

  /**
   * A message's fields in order, then, as {@code DynamicMessage} writes its unknown fields after the rest, the number
   * of each null optional array or map ({@code nullable}: their indexes) in field {@value ConnectProtobuf#NULL_FIELDS}.
   */
  private record MessageWriter(Field[] fields, FieldWriter[] writers, int[] nullable) {
    private static final int NULL_FIELDS_TAG = tag(ConnectProtobuf.NULL_FIELDS, 0);

    void write(Struct struct, Output out) {
      boolean anyNull = false;
      for (int i = 0; i < writers.length; i++) {
        Object v = ConnectValues.get(struct, fields[i]);
        anyNull |= v == null;
        writers[i].write(v, out);
      }
      if (anyNull) {
        // Read again rather than kept from above: no array per record for the rare message that has one.
        for (int i : nullable) {
          if (ConnectValues.get(struct, fields[i]) == null) {
            out.writeVarint32(NULL_FIELDS_TAG);
            out.writeVarint32(i + 1);
          }
        }
      }
    }
  }

  /** One field of a message, its value as {@code Struct.get} gives it. */
  private sealed interface FieldWriter permits SingularWriter, RepeatedWriter, PackedWriter, MapWriter {
    void write(Object v, Output out);
  }

  /**
   * A singular field: null is refused unless the schema is optional, and then writes nothing; without presence, a
   * default value is not written either (DynamicMessage clears such a field).
   */
  private record SingularWriter(String name, boolean optional, int tag, boolean presence, Value value)
      implements FieldWriter {
    @Override
    public void write(Object v, Output out) {
      if (v == null) {
        if (!optional) {
          throw new DataException("Conversion error: null value for field " + name + " that is required");
        }
        return;
      }
      value.write(tag, !presence, v, out);
    }
  }

  /**
   * Strings, bytes and messages: one tagged value per element. A null array writes nothing here (its message names
   * it after its fields); a null element is its
   * message holding only field {@value ConnectProtobuf#NULL_MARK}, where the elements are messages (wrappers, structs).
   */
  private record RepeatedWriter(String name, int tag, Value element) implements FieldWriter {
    @Override
    public void write(Object v, Output out) {
      if (v == null) {
        return;
      }
      for (Object item : (Collection<?>) v) {
        if (item == null) {
          if (!(element instanceof WrapperValue || element instanceof MessageValue)) {
            throw new DataException("Field " + name + ": Protobuf cannot hold a null array element without "
                + "wrapper.for.nullables");
          }
          out.writeNullMessage(tag);
          continue;
        }
        element.write(tag, false, item, out);
      }
    }
  }

  /** Numbers and booleans, packed as proto3 packs them: one tag, the length, the values untagged. */
  private record PackedWriter(String name, int tag, Value element) implements FieldWriter {
    @Override
    public void write(Object v, Output out) {
      if (v == null) {
        return;
      }
      Collection<?> items = (Collection<?>) v;
      if (items.isEmpty()) {
        return;
      }
      out.writeVarint32(tag);
      int mark = out.beginLength();
      for (Object item : items) {
        if (item == null) {
          throw new DataException("Field " + name + ": Protobuf cannot hold a null array element without "
              + "wrapper.for.nullables");
        }
        element.write(-1, false, item, out);
      }
      out.endLength(mark);
    }
  }

  /**
   * A map is repeated entry messages, each with its key and its value even at their defaults: DynamicMessage fills in
   * every field of a map entry. A null value, where the value is a message (a struct or a wrapper), is that message
   * holding only field {@value ConnectProtobuf#NULL_MARK}; a bare scalar (wrappers off) cannot be null, and the record
   * is refused.
   */
  private record MapWriter(int tag, int keyTag, Value key, int valueTag, Value value)
      implements FieldWriter {
    @Override
    public void write(Object v, Output out) {
      if (v == null) {
        return;
      }
      for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
        out.writeVarint32(tag);
        int mark = out.beginLength();
        Object k = e.getKey();
        if (k == null) {
          throw new DataException("Protobuf has no null map key");
        }
        key.write(keyTag, false, k, out);
        if (e.getValue() != null) {
          value.write(valueTag, false, e.getValue(), out);
        } else if (value instanceof MessageValue || value instanceof WrapperValue) {
          out.writeNullMessage(valueTag);
        } else {
          throw new DataException("Protobuf cannot hold a null map value without wrapper.for.nullables");
        }
        out.endLength(mark);
      }
    }
  }

  /**
   * How one kind of value is written: {@code tag} first unless it is -1 (a packed element), nothing at all when
   * {@code skipDefault} and the value is its type's default. Casts are as strict as DynamicMessage's type check.
   */
  private sealed interface Value
      permits Scalar, DecimalValue, DateValue, TimeValue, TimestampValue, MessageValue, WrapperValue {
    void write(int tag, boolean skipDefault, Object v, Output out);
  }

  private enum Scalar implements Value {
    SMALL_INT, INT32, INT64, FLOAT, DOUBLE, BOOLEAN, STRING, BYTES;

    @Override
    public void write(int tag, boolean skipDefault, Object v, Output out) {
      switch (this) {
        case SMALL_INT -> out.int32(tag, skipDefault, ((Number) v).intValue());
        case INT32 -> out.int32(tag, skipDefault, (Integer) v);
        case INT64 -> out.int64(tag, skipDefault, (Long) v);
        case FLOAT -> {
          int bits = Float.floatToRawIntBits((Float) v);
          if (!(skipDefault && bits == 0)) {
            out.tag(tag);
            out.fixed32(bits);
          }
        }
        case DOUBLE -> {
          long bits = Double.doubleToRawLongBits((Double) v);
          if (!(skipDefault && bits == 0)) {
            out.tag(tag);
            out.fixed64(bits);
          }
        }
        case BOOLEAN -> {
          boolean b = (Boolean) v;
          if (!(skipDefault && !b)) {
            out.tag(tag);
            out.ensure(1);
            out.buf[out.pos++] = (byte) (b ? 1 : 0);
          }
        }
        case STRING -> {
          String s = (String) v;
          if (!(skipDefault && s.isEmpty())) {
            out.tag(tag);
            out.writeString(s);
          }
        }
        case BYTES -> {
          if (v instanceof ByteBuffer b) {
            if (!(skipDefault && !b.hasRemaining())) {
              out.tag(tag);
              if (b.hasArray()) {
                out.writeBytes(b.array(), b.arrayOffset() + b.position(), b.remaining());
              } else {
                byte[] copy = ConnectAvro.bytes(b);
                out.writeBytes(copy, 0, copy.length);
              }
            }
          } else {
            byte[] b = (byte[]) v;
            if (!(skipDefault && b.length == 0)) {
              out.tag(tag);
              out.writeBytes(b, 0, b.length);
            }
          }
        }
      }
    }
  }

  /** The unscaled value's bytes (never empty), once Connect checked the scale against the schema's. */
  private record DecimalValue(Schema schema) implements Value {
    @Override
    public void write(int tag, boolean skipDefault, Object v, Output out) {
      byte[] unscaled = Decimal.fromLogical(schema, (BigDecimal) v);
      if (!(skipDefault && unscaled.length == 0)) {
        out.tag(tag);
        out.writeBytes(unscaled, 0, unscaled.length);
      }
    }
  }

  private record DateValue(Schema schema) implements Value {
    @Override
    public void write(int tag, boolean skipDefault, Object v, Output out) {
      out.int32(tag, skipDefault, Date.fromLogical(schema, (java.util.Date) v));
    }
  }

  private record TimeValue(Schema schema) implements Value {
    @Override
    public void write(int tag, boolean skipDefault, Object v, Output out) {
      out.int32(tag, skipDefault, Time.fromLogical(schema, (java.util.Date) v));
    }
  }

  private record TimestampValue(Schema schema) implements Value {
    @Override
    public void write(int tag, boolean skipDefault, Object v, Output out) {
      out.int64(tag, skipDefault, Timestamp.fromLogical(schema, (java.util.Date) v));
    }
  }

  /** A message always has presence: an empty struct is still written, as a zero length. */
  private record MessageValue(MessageWriter message) implements Value {
    @Override
    public void write(int tag, boolean skipDefault, Object v, Output out) {
      Struct struct = (Struct) v;
      out.tag(tag);
      int mark = out.beginLength();
      message.write(struct, out);
      out.endLength(mark);
    }
  }

  /** One of Google's wrappers: a message holding the value as its field 1, left out at its default as proto3 does. */
  private record WrapperValue(int innerTag, Value inner) implements Value {
    @Override
    public void write(int tag, boolean skipDefault, Object v, Output out) {
      out.tag(tag);
      int mark = out.beginLength();
      inner.write(innerTag, true, v, out);
      out.endLength(mark);
    }
  }

  /** Protobuf's varints, little-endian fixed numbers and length-prefixed runs on the shared buffer. */
  private static final class Output extends ByteOutput {
    Output(int offset, int sizeHint) {
      super(offset, sizeHint);
    }

    void tag(int tag) {
      if (tag >= 0) {
        writeVarint32(tag);
      }
    }

    /** An int32 field: a negative value is sign-extended to ten bytes, as CodedOutputStream.writeInt32 does. */
    void int32(int tag, boolean skipDefault, int n) {
      if (skipDefault && n == 0) {
        return;
      }
      tag(tag);
      if (n >= 0) {
        writeVarint32(n);
      } else {
        writeVarint64(n);
      }
    }

    void int64(int tag, boolean skipDefault, long n) {
      if (skipDefault && n == 0) {
        return;
      }
      tag(tag);
      writeVarint64(n);
    }

    /** The null mark's message: a length, then field {@value ConnectProtobuf#NULL_MARK} as the varint 1. */
    void writeNullMessage(int tag) {
      tag(tag);
      writeVarint32(6);
      writeVarint32(ConnectProtobuf.NULL_MARK << 3);
      writeVarint32(1);
    }

    void writeVarint32(int n) {
      ensure(5);
      while ((n & ~0x7F) != 0) {
        buf[pos++] = (byte) (n & 0x7F | 0x80);
        n >>>= 7;
      }
      buf[pos++] = (byte) n;
    }

    void writeVarint64(long n) {
      ensure(10);
      while ((n & ~0x7FL) != 0) {
        buf[pos++] = (byte) (n & 0x7F | 0x80);
        n >>>= 7;
      }
      buf[pos++] = (byte) n;
    }

    void fixed32(int n) {
      ensure(4);
      buf[pos++] = (byte) n;
      buf[pos++] = (byte) (n >> 8);
      buf[pos++] = (byte) (n >> 16);
      buf[pos++] = (byte) (n >> 24);
    }

    void fixed64(long n) {
      fixed32((int) n);
      fixed32((int) (n >> 32));
    }

    void writeBytes(byte[] b, int from, int length) {
      writeVarint32(length);
      put(b, from, length);
    }

    /**
     * UTF-8 after its length; ASCII, the common case, copied as it is checked. Otherwise Java's encoder, which is
     * what CodedOutputStream falls back to for a string its own encoder refuses (an unpaired surrogate becomes '?').
     */
    void writeString(String s) {
      int length = s.length();
      if (length < 128) {
        ensure(1 + length);
        int start = pos;
        buf[pos++] = (byte) length;
        if (ascii(s)) {
          return;
        }
        pos = start;
      }
      byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
      writeBytes(utf8, 0, utf8.length);
    }

    /** Reserves one byte for a length; {@link #endLength} writes it, moving the run along if it needs more. */
    int beginLength() {
      ensure(1);
      return pos++;
    }

    void endLength(int mark) {
      int length = pos - mark - 1;
      if (length < 0x80) {
        buf[mark] = (byte) length;
        return;
      }
      int size = 1;
      for (int n = length >>> 7; n != 0; n >>>= 7) {
        size++;
      }
      ensure(size - 1);
      System.arraycopy(buf, mark + 1, buf, mark + size, length);
      int end = pos + size - 1;
      pos = mark;
      writeVarint32(length);
      pos = end;
    }
  }
}
