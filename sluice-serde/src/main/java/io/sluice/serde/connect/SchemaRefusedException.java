package io.sluice.serde.connect;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.DataException;

/**
 * The registry refused a record's new schema as incompatible with {@link #version} of {@link #subject}. The
 * registry's rules name the place in its own format ({@code MISSING_UNION_BRANCH} at {@code /fields/0/type/1} for an
 * Avro field removed inside Debezium's {@code before} and {@code after}); {@link #comparedWith} adds what changed in
 * the Connect schema, the columns as the source named them.
 */
final class SchemaRefusedException extends DataException {
  final String subject;
  /** The version the new schema broke with; 0 when the registry did not say. */
  final int version;

  SchemaRefusedException(String message, String subject, int version) {
    super(message);
    this.subject = subject;
    this.version = version;
  }

  /** This refusal, its message followed by how {@code refused} differs from {@code earlier}, the version's schema. */
  DataException comparedWith(Schema earlier, Schema refused) {
    List<String> changes = new ArrayList<>();
    differences(earlier, refused, new HashSet<>(), changes);
    if (changes.isEmpty()) {
      return this;
    }
    DataException out = new DataException(getMessage() + " What changed against version " + version + ": "
        + String.join("; ", changes) + ".");
    for (Throwable t : getSuppressed()) {
      out.addSuppressed(t);
    }
    return out;
  }

  /** The fields removed, added and retyped, each struct once (Debezium's before and after share their row's). */
  private static void differences(Schema old, Schema now, Set<String> seen, List<String> out) {
    if (old.type() != Schema.Type.STRUCT || now.type() != Schema.Type.STRUCT) {
      return;
    }
    String struct = simpleName(now.name() != null ? now.name() : old.name());
    if (!seen.add(struct)) {
      return;
    }
    for (Field f : old.fields()) {
      Field n = now.field(f.name());
      if (n == null) {
        out.add(struct + "." + f.name() + " removed (was " + describe(f.schema()) + ")");
      }
    }
    for (Field n : now.fields()) {
      Field f = old.field(n.name());
      if (f == null) {
        out.add(struct + "." + n.name() + " added (" + describe(n.schema()) + ")");
      } else if (f.schema().type() == Schema.Type.STRUCT && n.schema().type() == Schema.Type.STRUCT) {
        differences(f.schema(), n.schema(), seen, out);
      } else if (!describe(f.schema()).equals(describe(n.schema()))) {
        out.add(struct + "." + n.name() + " " + describe(f.schema()) + " → " + describe(n.schema()));
      }
    }
  }

  /** A field's type as a column's reader thinks of it: its Connect type or logical name, whether null, its default. */
  private static String describe(Schema s) {
    String type = s.name() != null && s.type() != Schema.Type.STRUCT ? simpleName(s.name())
        : s.type().name().toLowerCase(java.util.Locale.ROOT);
    return type + (s.isOptional() ? ", optional" : ", required")
        + (s.defaultValue() != null ? ", default " + Objects.toString(s.defaultValue()) : s.isOptional() ? ""
        : ", no default");
  }

  private static String simpleName(String name) {
    return name == null ? "struct" : name.substring(name.lastIndexOf('.') + 1);
  }
}
