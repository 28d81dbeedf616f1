package io.sluice.schema.protobuf;

import com.squareup.wire.schema.internal.parser.FieldElement;
import com.squareup.wire.schema.internal.parser.MessageElement;
import com.squareup.wire.schema.internal.parser.OneOfElement;
import com.squareup.wire.schema.internal.parser.OptionElement;
import com.squareup.wire.schema.internal.parser.TypeElement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Good-practice warnings for a {@code .proto} evolution: numbers removed that were never deprecated, numbers reused
 * after an earlier version reserved them, and numeric types narrowed within their wire-compatible group.
 */
final class ProtobufPractice {
  private ProtobufPractice() {}

  private static final Map<String, List<String>> NARROWER = Map.of(
      "int64", List.of("int32", "uint32", "bool"),
      "uint64", List.of("int32", "uint32", "bool"),
      "int32", List.of("bool"),
      "uint32", List.of("bool"),
      "sint64", List.of("sint32"));

  static List<String> warnings(ProtobufSchema candidate, List<ProtobufSchema> earlier) {
    List<String> out = new ArrayList<>();
    if (earlier.isEmpty()) {
      return out;
    }
    Map<String, MessageElement> now = messages(candidate);
    Map<String, MessageElement> latest = messages(earlier.get(0));
    for (Map.Entry<String, MessageElement> e : now.entrySet()) {
      String name = e.getKey();
      Map<Integer, FieldElement> fields = fields(e.getValue());
      MessageElement before = latest.get(name);
      if (before != null) {
        Map<Integer, FieldElement> old = fields(before);
        for (FieldElement f : old.values()) {
          FieldElement kept = fields.get(f.getTag());
          if (kept == null && !deprecatedEarlier(earlier, name, f.getTag())) {
            out.add(name + "." + f.getName() + " (= " + f.getTag() + "): field removed without an earlier version "
                + "marking it [deprecated = true]; reserve its number so it is never reused");
          } else if (kept != null && NARROWER.getOrDefault(f.getType(), List.of()).contains(kept.getType())) {
            out.add(name + "." + kept.getName() + " (= " + f.getTag() + "): type narrowed from " + f.getType()
                + " to " + kept.getType() + "; larger values written by old producers are truncated");
          }
        }
      }
      for (FieldElement f : fields.values()) {
        for (ProtobufSchema s : earlier) {
          MessageElement m = messages(s).get(name);
          if (m != null && ProtobufSchemaProvider.reserved(m.getReserveds(), f.getTag(), null)) {
            out.add(name + "." + f.getName() + " (= " + f.getTag() + "): reuses a field number an earlier version "
                + "reserved; data written under the old meaning will be misread");
            break;
          }
          if (m != null && ProtobufSchemaProvider.reserved(m.getReserveds(), 0, f.getName())) {
            out.add(name + "." + f.getName() + " (= " + f.getTag() + "): reuses a field name an earlier version "
                + "reserved; JSON and text encodings will confuse old and new meaning");
            break;
          }
        }
      }
    }
    return out;
  }

  private static boolean deprecatedEarlier(List<ProtobufSchema> earlier, String message, int tag) {
    for (ProtobufSchema s : earlier) {
      MessageElement m = messages(s).get(message);
      FieldElement f = m == null ? null : fields(m).get(tag);
      if (f != null) {
        for (OptionElement o : f.getOptions()) {
          if (o.getName().equals("deprecated") && String.valueOf(o.getValue()).equals("true")) {
            return true;
          }
        }
      }
    }
    return false;
  }

  private static Map<Integer, FieldElement> fields(MessageElement m) {
    Map<Integer, FieldElement> out = new LinkedHashMap<>();
    m.getFields().forEach(f -> out.put(f.getTag(), f));
    for (OneOfElement o : m.getOneOfs()) {
      o.getFields().forEach(f -> out.put(f.getTag(), f));
    }
    return out;
  }

  /** Messages of the file by their name below the package (nested ones as {@code Outer.Inner}). */
  private static Map<String, MessageElement> messages(ProtobufSchema s) {
    Map<String, MessageElement> out = new LinkedHashMap<>();
    s.file().getTypes().forEach(t -> collect(t, "", out));
    return out;
  }

  private static void collect(TypeElement t, String prefix, Map<String, MessageElement> out) {
    String name = prefix + t.getName();
    if (t instanceof MessageElement m) {
      out.put(name, m);
    }
    t.getNestedTypes().forEach(n -> collect(n, name + ".", out));
  }
}
