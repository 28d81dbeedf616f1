package io.sluice.serde.protobuf;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DynamicMessage;
import io.sluice.serde.SerdeConfig;
import io.sluice.serde.client.RegistryApiException;
import io.sluice.serde.client.SchemaRegistryClient;
import io.sluice.serde.wire.WireFormat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Reads Protobuf messages in Confluent's wire format as {@code DynamicMessage}s: the writer's {@code .proto} (and
 * the files it references) fetched by id once and linked into descriptors, the message chosen by the index path.
 */
public final class ProtobufDeserializer implements Deserializer<DynamicMessage> {
  private SchemaRegistryClient client;
  private final Map<Integer, FileDescriptor> files = new ConcurrentHashMap<>();

  @Override
  public void configure(Map<String, ?> configs, boolean isKey) {
    client = SerdeConfig.of(configs, isKey).client();
  }

  @Override
  public DynamicMessage deserialize(String topic, byte[] data) {
    if (data == null) {
      return null;
    }
    if (client == null) {
      throw new SerializationException("ProtobufDeserializer is not configured: schema.registry.url is needed");
    }
    WireFormat.Framed framed = WireFormat.unframe(data);
    ByteBuffer payload = framed.payload();
    List<Integer> path = WireFormat.readMessageIndexes(payload);
    FileDescriptor file;
    try {
      file = files.computeIfAbsent(framed.schemaId(), this::file);
    } catch (RegistryApiException e) {
      throw new SerializationException("Error retrieving Protobuf schema for id " + framed.schemaId() + ": "
          + e.getMessage(), e);
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw new SerializationException("Error reading Protobuf schema for id " + framed.schemaId() + ": "
          + e.getMessage(), e);
    }
    Descriptor descriptor = descriptor(file, path, framed.schemaId());
    try {
      return DynamicMessage.parseFrom(descriptor, CodedInputStream.newInstance(payload.array(),
          payload.arrayOffset() + payload.position(), payload.remaining()));
    } catch (IOException e) {
      throw new SerializationException("Error deserializing Protobuf message for id " + framed.schemaId() + ": "
          + e.getMessage(), e);
    }
  }

  private FileDescriptor file(int id) {
    SchemaRegistryClient.Schema schema = client.schemaById(id);
    if (!"PROTOBUF".equals(schema.type())) {
      throw new SerializationException("Schema " + id + " is " + schema.type() + ", not Protobuf");
    }
    Map<String, String> imports = new HashMap<>();
    collect(schema.references(), imports);
    return ProtoDescriptors.build("schema-" + id + ".proto", schema.schema(), path -> {
      String text = imports.get(path);
      if (text == null) {
        throw new IllegalArgumentException("import \"" + path + "\" is not among the schema's references");
      }
      return text;
    });
  }

  private void collect(List<SchemaRegistryClient.Reference> refs, Map<String, String> into) {
    for (SchemaRegistryClient.Reference r : refs) {
      if (into.containsKey(r.name())) {
        continue;
      }
      SchemaRegistryClient.Schema s = client.version(r.subject(), String.valueOf(r.version())).orElseThrow(
          () -> new IllegalArgumentException("referenced schema " + r.name() + " (subject " + r.subject()
              + " version " + r.version() + ") not found")).schema();
      into.put(r.name(), s.schema());
      collect(s.references(), into);
    }
  }

  private static Descriptor descriptor(FileDescriptor file, List<Integer> path, int id) {
    try {
      Descriptor d = file.getMessageTypes().get(path.get(0));
      for (int i = 1; i < path.size(); i++) {
        d = d.getNestedTypes().get(path.get(i));
      }
      return d;
    } catch (IndexOutOfBoundsException e) {
      throw new SerializationException("Message indexes " + path + " name no message of schema " + id);
    }
  }
}
