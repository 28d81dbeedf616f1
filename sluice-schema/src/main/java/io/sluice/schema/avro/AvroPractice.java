package io.sluice.schema.avro;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.avro.Schema;

/** Good-practice warnings for an Avro evolution: removals never deprecated, renames without aliases, narrowing. */
final class AvroPractice {
  private AvroPractice() {}

  static List<String> warnings(Schema candidate, List<Schema> earlier) {
    List<String> out = new ArrayList<>();
    if (earlier.isEmpty()) {
      return out;
    }
    Map<String, Schema> now = records(candidate);
    Map<String, Schema> before = records(earlier.get(0));
    for (Map.Entry<String, Schema> e : before.entrySet()) {
      Schema next = now.get(e.getKey());
      if (next == null) {
        continue;
      }
      for (Schema.Field old : e.getValue().getFields()) {
        Schema.Field kept = next.getField(old.name());
        if (kept == null) {
          removed(out, e.getKey(), old, next, earlier);
        } else {
          narrowed(out, e.getKey() + "." + old.name(), old.schema(), kept.schema());
        }
      }
    }
    return out;
  }

  private static void removed(List<String> out, String record, Schema.Field old, Schema next, List<Schema> earlier) {
    String path = record + "." + old.name();
    for (Schema.Field f : next.getFields()) {
      boolean isNew = true;
      for (Schema.Field o : records(earlier.get(0)).get(record).getFields()) {
        if (o.name().equals(f.name())) {
          isNew = false;
        }
      }
      if (isNew && f.schema().equals(old.schema()) && !f.aliases().contains(old.name())) {
        out.add(path + ": looks renamed to '" + f.name() + "' without an alias naming '" + old.name()
            + "'; readers of the new schema will not find old values (add \"aliases\": [\"" + old.name() + "\"])");
        return;
      }
    }
    boolean deprecated = false;
    for (Schema s : earlier) {
      Schema r = records(s).get(record);
      Schema.Field f = r == null ? null : r.getField(old.name());
      if (f != null && (Boolean.TRUE.equals(f.getObjectProp("deprecated"))
          || (f.doc() != null && f.doc().toLowerCase(Locale.ROOT).contains("deprecated")))) {
        deprecated = true;
      }
    }
    if (!deprecated) {
      out.add(path + ": field removed without an earlier version marking it deprecated");
    }
  }

  private static final Map<Schema.Type, Set<Schema.Type>> NARROWER = Map.of(
      Schema.Type.LONG, Set.of(Schema.Type.INT),
      Schema.Type.DOUBLE, Set.of(Schema.Type.FLOAT, Schema.Type.LONG, Schema.Type.INT),
      Schema.Type.FLOAT, Set.of(Schema.Type.LONG, Schema.Type.INT));

  private static void narrowed(List<String> out, String path, Schema before, Schema after) {
    if (NARROWER.getOrDefault(before.getType(), Set.of()).contains(after.getType())) {
      out.add(path + ": type narrowed from " + before.getType().getName() + " to " + after.getType().getName()
          + "; values outside the new range cannot be written any more");
    } else if (before.getType() == Schema.Type.UNION && after.getType() != Schema.Type.UNION
        && before.getTypes().size() > 1) {
      out.add(path + ": union narrowed to " + after.getType().getName());
    }
  }

  /** Every named record reachable from {@code s}, by full name. */
  private static Map<String, Schema> records(Schema s) {
    Map<String, Schema> out = new LinkedHashMap<>();
    collect(s, out);
    return out;
  }

  private static void collect(Schema s, Map<String, Schema> out) {
    switch (s.getType()) {
      case RECORD -> {
        if (out.putIfAbsent(s.getFullName(), s) == null) {
          s.getFields().forEach(f -> collect(f.schema(), out));
        }
      }
      case ARRAY -> collect(s.getElementType(), out);
      case MAP -> collect(s.getValueType(), out);
      case UNION -> s.getTypes().forEach(t -> collect(t, out));
      default -> { }
    }
  }
}
