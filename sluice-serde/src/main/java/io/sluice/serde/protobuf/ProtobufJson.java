package io.sluice.serde.protobuf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * A Protobuf message as JSON, for people reading it (the console's message browser, the dead-letter tools), after
 * protobuf's JSON mapping: fields by their JSON names, 64-bit integers as strings, bytes as base64, enums by name,
 * maps as objects; fields left at their default are omitted, as {@code JsonFormat.printer()} does.
 */
public final class ProtobufJson {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private ProtobufJson() {}

  public static ObjectNode toJson(Message message) {
    ObjectNode out = NODES.objectNode();
    for (Map.Entry<FieldDescriptor, Object> e : message.getAllFields().entrySet()) {
      FieldDescriptor f = e.getKey();
      if (f.isMapField()) {
        ObjectNode map = out.putObject(f.getJsonName());
        for (Object entry : (List<?>) e.getValue()) {
          Message m = (Message) entry;
          FieldDescriptor key = m.getDescriptorForType().findFieldByName("key");
          FieldDescriptor value = m.getDescriptorForType().findFieldByName("value");
          map.set(String.valueOf(scalar(key, m.getField(key)).asText()), value(value, m.getField(value)));
        }
      } else if (f.isRepeated()) {
        ArrayNode list = out.putArray(f.getJsonName());
        for (Object item : (List<?>) e.getValue()) {
          list.add(value(f, item));
        }
      } else {
        out.set(f.getJsonName(), value(f, e.getValue()));
      }
    }
    return out;
  }

  private static JsonNode value(FieldDescriptor f, Object v) {
    return f.getJavaType() == FieldDescriptor.JavaType.MESSAGE ? toJson((Message) v) : scalar(f, v);
  }

  private static JsonNode scalar(FieldDescriptor f, Object v) {
    return switch (f.getJavaType()) {
      case INT -> f.getType() == FieldDescriptor.Type.UINT32 || f.getType() == FieldDescriptor.Type.FIXED32
          ? NODES.numberNode(Integer.toUnsignedLong((Integer) v)) : NODES.numberNode((Integer) v);
      // JSON numbers lose precision past 2^53: the mapping writes 64-bit integers as strings.
      case LONG -> NODES.textNode(f.getType() == FieldDescriptor.Type.UINT64 || f.getType() == FieldDescriptor.Type.FIXED64
          ? Long.toUnsignedString((Long) v) : Long.toString((Long) v));
      case FLOAT -> NODES.numberNode((Float) v);
      case DOUBLE -> NODES.numberNode((Double) v);
      case BOOLEAN -> NODES.booleanNode((Boolean) v);
      case STRING -> NODES.textNode((String) v);
      case BYTE_STRING -> NODES.textNode(Base64.getEncoder().encodeToString(((ByteString) v).toByteArray()));
      case ENUM -> NODES.textNode(((EnumValueDescriptor) v).getName());
      case MESSAGE -> toJson((Message) v);
    };
  }
}
