package io.sluice.serde.protobuf;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.Message;
import io.sluice.schema.protobuf.ProtoDescriptors;
import io.sluice.serde.SchemaIds;
import io.sluice.serde.SerdeConfig;
import io.sluice.registry.client.SchemaRegistryClient;
import io.sluice.registry.client.WireFormat;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Writes Protobuf messages (generated classes or {@code DynamicMessage}) in Confluent's wire format: magic byte, schema
 * id, the message's index path in its file, then the message. The message's {@code .proto} file is registered (or
 * looked up) once per subject, its own imports first, each under its import path as subject and named in the
 * schema's {@code references} (Confluent's default reference naming); Google's well-known types are built in.
 */
public final class ProtobufSerializer implements Serializer<Message> {
  private SerdeConfig config;
  private SchemaRegistryClient client;
  private SchemaIds ids;
  private final Map<FileDescriptor, SchemaRegistryClient.Schema> schemas = new ConcurrentHashMap<>();

  @Override
  public void configure(Map<String, ?> configs, boolean isKey) {
    config = SerdeConfig.of(configs, isKey);
    client = config.client();
    ids = new SchemaIds(config, client, SchemaIds.Format.PROTOBUF);
  }

  @Override
  public byte[] serialize(String topic, Message message) {
    if (message == null) {
      return null;
    }
    if (config == null) {
      throw new SerializationException("ProtobufSerializer is not configured: schema.registry.url is needed");
    }
    Descriptor descriptor = message.getDescriptorForType();
    String subject = config.strategy().subject(topic, config.isKey(), descriptor.getFullName());
    int id = ids.idFor(topic, subject, descriptor.getFile().getName(), () -> schema(descriptor.getFile()));
    byte[] indexes = WireFormat.messageIndexes(ProtobufSchemas.indexes(descriptor));
    try {
      return WireFormat.frame(id, out -> {
        out.write(indexes);
        message.writeTo(out);
      });
    } catch (IOException e) {
      throw new SerializationException("Error serializing Protobuf message: " + e.getMessage(), e);
    }
  }

  /** The file's text and its references, its imports registered first (under their import paths). */
  private SchemaRegistryClient.Schema schema(FileDescriptor file) {
    SchemaRegistryClient.Schema known = schemas.get(file);
    if (known != null) {
      return known;
    }
    List<SchemaRegistryClient.Reference> refs = new ArrayList<>();
    for (FileDescriptor dep : file.getDependencies()) {
      if (ProtoDescriptors.isWellKnown(dep.getName())) {
        continue;
      }
      SchemaRegistryClient.Schema depSchema = schema(dep);
      refs.add(new SchemaRegistryClient.Reference(dep.getName(), dep.getName(),
          referencedVersion(file, dep.getName(), depSchema)));
    }
    SchemaRegistryClient.Schema schema = new SchemaRegistryClient.Schema("PROTOBUF", ProtoDescriptors.text(file), refs);
    schemas.put(file, schema);
    return schema;
  }

  /**
   * The version of an import's subject that holds its text: registered first when this serializer registers, as
   * Confluent's does; with {@code auto.register.schemas=false} only looked up, so a writer that may not register
   * changes no subject, its imports' included, and one whose import is not there says which.
   */
  private int referencedVersion(FileDescriptor importer, String subject, SchemaRegistryClient.Schema schema) {
    if (config.autoRegister()) {
      client.register(subject, schema);
    }
    return client.lookup(subject, schema).orElseThrow(() -> new SerializationException("Error retrieving Protobuf"
        + " schema for subject " + subject + " (imported by " + importer.getName() + "): Schema not found; "
        + SerdeConfig.AUTO_REGISTER + " is false")).version();
  }
}
