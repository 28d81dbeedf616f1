package io.sluice.schema.protobuf;

import com.squareup.wire.schema.internal.parser.EnumElement;
import com.squareup.wire.schema.internal.parser.FieldElement;
import com.squareup.wire.schema.internal.parser.MessageElement;
import com.squareup.wire.schema.internal.parser.OneOfElement;
import com.squareup.wire.schema.internal.parser.ProtoFileElement;
import com.squareup.wire.schema.internal.parser.ProtoParser;
import com.squareup.wire.schema.internal.parser.ReservedElement;
import com.squareup.wire.schema.internal.parser.TypeElement;
import io.sluice.schema.CompatibilityPolicy;
import io.sluice.schema.Dependency;
import io.sluice.schema.Incompatibility;
import io.sluice.schema.InvalidSchemaException;
import io.sluice.schema.ParsedSchema;
import io.sluice.schema.SchemaProvider;
import io.sluice.schema.SchemaReference;
import io.sluice.schema.SchemaType;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import kotlin.ranges.IntRange;

/**
 * Protobuf through Square Wire's {@code .proto} parser; compatibility by our structural diff matched by field number
 * ({@link ProtobufDiff}). Imports resolve against the schema's references and Google's well-known types.
 */
public final class ProtobufSchemaProvider implements SchemaProvider {
  private static final String WELL_KNOWN_PREFIX = "google/protobuf/";
  /** Field, message and file metadata of Confluent's converters; its registry knows it without a reference. */
  public static final String CONFLUENT_META = "confluent/meta.proto";
  private static final int MAX_TAG = 536_870_911;

  @Override
  public SchemaType type() {
    return SchemaType.PROTOBUF;
  }

  @Override
  public ParsedSchema parse(String text, List<SchemaReference> references, List<Dependency> dependencies)
      throws InvalidSchemaException {
    if (text == null || text.isBlank()) {
      throw new InvalidSchemaException("Empty schema");
    }
    ProtoFileElement file;
    try {
      file = parseFile("schema.proto", text);
    } catch (InvalidSchemaException notText) {
      // Confluent's registry also takes a base64 FileDescriptorProto, which its JavaScript and Go clients send.
      String fromDescriptor = textOfSerialized(text, dependencies);
      if (fromDescriptor == null) {
        throw notText;
      }
      return parse(fromDescriptor, references, dependencies);
    }
    ProtoTypes types = new ProtoTypes();
    types.add(file, "", text);
    Map<String, String> available = new HashMap<>();
    for (Dependency d : dependencies) {
      if (d.type() != SchemaType.PROTOBUF) {
        throw new InvalidSchemaException("Protobuf schema cannot reference the " + d.type() + " schema " + d.name());
      }
      available.put(d.name(), d.schema());
    }
    Set<String> loaded = new HashSet<>();
    List<String> pending = new ArrayList<>(file.getImports());
    pending.addAll(file.getPublicImports());
    while (!pending.isEmpty()) {
      String name = pending.remove(pending.size() - 1);
      if (!loaded.add(name)) {
        continue;
      }
      String depText = available.containsKey(name) ? available.get(name) : wellKnown(name);
      if (depText == null) {
        throw new InvalidSchemaException("Invalid schema: import \"" + name + "\" is neither a reference nor a "
            + "well-known type");
      }
      ProtoFileElement dep = parseFile(name, depText);
      types.add(dep, name, depText);
      pending.addAll(dep.getImports());
      pending.addAll(dep.getPublicImports());
    }
    List<String> missing = types.unresolved(file);
    if (!missing.isEmpty()) {
      throw new InvalidSchemaException("Invalid schema: unknown type(s) " + missing);
    }
    for (TypeElement t : file.getTypes()) {
      validate(t);
    }
    String canonical;
    try {
      canonical = print(file);
    } catch (IllegalArgumentException unprintable) {
      throw new InvalidSchemaException("Invalid schema: " + unprintable.getMessage());
    }
    return new ProtobufSchema(file, canonical, references, types);
  }

  private static ProtoFileElement parseFile(String name, String text) throws InvalidSchemaException {
    try {
      return ProtoStrings.parse(name, text);
    } catch (RuntimeException e) {
      throw new InvalidSchemaException("Invalid schema: " + e.getMessage());
    }
  }

  /**
   * Wire's formatting without its two header comment lines, which name a file path that has no meaning here, and with
   * string values escaped ({@link ProtoStrings#printable}), so the text parses again to the same file.
   */
  static String print(ProtoFileElement file) {
    String s = ProtoStrings.printable(file).toSchema();
    while (s.startsWith("//")) {
      int nl = s.indexOf('\n');
      s = nl < 0 ? "" : s.substring(nl + 1);
    }
    return s.stripLeading();
  }

  /** The text of a base64 serialized descriptor, or null when {@code text} is not one. */
  private static String textOfSerialized(String text, List<Dependency> dependencies) {
    byte[] bytes;
    try {
      bytes = java.util.Base64.getDecoder().decode(text.strip());
    } catch (IllegalArgumentException notBase64) {
      return null;
    }
    Map<String, String> deps = new HashMap<>();
    dependencies.forEach(d -> deps.put(d.name(), d.schema()));
    try {
      return ProtoDescriptors.textOfSerialized(bytes, path -> importText(path, deps));
    } catch (IllegalArgumentException notADescriptor) {
      return null;
    }
  }

  private static String importText(String path, Map<String, String> deps) {
    String t = deps.containsKey(path) ? deps.get(path) : wellKnown(path);
    if (t == null) {
      throw new IllegalArgumentException("import \"" + path + "\" is neither a reference nor built in");
    }
    return t;
  }

  /**
   * The schema as Confluent's {@code format=serialized} returns it: a base64 {@code FileDescriptorProto}, named by a
   * hash of its text (clients keep descriptors in one pool by file name), its imports under their import paths.
   */
  public static String serialized(ParsedSchema schema) {
    ProtobufSchema s = (ProtobufSchema) schema;
    String name = "sluice-" + Integer.toHexString(s.canonical().hashCode()) + ".proto";
    com.google.protobuf.Descriptors.FileDescriptor file = ProtoDescriptors.build(name, s.canonical(),
        path -> importText(path, s.types().imported()));
    return java.util.Base64.getEncoder().encodeToString(ProtoDescriptors.qualified(file).toByteArray());
  }

  /** Google's well-known types (from Wire's copies) and Confluent's {@code confluent/meta.proto}, built in as there. */
  public static String wellKnown(String name) {
    if (name.equals(CONFLUENT_META)) {
      try (InputStream in = ProtobufSchemaProvider.class.getClassLoader().getResourceAsStream(CONFLUENT_META)) {
        return in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        return null;
      }
    }
    if (!name.startsWith(WELL_KNOWN_PREFIX)) {
      return null;
    }
    try (InputStream in = ProtoParser.class.getClassLoader().getResourceAsStream(name)) {
      return in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return null;
    }
  }

  /** What protoc would reject and the parser alone does not: clashing, reserved or out-of-range numbers and names. */
  private static void validate(TypeElement t) throws InvalidSchemaException {
    if (t instanceof MessageElement m) {
      List<FieldElement> all = new ArrayList<>(m.getFields());
      for (OneOfElement o : m.getOneOfs()) {
        all.addAll(o.getFields());
      }
      Set<Integer> tags = new HashSet<>();
      Set<String> names = new HashSet<>();
      for (FieldElement f : all) {
        if (f.getTag() < 1 || f.getTag() > MAX_TAG || (f.getTag() >= 19000 && f.getTag() <= 19999)) {
          throw new InvalidSchemaException("Invalid schema: field " + m.getName() + "." + f.getName()
              + " has the invalid number " + f.getTag());
        }
        if (!tags.add(f.getTag())) {
          throw new InvalidSchemaException("Invalid schema: field number " + f.getTag() + " is used twice in "
              + m.getName());
        }
        if (!names.add(f.getName())) {
          throw new InvalidSchemaException("Invalid schema: field name " + f.getName() + " is used twice in "
              + m.getName());
        }
        if (reserved(m.getReserveds(), f.getTag(), f.getName())) {
          throw new InvalidSchemaException("Invalid schema: field " + m.getName() + "." + f.getName()
              + " uses reserved number or name (" + f.getTag() + ")");
        }
      }
    } else if (t instanceof EnumElement e && e.getConstants().isEmpty()) {
      throw new InvalidSchemaException("Invalid schema: enum " + e.getName() + " has no constants");
    }
    for (TypeElement nested : t.getNestedTypes()) {
      validate(nested);
    }
  }

  /** Whether {@code reserved} covers the number or the name (a null name checks the number only). */
  static boolean reserved(List<ReservedElement> reserved, int tag, String name) {
    for (ReservedElement r : reserved) {
      for (Object v : r.getValues()) {
        if (v instanceof Integer i && i == tag) {
          return true;
        }
        if (v instanceof IntRange range && tag >= range.getFirst() && tag <= range.getLast()) {
          return true;
        }
        if (v instanceof String s && name != null && s.equals(name)) {
          return true;
        }
      }
    }
    return false;
  }

  @Override
  public List<Incompatibility> readIncompatibilities(ParsedSchema reader, ParsedSchema writer, boolean readerIsNew,
      CompatibilityPolicy policy) {
    // As Confluent: the writer's schema is the "original" and the reader's the "update" of the diff.
    String readerRole = readerIsNew ? "new" : "old";
    String writerRole = readerIsNew ? "old" : "new";
    return ProtobufDiff.compare((ProtobufSchema) writer, (ProtobufSchema) reader).stream()
        .filter(d -> !d.type().compatible)
        .map(d -> new Incompatibility(d.type().name(), d.path(), d.message(readerRole, writerRole)))
        .toList();
  }

  @Override
  public List<String> practiceWarnings(ParsedSchema candidate, List<ParsedSchema> earlier) {
    return ProtobufPractice.warnings((ProtobufSchema) candidate,
        earlier.stream().map(e -> (ProtobufSchema) e).toList());
  }
}
