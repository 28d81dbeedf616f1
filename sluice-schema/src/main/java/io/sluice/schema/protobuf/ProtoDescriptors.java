package io.sluice.schema.protobuf;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumDescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumValueDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldOptions;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.MessageOptions;
import com.google.protobuf.DescriptorProtos.OneofDescriptorProto;
import com.google.protobuf.Descriptors;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.squareup.wire.Syntax;
import com.squareup.wire.schema.Field;
import com.squareup.wire.schema.internal.parser.EnumConstantElement;
import com.squareup.wire.schema.internal.parser.EnumElement;
import com.squareup.wire.schema.internal.parser.FieldElement;
import com.squareup.wire.schema.internal.parser.MessageElement;
import com.squareup.wire.schema.internal.parser.OneOfElement;
import com.squareup.wire.schema.internal.parser.OptionElement;
import com.squareup.wire.schema.internal.parser.ProtoFileElement;
import com.squareup.wire.schema.internal.parser.TypeElement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Runtime descriptors from {@code .proto} text and back: the text parsed by Wire (the parser the registry itself uses),
 * turned into a {@code FileDescriptorProto} and linked by protobuf-java, so a deserializer can read any registered
 * message as a {@code DynamicMessage} and the registry can serve a schema as a serialized descriptor (Confluent's
 * {@code format=serialized}, what its JavaScript and Go clients ask for); and {@link #text} for the way back. Google's
 * well-known types resolve to the descriptors protobuf-java ships; other imports through {@link Imports}.
 */
public final class ProtoDescriptors {
  private static final Map<String, FileDescriptor> WELL_KNOWN = Map.ofEntries(
      Map.entry("google/protobuf/any.proto", com.google.protobuf.AnyProto.getDescriptor()),
      Map.entry("google/protobuf/duration.proto", com.google.protobuf.DurationProto.getDescriptor()),
      Map.entry("google/protobuf/empty.proto", com.google.protobuf.EmptyProto.getDescriptor()),
      Map.entry("google/protobuf/field_mask.proto", com.google.protobuf.FieldMaskProto.getDescriptor()),
      Map.entry("google/protobuf/struct.proto", com.google.protobuf.StructProto.getDescriptor()),
      Map.entry("google/protobuf/timestamp.proto", com.google.protobuf.TimestampProto.getDescriptor()),
      Map.entry("google/protobuf/wrappers.proto", com.google.protobuf.WrappersProto.getDescriptor()),
      Map.entry("google/protobuf/descriptor.proto", com.google.protobuf.DescriptorProtos.getDescriptor()));

  private static final Map<String, FieldDescriptorProto.Type> SCALARS = Map.ofEntries(
      Map.entry("double", FieldDescriptorProto.Type.TYPE_DOUBLE),
      Map.entry("float", FieldDescriptorProto.Type.TYPE_FLOAT),
      Map.entry("int64", FieldDescriptorProto.Type.TYPE_INT64),
      Map.entry("uint64", FieldDescriptorProto.Type.TYPE_UINT64),
      Map.entry("int32", FieldDescriptorProto.Type.TYPE_INT32),
      Map.entry("fixed64", FieldDescriptorProto.Type.TYPE_FIXED64),
      Map.entry("fixed32", FieldDescriptorProto.Type.TYPE_FIXED32),
      Map.entry("bool", FieldDescriptorProto.Type.TYPE_BOOL),
      Map.entry("string", FieldDescriptorProto.Type.TYPE_STRING),
      Map.entry("bytes", FieldDescriptorProto.Type.TYPE_BYTES),
      Map.entry("uint32", FieldDescriptorProto.Type.TYPE_UINT32),
      Map.entry("sfixed32", FieldDescriptorProto.Type.TYPE_SFIXED32),
      Map.entry("sfixed64", FieldDescriptorProto.Type.TYPE_SFIXED64),
      Map.entry("sint32", FieldDescriptorProto.Type.TYPE_SINT32),
      Map.entry("sint64", FieldDescriptorProto.Type.TYPE_SINT64));

  /** Resolves an import to its file: the text a reference names, fetched from the registry by the caller. */
  public interface Imports {
    String text(String importPath);
  }

  private ProtoDescriptors() {}

  public static FileDescriptor build(String name, String text, Imports imports) {
    FileDescriptor wellKnown = WELL_KNOWN.get(name);
    if (wellKnown != null) {
      return wellKnown;
    }
    ProtoFileElement file = ProtoStrings.parse(name, text);
    List<FileDescriptor> deps = new ArrayList<>();
    for (String imported : file.getImports()) {
      deps.add(build(imported, WELL_KNOWN.containsKey(imported) ? "" : imports.text(imported), imports));
    }
    for (String imported : file.getPublicImports()) {
      deps.add(build(imported, WELL_KNOWN.containsKey(imported) ? "" : imports.text(imported), imports));
    }
    boolean proto3 = file.getSyntax() == Syntax.PROTO_3;
    FileDescriptorProto.Builder proto = FileDescriptorProto.newBuilder().setName(name)
        .setSyntax(proto3 ? "proto3" : "proto2");
    if (file.getPackageName() != null) {
      proto.setPackage(file.getPackageName());
    }
    proto.addAllDependency(file.getImports()).addAllDependency(file.getPublicImports());
    for (int i = 0; i < file.getPublicImports().size(); i++) {
      proto.addPublicDependency(file.getImports().size() + i);
    }
    for (TypeElement type : file.getTypes()) {
      if (type instanceof MessageElement m) {
        proto.addMessageType(message(m, proto3));
      } else if (type instanceof EnumElement e) {
        proto.addEnumType(enumType(e));
      }
    }
    try {
      return FileDescriptor.buildFrom(proto.build(), deps.toArray(new FileDescriptor[0]));
    } catch (Descriptors.DescriptorValidationException e) {
      throw new IllegalArgumentException("Protobuf schema " + name + " does not link: " + e.getMessage(), e);
    }
  }

  private static DescriptorProto message(MessageElement m, boolean proto3) {
    DescriptorProto.Builder b = DescriptorProto.newBuilder().setName(m.getName());
    for (TypeElement nested : m.getNestedTypes()) {
      if (nested instanceof MessageElement nm) {
        b.addNestedType(message(nm, proto3));
      } else if (nested instanceof EnumElement ne) {
        b.addEnumType(enumType(ne));
      }
    }
    for (FieldElement f : m.getFields()) {
      b.addField(field(f, proto3, b, -1));
    }
    for (OneOfElement o : m.getOneOfs()) {
      int index = b.getOneofDeclCount();
      b.addOneofDecl(OneofDescriptorProto.newBuilder().setName(o.getName()));
      for (FieldElement f : o.getFields()) {
        b.addField(field(f, proto3, b, index));
      }
    }
    // proto3 "optional" is a oneof of one, declared after the real ones (protoc's order).
    for (int i = 0; i < b.getFieldCount(); i++) {
      FieldDescriptorProto f = b.getField(i);
      if (f.getProto3Optional()) {
        int index = b.getOneofDeclCount();
        b.addOneofDecl(OneofDescriptorProto.newBuilder().setName("_" + f.getName()));
        b.setField(i, f.toBuilder().setOneofIndex(index));
      }
    }
    return b.build();
  }

  private static FieldDescriptorProto field(FieldElement f, boolean proto3, DescriptorProto.Builder owner,
      int oneof) {
    FieldDescriptorProto.Builder b = FieldDescriptorProto.newBuilder().setName(f.getName()).setNumber(f.getTag());
    String type = f.getType().trim();
    Field.Label label = f.getLabel();
    if (type.startsWith("map<")) {
      String[] kv = type.substring(4, type.length() - 1).split(",", 2);
      String entry = camel(f.getName()) + "Entry";
      DescriptorProto.Builder e = DescriptorProto.newBuilder().setName(entry)
          .setOptions(MessageOptions.newBuilder().setMapEntry(true));
      e.addField(typed(FieldDescriptorProto.newBuilder().setName("key").setNumber(1)
          .setLabel(FieldDescriptorProto.Label.LABEL_OPTIONAL), kv[0].trim()));
      e.addField(typed(FieldDescriptorProto.newBuilder().setName("value").setNumber(2)
          .setLabel(FieldDescriptorProto.Label.LABEL_OPTIONAL), kv[1].trim()));
      owner.addNestedType(e);
      return b.setLabel(FieldDescriptorProto.Label.LABEL_REPEATED).setTypeName(entry).build();
    }
    typed(b, type);
    if (label == Field.Label.REPEATED) {
      b.setLabel(FieldDescriptorProto.Label.LABEL_REPEATED);
    } else if (label == Field.Label.REQUIRED) {
      b.setLabel(FieldDescriptorProto.Label.LABEL_REQUIRED);
    } else {
      b.setLabel(FieldDescriptorProto.Label.LABEL_OPTIONAL);
      if (proto3 && label == Field.Label.OPTIONAL && oneof < 0) {
        b.setProto3Optional(true);
      }
    }
    if (oneof >= 0) {
      b.setOneofIndex(oneof);
    }
    if (f.getDefaultValue() != null) {
      b.setDefaultValue(f.getDefaultValue());
    }
    if (f.getJsonName() != null) {
      b.setJsonName(f.getJsonName());
    }
    for (OptionElement o : f.getOptions()) {
      if (o.getName().equals("packed")) {
        b.setOptions(FieldOptions.newBuilder().setPacked(Boolean.parseBoolean(String.valueOf(o.getValue()))));
      }
    }
    return b.build();
  }

  /** A scalar by its type; anything else by name, left for protobuf-java to resolve as a message or an enum. */
  private static FieldDescriptorProto.Builder typed(FieldDescriptorProto.Builder b, String type) {
    FieldDescriptorProto.Type scalar = SCALARS.get(type);
    return scalar != null ? b.setType(scalar) : b.setTypeName(type);
  }

  private static EnumDescriptorProto enumType(EnumElement e) {
    EnumDescriptorProto.Builder b = EnumDescriptorProto.newBuilder().setName(e.getName());
    for (EnumConstantElement c : e.getConstants()) {
      b.addValue(EnumValueDescriptorProto.newBuilder().setName(c.getName()).setNumber(c.getTag()));
    }
    for (OptionElement o : e.getOptions()) {
      if (o.getName().equals("allow_alias")) {
        b.setOptions(com.google.protobuf.DescriptorProtos.EnumOptions.newBuilder()
            .setAllowAlias(Boolean.parseBoolean(String.valueOf(o.getValue()))));
      }
    }
    return b.build();
  }

  /** protoc's map entry name: {@code order_lines} → {@code OrderLinesEntry}. */
  private static String camel(String field) {
    StringBuilder out = new StringBuilder();
    boolean upper = true;
    for (char c : field.toCharArray()) {
      if (c == '_') {
        upper = true;
      } else {
        out.append(upper ? Character.toUpperCase(c) : c);
        upper = false;
      }
    }
    return out.toString();
  }

  public static boolean isWellKnown(String importPath) {
    return WELL_KNOWN.containsKey(importPath);
  }

  /**
   * A linked file as protoc writes it: every field with its JSON name, every message and enum field typed, its type
   * name fully qualified with the leading dot, so a client that reads the descriptor need not resolve names itself.
   */
  public static FileDescriptorProto qualified(FileDescriptor file) {
    FileDescriptorProto.Builder b = file.toProto().toBuilder();
    for (int i = 0; i < file.getMessageTypes().size(); i++) {
      b.setMessageType(i, qualified(file.getMessageTypes().get(i), b.getMessageType(i)));
    }
    return b.build();
  }

  private static DescriptorProto qualified(Descriptors.Descriptor d, DescriptorProto proto) {
    DescriptorProto.Builder b = proto.toBuilder();
    for (int i = 0; i < d.getFields().size(); i++) {
      Descriptors.FieldDescriptor f = d.getFields().get(i);
      b.setField(i, b.getField(i).toBuilder().setJsonName(f.getJsonName()));
      if (f.getType() == Descriptors.FieldDescriptor.Type.MESSAGE) {
        b.setField(i, b.getField(i).toBuilder().setType(FieldDescriptorProto.Type.TYPE_MESSAGE)
            .setTypeName("." + f.getMessageType().getFullName()));
      } else if (f.getType() == Descriptors.FieldDescriptor.Type.ENUM) {
        b.setField(i, b.getField(i).toBuilder().setType(FieldDescriptorProto.Type.TYPE_ENUM)
            .setTypeName("." + f.getEnumType().getFullName()));
      }
    }
    for (int i = 0; i < d.getNestedTypes().size(); i++) {
      b.setNestedType(i, qualified(d.getNestedTypes().get(i), b.getNestedType(i)));
    }
    return b.build();
  }

  /** The {@code .proto} text of a linked file: what a serializer registers for a message class it was handed. */
  public static String text(FileDescriptor file) {
    return ProtoText.of(file);
  }

  /**
   * The {@code .proto} text of a serialized {@code FileDescriptorProto}, as Confluent's registry accepts one in place
   * of text; its imports are linked through {@code imports}.
   */
  public static String textOfSerialized(byte[] serialized, Imports imports) {
    try {
      FileDescriptorProto proto = FileDescriptorProto.parseFrom(serialized);
      List<FileDescriptor> deps = new ArrayList<>();
      for (String imported : proto.getDependencyList()) {
        deps.add(build(imported, WELL_KNOWN.containsKey(imported) ? "" : imports.text(imported), imports));
      }
      return ProtoText.of(FileDescriptor.buildFrom(proto, deps.toArray(new FileDescriptor[0])));
    } catch (com.google.protobuf.InvalidProtocolBufferException | Descriptors.DescriptorValidationException e) {
      throw new IllegalArgumentException("not a serialized FileDescriptorProto: " + e.getMessage(), e);
    }
  }

}
