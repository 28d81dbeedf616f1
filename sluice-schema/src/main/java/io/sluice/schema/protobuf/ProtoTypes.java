package io.sluice.schema.protobuf;

import com.squareup.wire.schema.ProtoType;
import com.squareup.wire.schema.internal.parser.EnumElement;
import com.squareup.wire.schema.internal.parser.FieldElement;
import com.squareup.wire.schema.internal.parser.MessageElement;
import com.squareup.wire.schema.internal.parser.OneOfElement;
import com.squareup.wire.schema.internal.parser.ProtoFileElement;
import com.squareup.wire.schema.internal.parser.TypeElement;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every message and enum visible to one schema (its own and those of its imports) by fully qualified name, and the
 * scoping rules of {@code .proto} name resolution: a name is looked up from the innermost enclosing scope outwards.
 */
final class ProtoTypes {
  /** A type with where it was declared: {@code file} is the import path, {@code fileText} the text it came from. */
  record Declared(String fullName, String packageName, TypeElement element, String file, String fileText) {
    boolean isEnum() {
      return element instanceof EnumElement;
    }

    /** The name below the package, which is what identifies a type across a package move within the diff. */
    String localName() {
      return packageName.isEmpty() ? fullName : fullName.substring(packageName.length() + 1);
    }
  }

  private final Map<String, Declared> byName = new HashMap<>();
  /** Full names by element, so a diff walking the elements never rebuilds (and rehashes) a name. */
  private final Map<TypeElement, String> names = new IdentityHashMap<>();
  /** Answers of {@link #resolve}: a diff asks the same few questions for every field of a type. */
  private final Map<Lookup, Optional<Declared>> resolved = new ConcurrentHashMap<>();

  private record Lookup(String name, String scope) {}
  /** The imported files' texts by import path (the schema's own file, added under "", is not one). */
  private final Map<String, String> imported = new java.util.LinkedHashMap<>();

  void add(ProtoFileElement file, String fileName, String fileText) {
    if (!fileName.isEmpty()) {
      imported.put(fileName, fileText);
    }
    String pkg = file.getPackageName() == null ? "" : file.getPackageName();
    for (TypeElement t : file.getTypes()) {
      add(t, pkg, pkg, fileName, fileText);
    }
  }

  private void add(TypeElement t, String scope, String pkg, String fileName, String fileText) {
    String full = scope.isEmpty() ? t.getName() : scope + "." + t.getName();
    byName.putIfAbsent(full, new Declared(full, pkg, t, fileName, fileText));
    names.putIfAbsent(t, full);
    for (TypeElement nested : t.getNestedTypes()) {
      add(nested, full, pkg, fileName, fileText);
    }
  }

  Map<String, String> imported() {
    return java.util.Collections.unmodifiableMap(imported);
  }

  Optional<Declared> get(String fullName) {
    return Optional.ofNullable(byName.get(fullName));
  }

  /** The full name of a type element of this schema or its imports. */
  String fullName(TypeElement t) {
    return names.get(t);
  }

  /** Resolves {@code name} as written inside the type (or package) {@code scope}; empty when nothing matches. */
  Optional<Declared> resolve(String name, String scope) {
    return resolved.computeIfAbsent(new Lookup(name, scope), l -> lookup(l.name(), l.scope()));
  }

  private Optional<Declared> lookup(String name, String scope) {
    if (name.startsWith(".")) {
      return get(name.substring(1));
    }
    String s = scope;
    while (true) {
      Declared d = byName.get(s.isEmpty() ? name : s + "." + name);
      if (d != null) {
        return Optional.of(d);
      }
      if (s.isEmpty()) {
        return Optional.empty();
      }
      int dot = s.lastIndexOf('.');
      s = dot < 0 ? "" : s.substring(0, dot);
    }
  }

  /** Names of field types in {@code file} that resolve nowhere: the schema is invalid if there are any. */
  List<String> unresolved(ProtoFileElement file) {
    String pkg = file.getPackageName() == null ? "" : file.getPackageName();
    List<String> missing = new java.util.ArrayList<>();
    for (TypeElement t : file.getTypes()) {
      collectUnresolved(t, pkg.isEmpty() ? t.getName() : pkg + "." + t.getName(), missing);
    }
    return missing;
  }

  private void collectUnresolved(TypeElement t, String full, List<String> missing) {
    if (t instanceof MessageElement m) {
      for (FieldElement f : m.getFields()) {
        checkType(f.getType(), full, missing);
      }
      for (OneOfElement o : m.getOneOfs()) {
        for (FieldElement f : o.getFields()) {
          checkType(f.getType(), full, missing);
        }
      }
    }
    for (TypeElement nested : t.getNestedTypes()) {
      collectUnresolved(nested, full + "." + nested.getName(), missing);
    }
  }

  private void checkType(String type, String scope, List<String> missing) {
    ProtoType p = ProtoType.get(type);
    if (p.isMap()) {
      checkType(p.getKeyType().toString(), scope, missing);
      checkType(p.getValueType().toString(), scope, missing);
    } else if (!p.isScalar() && resolve(type, scope).isEmpty()) {
      missing.add(type);
    }
  }
}
