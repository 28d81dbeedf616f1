package io.sluice.serde.avro;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Locale;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;

/**
 * What a consumer does when a record's writer schema does not match the schema it reads with. Avro's own resolution
 * rules decide what "match" means; the mode decides what a consumer forgives:
 *
 * <ul>
 *   <li>{@link Mode#DLQ} forgives nothing: a writer field the reader does not know, a reader field the writer lacks
 *       without a default, or a type Avro cannot promote fails the record (a Connect sink then sends it, raw, to its
 *       dead letter queue).
 *   <li>{@link Mode#IGNORE_UNKNOWN} is the tolerant reader: writer fields the reader does not know are dropped.
 *   <li>{@link Mode#FILL_DEFAULT} also fills a reader field the writer lacks and that has no default of its own with a
 *       fixed default: null where the field may be null, else 0, false, the empty string, empty bytes, an empty
 *       array or map, an enum's first symbol, or a record of such defaults.
 * </ul>
 * A type Avro cannot promote (a string where the reader has an int) fails the record in every mode.
 */
public final class ReaderSchema {
  private static final ObjectMapper JSON = new ObjectMapper();

  public enum Mode {
    DLQ, IGNORE_UNKNOWN, FILL_DEFAULT;

    public static Mode parse(String value) {
      if (value == null || value.isBlank()) {
        return DLQ;
      }
      try {
        return valueOf(value.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("Invalid value " + value + ": one of dlq, ignore-unknown, fill-default");
      }
    }

    public String configValue() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
  }

  /** A writer schema that the reader schema does not accept under the mode in force. */
  public static final class MismatchException extends RuntimeException {
    MismatchException(String message) {
      super(message);
    }
  }

  private ReaderSchema() {}

  /**
   * The schema to read {@code writer}'s records with: {@code reader} itself, or under {@link Mode#FILL_DEFAULT} a copy
   * of it with the filled defaults.
   *
   * @throws MismatchException when the mode does not forgive the difference
   */
  public static Schema resolve(Schema writer, Schema reader, Mode mode) {
    Schema effective = reader;
    if (mode == Mode.FILL_DEFAULT) {
      JsonNode json = readJson(reader);
      if (fillDefaults(json, reader, writer)) {
        effective = new Schema.Parser().parse(json.toString());
      }
    } else {
      checkFields(writer, reader, mode, "");
    }
    SchemaCompatibility.SchemaPairCompatibility result =
        SchemaCompatibility.checkReaderWriterCompatibility(effective, writer);
    if (result.getType() != SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE) {
      StringBuilder why = new StringBuilder();
      for (SchemaCompatibility.Incompatibility i : result.getResult().getIncompatibilities()) {
        why.append(why.isEmpty() ? "" : "; ").append(i.getType()).append(" at field ")
            .append(fieldPath(effective, i.getLocation())).append(": ").append(i.getMessage());
      }
      throw new MismatchException("The writer schema cannot be read with the reader schema: " + why);
    }
    return effective;
  }

  /** Avro points at {@code /fields/2/type}; people know the field as {@code qty}. */
  private static String fieldPath(Schema reader, String location) {
    StringBuilder path = new StringBuilder();
    Schema at = reader;
    String[] parts = location.split("/");
    for (int i = 0; i < parts.length; i++) {
      at = AvroSchemas.nonNull(at);
      if (parts[i].equals("fields") && i + 1 < parts.length && at.getType() == Schema.Type.RECORD) {
        Schema.Field f = at.getFields().get(Integer.parseInt(parts[++i]));
        path.append(path.isEmpty() ? "" : ".").append(f.name());
        at = f.schema();
      } else if (parts[i].equals("items") && at.getType() == Schema.Type.ARRAY) {
        at = at.getElementType();
      } else if (parts[i].equals("values") && at.getType() == Schema.Type.MAP) {
        at = at.getValueType();
      }
    }
    return path.isEmpty() ? location : path.toString();
  }

  private static void checkFields(Schema writer, Schema reader, Mode mode, String path) {
    writer = AvroSchemas.nonNull(writer);
    reader = AvroSchemas.nonNull(reader);
    if (writer.getType() != reader.getType()) {
      return; // Avro's own check reports it, with its words
    }
    switch (writer.getType()) {
      case RECORD -> {
        for (Schema.Field w : writer.getFields()) {
          Schema.Field r = field(reader, w);
          if (r == null) {
            if (mode == Mode.DLQ) {
              throw new MismatchException("Field " + path + w.name() + " of the writer schema is unknown to the "
                  + "reader schema " + reader.getFullName());
            }
          } else {
            checkFields(w.schema(), r.schema(), mode, path + w.name() + ".");
          }
        }
      }
      case ARRAY -> checkFields(writer.getElementType(), reader.getElementType(), mode, path);
      case MAP -> checkFields(writer.getValueType(), reader.getValueType(), mode, path);
      default -> { }
    }
  }

  private static Schema.Field field(Schema record, Schema.Field other) {
    Schema.Field f = record.getField(other.name());
    if (f != null) {
      return f;
    }
    for (Schema.Field candidate : record.getFields()) {
      if (candidate.aliases().contains(other.name())) {
        return candidate;
      }
    }
    for (String alias : other.aliases()) {
      if (record.getField(alias) != null) {
        return record.getField(alias);
      }
    }
    return null;
  }

  private static JsonNode readJson(Schema schema) {
    try {
      return JSON.readTree(schema.toString());
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Walks the reader's JSON beside the parsed reader and the writer; true when a default was added. */
  private static boolean fillDefaults(JsonNode json, Schema reader, Schema writer) {
    boolean changed = false;
    if (reader.getType() == Schema.Type.UNION && json.isArray()) {
      for (int i = 0; i < reader.getTypes().size(); i++) {
        Schema branch = reader.getTypes().get(i);
        Schema counterpart = counterpart(writer, branch);
        if (counterpart != null) {
          changed |= fillDefaults(json.get(i), branch, counterpart);
        }
      }
      return changed;
    }
    writer = counterpart(writer, reader);
    if (writer == null || !json.isObject()) {
      return false; // a name reference (defined and filled earlier) or a primitive
    }
    switch (reader.getType()) {
      case RECORD -> {
        ArrayNode fields = (ArrayNode) json.get("fields");
        for (int i = 0; i < reader.getFields().size(); i++) {
          Schema.Field r = reader.getFields().get(i);
          Schema.Field w = field(writer, r);
          ObjectNode fieldJson = (ObjectNode) fields.get(i);
          if (w == null) {
            if (!r.hasDefaultValue()) {
              fieldJson.set("default", zero(r.schema()));
              changed = true;
            }
          } else {
            changed |= fillDefaults(fieldJson.get("type"), r.schema(), w.schema());
          }
        }
      }
      case ARRAY -> changed |= fillDefaults(json.get("items"), reader.getElementType(), writer.getElementType());
      case MAP -> changed |= fillDefaults(json.get("values"), reader.getValueType(), writer.getValueType());
      default -> { }
    }
    return changed;
  }

  private static Schema counterpart(Schema writer, Schema reader) {
    if (writer.getType() != Schema.Type.UNION) {
      return writer.getType() == reader.getType() ? writer : null;
    }
    for (Schema branch : writer.getTypes()) {
      if (branch.getType() == reader.getType()
          && (reader.getType() != Schema.Type.RECORD || branch.getName().equals(reader.getName()))) {
        return branch;
      }
    }
    return null;
  }

  /** The fixed default of a field the writer lacks; a union's must be of its first branch. */
  private static JsonNode zero(Schema s) {
    JsonNodeFactory f = JsonNodeFactory.instance;
    return switch (s.getType()) {
      case UNION -> zero(s.getTypes().get(0));
      case NULL -> f.nullNode();
      case INT, LONG -> f.numberNode(0);
      case FLOAT, DOUBLE -> f.numberNode(0.0);
      case BOOLEAN -> f.booleanNode(false);
      case STRING, BYTES -> f.textNode("");
      case FIXED -> f.textNode("\u0000".repeat(s.getFixedSize()));
      case ENUM -> f.textNode(s.getEnumSymbols().get(0));
      case ARRAY -> f.arrayNode();
      case MAP -> f.objectNode();
      case RECORD -> {
        ObjectNode o = f.objectNode();
        for (Schema.Field field : s.getFields()) {
          o.set(field.name(), field.hasDefaultValue() ? readJson(field) : zero(field.schema()));
        }
        yield o;
      }
    };
  }

  private static JsonNode readJson(Schema.Field field) {
    Object v = field.defaultVal();
    return v == org.apache.avro.JsonProperties.NULL_VALUE ? JsonNodeFactory.instance.nullNode() : JSON.valueToTree(v);
  }
}
