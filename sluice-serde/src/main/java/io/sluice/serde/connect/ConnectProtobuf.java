package io.sluice.serde.connect;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.DynamicMessage;
import com.squareup.wire.schema.Location;
import com.squareup.wire.schema.internal.parser.MessageElement;
import com.squareup.wire.schema.internal.parser.OptionElement;
import com.squareup.wire.schema.internal.parser.ProtoFileElement;
import com.squareup.wire.schema.internal.parser.ProtoParser;
import com.squareup.wire.schema.internal.parser.TypeElement;
import io.sluice.schema.protobuf.ProtobufSchemaProvider;
import io.sluice.serde.protobuf.ProtobufSchemas;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;

/**
 * Translates between Kafka Connect's data and Protobuf. A Connect struct becomes a proto3 message (fields numbered
 * in order from 1, nested structs as messages nested in the top one, an optional scalar as {@code optional}, arrays as
 * {@code repeated}, maps with scalar keys as {@code map<K, V>}); what Protobuf cannot say itself travels, as with
 * Confluent's converter, in {@code confluent/meta.proto} options: a schema's Connect name, version and parameters, and
 * INT8/INT16 as {@code connect.type}. Logical types stay the primitives Connect makes them (Decimal as its unscaled
 * bytes with {@code scale}, Date and Time as int32, Timestamp as int64), named in that metadata, so Debezium's
 * semantic types reach the sink as the source wrote them.
 *
 * <p>Not representable, refused with a {@link DataException}: a top level that is not a struct, arrays of arrays or
 * maps, maps with non-scalar keys or with array or map values, and null elements in an array. An optional array or
 * map reads back empty rather than null.
 */
final class ConnectProtobuf {
  private static final String META = "confluent.field_meta";
  private static final String MESSAGE_META = "confluent.message_meta";
  private static final String NAME = "connect.name";
  private static final String VERSION = "connect.version";
  private static final String TYPE = "connect.type";

  /** A Connect schema's Protobuf form: the text to register and the top message to build values with. */
  record Written(String text, Descriptor message) {}

  /** How records of one writer schema read: the Connect schema of the top message. */
  record Read(Descriptor message, Schema schema) {}

  private final Map<Schema, Written> written = new ConcurrentHashMap<>();

  // ---- Connect → Protobuf -----------------------------------------------------------------------------------------

  Written written(Schema schema) {
    return written.computeIfAbsent(schema, ConnectProtobuf::write);
  }

  private static Written write(Schema schema) {
    if (schema.type() != Schema.Type.STRUCT) {
      throw new DataException("The Protobuf converter writes structs; this record's schema is " + schema.type());
    }
    String fullName = schema.name() == null ? "ConnectDefault" : schema.name();
    int dot = fullName.lastIndexOf('.');
    String pkg = dot < 0 ? "" : identifierPath(fullName.substring(0, dot));
    String top = identifier(fullName.substring(dot + 1));
    Map<Schema, String> nested = new LinkedHashMap<>();
    collectStructs(schema, true, nested, top);
    StringBuilder out = new StringBuilder("syntax = \"proto3\";\n");
    if (!pkg.isEmpty()) {
      out.append("package ").append(pkg).append(";\n");
    }
    out.append("import \"").append(ProtobufSchemaProvider.CONFLUENT_META).append("\";\n\n");
    message(out, schema, top, nested, "", true);
    String text = out.toString();
    Descriptor d = ProtobufSchemas.build(top + ".proto", text, Map.of()).getMessageTypes().get(0);
    return new Written(text, d);
  }

  /** Every struct below the top one, once, each with a message name unique in the file. */
  private static void collectStructs(Schema schema, boolean top, Map<Schema, String> into, String topName) {
    switch (schema.type()) {
      case STRUCT -> {
        if (!top && !into.containsKey(schema)) {
          String base = schema.name() == null ? "Struct" : identifier(schema.name()
              .substring(schema.name().lastIndexOf('.') + 1));
          String name = base;
          for (int n = 2; name.equals(topName) || into.containsValue(name); n++) {
            name = base + n;
          }
          into.put(schema, name);
        }
        for (Field f : schema.fields()) {
          collectStructs(f.schema(), false, into, topName);
        }
      }
      case ARRAY -> collectStructs(schema.valueSchema(), false, into, topName);
      case MAP -> {
        collectStructs(schema.keySchema(), false, into, topName);
        collectStructs(schema.valueSchema(), false, into, topName);
      }
      default -> { }
    }
  }

  private static void message(StringBuilder out, Schema schema, String name, Map<Schema, String> nested,
      String indent, boolean top) {
    out.append(indent).append("message ").append(name).append(" {\n");
    String inner = indent + "  ";
    Map<String, String> meta = meta(schema, false);
    if (!meta.isEmpty()) {
      out.append(inner).append("option (").append(MESSAGE_META).append(") = ").append(metaText(meta)).append(";\n");
    }
    if (top) {
      nested.forEach((s, n) -> message(out, s, n, nested, inner, false));
    }
    int number = 1;
    for (Field f : schema.fields()) {
      Schema fs = f.schema();
      out.append(inner);
      switch (fs.type()) {
        case ARRAY -> {
          Schema element = fs.valueSchema();
          if (element.type() == Schema.Type.ARRAY || element.type() == Schema.Type.MAP) {
            throw new DataException("Field " + f.name() + ": Protobuf has no array of " + element.type());
          }
          out.append("repeated ").append(type(element, nested));
        }
        case MAP -> {
          Schema k = fs.keySchema();
          Schema v = fs.valueSchema();
          if (!List.of(Schema.Type.STRING, Schema.Type.INT32, Schema.Type.INT64, Schema.Type.BOOLEAN)
              .contains(k.type()) || k.name() != null || v.type() == Schema.Type.ARRAY || v.type() == Schema.Type.MAP) {
            throw new DataException("Field " + f.name() + ": Protobuf maps take scalar keys and no array or map "
                + "values");
          }
          out.append("map<").append(type(k, nested)).append(", ").append(type(v, nested)).append('>');
        }
        case STRUCT -> out.append(type(fs, nested));
        default -> out.append(fs.isOptional() ? "optional " : "").append(type(fs, nested));
      }
      out.append(' ').append(identifier(f.name())).append(" = ").append(number++);
      Map<String, String> fm = meta(fs, true);
      if (fs.type() == Schema.Type.ARRAY) {
        fm.putAll(prefixed("element.", meta(fs.valueSchema(), true)));
      }
      if (!fm.isEmpty()) {
        out.append(" [(").append(META).append(") = ").append(metaText(fm)).append(']');
      }
      out.append(";\n");
    }
    out.append(indent).append("}\n");
  }

  private static Map<String, String> prefixed(String prefix, Map<String, String> meta) {
    Map<String, String> out = new LinkedHashMap<>();
    meta.forEach((k, v) -> out.put(prefix + k, v));
    return out;
  }

  /** What a schema needs said beside its Protobuf type: name, version, parameters, small int widths. */
  private static Map<String, String> meta(Schema s, boolean field) {
    Map<String, String> m = new LinkedHashMap<>();
    if (s.type() == Schema.Type.STRUCT && field) {
      return m; // said on the message itself
    }
    if (s.name() != null) {
      m.put(NAME, s.name());
    }
    if (s.version() != null) {
      m.put(VERSION, String.valueOf(s.version()));
    }
    if (s.type() == Schema.Type.INT8 || s.type() == Schema.Type.INT16) {
      m.put(TYPE, s.type().getName());
    }
    if (s.parameters() != null) {
      m.putAll(s.parameters());
    }
    return m;
  }

  private static String metaText(Map<String, String> meta) {
    StringBuilder b = new StringBuilder("{ params: [");
    boolean first = true;
    for (Map.Entry<String, String> e : meta.entrySet()) {
      b.append(first ? "" : ", ").append("{ key: ").append(quote(e.getKey())).append(", value: ")
          .append(quote(e.getValue())).append(" }");
      first = false;
    }
    return b.append("] }").toString();
  }

  private static String quote(String s) {
    return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + '"';
  }

  private static String type(Schema s, Map<Schema, String> nested) {
    return switch (s.type()) {
      case INT8, INT16, INT32 -> "int32";
      case INT64 -> "int64";
      case FLOAT32 -> "float";
      case FLOAT64 -> "double";
      case BOOLEAN -> "bool";
      case STRING -> "string";
      case BYTES -> "bytes";
      case STRUCT -> nested.get(s);
      default -> throw new DataException("No Protobuf type for " + s.type() + " here");
    };
  }

  /** A proto identifier: Connect names and columns may hold any character; each offending one becomes {@code _}. */
  private static String identifier(String name) {
    StringBuilder out = new StringBuilder();
    for (char c : name.toCharArray()) {
      out.append(Character.isLetterOrDigit(c) && c < 128 || c == '_' ? c : '_');
    }
    if (out.isEmpty() || Character.isDigit(out.charAt(0))) {
      out.insert(0, '_');
    }
    return out.toString();
  }

  private static String identifierPath(String dotted) {
    List<String> parts = new ArrayList<>();
    for (String p : dotted.split("\\.", -1)) {
      parts.add(identifier(p));
    }
    return String.join(".", parts);
  }

  DynamicMessage message(Schema schema, Descriptor d, Struct struct) {
    DynamicMessage.Builder b = DynamicMessage.newBuilder(d);
    List<Field> fields = schema.fields();
    for (int i = 0; i < fields.size(); i++) {
      Field f = fields.get(i);
      FieldDescriptor fd = d.findFieldByNumber(i + 1);
      Object v = struct.get(f);
      if (v == null) {
        if (!f.schema().isOptional() && f.schema().type() != Schema.Type.ARRAY && f.schema().type() != Schema.Type.MAP) {
          throw new DataException("Conversion error: null value for field " + f.name() + " that is required");
        }
        continue;
      }
      switch (f.schema().type()) {
        case ARRAY -> {
          for (Object item : (Collection<?>) v) {
            if (item == null) {
              throw new DataException("Field " + f.name() + ": Protobuf cannot hold a null array element");
            }
            b.addRepeatedField(fd, scalarOrMessage(f.schema().valueSchema(), fd, item));
          }
        }
        case MAP -> {
          Descriptor entry = fd.getMessageType();
          for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
            DynamicMessage.Builder eb = DynamicMessage.newBuilder(entry);
            eb.setField(entry.findFieldByNumber(1), scalarOrMessage(f.schema().keySchema(),
                entry.findFieldByNumber(1), e.getKey()));
            if (e.getValue() != null) {
              eb.setField(entry.findFieldByNumber(2), scalarOrMessage(f.schema().valueSchema(),
                  entry.findFieldByNumber(2), e.getValue()));
            }
            b.addRepeatedField(fd, eb.build());
          }
        }
        default -> b.setField(fd, scalarOrMessage(f.schema(), fd, v));
      }
    }
    return b.build();
  }

  private Object scalarOrMessage(Schema s, FieldDescriptor fd, Object v) {
    String name = s.name();
    if (Decimal.LOGICAL_NAME.equals(name)) {
      return ByteString.copyFrom(Decimal.fromLogical(s, (BigDecimal) v));
    }
    if (Date.LOGICAL_NAME.equals(name)) {
      return Date.fromLogical(s, (java.util.Date) v);
    }
    if (Time.LOGICAL_NAME.equals(name)) {
      return Time.fromLogical(s, (java.util.Date) v);
    }
    if (Timestamp.LOGICAL_NAME.equals(name)) {
      return Timestamp.fromLogical(s, (java.util.Date) v);
    }
    return switch (s.type()) {
      case INT8, INT16 -> ((Number) v).intValue();
      case BYTES -> ByteString.copyFrom(v instanceof ByteBuffer b ? ConnectAvro.bytes(b) : (byte[]) v);
      case STRUCT -> message(s, fd.getMessageType(), (Struct) v);
      default -> v;
    };
  }

  // ---- Protobuf → Connect -----------------------------------------------------------------------------------------

  /** The Connect schema of {@code message}, its metadata read from the writer's {@code .proto} text. */
  static Schema connectSchema(Descriptor message, String text) {
    Map<String, Map<String, String>> meta = new HashMap<>();
    ProtoFileElement file = ProtoParser.Companion.parse(Location.get("writer.proto"), text);
    String pkg = file.getPackageName() == null ? "" : file.getPackageName() + ".";
    for (TypeElement t : file.getTypes()) {
      collectMeta(t, pkg + t.getName(), meta);
    }
    return connect(message, meta, false, new HashMap<>());
  }

  private static void collectMeta(TypeElement t, String fullName, Map<String, Map<String, String>> into) {
    if (!(t instanceof MessageElement m)) {
      return;
    }
    into.put(fullName, params(m.getOptions(), MESSAGE_META));
    m.getFields().forEach(f -> into.put(fullName + "#" + f.getName(), params(f.getOptions(), META)));
    m.getOneOfs().forEach(o -> o.getFields().forEach(f -> into.put(fullName + "#" + f.getName(),
        params(f.getOptions(), META))));
    for (TypeElement n : m.getNestedTypes()) {
      collectMeta(n, fullName + "." + n.getName(), into);
    }
  }

  private static Map<String, String> params(List<OptionElement> options, String optionName) {
    Map<String, String> out = new LinkedHashMap<>();
    for (OptionElement o : options) {
      if (o.getName().equals(optionName) && o.getValue() instanceof Map<?, ?> value
          && value.get("params") instanceof Collection<?> entries) {
        for (Object e : entries) {
          if (e instanceof Map<?, ?> kv && kv.get("key") != null && kv.get("value") != null) {
            out.put(kv.get("key").toString(), kv.get("value").toString());
          }
        }
      }
    }
    return out;
  }

  private static Schema connect(Descriptor d, Map<String, Map<String, String>> meta, boolean optional,
      Map<String, Schema> done) {
    String key = d.getFullName() + (optional ? "?" : "");
    Schema known = done.get(key);
    if (known != null) {
      return known;
    }
    // A message that contains itself, directly or through others (google.protobuf.Struct and Value do), has no Connect
    // schema: Connect's are trees. Said as a DataException, the record goes where unreadable records go (the DLQ)
    // instead of a StackOverflowError ending the task.
    String building = "building " + d.getFullName();
    if (done.containsKey(building)) {
      throw new DataException("Protobuf message type " + d.getFullName() + " contains itself (a recursive type):"
          + " Connect schemas cannot express it, so records of this schema cannot be read as Connect data");
    }
    done.put(building, Schema.OPTIONAL_BOOLEAN_SCHEMA);
    Map<String, String> m = new LinkedHashMap<>(meta.getOrDefault(d.getFullName(), Map.of()));
    SchemaBuilder b = SchemaBuilder.struct().name(m.containsKey(NAME) ? m.remove(NAME) : d.getFullName());
    applyMeta(b, m);
    for (FieldDescriptor f : d.getFields()) {
      Map<String, String> fm = meta.getOrDefault(d.getFullName() + "#" + f.getName(), Map.of());
      b.field(f.getName(), field(f, fm, meta, done));
    }
    if (optional) {
      b.optional();
    }
    Schema s = b.build();
    done.remove(building);
    done.put(key, s);
    return s;
  }

  private static Schema field(FieldDescriptor f, Map<String, String> fm, Map<String, Map<String, String>> meta,
      Map<String, Schema> done) {
    if (f.isMapField()) {
      Descriptor entry = f.getMessageType();
      return SchemaBuilder.map(scalar(entry.findFieldByNumber(1), Map.of(), false, meta, done),
          scalar(entry.findFieldByNumber(2), Map.of(), true, meta, done)).optional().build();
    }
    if (f.isRepeated()) {
      Map<String, String> element = new LinkedHashMap<>();
      fm.forEach((k, v) -> {
        if (k.startsWith("element.")) {
          element.put(k.substring("element.".length()), v);
        }
      });
      return SchemaBuilder.array(scalar(f, element, false, meta, done)).optional().build();
    }
    return scalar(f, fm, f.getJavaType() == FieldDescriptor.JavaType.MESSAGE || f.hasPresence(), meta, done);
  }

  private static Schema scalar(FieldDescriptor f, Map<String, String> fieldMeta, boolean optional,
      Map<String, Map<String, String>> meta, Map<String, Schema> done) {
    if (f.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
      return connect(f.getMessageType(), meta, optional, done);
    }
    Map<String, String> m = new LinkedHashMap<>(fieldMeta);
    String name = m.remove(NAME);
    String smallInt = m.remove(TYPE);
    SchemaBuilder b;
    if (Decimal.LOGICAL_NAME.equals(name)) {
      b = Decimal.builder(Integer.parseInt(m.getOrDefault(Decimal.SCALE_FIELD, "0")));
    } else if (Date.LOGICAL_NAME.equals(name)) {
      b = Date.builder();
    } else if (Time.LOGICAL_NAME.equals(name)) {
      b = Time.builder();
    } else if (Timestamp.LOGICAL_NAME.equals(name)) {
      b = Timestamp.builder();
    } else {
      b = switch (f.getJavaType()) {
        case INT -> "int8".equals(smallInt) ? SchemaBuilder.int8() : "int16".equals(smallInt) ? SchemaBuilder.int16()
            : SchemaBuilder.int32();
        case LONG -> SchemaBuilder.int64();
        case FLOAT -> SchemaBuilder.float32();
        case DOUBLE -> SchemaBuilder.float64();
        case BOOLEAN -> SchemaBuilder.bool();
        case STRING, ENUM -> SchemaBuilder.string();
        case BYTE_STRING -> SchemaBuilder.bytes();
        case MESSAGE -> throw new IllegalStateException("messages are handled above");
      };
      if (name != null) {
        b.name(name);
      }
    }
    m.remove(Decimal.SCALE_FIELD);
    applyMeta(b, m);
    if (Decimal.LOGICAL_NAME.equals(name) && fieldMeta.containsKey(Decimal.SCALE_FIELD)) {
      b.parameter(Decimal.SCALE_FIELD, fieldMeta.get(Decimal.SCALE_FIELD));
    }
    if (optional) {
      b.optional();
    }
    return b.build();
  }

  private static void applyMeta(SchemaBuilder b, Map<String, String> m) {
    String version = m.remove(VERSION);
    if (version != null) {
      b.version(Integer.parseInt(version));
    }
    m.forEach((k, v) -> {
      if (!k.startsWith("element.")) {
        b.parameter(k, v);
      }
    });
  }

  Object connectValue(Schema schema, DynamicMessage message) {
    Struct struct = new Struct(schema);
    Descriptor d = message.getDescriptorForType();
    for (Field f : schema.fields()) {
      FieldDescriptor fd = d.findFieldByName(f.name());
      if (fd.isRepeated()) {
        int n = message.getRepeatedFieldCount(fd);
        if (fd.isMapField()) {
          Map<Object, Object> map = new LinkedHashMap<>();
          for (int i = 0; i < n; i++) {
            DynamicMessage e = (DynamicMessage) message.getRepeatedField(fd, i);
            Descriptor ed = e.getDescriptorForType();
            FieldDescriptor vd = ed.findFieldByNumber(2);
            map.put(value(f.schema().keySchema(), e.getField(ed.findFieldByNumber(1))),
                vd.hasPresence() && !e.hasField(vd) ? null : value(f.schema().valueSchema(), e.getField(vd)));
          }
          struct.put(f, map);
        } else {
          List<Object> list = new ArrayList<>(n);
          for (int i = 0; i < n; i++) {
            list.add(value(f.schema().valueSchema(), message.getRepeatedField(fd, i)));
          }
          struct.put(f, list);
        }
      } else if (fd.hasPresence() && !message.hasField(fd)) {
        struct.put(f, null);
      } else {
        struct.put(f, value(f.schema(), message.getField(fd)));
      }
    }
    return struct;
  }

  private Object value(Schema s, Object v) {
    String name = s.name();
    if (Decimal.LOGICAL_NAME.equals(name)) {
      return new BigDecimal(new BigInteger(((ByteString) v).toByteArray()),
          Integer.parseInt(s.parameters().get(Decimal.SCALE_FIELD)));
    }
    if (Date.LOGICAL_NAME.equals(name)) {
      return Date.toLogical(s, (Integer) v);
    }
    if (Time.LOGICAL_NAME.equals(name)) {
      return Time.toLogical(s, (Integer) v);
    }
    if (Timestamp.LOGICAL_NAME.equals(name)) {
      return Timestamp.toLogical(s, (Long) v);
    }
    return switch (s.type()) {
      case INT8 -> ((Integer) v).byteValue();
      case INT16 -> ((Integer) v).shortValue();
      case BYTES -> ((ByteString) v).toByteArray();
      case STRING -> v instanceof EnumValueDescriptor e ? e.getName() : v;
      case STRUCT -> connectValue(s, (DynamicMessage) v);
      default -> v;
    };
  }
}
