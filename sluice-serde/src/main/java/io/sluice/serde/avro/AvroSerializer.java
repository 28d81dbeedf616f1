package io.sluice.serde.avro;

import io.sluice.serde.SchemaIds;
import io.sluice.serde.SerdeConfig;
import io.sluice.registry.client.SchemaRegistryClient;
import io.sluice.registry.client.WireFormat;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DatumWriter;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Writes values as Avro in Confluent's wire format, their schema registered (or looked up) in a Confluent-compatible
 * registry under the configured subject name strategy. Once a schema's id is known no registry call is made again.
 *
 * <pre>{@code
 * props.put("value.serializer", AvroSerializer.class.getName());
 * props.put("schema.registry.url", "http://127.0.0.1:8081");
 * }</pre>
 */
public final class AvroSerializer implements Serializer<Object> {
  private SerdeConfig config;
  private SchemaIds ids;

  public AvroSerializer() {}

  /** A serializer on an existing client, for callers that share one. */
  public AvroSerializer(SchemaRegistryClient client, Map<String, ?> configs, boolean isKey) {
    this.config = SerdeConfig.of(configs, isKey);
    this.ids = new SchemaIds(config, client, SchemaIds.Format.AVRO);
  }

  @Override
  public void configure(Map<String, ?> configs, boolean isKey) {
    config = SerdeConfig.of(configs, isKey);
    ids = new SchemaIds(config, config.client(), SchemaIds.Format.AVRO);
  }

  @Override
  public byte[] serialize(String topic, Object value) {
    if (value == null) {
      return null;
    }
    if (config == null) {
      throw new SerializationException("AvroSerializer is not configured: schema.registry.url is needed");
    }
    Schema schema = AvroSchemas.of(value);
    String subject = config.strategy().subject(topic, config.isKey(), AvroSchemas.recordName(schema));
    int id = ids.idFor(topic, subject, schema,
        () -> new SchemaRegistryClient.Schema(SchemaIds.Format.AVRO.type(), schema.toString(), List.of()));
    return WireFormat.frame(id, encode(schema, value));
  }

  @SuppressWarnings("unchecked")
  private static byte[] encode(Schema schema, Object value) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(64);
    try {
      if (value instanceof byte[] bytes) {
        value = ByteBuffer.wrap(bytes);
      }
      DatumWriter<Object> writer = value instanceof SpecificRecord ? new SpecificDatumWriter<>(schema)
          : new GenericDatumWriter<>(schema);
      BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
      writer.write(value, encoder);
      encoder.flush();
    } catch (IOException | RuntimeException e) {
      throw new SerializationException("Error serializing Avro message: " + e.getMessage(), e);
    }
    return out.toByteArray();
  }
}
