package io.sluice.serde.connect;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.serde.SerdeConfig;
import io.sluice.serde.client.SchemaRegistryClient;
import io.sluice.serde.wire.WireFormat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.storage.Converter;

/**
 * Kafka Connect's converter for JSON with its JSON Schema in the registry, in Confluent's wire format:
 * {@code value.converter=io.sluice.serde.connect.JsonSchemaConverter}. The record travels as plain JSON after the
 * five-byte header, its schema once in the registry instead of inlined in every record ({@link ConnectJsonSchema}
 * has the mapping). A record that cannot be read gets the {@value AvroConverter#SCHEMA_ID_HEADER} header and a
 * {@link DataException} naming its schema id, for the sink's dead letter queue.
 */
public final class JsonSchemaConverter implements Converter {
  private final ConnectJsonSchema data = new ConnectJsonSchema();
  private SerdeConfig config;
  private SchemaRegistryClient client;
  private final Map<Schema, Integer> ids = new ConcurrentHashMap<>();
  private final Map<Integer, Schema> schemas = new ConcurrentHashMap<>();

  @Override
  public ConfigDef config() {
    return RegistryBinding.definition();
  }

  @Override
  public void configure(Map<String, ?> configs, boolean isKey) {
    config = SerdeConfig.of(configs, isKey);
    client = config.client();
  }

  @Override
  public byte[] fromConnectData(String topic, Schema schema, Object value) {
    if (value == null) {
      return null;
    }
    if (schema == null) {
      throw new DataException("The JSON Schema converter needs a schema: this record from topic " + topic
          + " has none");
    }
    requireConfigured();
    int id = ids.computeIfAbsent(schema, s -> register(topic, s));
    try {
      return WireFormat.frame(id, SerdeConfig.JSON.writeValueAsBytes(data.jsonValue(schema, value)));
    } catch (IOException e) {
      throw new DataException("Failed to serialize JSON data from topic " + topic + ": " + e.getMessage(), e);
    }
  }

  private int register(String topic, Schema schema) {
    return RegistryBinding.idFor(config, client, topic, schema.name() == null ? "" : schema.name(),
        new SchemaRegistryClient.Schema("JSON", data.jsonSchema(schema).toString(), List.of()));
  }

  @Override
  public SchemaAndValue toConnectData(String topic, byte[] value) {
    return toConnectData(topic, null, value);
  }

  @Override
  public SchemaAndValue toConnectData(String topic, Headers headers, byte[] value) {
    requireConfigured();
    return RegistryBinding.read(topic, headers, value, "JSON", framed -> {
      Schema schema = schemas.computeIfAbsent(framed.schemaId(), this::connectSchema);
      ByteBuffer p = framed.payload();
      JsonNode json = SerdeConfig.JSON.readTree(p.array(), p.arrayOffset() + p.position(), p.remaining());
      return new SchemaAndValue(schema, data.connectValue(schema, json));
    });
  }

  private Schema connectSchema(int id) {
    SchemaRegistryClient.Schema s = client.schemaById(id);
    if (!"JSON".equals(s.type())) {
      throw new DataException("Schema id " + id + " is " + s.type() + ", not JSON Schema");
    }
    try {
      return data.connectSchema(SerdeConfig.JSON.readTree(s.schema()));
    } catch (IOException e) {
      throw new DataException("Schema id " + id + " is not JSON: " + e.getMessage(), e);
    }
  }

  private void requireConfigured() {
    if (config == null) {
      throw new DataException("JsonSchemaConverter is not configured: schema.registry.url is needed");
    }
  }
}
