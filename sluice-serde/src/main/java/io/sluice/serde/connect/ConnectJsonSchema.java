package io.sluice.serde.connect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.serde.SerdeConfig;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.Comparator;
import java.util.Iterator;
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
 * Translates between Kafka Connect's data and JSON Schema documents with JSON values, under the conventions of
 * Confluent's JSON Schema converter so either side reads the other's: integers and numbers carry {@code connect.type}
 * (int8 … float64, bytes, map), a struct is an object whose properties carry {@code connect.index}, an optional
 * value is {@code {"oneOf": [{"type": "null"}, …]}}, bytes are base64 strings, a Decimal is a JSON number, and a
 * Connect schema's name, version, doc and parameters are {@code title}, {@code connect.version},
 * {@code description} and {@code connect.parameters}, which keeps Debezium's semantic type names from source to sink.
 * A decimal is exact both ways: written as the JSON number of its {@link BigDecimal} and read by {@link SerdeConfig#JSON}, which
 * parses every number with a fraction as a {@link BigDecimal} (a double would keep some 16 digits of a
 * {@code numeric(20,6)}). A schema's default is its {@code default} both ways; a null in a nullable field with a
 * default stays null (the default is only for a required field left null). NaN and the infinities, which JSON has no
 * number for, are written as Jackson writes them ({@code "NaN"}, {@code "Infinity"}, {@code "-Infinity"}) and read
 * back from those strings, and so is negative zero ({@code "-0.0"}), whose sign a BigDecimal cannot keep.
 * Unlike Confluent's converter, a struct's object is closed ({@code "additionalProperties": false}), so that a column
 * added at the source is a compatible new version (a column dropped is then the incompatible change).
 */
final class ConnectJsonSchema {
  /** Keeps a decimal's digits and scale as given, as {@link SerdeConfig#JSON} does when it reads. */
  private static final JsonNodeFactory F = SerdeConfig.JSON.getNodeFactory();
  private static final String TYPE = "connect.type";
  private static final String INDEX = "connect.index";
  private static final String VERSION = "connect.version";
  private static final String PARAMETERS = "connect.parameters";

  private final Map<Schema, ObjectNode> toJson = new ConcurrentHashMap<>();
  private final Map<JsonNode, Schema> toConnect = new ConcurrentHashMap<>();

  ObjectNode jsonSchema(Schema schema) {
    return toJson.computeIfAbsent(schema, s -> json(s, null));
  }

  private ObjectNode json(Schema schema, Integer index) {
    ObjectNode out = F.objectNode();
    switch (schema.type()) {
      case INT8, INT16, INT32, INT64 -> out.put("type", "integer").put(TYPE, schema.type().getName());
      case FLOAT32, FLOAT64 -> out.put("type", "number").put(TYPE, schema.type().getName());
      case BOOLEAN -> out.put("type", "boolean");
      case STRING -> out.put("type", "string");
      case BYTES -> out.put("type", Decimal.LOGICAL_NAME.equals(schema.name()) ? "number" : "string")
          .put(TYPE, "bytes");
      case ARRAY -> out.put("type", "array").set("items", json(schema.valueSchema(), null));
      case MAP -> {
        if (schema.keySchema().type() == Schema.Type.STRING && !schema.keySchema().isOptional()) {
          out.put("type", "object").put(TYPE, "map").set("additionalProperties", json(schema.valueSchema(), null));
        } else {
          ObjectNode entry = F.objectNode().put("type", "object");
          ObjectNode props = entry.putObject("properties");
          props.set("key", json(schema.keySchema(), 0));
          props.set("value", json(schema.valueSchema(), 1));
          out.put("type", "array").put(TYPE, "map").set("items", entry);
        }
      }
      case STRUCT -> {
        out.put("type", "object");
        ObjectNode props = out.putObject("properties");
        for (Field f : schema.fields()) {
          props.set(f.name(), json(f.schema(), f.index()));
        }
        // A closed content model: under the registry's (Confluent's) rules a property added to an open one is an
        // incompatible change, and a column added at the source must be a compatible new version.
        out.put("additionalProperties", false);
      }
    }
    if (schema.name() != null) {
      out.put("title", schema.name());
    }
    if (schema.version() != null) {
      out.put(VERSION, schema.version());
    }
    if (schema.doc() != null) {
      out.put("description", schema.doc());
    }
    if (schema.parameters() != null && !schema.parameters().isEmpty()) {
      ObjectNode p = out.putObject(PARAMETERS);
      schema.parameters().forEach(p::put);
    }
    if (schema.defaultValue() != null) {
      out.set("default", jsonValue(schema, schema.defaultValue()));
    }
    if (schema.isOptional()) {
      ObjectNode wrapped = F.objectNode();
      wrapped.putArray("oneOf").add(F.objectNode().put("type", "null")).add(out);
      if (index != null) {
        wrapped.put(INDEX, index);
      }
      return wrapped;
    }
    if (index != null) {
      out.put(INDEX, index);
    }
    return out;
  }

  JsonNode jsonValue(Schema schema, Object value) {
    if (value == null) {
      if (schema.isOptional()) {
        return F.nullNode(); // a NULL stays NULL even where the column has a default
      }
      if (schema.defaultValue() != null) {
        return jsonValue(schema, schema.defaultValue());
      }
      throw new DataException("Conversion error: null value for field that is required and has no default value");
    }
    String name = schema.name();
    if (Decimal.LOGICAL_NAME.equals(name)) {
      return F.numberNode((BigDecimal) value);
    }
    if (Date.LOGICAL_NAME.equals(name)) {
      return F.numberNode(Date.fromLogical(schema, (java.util.Date) value));
    }
    if (Time.LOGICAL_NAME.equals(name)) {
      return F.numberNode(Time.fromLogical(schema, (java.util.Date) value));
    }
    if (Timestamp.LOGICAL_NAME.equals(name)) {
      return F.numberNode(Timestamp.fromLogical(schema, (java.util.Date) value));
    }
    return switch (schema.type()) {
      case INT8 -> F.numberNode((Byte) value);
      case INT16 -> F.numberNode((Short) value);
      case INT32 -> F.numberNode((Integer) value);
      case INT64 -> F.numberNode((Long) value);
      // Negative zero as a string, like NaN and the infinities: read as a BigDecimal, the number would lose its sign.
      case FLOAT32 -> Float.floatToRawIntBits((Float) value) == Integer.MIN_VALUE ? F.textNode("-0.0")
          : F.numberNode((Float) value);
      case FLOAT64 -> Double.doubleToRawLongBits((Double) value) == Long.MIN_VALUE ? F.textNode("-0.0")
          : F.numberNode((Double) value);
      case BOOLEAN -> F.booleanNode((Boolean) value);
      case STRING -> F.textNode(value.toString());
      case BYTES -> F.textNode(Base64.getEncoder().encodeToString(value instanceof ByteBuffer b ? ConnectAvro.bytes(b)
          : (byte[]) value));
      case ARRAY -> {
        ArrayNode a = F.arrayNode();
        for (Object item : (Collection<?>) value) {
          a.add(jsonValue(schema.valueSchema(), item));
        }
        yield a;
      }
      case MAP -> {
        Map<?, ?> in = (Map<?, ?>) value;
        if (schema.keySchema().type() == Schema.Type.STRING && !schema.keySchema().isOptional()) {
          ObjectNode o = F.objectNode();
          in.forEach((k, v) -> o.set((String) k, jsonValue(schema.valueSchema(), v)));
          yield o;
        }
        ArrayNode a = F.arrayNode();
        in.forEach((k, v) -> a.addObject().<ObjectNode>set("key", jsonValue(schema.keySchema(), k))
            .set("value", jsonValue(schema.valueSchema(), v)));
        yield a;
      }
      case STRUCT -> {
        Struct struct = (Struct) value;
        ObjectNode o = F.objectNode();
        for (Field f : schema.fields()) {
          o.set(f.name(), jsonValue(f.schema(), ConnectValues.get(struct, f)));
        }
        yield o;
      }
    };
  }

  Schema connectSchema(JsonNode jsonSchema) {
    return toConnect.computeIfAbsent(jsonSchema, s -> connect(s, s, false));
  }

  private Schema connect(JsonNode node, JsonNode root, boolean optional) {
    node = resolve(node, root);
    JsonNode oneOf = node.has("oneOf") ? node.get("oneOf") : node.get("anyOf");
    if (oneOf != null && oneOf.isArray()) {
      List<JsonNode> nonNull = new ArrayList<>();
      boolean hasNull = false;
      for (JsonNode branch : oneOf) {
        if ("null".equals(resolve(branch, root).path("type").asText())) {
          hasNull = true;
        } else {
          nonNull.add(branch);
        }
      }
      if (nonNull.size() == 1) {
        return connect(nonNull.get(0), root, optional || hasNull);
      }
      throw new DataException("Unsupported JSON Schema union " + node + ": only oneOf null and one schema maps to a "
          + "Connect schema");
    }
    JsonNode type = node.get("type");
    String t;
    if (type != null && type.isArray()) {
      List<String> types = new ArrayList<>();
      type.forEach(x -> types.add(x.asText()));
      optional |= types.remove("null");
      if (types.size() != 1) {
        throw new DataException("Unsupported JSON Schema type " + type);
      }
      t = types.get(0);
    } else {
      t = type == null ? (node.has("properties") ? "object" : "") : type.asText();
    }
    String connectType = node.path(TYPE).asText(null);
    String title = node.path("title").asText(null);
    SchemaBuilder b;
    switch (t) {
      case "integer" -> b = connectType == null ? SchemaBuilder.int64() : switch (connectType) {
        case "int8" -> SchemaBuilder.int8();
        case "int16" -> SchemaBuilder.int16();
        case "int32" -> SchemaBuilder.int32();
        default -> SchemaBuilder.int64();
      };
      case "number" -> b = "bytes".equals(connectType) ? SchemaBuilder.bytes()
          : "float32".equals(connectType) ? SchemaBuilder.float32() : SchemaBuilder.float64();
      case "boolean" -> b = SchemaBuilder.bool();
      case "string" -> b = "bytes".equals(connectType) ? SchemaBuilder.bytes() : SchemaBuilder.string();
      case "array" -> {
        JsonNode items = resolve(node.path("items"), root);
        if ("map".equals(connectType) && items.has("properties")) {
          b = SchemaBuilder.map(connect(items.path("properties").path("key"), root, false),
              connect(items.path("properties").path("value"), root, false));
        } else if (items.isMissingNode()) {
          throw new DataException("Array schema did not specify the items type");
        } else {
          b = SchemaBuilder.array(connect(items, root, false));
        }
      }
      case "object" -> {
        if ("map".equals(connectType) || (!node.has("properties") && node.path("additionalProperties").isObject())) {
          b = SchemaBuilder.map(Schema.STRING_SCHEMA, connect(node.path("additionalProperties"), root, false));
        } else {
          b = SchemaBuilder.struct();
          List<Map.Entry<String, JsonNode>> props = new ArrayList<>();
          Iterator<Map.Entry<String, JsonNode>> it = node.path("properties").fields();
          it.forEachRemaining(props::add);
          props.sort(Comparator.comparingInt(e -> e.getValue().path(INDEX).asInt(Integer.MAX_VALUE)));
          for (Map.Entry<String, JsonNode> p : props) {
            b.field(p.getKey(), connect(p.getValue(), root, false));
          }
        }
      }
      default -> throw new DataException("Unsupported JSON Schema " + node);
    }
    if (title != null) {
      b.name(title);
    }
    if (node.has(VERSION)) {
      b.version(node.get(VERSION).asInt());
    }
    if (node.has("description")) {
      b.doc(node.get("description").asText());
    }
    if (node.path(PARAMETERS).isObject()) {
      node.get(PARAMETERS).fields().forEachRemaining(e -> b.parameter(e.getKey(), e.getValue().asText()));
    }
    if (optional) {
      b.optional();
    }
    if (node.has("default") && !node.get("default").isNull()) {
      b.defaultValue(connectValue(b.build(), node.get("default")));
    }
    return b.build();
  }

  /** A local {@code $ref} ({@code #/definitions/X}, {@code #/$defs/X}) resolved against the document. */
  private static JsonNode resolve(JsonNode node, JsonNode root) {
    int hops = 0;
    while (node.has("$ref") && hops++ < 32) {
      String ref = node.get("$ref").asText();
      if (!ref.startsWith("#")) {
        throw new DataException("Unsupported $ref " + ref + ": only references inside the schema resolve");
      }
      node = root.at(ref.substring(1));
      if (node.isMissingNode()) {
        throw new DataException("Unresolvable $ref " + ref);
      }
    }
    return node;
  }

  Object connectValue(Schema schema, JsonNode value) {
    if (value == null || value.isNull() || value.isMissingNode()) {
      if (schema.isOptional()) {
        return null;
      }
      if (schema.defaultValue() != null) {
        return schema.defaultValue();
      }
      throw new DataException("Invalid null value for required " + schema.type() + " field");
    }
    String name = schema.name();
    if (Decimal.LOGICAL_NAME.equals(name)) {
      int scale = Integer.parseInt(schema.parameters().get(Decimal.SCALE_FIELD));
      return value.isNumber() ? value.decimalValue().setScale(scale)
          : Decimal.toLogical(schema, Base64.getDecoder().decode(value.asText()));
    }
    if (Date.LOGICAL_NAME.equals(name)) {
      return Date.toLogical(schema, value.asInt());
    }
    if (Time.LOGICAL_NAME.equals(name)) {
      return Time.toLogical(schema, value.asInt());
    }
    if (Timestamp.LOGICAL_NAME.equals(name)) {
      return Timestamp.toLogical(schema, value.asLong());
    }
    return switch (schema.type()) {
      case INT8 -> (byte) value.asInt();
      case INT16 -> (short) value.asInt();
      case INT32 -> value.asInt();
      case INT64 -> value.asLong();
      case FLOAT32 -> value.isTextual() ? Float.parseFloat(value.asText()) : value.floatValue();
      case FLOAT64 -> value.isTextual() ? Double.parseDouble(value.asText()) : value.doubleValue();
      case BOOLEAN -> value.asBoolean();
      case STRING -> value.isTextual() ? value.asText() : value.toString();
      case BYTES -> Base64.getDecoder().decode(value.asText());
      case ARRAY -> {
        List<Object> out = new ArrayList<>(value.size());
        value.forEach(item -> out.add(connectValue(schema.valueSchema(), item)));
        yield out;
      }
      case MAP -> {
        Map<Object, Object> out = new LinkedHashMap<>();
        if (value.isObject()) {
          value.fields().forEachRemaining(e -> out.put(e.getKey(), connectValue(schema.valueSchema(), e.getValue())));
        } else {
          value.forEach(e -> out.put(connectValue(schema.keySchema(), e.get("key")),
              connectValue(schema.valueSchema(), e.get("value"))));
        }
        yield out;
      }
      case STRUCT -> {
        Struct struct = new Struct(schema);
        for (Field f : schema.fields()) {
          struct.put(f, connectValue(f.schema(), value.get(f.name())));
        }
        yield struct;
      }
    };
  }
}
