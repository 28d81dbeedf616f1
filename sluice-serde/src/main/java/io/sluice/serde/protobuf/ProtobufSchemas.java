package io.sluice.serde.protobuf;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import io.sluice.schema.protobuf.ProtoDescriptors;
import io.sluice.schema.protobuf.ProtobufSchemaProvider;
import io.sluice.registry.client.SchemaRegistryClient;
import io.sluice.serde.SchemaIds;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.errors.SerializationException;

/**
 * Registered Protobuf schemas as runtime descriptors, for the deserializer and the Connect converter: a schema id's
 * {@code .proto} text and the files it references, fetched once and linked; Google's well-known types and
 * Confluent's {@code confluent/meta.proto} are built in, as in the registry.
 */
public final class ProtobufSchemas {
  private final SchemaRegistryClient client;
  private final Map<Integer, FileDescriptor> files = new ConcurrentHashMap<>();

  public ProtobufSchemas(SchemaRegistryClient client) {
    this.client = client;
  }

  /** The linked file of schema {@code id}; its text is {@link #text(int)}. */
  public FileDescriptor file(int id) {
    return files.computeIfAbsent(id, this::load);
  }

  /** The {@code .proto} text of schema {@code id}, as the registry holds it. */
  public String text(int id) {
    return SchemaIds.writerSchema(client, id, SchemaIds.Format.PROTOBUF).schema();
  }

  private FileDescriptor load(int id) {
    SchemaRegistryClient.Schema schema = SchemaIds.writerSchema(client, id, SchemaIds.Format.PROTOBUF);
    Map<String, String> imports = new HashMap<>();
    collect(schema.references(), imports);
    return build("schema-" + id + ".proto", schema.schema(), imports);
  }

  /** Links {@code text}; its imports come from {@code imports} (import path → text) or are built in. */
  public static FileDescriptor build(String name, String text, Map<String, String> imports) {
    return ProtoDescriptors.build(name, text, path -> {
      String t = imports.get(path);
      if (t == null) {
        t = ProtobufSchemaProvider.wellKnown(path);
      }
      if (t == null) {
        throw new IllegalArgumentException("import \"" + path + "\" is not among the schema's references");
      }
      return t;
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

  /** The message's path in its file: top-level index, then the index within each enclosing message. */
  public static List<Integer> indexes(Descriptor descriptor) {
    List<Integer> path = new ArrayList<>();
    Descriptor d = descriptor;
    while (d.getContainingType() != null) {
      path.add(0, d.getContainingType().getNestedTypes().indexOf(d));
      d = d.getContainingType();
    }
    path.add(0, d.getFile().getMessageTypes().indexOf(d));
    return path;
  }

  /** The message at {@code path} in {@code file}. */
  public static Descriptor message(FileDescriptor file, List<Integer> path, int schemaId) {
    try {
      Descriptor d = file.getMessageTypes().get(path.get(0));
      for (int i = 1; i < path.size(); i++) {
        d = d.getNestedTypes().get(path.get(i));
      }
      return d;
    } catch (IndexOutOfBoundsException e) {
      throw new SerializationException("Message indexes " + path + " name no message of schema " + schemaId);
    }
  }
}
