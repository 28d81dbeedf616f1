package io.sluice.schema.protobuf;

import com.squareup.wire.schema.Field;
import com.squareup.wire.schema.ProtoType;
import com.squareup.wire.schema.internal.parser.EnumElement;
import com.squareup.wire.schema.internal.parser.FieldElement;
import com.squareup.wire.schema.internal.parser.MessageElement;
import com.squareup.wire.schema.internal.parser.OneOfElement;
import com.squareup.wire.schema.internal.parser.TypeElement;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The structural difference between an original and an updated {@code .proto} file, matched by field number (never by
 * name), with Confluent's difference types. A difference is compatible when data written with the original can still
 * be read with the update; which types are is fixed per type ({@link Type#compatible}).
 */
final class ProtobufDiff {

  /** The kinds of change, as Confluent names them. */
  enum Type {
    PACKAGE_CHANGED(false),
    MESSAGE_ADDED(true),
    MESSAGE_REMOVED(false),
    MESSAGE_MOVED(true),
    ENUM_ADDED(true),
    ENUM_REMOVED(true),
    ENUM_CONST_ADDED(true),
    ENUM_CONST_CHANGED(true),
    ENUM_CONST_REMOVED(true),
    FIELD_ADDED(true),
    FIELD_REMOVED(true),
    FIELD_NAME_CHANGED(true),
    FIELD_KIND_CHANGED(false),
    FIELD_SCALAR_KIND_CHANGED(false),
    FIELD_NAMED_TYPE_CHANGED(false),
    FIELD_NUMERIC_LABEL_CHANGED(false),
    FIELD_STRING_OR_BYTES_LABEL_CHANGED(true),
    REQUIRED_FIELD_ADDED(false),
    REQUIRED_FIELD_REMOVED(false),
    ONEOF_ADDED(true),
    ONEOF_REMOVED(true),
    ONEOF_FIELD_ADDED(true),
    ONEOF_FIELD_REMOVED(false),
    MULTIPLE_FIELDS_MOVED_TO_ONEOF(false),
    FIELD_MOVED_TO_EXISTING_ONEOF(false);

    final boolean compatible;

    Type(boolean compatible) {
      this.compatible = compatible;
    }
  }

  /** One change at a path such as {@code #/Order/Line/3} (message names, then a field number). */
  record Difference(Type type, String path) {
    /**
     * Confluent's message for the change; {@code reader} and {@code writer} name the two schemas ("new"/"old"): the
     * diff's update is the reader, its original the writer.
     */
    String message(String reader, String writer) {
      String description = switch (type) {
        case PACKAGE_CHANGED -> "The package at '" + path + "' in the " + reader
            + " schema does not match the package in the " + writer + " schema";
        case MESSAGE_REMOVED -> "The " + reader + " schema is missing a MESSAGE type at path '" + path + "' in the "
            + writer + " schema";
        case FIELD_KIND_CHANGED -> "The type of a field at path '" + path + "' in the " + reader
            + " schema does not match the " + writer + " schema";
        case FIELD_SCALAR_KIND_CHANGED -> "The kind of a SCALAR field at path '" + path + "' in the " + reader
            + " schema does not match its kind in the " + writer + " schema";
        case FIELD_NAMED_TYPE_CHANGED -> "The type of a MESSAGE field at path '" + path + "' in the " + reader
            + " schema does not match its type in the " + writer + " schema";
        case FIELD_NUMERIC_LABEL_CHANGED -> "The label for a NUMERIC field at path '" + path + "' in the " + reader
            + " schema does not match its label in the " + writer + " schema";
        case REQUIRED_FIELD_ADDED -> "A required field  at path '" + path + "' in the " + reader
            + " schema is missing in the " + writer + " schema";
        case REQUIRED_FIELD_REMOVED -> "The " + reader + " schema is missing a required field at path: '" + path
            + "' in the " + writer + " schema";
        case ONEOF_FIELD_REMOVED -> "The " + reader + " schema is missing a oneof field at path '" + path
            + "' in the " + writer + " schema";
        case MULTIPLE_FIELDS_MOVED_TO_ONEOF -> "Multiple fields in the oneof at path '" + path + "' in the " + reader
            + " schema are outside a oneof in the " + writer + " schema";
        case FIELD_MOVED_TO_EXISTING_ONEOF -> "A field in the oneof at path '" + path + "' in the " + reader
            + " schema is outside an existing oneof in the " + writer + " schema";
        default -> "";
      };
      return "{errorType:\"" + type + "\", description:\"" + description + "\"}";
    }
  }

  private enum Kind { SCALAR, MESSAGE, MAP }

  /** Wire-compatible groups of scalar types: a value written as one member decodes as any other. */
  private enum ScalarKind { GENERAL_NUMBER, SIGNED_NUMBER, STRING_OR_BYTES, FIXED32, FIXED64, FLOAT, DOUBLE }

  private final ProtobufSchema original;
  private final ProtobufSchema update;
  private final Set<String> comparedMessages = new HashSet<>();
  private final Deque<String> path = new ArrayDeque<>();

  private ProtobufDiff(ProtobufSchema original, ProtobufSchema update) {
    this.original = original;
    this.update = update;
  }

  static List<Difference> compare(ProtobufSchema original, ProtobufSchema update) {
    ProtobufDiff diff = new ProtobufDiff(original, update);
    List<Difference> out = new ArrayList<>();
    if (!Objects.equals(original.packageName(), update.packageName())) {
      out.add(diff.at(Type.PACKAGE_CHANGED));
    }
    diff.compareTypes(out, original.file().getTypes(), original.packageName(), update.file().getTypes(),
        update.packageName());
    return List.copyOf(new LinkedHashSet<>(out));
  }

  private Difference at(Type type) {
    return new Difference(type, "#/" + String.join("/", path));
  }

  private void enter(String segment) {
    path.addLast(segment);
  }

  private void leave() {
    path.removeLast();
  }

  private static String nameOf(ProtobufSchema schema, TypeElement t, String scope) {
    String known = schema.types().fullName(t);
    return known != null ? known : scope.isEmpty() ? t.getName() : scope + "." + t.getName();
  }

  private void compareTypes(List<Difference> out, List<TypeElement> originals, String originalScope,
      List<TypeElement> updates, String updateScope) {
    Map<String, MessageElement> originalMessages = new HashMap<>();
    Map<String, Integer> originalIndexes = new HashMap<>();
    Map<String, EnumElement> originalEnums = new HashMap<>();
    index(originals, originalMessages, originalIndexes, originalEnums);
    Map<String, MessageElement> updateMessages = new HashMap<>();
    Map<String, Integer> updateIndexes = new HashMap<>();
    Map<String, EnumElement> updateEnums = new HashMap<>();
    index(updates, updateMessages, updateIndexes, updateEnums);

    for (String name : union(originalMessages.keySet(), updateMessages.keySet())) {
      enter(name);
      if (!updateMessages.containsKey(name)) {
        out.add(at(Type.MESSAGE_REMOVED));
      } else if (!originalMessages.containsKey(name)) {
        out.add(at(Type.MESSAGE_ADDED));
      } else {
        MessageElement o = originalMessages.get(name);
        MessageElement u = updateMessages.get(name);
        compareMessage(out, o, nameOf(original, o, originalScope), u, nameOf(update, u, updateScope));
        if (!originalIndexes.get(name).equals(updateIndexes.get(name))) {
          // Serialised data names a message by its index in the schema it was written with, so moving is harmless.
          out.add(at(Type.MESSAGE_MOVED));
        }
      }
      leave();
    }
    for (String name : union(originalEnums.keySet(), updateEnums.keySet())) {
      enter(name);
      if (!updateEnums.containsKey(name)) {
        out.add(at(Type.ENUM_REMOVED));
      } else if (!originalEnums.containsKey(name)) {
        out.add(at(Type.ENUM_ADDED));
      } else {
        compareEnum(out, originalEnums.get(name), updateEnums.get(name));
      }
      leave();
    }
  }

  private static void index(List<TypeElement> types, Map<String, MessageElement> messages,
      Map<String, Integer> indexes, Map<String, EnumElement> enums) {
    int i = 0;
    for (TypeElement t : types) {
      if (t instanceof MessageElement m) {
        messages.put(m.getName(), m);
        indexes.put(m.getName(), i++);
      } else if (t instanceof EnumElement e) {
        enums.put(e.getName(), e);
      }
    }
  }

  private static <T extends Comparable<T>> Set<T> union(Set<T> a, Set<T> b) {
    Set<T> all = new TreeSet<>(a);
    all.addAll(b);
    return all;
  }

  private void compareEnum(List<Difference> out, EnumElement original, EnumElement update) {
    Map<Integer, String> originalByTag = new HashMap<>();
    original.getConstants().forEach(c -> originalByTag.put(c.getTag(), c.getName()));
    Map<Integer, String> updateByTag = new HashMap<>();
    update.getConstants().forEach(c -> updateByTag.put(c.getTag(), c.getName()));
    for (Integer tag : union(originalByTag.keySet(), updateByTag.keySet())) {
      enter(tag.toString());
      if (!updateByTag.containsKey(tag)) {
        out.add(at(Type.ENUM_CONST_REMOVED));
      } else if (!originalByTag.containsKey(tag)) {
        out.add(at(Type.ENUM_CONST_ADDED));
      } else if (!originalByTag.get(tag).equals(updateByTag.get(tag))) {
        out.add(at(Type.ENUM_CONST_CHANGED));
      }
      leave();
    }
  }

  private void compareMessage(List<Difference> out, MessageElement original, String originalName,
      MessageElement update, String updateName) {
    // Each pair of messages is compared once per diff: recursive types end here, and a message reached both as a
    // nested type and through a field reports its changes once.
    if (!comparedMessages.add(originalName + "|" + updateName)) {
      return;
    }
    Map<Integer, FieldElement> originalTop = byTag(original.getFields());
    Map<Integer, FieldElement> updateTop = byTag(update.getFields());
    Map<Integer, FieldElement> originalAll = new HashMap<>(originalTop);
    Map<Integer, FieldElement> updateAll = new HashMap<>(updateTop);
    Map<Integer, String> originalOneOfOf = new HashMap<>();
    Map<Integer, String> updateOneOfOf = new HashMap<>();
    Map<String, OneOfElement> originalOneOfs = new HashMap<>();
    Map<String, OneOfElement> updateOneOfs = new HashMap<>();
    for (OneOfElement o : original.getOneOfs()) {
      originalOneOfs.put(o.getName(), o);
      for (FieldElement f : o.getFields()) {
        originalAll.put(f.getTag(), f);
        originalOneOfOf.put(f.getTag(), o.getName());
      }
    }
    Map<Integer, FieldElement> originalTopLeft = new HashMap<>(originalTop);
    for (OneOfElement o : update.getOneOfs()) {
      updateOneOfs.put(o.getName(), o);
      enter(o.getName());
      int moved = 0;
      int fromOneOf = 0;
      for (FieldElement f : o.getFields()) {
        updateAll.put(f.getTag(), f);
        updateOneOfOf.put(f.getTag(), o.getName());
        if (originalTopLeft.remove(f.getTag()) != null) {
          moved++;
        } else if (originalOneOfOf.containsKey(f.getTag())) {
          fromOneOf++;
        }
      }
      // A oneof may take over one former top-level field (old data sets at most that one member); two such fields,
      // or one joining members that were already exclusive, can make old data set several members at once.
      if (moved > 1) {
        out.add(at(Type.MULTIPLE_FIELDS_MOVED_TO_ONEOF));
      } else if (moved == 1 && fromOneOf > 0) {
        out.add(at(Type.FIELD_MOVED_TO_EXISTING_ONEOF));
      }
      leave();
    }

    for (String name : union(originalOneOfs.keySet(), updateOneOfs.keySet())) {
      enter(name);
      if (!updateOneOfs.containsKey(name)) {
        out.add(at(Type.ONEOF_REMOVED));
      } else if (!originalOneOfs.containsKey(name)) {
        out.add(at(Type.ONEOF_ADDED));
      } else {
        Map<Integer, FieldElement> o = byTag(originalOneOfs.get(name).getFields());
        Map<Integer, FieldElement> u = byTag(updateOneOfs.get(name).getFields());
        for (Integer tag : union(o.keySet(), u.keySet())) {
          enter(tag.toString());
          if (!u.containsKey(tag)) {
            // Leaving the oneof for the top level or another oneof keeps the data; only a deletion loses it.
            if (!updateAll.containsKey(tag)) {
              out.add(at(Type.ONEOF_FIELD_REMOVED));
            }
          } else if (!o.containsKey(tag)) {
            out.add(at(Type.ONEOF_FIELD_ADDED));
          } else {
            compareField(out, o.get(tag), originalName, u.get(tag), updateName);
          }
          leave();
        }
      }
      leave();
    }

    for (Integer tag : union(originalTopLeft.keySet(), updateTop.keySet())) {
      FieldElement o = originalTopLeft.get(tag);
      FieldElement u = updateTop.get(tag);
      enter(tag.toString());
      if (u == null) {
        if (!updateAll.containsKey(tag)) {
          out.add(at(o.getLabel() == Field.Label.REQUIRED ? Type.REQUIRED_FIELD_REMOVED : Type.FIELD_REMOVED));
        }
      } else if (o == null) {
        if (!originalAll.containsKey(tag)) {
          out.add(at(u.getLabel() == Field.Label.REQUIRED ? Type.REQUIRED_FIELD_ADDED : Type.FIELD_ADDED));
        }
      } else {
        compareField(out, o, originalName, u, updateName);
      }
      leave();
    }

    // Fields whose oneof membership changed are still the same data by number: their types must agree too.
    for (Integer tag : union(originalAll.keySet(), updateAll.keySet())) {
      if (!originalAll.containsKey(tag) || !updateAll.containsKey(tag)) {
        continue;
      }
      String before = originalOneOfOf.get(tag);
      String after = updateOneOfOf.get(tag);
      if (!Objects.equals(before, after)) {
        enter(tag.toString());
        compareField(out, originalAll.get(tag), originalName, updateAll.get(tag), updateName);
        leave();
      }
    }

    compareTypes(out, original.getNestedTypes(), originalName, update.getNestedTypes(), updateName);
  }

  private static Map<Integer, FieldElement> byTag(List<FieldElement> fields) {
    Map<Integer, FieldElement> m = new HashMap<>();
    fields.forEach(f -> m.put(f.getTag(), f));
    return m;
  }

  private void compareField(List<Difference> out, FieldElement original, String originalScope, FieldElement update,
      String updateScope) {
    if (!Objects.equals(original.getName(), update.getName())) {
      out.add(at(Type.FIELD_NAME_CHANGED));
    }
    Kind kind = compareTypes(out, ProtoType.get(original.getType()), originalScope, ProtoType.get(update.getType()),
        updateScope);
    // Like Confluent, labels count only where both fields spell one (proto2, or proto3 "optional"/"repeated") and
    // only for scalars of one wire group: repeated numbers are packed and do not decode as one number, while a
    // repeated string or bytes field and a single one share an encoding (the last value wins).
    Field.Label before = original.getLabel();
    Field.Label after = update.getLabel();
    if (kind == Kind.SCALAR && before != null && after != null && before != after) {
      ScalarKind group = scalarKind(ProtoType.get(original.getType()));
      if (group == scalarKind(ProtoType.get(update.getType()))) {
        out.add(at(group == ScalarKind.STRING_OR_BYTES ? Type.FIELD_STRING_OR_BYTES_LABEL_CHANGED
            : Type.FIELD_NUMERIC_LABEL_CHANGED));
      }
    }
  }

  /** Compares two field types; answers their common kind, or null when the kinds differ. */
  private Kind compareTypes(List<Difference> out, ProtoType original, String originalScope, ProtoType update,
      String updateScope) {
    Kind originalKind = kind(original, originalScope, true);
    Kind updateKind = kind(update, updateScope, false);
    if (originalKind != updateKind) {
      out.add(at(Type.FIELD_KIND_CHANGED));
      return null;
    }
    switch (originalKind) {
      case SCALAR -> {
        if (scalarKind(original) != scalarKind(update)) {
          out.add(at(Type.FIELD_SCALAR_KIND_CHANGED));
        }
      }
      case MAP -> {
        compareTypes(out, original.getKeyType(), originalScope, update.getKeyType(), updateScope);
        compareTypes(out, original.getValueType(), originalScope, update.getValueType(), updateScope);
      }
      case MESSAGE -> compareMessageTypes(out, original, originalScope, update, updateScope);
    }
    return originalKind;
  }

  private void compareMessageTypes(List<Difference> out, ProtoType original, String originalScope, ProtoType update,
      String updateScope) {
    Optional<ProtoTypes.Declared> o = this.original.types().resolve(original.toString(), originalScope);
    Optional<ProtoTypes.Declared> u = this.update.types().resolve(update.toString(), updateScope);
    if (o.isEmpty() || u.isEmpty()) {
      if (!original.toString().equals(update.toString())) {
        out.add(at(Type.FIELD_NAMED_TYPE_CHANGED));
      }
      return;
    }
    if (!o.get().localName().equals(u.get().localName())) {
      out.add(at(Type.FIELD_NAMED_TYPE_CHANGED));
      return;
    }
    boolean sameImportedText = !o.get().file().isEmpty() && o.get().file().equals(u.get().file())
        && o.get().fileText().equals(u.get().fileText());
    if (sameImportedText) {
      return;
    }
    List<Difference> nested = new ArrayList<>();
    compareMessage(nested, (MessageElement) o.get().element(), o.get().fullName(), (MessageElement) u.get().element(),
        u.get().fullName());
    out.addAll(nested);
    if (nested.stream().anyMatch(d -> !d.type().compatible)) {
      out.add(at(Type.FIELD_NAMED_TYPE_CHANGED));
    }
  }

  private Kind kind(ProtoType type, String scope, boolean isOriginal) {
    if (type.isScalar()) {
      return Kind.SCALAR;
    }
    if (type.isMap()) {
      return Kind.MAP;
    }
    return resolve(type, scope, isOriginal).filter(ProtoTypes.Declared::isEnum).isPresent() ? Kind.SCALAR
        : Kind.MESSAGE;
  }

  private Optional<ProtoTypes.Declared> resolve(ProtoType type, String scope, boolean isOriginal) {
    return (isOriginal ? original : update).types().resolve(type.toString(), scope);
  }

  private static ScalarKind scalarKind(ProtoType type) {
    if (!type.isScalar()) {
      return ScalarKind.GENERAL_NUMBER; // an enum: a varint on the wire
    }
    return switch (type.toString()) {
      case "int32", "int64", "uint32", "uint64", "bool" -> ScalarKind.GENERAL_NUMBER;
      case "sint32", "sint64" -> ScalarKind.SIGNED_NUMBER;
      case "string", "bytes" -> ScalarKind.STRING_OR_BYTES;
      case "fixed32", "sfixed32" -> ScalarKind.FIXED32;
      case "fixed64", "sfixed64" -> ScalarKind.FIXED64;
      case "float" -> ScalarKind.FLOAT;
      case "double" -> ScalarKind.DOUBLE;
      default -> throw new IllegalArgumentException("Unknown scalar type " + type);
    };
  }
}
