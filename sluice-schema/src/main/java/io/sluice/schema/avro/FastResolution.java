package io.sluice.schema.avro;

import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.Schema.Field;

/**
 * A quick yes to "can {@code reader} read what {@code writer} wrote", for the common case of compatible schemas.
 *
 * <p>Avro's own {@code SchemaCompatibility} builds locations, result objects and a memo entry for every field pair,
 * about a microsecond and a half per field; a transitive mode over a long history asks it thousands of times per
 * registration. This check follows the same resolution rules but only ever answers {@code true} when Avro would too:
 * whenever a case is unusual (aliases, enum defaults, names that differ only by namespace) it answers {@code false},
 * and the caller then asks Avro, whose answer (and messages) count. So it can make a check faster, never different.
 */
final class FastResolution {
  private final Map<Schema, Map<Schema, Boolean>> memo = new IdentityHashMap<>();

  private FastResolution() {}

  /** True only if Avro's reader/writer check finds no incompatibility; false means "ask Avro". */
  static boolean surelyReadable(Schema reader, Schema writer) {
    return new FastResolution().canRead(reader, writer);
  }

  private boolean canRead(Schema reader, Schema writer) {
    Schema.Type rt = reader.getType();
    Schema.Type wt = writer.getType();
    if (wt == Schema.Type.UNION) {
      for (Schema branch : writer.getTypes()) {
        if (!canRead(reader, branch)) {
          return false;
        }
      }
      return true;
    }
    if (rt == Schema.Type.UNION) {
      for (Schema branch : reader.getTypes()) {
        if (canRead(branch, writer)) {
          return true;
        }
      }
      return false;
    }
    if (rt != wt) {
      return promotes(wt, rt);
    }
    switch (rt) {
      case NULL, BOOLEAN, INT, LONG, FLOAT, DOUBLE, BYTES, STRING:
        return true;
      case ARRAY:
        return canRead(reader.getElementType(), writer.getElementType());
      case MAP:
        return canRead(reader.getValueType(), writer.getValueType());
      case FIXED:
        return reader.getFullName().equals(writer.getFullName()) && reader.getFixedSize() == writer.getFixedSize();
      case ENUM:
        return reader.getFullName().equals(writer.getFullName())
            && new HashSet<>(reader.getEnumSymbols()).containsAll(writer.getEnumSymbols());
      case RECORD:
        return recordReadable(reader, writer);
      default:
        return false;
    }
  }

  private boolean recordReadable(Schema reader, Schema writer) {
    if (!reader.getFullName().equals(writer.getFullName())) {
      return false;
    }
    Map<Schema, Boolean> row = memo.computeIfAbsent(reader, r -> new IdentityHashMap<>());
    Boolean known = row.get(writer);
    if (known != null) {
      return known;
    }
    // Recursive types come back here: assume yes while the pair is being decided, as Avro does.
    row.put(writer, Boolean.TRUE);
    boolean ok = fieldsReadable(reader.getFields(), writer);
    row.put(writer, ok);
    return ok;
  }

  private boolean fieldsReadable(List<Field> readerFields, Schema writer) {
    for (Field rf : readerFields) {
      Set<String> aliases = rf.aliases();
      if (!aliases.isEmpty()) {
        return false;
      }
      Field wf = writer.getField(rf.name());
      if (wf == null) {
        if (!rf.hasDefaultValue()) {
          return false;
        }
      } else if (!canRead(rf.schema(), wf.schema())) {
        return false;
      }
    }
    return true;
  }

  /** Avro's promotions: a writer's int reads as long, float or double; long as float or double; and so on. */
  private static boolean promotes(Schema.Type writer, Schema.Type reader) {
    return switch (writer) {
      case INT -> reader == Schema.Type.LONG || reader == Schema.Type.FLOAT || reader == Schema.Type.DOUBLE;
      case LONG -> reader == Schema.Type.FLOAT || reader == Schema.Type.DOUBLE;
      case FLOAT -> reader == Schema.Type.DOUBLE;
      case STRING -> reader == Schema.Type.BYTES;
      case BYTES -> reader == Schema.Type.STRING;
      default -> false;
    };
  }
}
