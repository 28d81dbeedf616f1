package io.sluice.serde.avro;

import java.nio.ByteBuffer;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericContainer;
import org.apache.kafka.common.errors.SerializationException;

/**
 * What Sluice asks of an Avro schema in more than one place: the schema of a value, as Confluent's serializers derive
 * it (a record's own, or a primitive's), the name a subject strategy takes, and the type under an optional union.
 */
public final class AvroSchemas {
  private AvroSchemas() {}

  static Schema of(Object value) {
    if (value == null) {
      return Schema.create(Schema.Type.NULL);
    }
    if (value instanceof GenericContainer c) {
      return c.getSchema();
    }
    if (value instanceof CharSequence) {
      return Schema.create(Schema.Type.STRING);
    }
    if (value instanceof Integer) {
      return Schema.create(Schema.Type.INT);
    }
    if (value instanceof Long) {
      return Schema.create(Schema.Type.LONG);
    }
    if (value instanceof Float) {
      return Schema.create(Schema.Type.FLOAT);
    }
    if (value instanceof Double) {
      return Schema.create(Schema.Type.DOUBLE);
    }
    if (value instanceof Boolean) {
      return Schema.create(Schema.Type.BOOLEAN);
    }
    if (value instanceof byte[] || value instanceof ByteBuffer) {
      return Schema.create(Schema.Type.BYTES);
    }
    throw new SerializationException("Unsupported Avro type " + value.getClass().getName()
        + ": a GenericRecord, a specific record, or a primitive (String, Integer, Long, Float, Double, Boolean, bytes)");
  }

  /** The full name a subject name strategy needs: the record's (or enum's, fixed's) full name, else the type's. */
  public static String recordName(Schema schema) {
    return switch (schema.getType()) {
      case RECORD, ENUM, FIXED -> schema.getFullName();
      default -> schema.getType().getName();
    };
  }

  /**
   * The type an optional value has when present: the first branch of a union that is not null ({@code ["null", T]}
   * gives T); any other schema, and a union of null alone, is itself.
   */
  public static Schema nonNull(Schema schema) {
    if (schema.getType() == Schema.Type.UNION) {
      for (Schema branch : schema.getTypes()) {
        if (branch.getType() != Schema.Type.NULL) {
          return branch;
        }
      }
    }
    return schema;
  }
}
