package io.sluice.serde.connect;

import io.sluice.serde.avro.AvroSchemas;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.JsonProperties;
import org.apache.avro.LogicalTypes;
import org.apache.avro.generic.GenericEnumSymbol;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.GenericRecord;
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
 * Translates between Kafka Connect's data (schemas and values) and Avro's, under the conventions Confluent's Avro
 * converter uses on the wire, so schemas Sluice registers read the same to any Confluent-compatible consumer: an
 * optional field is the union {@code ["null", T]} with default null, INT8/INT16 are Avro ints marked
 * {@code connect.type}, Connect's Decimal, Date, Time and Timestamp are Avro's decimal, date, time-millis and
 * timestamp-millis, a map with non-string keys is an array of {@code io.confluent.connect.avro.MapEntry} records, and
 * a Connect schema's name, version, doc and parameters travel as {@code connect.name}, {@code connect.version},
 * {@code connect.doc} and {@code connect.parameters}. That last rule is what keeps Debezium's semantic types
 * ({@code io.debezium.time.MicroTimestamp} on an INT64, {@code io.debezium.data.Json} on a STRING, ...) intact from
 * source to sink: microseconds stay microseconds, and the sink sees the same names the source wrote.
 *
 * <p>Translations are cached per schema object (Connect) and per writer schema (Avro); both are immutable. Values go
 * to Avro through {@link ConnectAvroWriter}, straight into Avro binary; they come back here, from Avro's generic data.
 */
final class ConnectAvro {
  static final String CONNECT_NAME = "connect.name";
  static final String CONNECT_VERSION = "connect.version";
  static final String CONNECT_DOC = "connect.doc";
  /** A default where Avro has no field to hold it (an array's element, a map's key or value), as Confluent's. */
  static final String CONNECT_DEFAULT = "connect.default";
  static final String CONNECT_PARAMETERS = "connect.parameters";
  static final String CONNECT_TYPE = "connect.type";
  static final String MAP_ENTRY = "io.confluent.connect.avro.MapEntry";
  static final String DEFAULT_RECORD = "io.confluent.connect.avro.ConnectDefault";
  /** Connect's Decimal carries no precision; Confluent writes this one unless {@code connect.decimal.precision} says. */
  static final int DEFAULT_DECIMAL_PRECISION = 64;
  private static final String DECIMAL_PRECISION = "connect.decimal.precision";

  private final Map<Schema, org.apache.avro.Schema> toAvro = new ConcurrentHashMap<>();
  private final Map<org.apache.avro.Schema, Schema> toConnect = new ConcurrentHashMap<>();

  // ---- Connect → Avro -------------------------------------------------------------------------------------------

  org.apache.avro.Schema avroSchema(Schema schema) {
    org.apache.avro.Schema known = toAvro.get(schema);
    if (known != null) {
      return known;
    }
    // The top level is never a union: a tombstone is a null message, not a null inside one (Confluent's rule too).
    org.apache.avro.Schema avro = avro(schema, new Names(), false);
    toAvro.put(schema, avro);
    return avro;
  }

  /** Record names already defined in one Avro schema: a name may be defined once and referred to after. */
  private static final class Names {
    final Map<String, Schema> byName = new HashMap<>();
    final Map<Schema, org.apache.avro.Schema> defined = new HashMap<>();
    int defaults;
  }

  private org.apache.avro.Schema avro(Schema schema, Names names, boolean nullable) {
    org.apache.avro.Schema base = nonNull(schema, names);
    if (nullable && schema.isOptional()) {
      return org.apache.avro.Schema.createUnion(org.apache.avro.Schema.create(org.apache.avro.Schema.Type.NULL), base);
    }
    return base;
  }

  private org.apache.avro.Schema nonNull(Schema schema, Names names) {
    String name = schema.name();
    org.apache.avro.Schema out;
    if (Decimal.LOGICAL_NAME.equals(name)) {
      int scale = Integer.parseInt(schema.parameters().get(Decimal.SCALE_FIELD));
      String p = schema.parameters().get(DECIMAL_PRECISION);
      out = org.apache.avro.Schema.create(org.apache.avro.Schema.Type.BYTES);
      LogicalTypes.decimal(p == null ? DEFAULT_DECIMAL_PRECISION : Integer.parseInt(p), scale).addToSchema(out);
    } else if (Date.LOGICAL_NAME.equals(name)) {
      out = LogicalTypes.date().addToSchema(org.apache.avro.Schema.create(org.apache.avro.Schema.Type.INT));
    } else if (Time.LOGICAL_NAME.equals(name)) {
      out = LogicalTypes.timeMillis().addToSchema(org.apache.avro.Schema.create(org.apache.avro.Schema.Type.INT));
    } else if (Timestamp.LOGICAL_NAME.equals(name)) {
      out = LogicalTypes.timestampMillis().addToSchema(org.apache.avro.Schema.create(org.apache.avro.Schema.Type.LONG));
    } else {
      out = switch (schema.type()) {
        case INT8, INT16 -> {
          org.apache.avro.Schema s = org.apache.avro.Schema.create(org.apache.avro.Schema.Type.INT);
          s.addProp(CONNECT_TYPE, schema.type().getName());
          yield s;
        }
        case INT32 -> org.apache.avro.Schema.create(org.apache.avro.Schema.Type.INT);
        case INT64 -> org.apache.avro.Schema.create(org.apache.avro.Schema.Type.LONG);
        case FLOAT32 -> org.apache.avro.Schema.create(org.apache.avro.Schema.Type.FLOAT);
        case FLOAT64 -> org.apache.avro.Schema.create(org.apache.avro.Schema.Type.DOUBLE);
        case BOOLEAN -> org.apache.avro.Schema.create(org.apache.avro.Schema.Type.BOOLEAN);
        case STRING -> org.apache.avro.Schema.create(org.apache.avro.Schema.Type.STRING);
        case BYTES -> org.apache.avro.Schema.create(org.apache.avro.Schema.Type.BYTES);
        case ARRAY -> org.apache.avro.Schema.createArray(avro(schema.valueSchema(), names, true));
        case MAP -> schema.keySchema().type() == Schema.Type.STRING && !schema.keySchema().isOptional()
            ? org.apache.avro.Schema.createMap(avro(schema.valueSchema(), names, true))
            : org.apache.avro.Schema.createArray(mapEntry(schema, names));
        case STRUCT -> record(schema, names);
      };
      if (out.getType() == org.apache.avro.Schema.Type.RECORD) {
        return out; // a record carries its Connect metadata itself, once, where it is defined
      }
    }
    return withConnectProps(out, schema);
  }

  private org.apache.avro.Schema mapEntry(Schema schema, Names names) {
    org.apache.avro.Schema entry = org.apache.avro.Schema.createRecord("MapEntry", null, "io.confluent.connect.avro",
        false);
    entry.setFields(List.of(
        new org.apache.avro.Schema.Field("key", avro(schema.keySchema(), names, true), null, nullDefault(schema.keySchema())),
        new org.apache.avro.Schema.Field("value", avro(schema.valueSchema(), names, true), null,
            nullDefault(schema.valueSchema()))));
    return entry;
  }

  private org.apache.avro.Schema record(Schema schema, Names names) {
    org.apache.avro.Schema defined = names.defined.get(schema);
    if (defined != null) {
      return defined;
    }
    String connectName = schema.name();
    String fullName = connectName == null ? DEFAULT_RECORD + (names.defaults++ == 0 ? "" : String.valueOf(names.defaults))
        : AvroNames.adjust(connectName);
    // Two different structs under one name get the later one numbered, as Avro allows a name to be defined only
    // once per schema (Debezium's before/after are one struct, defined once and referred to after).
    if (names.byName.containsKey(fullName)) {
      int n = 2;
      while (names.byName.containsKey(fullName + n)) {
        n++;
      }
      fullName = fullName + n;
    }
    int dot = fullName.lastIndexOf('.');
    org.apache.avro.Schema record = org.apache.avro.Schema.createRecord(fullName.substring(dot + 1), schema.doc(),
        dot < 0 ? null : fullName.substring(0, dot), false);
    names.byName.put(fullName, schema);
    names.defined.put(schema, record);
    List<org.apache.avro.Schema.Field> fields = new ArrayList<>();
    for (Field f : schema.fields()) {
      org.apache.avro.Schema fs = avro(f.schema(), names, true);
      Object dflt = f.schema().defaultValue() != null ? jsonDefault(f.schema(), f.schema().defaultValue())
          : nullDefault(f.schema());
      if (dflt != null && dflt != JsonProperties.NULL_VALUE && fs.getType() == org.apache.avro.Schema.Type.UNION) {
        // A union's default must match its first branch: put the value's branch first.
        List<org.apache.avro.Schema> branches = new ArrayList<>(fs.getTypes());
        java.util.Collections.reverse(branches);
        fs = org.apache.avro.Schema.createUnion(branches);
      }
      fields.add(new org.apache.avro.Schema.Field(AvroNames.adjust(f.name()), fs, f.schema().doc(), dflt));
    }
    record.setFields(fields);
    if (connectName != null) {
      record.addProp(CONNECT_NAME, connectName);
    }
    addMetadata(record, schema);
    return record;
  }

  private static Object nullDefault(Schema schema) {
    return schema.isOptional() ? JsonProperties.NULL_VALUE : null;
  }

  /**
   * A Connect default as Avro writes it, as Confluent's AvroData writes it: a logical type's default in the Avro
   * encoding of that type (a Decimal's unscaled two's-complement bytes, a Date's days since the epoch, a Time's
   * milliseconds of the day, a Timestamp's milliseconds since the epoch), bytes as Avro's JSON says bytes; null where
   * Avro has no default here (arrays, maps, structs).
   */
  private static Object jsonDefault(Schema schema, Object value) {
    String name = schema.name();
    if (Decimal.LOGICAL_NAME.equals(name)) {
      return value instanceof BigDecimal d ? bytesDefault(Decimal.fromLogical(schema, d)) : null;
    }
    if (Date.LOGICAL_NAME.equals(name)) {
      return value instanceof java.util.Date d ? Date.fromLogical(schema, d) : null;
    }
    if (Time.LOGICAL_NAME.equals(name)) {
      return value instanceof java.util.Date d ? Time.fromLogical(schema, d) : null;
    }
    if (Timestamp.LOGICAL_NAME.equals(name)) {
      return value instanceof java.util.Date d ? Timestamp.fromLogical(schema, d) : null;
    }
    return switch (schema.type()) {
      case INT8, INT16 -> ((Number) value).intValue();
      case INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING -> value;
      case BYTES -> bytesDefault(value instanceof ByteBuffer b ? bytes(b) : (byte[]) value);
      default -> null;
    };
  }

  private static org.apache.avro.Schema withConnectProps(org.apache.avro.Schema avro, Schema schema) {
    if (schema.name() != null && !isLogical(schema.name())) {
      avro.addProp(CONNECT_NAME, schema.name());
    }
    addMetadata(avro, schema);
    return avro;
  }

  private static void addMetadata(org.apache.avro.Schema avro, Schema schema) {
    if (schema.version() != null) {
      avro.addProp(CONNECT_VERSION, schema.version());
    }
    if (schema.defaultValue() != null && avro.getType() != org.apache.avro.Schema.Type.RECORD) {
      Object dflt = jsonDefault(schema, schema.defaultValue());
      if (dflt != null) {
        avro.addProp(CONNECT_DEFAULT, dflt);
      }
    }
    if (schema.doc() != null && avro.getType() != org.apache.avro.Schema.Type.RECORD) {
      avro.addProp(CONNECT_DOC, schema.doc());
    }
    // A Decimal's too, as Confluent's AvroData writes them: besides scale and precision, which Avro's decimal says,
    // Debezium's column parameters (__debezium.source.column.type, length, scale) decide the sink's column type.
    if (schema.parameters() != null && !schema.parameters().isEmpty()) {
      avro.addProp(CONNECT_PARAMETERS, new LinkedHashMap<>(schema.parameters()));
    }
  }

  private static boolean isLogical(String name) {
    return Decimal.LOGICAL_NAME.equals(name) || Date.LOGICAL_NAME.equals(name) || Time.LOGICAL_NAME.equals(name)
        || Timestamp.LOGICAL_NAME.equals(name);
  }

  // ---- Avro → Connect -------------------------------------------------------------------------------------------

  Schema connectSchema(org.apache.avro.Schema avro) {
    Schema known = toConnect.get(avro);
    if (known != null) {
      return known;
    }
    Schema schema = connect(avro, false, new HashMap<>());
    toConnect.put(avro, schema);
    return schema;
  }

  private Schema connect(org.apache.avro.Schema avro, boolean optional, Map<String, Schema> records) {
    SchemaBuilder b;
    switch (avro.getType()) {
      case UNION -> {
        List<org.apache.avro.Schema> branches = avro.getTypes();
        List<org.apache.avro.Schema> nonNull = branches.stream()
            .filter(s -> s.getType() != org.apache.avro.Schema.Type.NULL).toList();
        if (nonNull.size() != 1) {
          throw new DataException("Unsupported Avro union " + avro + ": only a union of null and one type maps to "
              + "a Connect schema");
        }
        return connect(nonNull.get(0), optional || branches.size() > 1, records);
      }
      case RECORD -> {
        String key = avro.getFullName() + (optional ? "?" : "");
        Schema seen = records.get(key);
        if (seen != null) {
          return seen;
        }
        b = SchemaBuilder.struct();
        String name = avro.getProp(CONNECT_NAME);
        if (!avro.getFullName().startsWith(DEFAULT_RECORD)) {
          b.name(name != null ? name : avro.getFullName());
        }
        if (avro.getDoc() != null) {
          b.doc(avro.getDoc());
        }
        for (org.apache.avro.Schema.Field f : avro.getFields()) {
          Schema fs = connect(f.schema(), false, records);
          b.field(f.name(), f.hasDefaultValue() && f.defaultVal() != JsonProperties.NULL_VALUE && f.defaultVal() != null
              ? withDefault(fs, f.defaultVal()) : fs);
        }
      }
      case ARRAY -> {
        org.apache.avro.Schema element = avro.getElementType();
        if (element.getType() == org.apache.avro.Schema.Type.RECORD && MAP_ENTRY.equals(element.getFullName())) {
          b = SchemaBuilder.map(connect(element.getField("key").schema(), false, records),
              connect(element.getField("value").schema(), false, records));
        } else {
          b = SchemaBuilder.array(connect(element, false, records));
        }
      }
      case MAP -> b = SchemaBuilder.map(Schema.STRING_SCHEMA, connect(avro.getValueType(), false, records));
      case INT -> {
        String lt = avro.getLogicalType() == null ? null : avro.getLogicalType().getName();
        String ct = avro.getProp(CONNECT_TYPE);
        b = "date".equals(lt) ? Date.builder() : "time-millis".equals(lt) ? Time.builder()
            : "int8".equals(ct) ? SchemaBuilder.int8() : "int16".equals(ct) ? SchemaBuilder.int16()
            : SchemaBuilder.int32();
      }
      case LONG -> b = avro.getLogicalType() != null && "timestamp-millis".equals(avro.getLogicalType().getName())
          ? Timestamp.builder() : SchemaBuilder.int64();
      case FLOAT -> b = SchemaBuilder.float32();
      case DOUBLE -> b = SchemaBuilder.float64();
      case BOOLEAN -> b = SchemaBuilder.bool();
      case STRING -> b = SchemaBuilder.string();
      case ENUM -> {
        b = SchemaBuilder.string().name(avro.getFullName());
      }
      case BYTES, FIXED -> {
        if (avro.getLogicalType() instanceof LogicalTypes.Decimal d) {
          b = Decimal.builder(d.getScale());
          if (d.getPrecision() != DEFAULT_DECIMAL_PRECISION) {
            b.parameter(DECIMAL_PRECISION, String.valueOf(d.getPrecision()));
          }
        } else {
          b = SchemaBuilder.bytes();
        }
      }
      case NULL -> throw new DataException("A bare Avro null has no Connect schema");
      default -> throw new DataException("Unsupported Avro type " + avro.getType());
    }
    if (avro.getType() != org.apache.avro.Schema.Type.RECORD) {
      String name = avro.getProp(CONNECT_NAME);
      if (name != null) {
        b.name(name);
      }
      String doc = avro.getProp(CONNECT_DOC);
      if (doc != null) {
        b.doc(doc);
      }
    }
    Object version = avro.getObjectProp(CONNECT_VERSION);
    if (version instanceof Number n) {
      b.version(n.intValue());
    }
    if (avro.getObjectProp(CONNECT_PARAMETERS) instanceof Map<?, ?> params) {
      params.forEach((k, v) -> b.parameter(String.valueOf(k), String.valueOf(v)));
    }
    if (optional) {
      b.optional();
    }
    Schema built = b.build();
    Object connectDefault = avro.getObjectProp(CONNECT_DEFAULT);
    if (connectDefault != null && avro.getType() != org.apache.avro.Schema.Type.RECORD) {
      built = withDefault(built, connectDefault);
    }
    if (avro.getType() == org.apache.avro.Schema.Type.RECORD) {
      records.put(avro.getFullName() + (optional ? "?" : ""), built);
    }
    return built;
  }

  /** {@code schema} with the Connect value of an Avro default ({@link #jsonDefault}'s encoding read back). */
  private static Schema withDefault(Schema schema, Object avroDefault) {
    Object v = connectDefault(schema, avroDefault);
    if (v == null) {
      return schema;
    }
    SchemaBuilder b = new SchemaBuilder(schema.type()).name(schema.name()).version(schema.version()).doc(schema.doc());
    if (schema.parameters() != null) {
      b.parameters(schema.parameters());
    }
    if (schema.isOptional()) {
      b.optional();
    }
    return b.defaultValue(v).build();
  }

  /**
   * Bytes as Avro's JSON writes them: a string of one ISO-8859-1 code point per byte. Given a {@code byte[]}, Avro's
   * own conversion writes base64, which Avro then refuses as a default.
   */
  private static String bytesDefault(byte[] bytes) {
    return new String(bytes, StandardCharsets.ISO_8859_1);
  }

  private static Object connectDefault(Schema schema, Object avroDefault) {
    String name = schema.name();
    if (Decimal.LOGICAL_NAME.equals(name)) {
      byte[] unscaled = defaultBytes(avroDefault);
      return unscaled == null ? null : Decimal.toLogical(schema, unscaled);
    }
    if (Date.LOGICAL_NAME.equals(name)) {
      return avroDefault instanceof Number n ? Date.toLogical(schema, n.intValue()) : null;
    }
    if (Time.LOGICAL_NAME.equals(name)) {
      return avroDefault instanceof Number n ? Time.toLogical(schema, n.intValue()) : null;
    }
    if (Timestamp.LOGICAL_NAME.equals(name)) {
      return avroDefault instanceof Number n ? Timestamp.toLogical(schema, n.longValue()) : null;
    }
    return switch (schema.type()) {
      case INT8 -> ((Number) avroDefault).byteValue();
      case INT16 -> ((Number) avroDefault).shortValue();
      case INT32 -> ((Number) avroDefault).intValue();
      case INT64 -> ((Number) avroDefault).longValue();
      case FLOAT32 -> ((Number) avroDefault).floatValue();
      case FLOAT64 -> ((Number) avroDefault).doubleValue();
      case BOOLEAN -> avroDefault;
      case STRING -> avroDefault.toString();
      case BYTES -> defaultBytes(avroDefault);
      default -> null;
    };
  }

  /**
   * The bytes of a bytes default: a field's default comes as {@code byte[]} from Avro, a {@code connect.default}
   * property as the JSON string of ISO-8859-1 code points it is written as.
   */
  private static byte[] defaultBytes(Object avroDefault) {
    if (avroDefault instanceof byte[] b) {
      return b;
    }
    if (avroDefault instanceof ByteBuffer b) {
      return bytes(b);
    }
    return avroDefault instanceof CharSequence s ? s.toString().getBytes(StandardCharsets.ISO_8859_1) : null;
  }

  /** The Connect value of an Avro datum read with {@code avro}, for {@code schema = connectSchema(avro)}. */
  Object connectValue(Schema schema, org.apache.avro.Schema avro, Object value) {
    if (value == null) {
      return null;
    }
    avro = AvroSchemas.nonNull(avro);
    String name = schema.name();
    if (Decimal.LOGICAL_NAME.equals(name)) {
      byte[] bytes = value instanceof GenericFixed f ? f.bytes() : bytes((ByteBuffer) value);
      return new BigDecimal(new BigInteger(bytes), Integer.parseInt(schema.parameters().get(Decimal.SCALE_FIELD)));
    }
    if (Date.LOGICAL_NAME.equals(name)) {
      return Date.toLogical(schema, (Integer) value);
    }
    if (Time.LOGICAL_NAME.equals(name)) {
      return Time.toLogical(schema, (Integer) value);
    }
    if (Timestamp.LOGICAL_NAME.equals(name)) {
      return Timestamp.toLogical(schema, (Long) value);
    }
    return switch (schema.type()) {
      case INT8 -> ((Number) value).byteValue();
      case INT16 -> ((Number) value).shortValue();
      case INT32, INT64, FLOAT32, FLOAT64, BOOLEAN -> value;
      case STRING -> value instanceof GenericEnumSymbol<?> || value instanceof CharSequence ? value.toString() : value;
      case BYTES -> value instanceof GenericFixed f ? f.bytes() : bytes((ByteBuffer) value);
      case ARRAY -> {
        Collection<?> in = (Collection<?>) value;
        List<Object> out = new ArrayList<>(in.size());
        for (Object item : in) {
          out.add(connectValue(schema.valueSchema(), avro.getElementType(), item));
        }
        yield out;
      }
      case MAP -> {
        Map<Object, Object> out = new LinkedHashMap<>();
        if (avro.getType() == org.apache.avro.Schema.Type.MAP) {
          org.apache.avro.Schema vs = avro.getValueType();
          ((Map<?, ?>) value).forEach((k, v) -> out.put(k.toString(), connectValue(schema.valueSchema(), vs, v)));
        } else {
          org.apache.avro.Schema entry = avro.getElementType();
          for (Object o : (Collection<?>) value) {
            GenericRecord r = (GenericRecord) o;
            out.put(connectValue(schema.keySchema(), entry.getField("key").schema(), r.get(0)),
                connectValue(schema.valueSchema(), entry.getField("value").schema(), r.get(1)));
          }
        }
        yield out;
      }
      case STRUCT -> {
        GenericRecord r = (GenericRecord) value;
        Struct struct = new Struct(schema);
        List<Field> fields = schema.fields();
        List<org.apache.avro.Schema.Field> avroFields = avro.getFields();
        for (int i = 0; i < fields.size(); i++) {
          Field f = fields.get(i);
          struct.put(f, connectValue(f.schema(), avroFields.get(i).schema(), r.get(i)));
        }
        yield struct;
      }
    };
  }

  /** The remaining bytes of a buffer, its position untouched. */
  static byte[] bytes(ByteBuffer b) {
    ByteBuffer dup = b.duplicate();
    byte[] out = new byte[dup.remaining()];
    dup.get(out);
    return out;
  }
}
