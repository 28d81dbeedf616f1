package io.sluice.serde.avro;

import io.sluice.serde.SchemaIds;
import io.sluice.serde.SerdeConfig;
import io.sluice.registry.client.SchemaRegistryClient;
import io.sluice.registry.client.WireFormat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.util.Utf8;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Reads Avro values in Confluent's wire format, their writer schema fetched by id from the registry once and cached:
 * records as {@code GenericRecord}, a top-level string as {@code String}, bytes as {@code byte[]}.
 */
public final class AvroDeserializer implements Deserializer<Object> {
  private SchemaRegistryClient client;
  private final Map<Integer, Schema> schemas = new ConcurrentHashMap<>();

  public AvroDeserializer() {}

  public AvroDeserializer(SchemaRegistryClient client) {
    this.client = client;
  }

  @Override
  public void configure(Map<String, ?> configs, boolean isKey) {
    client = SerdeConfig.of(configs, isKey).client();
  }

  @Override
  public Object deserialize(String topic, byte[] data) {
    if (data == null) {
      return null;
    }
    WireFormat.Framed framed = WireFormat.unframe(data);
    Schema schema = schema(framed.schemaId());
    ByteBuffer payload = framed.payload();
    try {
      Object value = new GenericDatumReader<>(schema).read(null, DecoderFactory.get().binaryDecoder(payload.array(),
          payload.arrayOffset() + payload.position(), payload.remaining(), null));
      if (value instanceof Utf8 u) {
        return u.toString();
      }
      if (value instanceof ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
      }
      return value;
    } catch (IOException | RuntimeException e) {
      throw new SerializationException("Error deserializing Avro message for id " + framed.schemaId() + ": "
          + e.getMessage(), e);
    }
  }

  private Schema schema(int id) {
    Schema known = schemas.get(id);
    if (known != null) {
      return known;
    }
    if (client == null) {
      throw new SerializationException("AvroDeserializer is not configured: schema.registry.url is needed");
    }
    Schema parsed = new Schema.Parser().parse(SchemaIds.writerSchema(client, id, SchemaIds.Format.AVRO).schema());
    schemas.put(id, parsed);
    return parsed;
  }
}
