package io.sluice.serde.connect;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.UnknownFieldSet;
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
 * <p>Nullable array elements and map values ({@code wrapper.for.nullables}, on by default here, off in Confluent's
 * converter) are Google's wrapper messages ({@code google.protobuf.Int32Value} …), as Confluent's converter writes
 * them; a null element or map value (of a wrapper or of a struct's message) is that message holding only field
 * {@value #NULL_MARK}, the varint 1, which a Protobuf reader that does not know it keeps as an unknown field (it reads
 * the type's default there, as Confluent's converter does). A repeated field has no null, so a null optional array or
 * map is its message's field {@value #NULL_FIELDS}, a varint holding the array's or map's field number, once per such
 * field, after the message's own fields (where {@code DynamicMessage} writes unknown fields); Sluice reads a field
 * named there that holds no element as null, while a reader that does not know the mark (Confluent's converter,
 * protoc's classes, an older Sluice) keeps it as an unknown field and reads the empty list it always read. Neither
 * mark is declared in the schema text, so subjects registered before them stay as they are. What Protobuf's
 * types do not say of a schema travels in the field's metadata: its own name, version, doc, parameters, default
 * ({@code connect.default}, as JSON) and, where the Protobuf form leaves it open, whether it is optional
 * ({@code connect.optional}); an array's element's under {@code element.}, a map's key's and value's under
 * {@code key.} and {@code value.}.
 *
 * <p>Not representable, refused with a {@link DataException}: a top level that is not a struct, arrays of arrays or
 * maps, maps with non-scalar keys or with array or map values, and null scalar elements and map values when wrappers
 * are off.
 */
final class ConnectProtobuf {
  private static final String META = "confluent.field_meta";
  private static final String MESSAGE_META = "confluent.message_meta";
  private static final String NAME = "connect.name";
  private static final String VERSION = "connect.version";
  private static final String TYPE = "connect.type";
  private static final String DOC = "connect.doc";
  private static final String DEFAULT = "connect.default";
  private static final String OPTIONAL = "connect.optional";
  private static final List<String> NESTED_PREFIXES = List.of("element.", "key.", "value.");
  static final String WRAPPERS_IMPORT = "google/protobuf/wrappers.proto";
  /**
   * The field a message holds alone to say that it stands for null (an array element, a map value): the largest
   * number Protobuf allows, which no field of a wrapper or of a Connect struct's message has.
   */
  static final int NULL_MARK = 536_870_911;
  /**
   * The field a message repeats to name its null optional arrays and maps, one field number each: the number below
   * {@link #NULL_MARK}, which no Connect struct's message reaches either (their fields count from 1). Not NULL_MARK
   * itself: an older Sluice reads a message holding that as null altogether.
   */
  static final int NULL_FIELDS = 536_870_910;
  /** Connect's defaults as JSON text, by the JSON Schema converter's rules, which keep every value exactly. */
  private static final ConnectJsonSchema DEFAULTS = new ConnectJsonSchema();

  /** A Connect schema's Protobuf form: the text to register and the top message to build values with. */
  record Written(String text, Descriptor message) {}

  /** How records of one writer schema read: the Connect schema of the top message. */
  record Read(Descriptor message, Schema schema) {}

  private final Map<Schema, Written> written = new ConcurrentHashMap<>();
  /** Whether nullable array elements and map values are wrapper messages ({@code wrapper.for.nullables}). */
  private final boolean wrappers;

  ConnectProtobuf() {
    this(true);
  }

  ConnectProtobuf(boolean wrappers) {
    this.wrappers = wrappers;
  }

  /** Google's wrapper message of a Connect primitive type, by its full name, or null. */
  static String wrapperOf(Schema.Type type) {
    return switch (type) {
      case INT8, INT16, INT32 -> "google.protobuf.Int32Value";
      case INT64 -> "google.protobuf.Int64Value";
      case FLOAT32 -> "google.protobuf.FloatValue";
      case FLOAT64 -> "google.protobuf.DoubleValue";
      case BOOLEAN -> "google.protobuf.BoolValue";
      case STRING -> "google.protobuf.StringValue";
      case BYTES -> "google.protobuf.BytesValue";
      default -> null;
    };
  }

  /** Whether {@code d} is one of Google's wrappers of a scalar, which stand for that scalar, nullable. */
  static boolean isWrapper(Descriptor d) {
    return d.getFile().getName().equals(WRAPPERS_IMPORT) && d.getFields().size() == 1;
  }

  // ---- Connect → Protobuf -----------------------------------------------------------------------------------------

  Written written(Schema schema) {
    return written(schema, Numbering.NONE);
  }

  /** As {@link #written(Schema)}, numbering fields as {@code earlier} did where it has them; once per schema. */
  Written written(Schema schema, Numbering earlier) {
    return written.computeIfAbsent(schema, s -> write(s, wrappers, earlier));
  }

  /**
   * The field numbers an earlier version of a subject gave, by message name (as this class names messages in a file)
   * and field name, and the numbers it reserved. A field keeps its number from version to version; a new field takes
   * the next number none had; the number of a field that is gone is reserved. Numbered from 1 in order instead, a
   * column dropped at the source would move every later field to the number of another, which the registry rightly
   * refuses as a change of kind, and a reader of the old version would misread.
   */
  record Numbering(Map<String, Map<String, Integer>> numbers, Map<String, java.util.Set<Integer>> reserved) {
    static final Numbering NONE = new Numbering(Map.of(), Map.of());

    /** The numbering of a registered file's messages: its top message's and those nested in it. */
    static Numbering of(Descriptor top) {
      Map<String, Map<String, Integer>> numbers = new java.util.HashMap<>();
      Map<String, java.util.Set<Integer>> reserved = new java.util.HashMap<>();
      List<Descriptor> all = new ArrayList<>(List.of(top));
      all.addAll(top.getNestedTypes());
      for (Descriptor d : all) {
        Map<String, Integer> fields = new java.util.HashMap<>();
        d.getFields().forEach(f -> fields.put(f.getName(), f.getNumber()));
        numbers.put(d.getName(), fields);
        java.util.Set<Integer> r = new java.util.TreeSet<>();
        d.toProto().getReservedRangeList().forEach(range -> {
          for (int n = range.getStart(); n < range.getEnd() && n - range.getStart() < 10_000; n++) {
            r.add(n);
          }
        });
        reserved.put(d.getName(), r);
      }
      return new Numbering(numbers, reserved);
    }
  }

  /** The full name of the top message a struct of {@code schema} is written as. */
  static String messageName(Schema schema) {
    String fullName = schema.name() == null ? "ConnectDefault" : schema.name();
    int dot = fullName.lastIndexOf('.');
    String top = identifier(fullName.substring(dot + 1));
    return dot < 0 ? top : identifierPath(fullName.substring(0, dot)) + "." + top;
  }

  private static Written write(Schema schema, boolean wrappers, Numbering earlier) {
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
    out.append("import \"").append(ProtobufSchemaProvider.CONFLUENT_META).append("\";\n");
    StringBuilder body = new StringBuilder();
    boolean[] wrapped = new boolean[1];
    message(body, schema, top, nested, "", true, wrappers, wrapped, earlier);
    if (wrapped[0]) {
      out.append("import \"").append(WRAPPERS_IMPORT).append("\";\n");
    }
    String text = out.append('\n').append(body).toString();
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
      String indent, boolean top, boolean wrappers, boolean[] wrapped, Numbering earlier) {
    out.append(indent).append("message ").append(name).append(" {\n");
    String inner = indent + "  ";
    Map<String, String> meta = meta(schema, false);
    if (!meta.isEmpty()) {
      out.append(inner).append("option (").append(MESSAGE_META).append(") = ").append(metaText(meta)).append(";\n");
    }
    if (top) {
      nested.forEach((s, n) -> message(out, s, n, nested, inner, false, wrappers, wrapped, earlier));
    }
    Map<String, Integer> numbers = earlier.numbers().getOrDefault(name, Map.of());
    java.util.Set<Integer> reserved = new java.util.TreeSet<>(earlier.reserved().getOrDefault(name, java.util.Set.of()));
    int next = 1 + java.util.stream.Stream.concat(numbers.values().stream(), reserved.stream())
        .mapToInt(Integer::intValue).max().orElse(0);
    java.util.Set<Integer> used = new java.util.HashSet<>();
    for (Field f : schema.fields()) {
      Schema fs = f.schema();
      out.append(inner);
      Map<String, String> fm = meta(fs, true);
      switch (fs.type()) {
        case ARRAY -> {
          Schema element = fs.valueSchema();
          if (element.type() == Schema.Type.ARRAY || element.type() == Schema.Type.MAP) {
            throw new DataException("Field " + f.name() + ": Protobuf has no array of " + element.type());
          }
          String type = nullable(element, nested, wrappers, wrapped);
          out.append("repeated ").append(type);
          optionalUnlessInferred(fm, fs, true);
          Map<String, String> em = meta(element, true);
          optionalUnlessInferred(em, element, type.startsWith("google.protobuf."));
          fm.putAll(prefixed("element.", em));
        }
        case MAP -> {
          Schema k = fs.keySchema();
          Schema v = fs.valueSchema();
          if (!List.of(Schema.Type.STRING, Schema.Type.INT8, Schema.Type.INT16, Schema.Type.INT32, Schema.Type.INT64,
              Schema.Type.BOOLEAN).contains(k.type()) || v.type() == Schema.Type.ARRAY || v.type() == Schema.Type.MAP) {
            throw new DataException("Field " + f.name() + ": Protobuf maps take scalar keys and no array or map "
                + "values");
          }
          String valueType = nullable(v, nested, wrappers, wrapped);
          out.append("map<").append(type(k, nested)).append(", ").append(valueType).append('>');
          optionalUnlessInferred(fm, fs, true);
          Map<String, String> km = meta(k, true);
          optionalUnlessInferred(km, k, false);
          fm.putAll(prefixed("key.", km));
          Map<String, String> vm = meta(v, true);
          optionalUnlessInferred(vm, v, v.type() == Schema.Type.STRUCT || valueType.startsWith("google.protobuf."));
          fm.putAll(prefixed("value.", vm));
        }
        case STRUCT -> {
          out.append(type(fs, nested));
          optionalUnlessInferred(fm, fs, true);
        }
        default -> out.append(fs.isOptional() ? "optional " : "").append(type(fs, nested));
      }
      Integer kept = numbers.get(identifier(f.name()));
      int number = kept != null && used.add(kept) ? kept : next++;
      used.add(number);
      out.append(' ').append(identifier(f.name())).append(" = ").append(number);
      if (!fm.isEmpty()) {
        out.append(" [(").append(META).append(") = ").append(metaText(fm)).append(']');
      }
      out.append(";\n");
    }
    numbers.values().stream().filter(n -> !used.contains(n)).forEach(reserved::add);
    if (!reserved.isEmpty()) {
      out.append(inner).append("reserved ").append(reserved.stream().map(String::valueOf)
          .collect(java.util.stream.Collectors.joining(", "))).append(";\n");
    }
    out.append(indent).append("}\n");
  }

  /** An array element's or map value's type: a wrapper where it is a nullable primitive and wrappers are on. */
  private static String nullable(Schema s, Map<Schema, String> nested, boolean wrappers, boolean[] wrapped) {
    String wrapper = wrapperOf(s.type());
    if (wrappers && s.isOptional() && wrapper != null) {
      wrapped[0] = true;
      return wrapper;
    }
    return type(s, nested);
  }

  /** Says whether {@code s} is optional where a reader would otherwise take it to be {@code inferred}. */
  private static void optionalUnlessInferred(Map<String, String> meta, Schema s, boolean inferred) {
    if (s.isOptional() != inferred) {
      meta.put(OPTIONAL, String.valueOf(s.isOptional()));
    }
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
    if (s.doc() != null) {
      m.put(DOC, s.doc());
    }
    if (s.type() == Schema.Type.INT8 || s.type() == Schema.Type.INT16) {
      m.put(TYPE, s.type().getName());
    }
    if (s.parameters() != null) {
      m.putAll(s.parameters());
    }
    if (s.defaultValue() != null && s.type() != Schema.Type.STRUCT) {
      // A text's own characters, not a JSON string: the registry's stored form of a .proto does not keep a quote
      // escaped inside an option's string, so a quoted default would not parse there once stored.
      com.fasterxml.jackson.databind.JsonNode json = DEFAULTS.jsonValue(s, s.defaultValue());
      m.put(DEFAULT, json.isTextual() ? json.textValue() : json.toString());
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
    UnknownFieldSet.Field.Builder nulls = null;
    for (int i = 0; i < fields.size(); i++) {
      Field f = fields.get(i);
      FieldDescriptor fd = d.getFields().get(i); // declared in the struct's order, numbered as Numbering says
      Object v = ConnectValues.get(struct, f);
      if (v == null) {
        if (f.schema().type() == Schema.Type.ARRAY || f.schema().type() == Schema.Type.MAP) {
          // A required one left null (no default to take) stays the empty list it always was: it cannot read null.
          if (f.schema().isOptional()) {
            nulls = nulls == null ? UnknownFieldSet.Field.newBuilder() : nulls;
            nulls.addVarint(fd.getNumber());
          }
        } else if (!f.schema().isOptional()) {
          throw new DataException("Conversion error: null value for field " + f.name() + " that is required");
        }
        continue;
      }
      switch (f.schema().type()) {
        case ARRAY -> {
          for (Object item : (Collection<?>) v) {
            if (item == null) {
              if (fd.getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
                throw new DataException("Field " + f.name() + ": Protobuf cannot hold a null array element without "
                    + "wrapper.for.nullables");
              }
              b.addRepeatedField(fd, nullMessage(fd.getMessageType()));
              continue;
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
            } else if (entry.findFieldByNumber(2).getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
              throw new DataException("Field " + f.name() + ": Protobuf cannot hold a null map value without "
                  + "wrapper.for.nullables");
            } else {
              eb.setField(entry.findFieldByNumber(2), nullMessage(entry.findFieldByNumber(2).getMessageType()));
            }
            b.addRepeatedField(fd, eb.build());
          }
        }
        default -> b.setField(fd, scalarOrMessage(f.schema(), fd, v));
      }
    }
    if (nulls != null) {
      b.setUnknownFields(UnknownFieldSet.newBuilder().addField(NULL_FIELDS, nulls.build()).build());
    }
    return b.build();
  }

  /** The field numbers {@code message} names as null arrays and maps in field {@value #NULL_FIELDS}. */
  private static List<Long> nullFields(DynamicMessage message) {
    UnknownFieldSet unknown = message.getUnknownFields();
    return unknown.hasField(NULL_FIELDS) ? unknown.getField(NULL_FIELDS).getVarintList() : List.of();
  }

  /** Whether {@code fd} holds values of {@code s} in a wrapper message. */
  private static boolean isWrapped(FieldDescriptor fd, Schema s) {
    return fd.getJavaType() == FieldDescriptor.JavaType.MESSAGE && s.type() != Schema.Type.STRUCT
        && isWrapper(fd.getMessageType());
  }

  /** A null element or map value: its message holding only field {@value #NULL_MARK}, the varint 1. */
  private static DynamicMessage nullMessage(Descriptor message) {
    return DynamicMessage.newBuilder(message).setUnknownFields(UnknownFieldSet.newBuilder()
        .addField(NULL_MARK, UnknownFieldSet.Field.newBuilder().addVarint(1).build()).build()).build();
  }

  private Object scalarOrMessage(Schema s, FieldDescriptor fd, Object v) {
    if (isWrapped(fd, s)) {
      FieldDescriptor inner = fd.getMessageType().findFieldByNumber(1);
      return DynamicMessage.newBuilder(fd.getMessageType()).setField(inner, scalarOrMessage(s, inner, v)).build();
    }
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
    return connectSchema(message, text, true);
  }

  /**
   * The Connect schema of {@code message}; with {@code wrappers}, a field of one of Google's wrapper types is its
   * wrapped type, optional (as Confluent's converter reads it with {@code wrapper.for.nullables}).
   */
  static Schema connectSchema(Descriptor message, String text, boolean wrappers) {
    Map<String, Map<String, String>> meta = new HashMap<>();
    ProtoFileElement file = ProtoParser.Companion.parse(Location.get("writer.proto"), text);
    String pkg = file.getPackageName() == null ? "" : file.getPackageName() + ".";
    for (TypeElement t : file.getTypes()) {
      collectMeta(t, pkg + t.getName(), meta);
    }
    return connect(message, meta, false, new Reading(new HashMap<>(), wrappers));
  }

  /** What reading one message's schema keeps: the schemas built so far, and whether wrappers stand for scalars. */
  private record Reading(Map<String, Schema> done, boolean wrappers) {}

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
      Reading r) {
    Map<String, Schema> done = r.done();
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
      b.field(f.getName(), field(f, fm, meta, r));
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
      Reading r) {
    if (f.isMapField()) {
      Descriptor entry = f.getMessageType();
      FieldDescriptor vd = entry.findFieldByNumber(2);
      SchemaBuilder b = SchemaBuilder.map(scalar(entry.findFieldByNumber(1), under("key.", fm), false, meta, r),
          scalar(vd, under("value.", fm), vd.getJavaType() == FieldDescriptor.JavaType.MESSAGE, meta, r));
      return withOwnMeta(b, fm, true);
    }
    if (f.isRepeated()) {
      boolean wrapped = r.wrappers() && f.getJavaType() == FieldDescriptor.JavaType.MESSAGE
          && isWrapper(f.getMessageType());
      return withOwnMeta(SchemaBuilder.array(scalar(f, under("element.", fm), wrapped, meta, r)), fm, true);
    }
    return scalar(f, fm, f.getJavaType() == FieldDescriptor.JavaType.MESSAGE || f.hasPresence(), meta, r);
  }

  /** The entries of {@code fm} under {@code prefix}, without it. */
  private static Map<String, String> under(String prefix, Map<String, String> fm) {
    Map<String, String> out = new LinkedHashMap<>();
    fm.forEach((k, v) -> {
      if (k.startsWith(prefix)) {
        out.put(k.substring(prefix.length()), v);
      }
    });
    return out;
  }

  /** An array's or map's own name, version, doc, parameters, optional flag ({@code inferred} unless said), default. */
  private static Schema withOwnMeta(SchemaBuilder b, Map<String, String> fm, boolean inferred) {
    Map<String, String> m = new LinkedHashMap<>(fm);
    String name = m.remove(NAME);
    if (name != null) {
      b.name(name);
    }
    String optional = m.remove(OPTIONAL);
    String dflt = m.remove(DEFAULT);
    applyMeta(b, m);
    if (optional != null ? Boolean.parseBoolean(optional) : inferred) {
      b.optional();
    }
    return withDefault(b, dflt);
  }

  /** {@code b} with the default {@link #meta} wrote: text as it is for strings, floats and bytes, else JSON. */
  private static Schema withDefault(SchemaBuilder b, String said) {
    if (said == null) {
      return b.build();
    }
    boolean text = switch (b.type()) {
      case STRING, FLOAT32, FLOAT64 -> true;
      case BYTES -> !Decimal.LOGICAL_NAME.equals(b.name());
      default -> false;
    };
    try {
      com.fasterxml.jackson.databind.JsonNode json = text
          ? com.fasterxml.jackson.databind.node.TextNode.valueOf(said) : io.sluice.serde.SerdeConfig.JSON.readTree(said);
      return b.defaultValue(DEFAULTS.connectValue(b.build(), json)).build();
    } catch (java.io.IOException | RuntimeException e) {
      throw new DataException("Default " + said + " of a " + b.type() + " does not read: " + e.getMessage(), e);
    }
  }

  private static Schema scalar(FieldDescriptor f, Map<String, String> fieldMeta, boolean optional,
      Map<String, Map<String, String>> meta, Reading r) {
    Map<String, String> m = new LinkedHashMap<>(fieldMeta);
    String said = m.remove(OPTIONAL);
    if (said != null) {
      optional = Boolean.parseBoolean(said);
    }
    if (f.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
      if (!r.wrappers() || !isWrapper(f.getMessageType())) {
        return connect(f.getMessageType(), meta, optional, r);
      }
      f = f.getMessageType().findFieldByNumber(1); // a wrapper: its scalar, nullable
      if (said == null) {
        optional = true;
      }
    }
    String name = m.remove(NAME);
    String smallInt = m.remove(TYPE);
    String dflt = m.remove(DEFAULT);
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
    return withDefault(b, dflt);
  }

  private static void applyMeta(SchemaBuilder b, Map<String, String> m) {
    String version = m.remove(VERSION);
    if (version != null) {
      b.version(Integer.parseInt(version));
    }
    String doc = m.remove(DOC);
    if (doc != null) {
      b.doc(doc);
    }
    m.remove(OPTIONAL);
    m.remove(DEFAULT);
    m.forEach((k, v) -> {
      if (NESTED_PREFIXES.stream().noneMatch(k::startsWith)) {
        b.parameter(k, v);
      }
    });
  }

  Object connectValue(Schema schema, DynamicMessage message) {
    Struct struct = new Struct(schema);
    Descriptor d = message.getDescriptorForType();
    List<Long> nulls = nullFields(message);
    for (Field f : schema.fields()) {
      FieldDescriptor fd = d.findFieldByName(f.name());
      if (fd.isRepeated()) {
        int n = message.getRepeatedFieldCount(fd);
        // Elements win over the mark: a reader that kept the mark as an unknown field may have added some since.
        if (n == 0 && f.schema().isOptional() && nulls.contains((long) fd.getNumber())) {
          struct.put(f, null);
        } else if (fd.isMapField()) {
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
    if (v instanceof DynamicMessage m && m.getUnknownFields().hasField(NULL_MARK)) {
      return null;
    }
    if (v instanceof DynamicMessage m && s.type() != Schema.Type.STRUCT) { // a wrapper
      v = m.getField(m.getDescriptorForType().findFieldByNumber(1));
    }
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
