package io.sluice.serde.jsonschema;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.serde.SchemaIds;
import io.sluice.serde.SerdeConfig;
import io.sluice.registry.client.SchemaRegistryClient;
import io.sluice.registry.client.WireFormat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Map;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Reads JSON values in Confluent's wire format as Jackson {@code JsonNode}s; the writer schema is fetched by id once,
 * and with {@code json.fail.invalid.schema=true} each value is validated against it.
 */
public final class JsonSchemaDeserializer implements Deserializer<JsonNode> {
  private SchemaRegistryClient client;
  private JsonSchemas schemas;
  private boolean validate;

  @Override
  public void configure(Map<String, ?> configs, boolean isKey) {
    client = SerdeConfig.of(configs, isKey).client();
    schemas = new JsonSchemas(client);
    Object v = configs.get(JsonSchemaSerializer.FAIL_INVALID_SCHEMA);
    validate = v != null && Boolean.parseBoolean(v.toString().trim());
  }

  @Override
  public JsonNode deserialize(String topic, byte[] data) {
    if (data == null) {
      return null;
    }
    if (client == null) {
      throw new SerializationException("JsonSchemaDeserializer is not configured: schema.registry.url is needed");
    }
    WireFormat.Framed framed = WireFormat.unframe(data);
    SchemaRegistryClient.Schema schema = SchemaIds.writerSchema(client, framed.schemaId(), SchemaIds.Format.JSON);
    JsonNode value;
    try {
      ByteBuffer p = framed.payload();
      value = SerdeConfig.JSON.readTree(p.array(), p.arrayOffset() + p.position(), p.remaining());
    } catch (IOException e) {
      throw new SerializationException("Error deserializing JSON message for id " + framed.schemaId() + ": "
          + e.getMessage(), e);
    }
    if (validate) {
      JsonSchemas.validate(schemas.parse(schema), value);
    }
    return value;
  }
}
