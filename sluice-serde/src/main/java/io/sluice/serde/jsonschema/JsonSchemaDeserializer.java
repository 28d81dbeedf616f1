package io.sluice.serde.jsonschema;

import io.sluice.client.HttpTransport;
import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.serde.SerdeConfig;
import io.sluice.registry.client.RegistryApiException;
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
    SchemaRegistryClient.Schema schema;
    try {
      schema = client.schemaById(framed.schemaId());
    } catch (RegistryApiException e) {
      throw new SerializationException("Error retrieving JSON schema for id " + framed.schemaId() + ": "
          + e.getMessage(), e);
    } catch (HttpTransport.UnreachableException e) {
      throw new SerializationException("Error reaching the schema registry: " + e.getMessage(), e);
    }
    if (!"JSON".equals(schema.type())) {
      throw new SerializationException("Schema " + framed.schemaId() + " is " + schema.type() + ", not JSON Schema");
    }
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
