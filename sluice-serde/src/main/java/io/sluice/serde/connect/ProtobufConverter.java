package io.sluice.serde.connect;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.DynamicMessage;
import io.sluice.registry.client.SchemaRegistryClient;
import io.sluice.serde.protobuf.ProtobufSchemas;
import io.sluice.registry.client.WireFormat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;

/**
 * Kafka Connect's converter for Protobuf in Confluent's wire format, on Sluice's registry:
 * {@code value.converter=io.sluice.serde.connect.ProtobufConverter}. Each Connect schema becomes one proto3 file once
 * ({@link ConnectProtobuf} has the mapping), registered under the subject name strategy with the top message's full
 * name; records are the message after the id and the index path {@code [0]}. Reading, any registered message is
 * read by its index path. A record that cannot be read gets the {@value AvroConverter#SCHEMA_ID_HEADER} header and a
 * {@link DataException} naming its schema id, for the sink's dead letter queue.
 */
public final class ProtobufConverter extends RegistryConverter {
  private static final byte[] FIRST_MESSAGE = WireFormat.messageIndexes(List.of(0));

  private final ConnectProtobuf data = new ConnectProtobuf();
  private ProtobufSchemas schemas;
  private final Map<Schema, Integer> ids = new ConcurrentHashMap<>();
  private final Map<String, Schema> readSchemas = new ConcurrentHashMap<>();

  public ProtobufConverter() {
    super("Protobuf", null);
  }

  @Override
  void configured(RegistryBinding bound, Map<String, ?> configs) {
    schemas = new ProtobufSchemas(bound.client());
  }

  @Override
  byte[] write(RegistryBinding bound, String topic, Schema schema, Object value) {
    ConnectProtobuf.Written w = data.written(schema);
    int id = ids.computeIfAbsent(schema, s -> bound.idFor(topic, w.message().getFullName(),
        new SchemaRegistryClient.Schema("PROTOBUF", w.text(), List.of())));
    try {
      return WireFormat.frame(id, out -> {
        out.write(FIRST_MESSAGE);
        data.message(schema, w.message(), (Struct) value).writeTo(out);
      });
    } catch (IOException e) {
      throw new DataException("Failed to serialize Protobuf data from topic " + topic + ": " + e.getMessage(), e);
    }
  }

  @Override
  SchemaAndValue read(RegistryBinding bound, String topic, WireFormat.Framed framed) throws IOException {
    int id = framed.schemaId();
    ByteBuffer payload = framed.payload();
    List<Integer> path = WireFormat.readMessageIndexes(payload);
    Descriptor d = ProtobufSchemas.message(schemas.file(id), path, id);
    Schema schema = readSchemas.computeIfAbsent(id + ":" + path,
        k -> ConnectProtobuf.connectSchema(d, schemas.text(id)));
    DynamicMessage message = DynamicMessage.parseFrom(d, CodedInputStream.newInstance(payload.array(),
        payload.arrayOffset() + payload.position(), payload.remaining()));
    return new SchemaAndValue(schema, data.connectValue(schema, message));
  }
}
