package io.sluice.serde.protobuf;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DynamicMessage;
import io.sluice.serde.SerdeConfig;
import io.sluice.registry.client.RegistryApiException;
import io.sluice.registry.client.WireFormat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Reads Protobuf messages in Confluent's wire format as {@code DynamicMessage}s: the writer's {@code .proto} (and
 * the files it references) fetched by id once and linked into descriptors, the message chosen by the index path.
 */
public final class ProtobufDeserializer implements Deserializer<DynamicMessage> {
  private ProtobufSchemas schemas;

  @Override
  public void configure(Map<String, ?> configs, boolean isKey) {
    schemas = new ProtobufSchemas(SerdeConfig.of(configs, isKey).client());
  }

  @Override
  public DynamicMessage deserialize(String topic, byte[] data) {
    if (data == null) {
      return null;
    }
    if (schemas == null) {
      throw new SerializationException("ProtobufDeserializer is not configured: schema.registry.url is needed");
    }
    WireFormat.Framed framed = WireFormat.unframe(data);
    ByteBuffer payload = framed.payload();
    List<Integer> path = WireFormat.readMessageIndexes(payload);
    FileDescriptor file;
    try {
      file = schemas.file(framed.schemaId());
    } catch (RegistryApiException e) {
      throw new SerializationException("Error retrieving Protobuf schema for id " + framed.schemaId() + ": "
          + e.getMessage(), e);
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw new SerializationException("Error reading Protobuf schema for id " + framed.schemaId() + ": "
          + e.getMessage(), e);
    }
    Descriptor descriptor = ProtobufSchemas.message(file, path, framed.schemaId());
    try {
      return DynamicMessage.parseFrom(descriptor, CodedInputStream.newInstance(payload.array(),
          payload.arrayOffset() + payload.position(), payload.remaining()));
    } catch (IOException e) {
      throw new SerializationException("Error deserializing Protobuf message for id " + framed.schemaId() + ": "
          + e.getMessage(), e);
    }
  }
}
