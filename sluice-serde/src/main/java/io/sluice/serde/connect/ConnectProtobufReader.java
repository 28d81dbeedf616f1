package io.sluice.serde.connect;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.OneofDescriptor;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;

/**
 * Reads a Protobuf message straight into the Connect struct {@link ConnectProtobuf#connectValue} makes of the
 * {@code DynamicMessage} parsed from the same bytes, without parsing one: per field number a plan of how its value is
 * read ({@link CodedInputStream}'s own methods, so numbers, strings and their UTF-8 checks read as the parser reads
 * them) and turned into Connect's value, compiled once per writer schema and message.
 *
 * <p>It follows the parser where the wire allows more than one spelling: the last value of a singular field wins,
 * repeated numbers come packed or not, a oneof keeps its last member, a field of an unexpected wire type or number is
 * skipped as unknown. A message absent is null, a scalar without presence absent is its default, an array or map
 * absent is empty unless field {@value ConnectProtobuf#NULL_FIELDS} names it null (and it is optional).
 *
 * <p>Not covered, so the converter reads these with {@code DynamicMessage} as before: at compile time, messages with
 * proto2 {@code required} fields (the parser checks them), group fields, field numbers above {@value #MAX_NUMBER},
 * and Connect schemas whose types do not follow from the descriptor (metadata naming a logical type on another
 * Protobuf type); per record, by throwing {@link NotCovered}, a singular message field that occurs twice (the parser
 * merges the two), an enum number the enum does not declare, groups, and nesting deeper than the parser's recursion
 * limit.
 */
final class ConnectProtobufReader {
  private static final int MAX_NUMBER = 4096;
  /** CodedInputStream's default recursion limit, past which the parser refuses a message. */
  private static final int MAX_DEPTH = 100;

  /** A record this reader leaves to the DynamicMessage path; no stack trace, it is a branch, not an error. */
  static final class NotCovered extends RuntimeException {
    NotCovered(String why) {
      super(why, null, false, false);
    }
  }

  private final MessageReader root;

  private ConnectProtobufReader(MessageReader root) {
    this.root = root;
  }

  /**
   * The reader of {@code message} into structs of {@code schema}, the Connect schema
   * {@link ConnectProtobuf#connectSchema} gives it. Throws {@link IllegalArgumentException} where it does not cover it.
   */
  static ConnectProtobufReader of(Descriptor message, Schema schema) {
    return new ConnectProtobufReader(message(message, schema));
  }

  /** The struct of the message in {@code in}, read to its end. */
  Struct read(CodedInputStream in) throws IOException {
    return root.read(in, 0);
  }

  // ---- the plan ---------------------------------------------------------------------------------------------------

  private static MessageReader message(Descriptor d, Schema schema) {
    if (schema.type() != Schema.Type.STRUCT) {
      throw new IllegalArgumentException("not a struct: " + schema.type());
    }
    List<Field> fields = schema.fields();
    FieldReader[] readers = new FieldReader[fields.size()];
    int max = 0;
    Map<OneofDescriptor, Integer> oneofs = new HashMap<>();
    for (int i = 0; i < readers.length; i++) {
      Field f = fields.get(i);
      FieldDescriptor fd = d.findFieldByName(f.name());
      if (fd == null || fd.isRequired() || fd.getNumber() > MAX_NUMBER) {
        throw new IllegalArgumentException("field " + f.name() + " of " + d.getFullName() + " is not covered");
      }
      max = Math.max(max, fd.getNumber());
      Schema fs = f.schema();
      OneofDescriptor oneof = fd.getRealContainingOneof();
      int oneofIndex = oneof == null ? -1 : oneofs.computeIfAbsent(oneof, o -> oneofs.size());
      if (fd.isMapField()) {
        expect(fs, Schema.Type.MAP);
        Descriptor entry = fd.getMessageType();
        FieldDescriptor kd = entry.findFieldByNumber(1);
        FieldDescriptor vd = entry.findFieldByNumber(2);
        if (kd == null || vd == null || kd.isRepeated() || vd.isRepeated() || kd.isRequired() || vd.isRequired()) {
          throw new IllegalArgumentException("map entry " + entry.getFullName() + " is not covered");
        }
        readers[i] = new FieldReader(i, Shape.MAP, fd.getNumber(), wireType(fd), false, oneofIndex, null,
            new MapEntry(value(kd, fs.keySchema()), value(vd, fs.valueSchema())), fs.isOptional());
      } else if (fd.isRepeated()) {
        expect(fs, Schema.Type.ARRAY);
        readers[i] = new FieldReader(i, Shape.REPEATED, fd.getNumber(), wireType(fd), fd.isPackable(), oneofIndex,
            value(fd, fs.valueSchema()), null, fs.isOptional());
      } else {
        readers[i] = new FieldReader(i, fd.hasPresence() ? Shape.PRESENT : Shape.DEFAULTED, fd.getNumber(),
            wireType(fd), false, oneofIndex, value(fd, fs), null, false);
      }
    }
    FieldReader[] byNumber = new FieldReader[max + 1];
    for (FieldReader r : readers) {
      byNumber[r.number()] = r;
    }
    return new MessageReader(schema, fields.toArray(new Field[0]), readers, byNumber, oneofs.size());
  }

  private static void expect(Schema s, Schema.Type type) {
    if (s.type() != type) {
      throw new IllegalArgumentException("schema " + s + " is not " + type);
    }
  }

  /** How a value of {@code fd} becomes one of Connect schema {@code s}, as {@code ConnectProtobuf.value} does. */
  private static Value value(FieldDescriptor fd, Schema s) {
    if (fd.getJavaType() == FieldDescriptor.JavaType.MESSAGE && s.type() != Schema.Type.STRUCT
        && ConnectProtobuf.isWrapper(fd.getMessageType())) {
      Value inner = value(fd.getMessageType().findFieldByNumber(1), s);
      return new Value(Raw.WRAPPER, inner.convert(), null, null, null, inner);
    }
    Raw raw = switch (fd.getType()) {
      case INT32 -> Raw.INT32;
      case SINT32 -> Raw.SINT32;
      case SFIXED32 -> Raw.SFIXED32;
      case UINT32 -> Raw.UINT32;
      case FIXED32 -> Raw.FIXED32;
      case INT64 -> Raw.INT64;
      case SINT64 -> Raw.SINT64;
      case SFIXED64 -> Raw.SFIXED64;
      case UINT64 -> Raw.UINT64;
      case FIXED64 -> Raw.FIXED64;
      case FLOAT -> Raw.FLOAT;
      case DOUBLE -> Raw.DOUBLE;
      case BOOL -> Raw.BOOL;
      case STRING -> fd.needsUtf8Check() ? Raw.STRING_UTF8 : Raw.STRING;
      case BYTES -> Raw.BYTES;
      case ENUM -> Raw.ENUM;
      case MESSAGE -> Raw.MESSAGE;
      case GROUP -> throw new IllegalArgumentException("group " + fd.getFullName() + " is not covered");
    };
    Schema.Type connect = switch (fd.getJavaType()) {
      case INT -> s.type() == Schema.Type.INT8 || s.type() == Schema.Type.INT16 ? s.type() : Schema.Type.INT32;
      case LONG -> Schema.Type.INT64;
      case FLOAT -> Schema.Type.FLOAT32;
      case DOUBLE -> Schema.Type.FLOAT64;
      case BOOLEAN -> Schema.Type.BOOLEAN;
      case STRING, ENUM -> Schema.Type.STRING;
      case BYTE_STRING -> Schema.Type.BYTES;
      case MESSAGE -> Schema.Type.STRUCT;
    };
    expect(s, connect);
    String name = s.name();
    Convert convert;
    if (Decimal.LOGICAL_NAME.equals(name)) {
      convert = new Convert(Conversion.DECIMAL, s, Integer.parseInt(s.parameters().get(Decimal.SCALE_FIELD)));
    } else if (Date.LOGICAL_NAME.equals(name)) {
      convert = new Convert(Conversion.DATE, s, 0);
    } else if (Time.LOGICAL_NAME.equals(name)) {
      convert = new Convert(Conversion.TIME, s, 0);
    } else if (Timestamp.LOGICAL_NAME.equals(name)) {
      convert = new Convert(Conversion.TIMESTAMP, s, 0);
    } else {
      convert = new Convert(switch (s.type()) {
        case INT8 -> Conversion.INT8;
        case INT16 -> Conversion.INT16;
        default -> Conversion.NONE;
      }, s, 0);
    }
    Map<Integer, String> enumNames = null;
    if (raw == Raw.ENUM) {
      enumNames = new HashMap<>();
      for (EnumValueDescriptor e : fd.getEnumType().getValues()) {
        enumNames.putIfAbsent(e.getNumber(), e.getName());
      }
    }
    MessageReader nested = raw == Raw.MESSAGE ? message(fd.getMessageType(), s) : null;
    // A message's default, an empty struct, is read afresh from no bytes: only a map entry ever takes it.
    Object defaultRaw = fd.isRepeated() || raw == Raw.MESSAGE ? null : defaultOf(fd.getDefaultValue());
    return new Value(raw, convert, enumNames, nested, defaultRaw, null);
  }

  /** A field's default as the parser's getField gives it, in the raw form this reader reads values in. */
  private static Object defaultOf(Object value) {
    if (value instanceof ByteString b) {
      return b.toByteArray();
    }
    if (value instanceof EnumValueDescriptor e) {
      return e.getName();
    }
    return value;
  }

  private static int wireType(FieldDescriptor fd) {
    return switch (fd.getType()) {
      case INT32, SINT32, UINT32, INT64, SINT64, UINT64, BOOL, ENUM -> 0;
      case FIXED64, SFIXED64, DOUBLE -> 1;
      case STRING, BYTES, MESSAGE -> 2;
      case FIXED32, SFIXED32, FLOAT -> 5;
      case GROUP -> 3;
    };
  }

  // ---- reading ----------------------------------------------------------------------------------------------------

  /** Where a field's value goes: the struct slot as read, defaulted, a list, or a map. */
  private enum Shape { PRESENT, DEFAULTED, REPEATED, MAP }

  /** {@code nullable}: an optional array or map, which field {@value ConnectProtobuf#NULL_FIELDS} may name null. */
  private record FieldReader(int index, Shape shape, int number, int wireType, boolean packable, int oneof,
      Value value, MapEntry entry, boolean nullable) {}

  private record MapEntry(Value key, Value value) {}

  private record MessageReader(Schema schema, Field[] fields, FieldReader[] readers, FieldReader[] byNumber,
      int oneofs) {
    Struct read(CodedInputStream in, int depth) throws IOException {
      if (depth >= MAX_DEPTH) {
        throw new NotCovered("nested deeper than the parser's recursion limit");
      }
      Object[] values = new Object[readers.length];
      int[] oneofCase = oneofs == 0 ? null : new int[oneofs];
      boolean isNull = false;
      boolean[] named = null;
      while (true) {
        int tag = in.readTag();
        if (tag == 0) {
          break;
        }
        int number = tag >>> 3;
        int wireType = tag & 7;
        if (wireType == 3 || wireType == 4) {
          throw new NotCovered("a group");
        }
        FieldReader f = number < byNumber.length ? byNumber[number] : null;
        if (f == null) {
          if (number == ConnectProtobuf.NULL_MARK && wireType == 0) {
            in.readRawVarint64();
            isNull = true; // a null element or map value
            continue;
          }
          if (number == ConnectProtobuf.NULL_FIELDS && wireType == 0) {
            long n = in.readRawVarint64();
            FieldReader target = n > 0 && n < byNumber.length ? byNumber[(int) n] : null;
            if (target != null && target.nullable()) {
              named = named == null ? new boolean[readers.length] : named;
              named[target.index()] = true;
            }
            continue;
          }
          in.skipField(tag);
          continue;
        }
        boolean packed = false;
        if (wireType != f.wireType()) {
          if (f.packable() && wireType == 2) {
            packed = true;
          } else {
            in.skipField(tag); // the parser keeps it as an unknown field
            continue;
          }
        }
        int i = f.index();
        switch (f.shape()) {
          case PRESENT, DEFAULTED -> {
            if (f.value().isMessage() && values[i] != null) {
              throw new NotCovered("a message field twice, which the parser merges");
            }
            values[i] = f.value().read(in, depth);
            if (f.oneof() >= 0) {
              int previous = oneofCase[f.oneof()] - 1;
              if (previous >= 0 && previous != i) {
                values[previous] = null;
              }
              oneofCase[f.oneof()] = i + 1;
            }
          }
          case REPEATED -> {
            @SuppressWarnings("unchecked")
            List<Object> list = (List<Object>) values[i];
            if (list == null) {
              list = new ArrayList<>();
              values[i] = list;
            }
            if (packed) {
              int limit = in.pushLimit(in.readRawVarint32());
              while (in.getBytesUntilLimit() > 0) {
                list.add(f.value().read(in, depth));
              }
              in.popLimit(limit);
            } else {
              list.add(f.value().read(in, depth));
            }
          }
          case MAP -> {
            @SuppressWarnings("unchecked")
            Map<Object, Object> map = (Map<Object, Object>) values[i];
            if (map == null) {
              map = new LinkedHashMap<>();
              values[i] = map;
            }
            readEntry(in, f.entry(), map, depth + 1);
          }
        }
      }
      if (isNull) {
        return null;
      }
      Struct struct = new Struct(schema);
      for (int i = 0; i < readers.length; i++) {
        Object v = values[i];
        if (v == null && !(named != null && named[i])) { // a null array or map named so holds no element
          FieldReader f = readers[i];
          v = switch (f.shape()) {
            case PRESENT -> null;
            case DEFAULTED -> f.value().defaultValue();
            case REPEATED -> new ArrayList<>(0);
            case MAP -> new LinkedHashMap<>();
          };
        }
        struct.put(fields[i], v);
      }
      return struct;
    }

    /**
     * One map entry: its key and its value, each its default when absent, an empty struct for a message: the parser
     * fills in every field of a map entry (so that value is never null, though the entry's field has presence).
     */
    private static void readEntry(CodedInputStream in, MapEntry entry, Map<Object, Object> into, int depth)
        throws IOException {
      if (depth >= MAX_DEPTH) {
        throw new NotCovered("nested deeper than the parser's recursion limit");
      }
      int limit = in.pushLimit(in.readRawVarint32());
      Object key = null;
      Object value = null;
      boolean valueRead = false;
      while (true) {
        int tag = in.readTag();
        if (tag == 0) {
          break;
        }
        int wireType = tag & 7;
        if (wireType == 3 || wireType == 4) {
          throw new NotCovered("a group");
        }
        int number = tag >>> 3;
        if (number == 1 && wireType == entry.key().wireType()) {
          key = entry.key().read(in, depth);
        } else if (number == 2 && wireType == entry.value().wireType()) {
          if (entry.value().isMessage() && valueRead) {
            throw new NotCovered("a map value message twice, which the parser merges");
          }
          value = entry.value().read(in, depth);
          valueRead = true;
        } else {
          in.skipField(tag);
        }
      }
      in.checkLastTagWas(0);
      in.popLimit(limit);
      if (!valueRead) {
        value = entry.value().defaultValue(); // the parser fills in a value left out
      }
      into.put(key != null ? key : entry.key().defaultValue(), value);
    }
  }

  /** How a value is read off the wire, before Connect's conversion. */
  private enum Raw {
    INT32(0), SINT32(0), SFIXED32(5), UINT32(0), FIXED32(5), INT64(0), SINT64(0), SFIXED64(1), UINT64(0),
    FIXED64(1), FLOAT(5), DOUBLE(1), BOOL(0), STRING(2), STRING_UTF8(2), BYTES(2), ENUM(0), MESSAGE(2),
    /** One of Google's wrappers: the wrapped value, converted by the inner {@link Value}. */
    WRAPPER(2);

    final int wireType;

    Raw(int wireType) {
      this.wireType = wireType;
    }
  }

  /** Connect's side of a value: a logical type or a narrower integer, or nothing. */
  private enum Conversion { NONE, INT8, INT16, DECIMAL, DATE, TIME, TIMESTAMP }

  private record Convert(Conversion conversion, Schema schema, int scale) {
    Object apply(Object v) {
      return switch (conversion) {
        case NONE -> v;
        case INT8 -> ((Integer) v).byteValue();
        case INT16 -> ((Integer) v).shortValue();
        case DECIMAL -> new BigDecimal(new BigInteger((byte[]) v), scale);
        case DATE -> Date.toLogical(schema, (Integer) v);
        case TIME -> Time.toLogical(schema, (Integer) v);
        case TIMESTAMP -> Timestamp.toLogical(schema, (Long) v);
      };
    }
  }

  /**
   * One kind of value: read raw, then converted. {@code defaultRaw} is the field's default, converted afresh for
   * each use (a Connect date is a mutable object).
   */
  private record Value(Raw raw, Convert convert, Map<Integer, String> enumNames, MessageReader nested,
      Object defaultRaw, Value wrapped) {
    int wireType() {
      return raw.wireType;
    }

    boolean isMessage() {
      return raw == Raw.MESSAGE || raw == Raw.WRAPPER;
    }

    Object defaultValue() throws IOException {
      if (raw == Raw.WRAPPER) {
        return wrapped.defaultValue();
      }
      if (raw == Raw.MESSAGE) {
        return nested.read(CodedInputStream.newInstance(new byte[0]), 0);
      }
      Object v = defaultRaw instanceof byte[] b ? b.clone() : defaultRaw;
      return v == null ? null : convert.apply(v);
    }

    Object read(CodedInputStream in, int depth) throws IOException {
      Object v = switch (raw) {
        case INT32 -> in.readInt32();
        case SINT32 -> in.readSInt32();
        case SFIXED32 -> in.readSFixed32();
        case UINT32 -> in.readUInt32();
        case FIXED32 -> in.readFixed32();
        case INT64 -> in.readInt64();
        case SINT64 -> in.readSInt64();
        case SFIXED64 -> in.readSFixed64();
        case UINT64 -> in.readUInt64();
        case FIXED64 -> in.readFixed64();
        case FLOAT -> in.readFloat();
        case DOUBLE -> in.readDouble();
        case BOOL -> in.readBool();
        case STRING -> in.readString();
        case STRING_UTF8 -> in.readStringRequireUtf8();
        case BYTES -> in.readByteArray();
        case ENUM -> {
          int number = in.readEnum();
          String name = enumNames.get(number);
          if (name == null) {
            throw new NotCovered("enum number " + number + " is not declared");
          }
          yield name;
        }
        case MESSAGE -> {
          int limit = in.pushLimit(in.readRawVarint32());
          Struct struct = nested.read(in, depth + 1);
          in.checkLastTagWas(0);
          in.popLimit(limit);
          yield struct;
        }
        case WRAPPER -> readWrapper(in, depth);
      };
      return isMessage() ? v : convert.apply(v);
    }

    /** A wrapper's value, its default when left out, null when it holds the null mark. */
    private Object readWrapper(CodedInputStream in, int depth) throws IOException {
      if (depth + 1 >= MAX_DEPTH) {
        throw new NotCovered("nested deeper than the parser's recursion limit");
      }
      int limit = in.pushLimit(in.readRawVarint32());
      Object value = null;
      boolean isNull = false;
      while (true) {
        int tag = in.readTag();
        if (tag == 0) {
          break;
        }
        int wireType = tag & 7;
        if (wireType == 3 || wireType == 4) {
          throw new NotCovered("a group");
        }
        if (tag >>> 3 == 1 && wireType == wrapped.wireType()) {
          value = wrapped.read(in, depth + 1);
        } else if (tag >>> 3 == ConnectProtobuf.NULL_MARK && wireType == 0) {
          in.readRawVarint64();
          isNull = true;
        } else {
          in.skipField(tag);
        }
      }
      in.checkLastTagWas(0);
      in.popLimit(limit);
      return isNull ? null : value != null ? value : wrapped.defaultValue();
    }
  }
}
