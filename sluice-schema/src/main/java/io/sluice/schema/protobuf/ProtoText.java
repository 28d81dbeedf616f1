package io.sluice.schema.protobuf;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.Descriptors.OneofDescriptor;

/**
 * {@code .proto} text from a runtime descriptor: what a serializer registers for a message class it was handed, as
 * Confluent's serializer registers the text of the message's file. Types are written fully qualified (with the
 * leading dot), so the text means the same wherever it is read.
 */
final class ProtoText {
  private ProtoText() {}

  static String of(FileDescriptor file) {
    StringBuilder out = new StringBuilder();
    boolean proto3 = file.toProto().getSyntax().equals("proto3");
    out.append("syntax = \"").append(proto3 ? "proto3" : "proto2").append("\";\n");
    if (!file.getPackage().isEmpty()) {
      out.append("package ").append(file.getPackage()).append(";\n");
    }
    for (FileDescriptor dep : file.getDependencies()) {
      out.append("import \"").append(dep.getName()).append("\";\n");
    }
    out.append('\n');
    for (Descriptor m : file.getMessageTypes()) {
      message(out, m, proto3, "");
    }
    for (EnumDescriptor e : file.getEnumTypes()) {
      enumType(out, e, "");
    }
    return out.toString();
  }

  private static void message(StringBuilder out, Descriptor m, boolean proto3, String indent) {
    out.append(indent).append("message ").append(m.getName()).append(" {\n");
    String inner = indent + "  ";
    for (Descriptor nested : m.getNestedTypes()) {
      if (!nested.getOptions().getMapEntry()) {
        message(out, nested, proto3, inner);
      }
    }
    for (EnumDescriptor e : m.getEnumTypes()) {
      enumType(out, e, inner);
    }
    for (FieldDescriptor f : m.getFields()) {
      OneofDescriptor oneof = f.getRealContainingOneof();
      if (oneof == null) {
        field(out, f, proto3, inner, true);
      }
    }
    for (OneofDescriptor o : m.getRealOneofs()) {
      out.append(inner).append("oneof ").append(o.getName()).append(" {\n");
      for (FieldDescriptor f : o.getFields()) {
        field(out, f, proto3, inner + "  ", false);
      }
      out.append(inner).append("}\n");
    }
    out.append(indent).append("}\n");
  }

  private static void field(StringBuilder out, FieldDescriptor f, boolean proto3, String indent, boolean labelled) {
    out.append(indent);
    if (f.isMapField()) {
      Descriptor entry = f.getMessageType();
      out.append("map<").append(type(entry.findFieldByNumber(1))).append(", ").append(type(entry.findFieldByNumber(2)))
          .append("> ");
    } else {
      if (labelled) {
        if (f.isRepeated()) {
          out.append("repeated ");
        } else if (f.isRequired()) {
          out.append("required ");
        } else if (!proto3 || f.toProto().getProto3Optional()) {
          out.append("optional ");
        }
      }
      out.append(type(f)).append(' ');
    }
    out.append(f.getName()).append(" = ").append(f.getNumber());
    if (f.toProto().hasOptions() && f.toProto().getOptions().hasPacked()) {
      out.append(" [packed = ").append(f.toProto().getOptions().getPacked()).append(']');
    }
    out.append(";\n");
  }

  private static String type(FieldDescriptor f) {
    return switch (f.getType()) {
      case MESSAGE, GROUP -> "." + f.getMessageType().getFullName();
      case ENUM -> "." + f.getEnumType().getFullName();
      default -> f.getType().name().toLowerCase(java.util.Locale.ROOT);
    };
  }

  private static void enumType(StringBuilder out, EnumDescriptor e, String indent) {
    out.append(indent).append("enum ").append(e.getName()).append(" {\n");
    if (e.getOptions().getAllowAlias()) {
      out.append(indent).append("  option allow_alias = true;\n");
    }
    for (EnumValueDescriptor v : e.getValues()) {
      out.append(indent).append("  ").append(v.getName()).append(" = ").append(v.getNumber()).append(";\n");
    }
    out.append(indent).append("}\n");
  }
}
