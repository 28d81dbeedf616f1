package io.sluice.serde.jsonschema;

import io.sluice.client.HttpTransport;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.serde.SchemaIds;
import io.sluice.serde.SerdeConfig;
import io.sluice.registry.client.RegistryApiException;
import io.sluice.registry.client.SchemaRegistryClient;
import io.sluice.registry.client.WireFormat;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Writes values as JSON in Confluent's wire format, under a JSON Schema held by the registry. A value is a Jackson
 * {@code JsonNode}, a {@code Map} or any object Jackson can write. Its schema is either the subject's latest version
 * ({@code use.latest.version=true}) or carried with it in an envelope, {@code {"schema": {...}, "payload": ...}}, as
 * Confluent's serializer accepts; the envelope's schema is registered (or looked up) once. With
 * {@code json.fail.invalid.schema=true} each value is validated against its schema first, as Confluent's does.
 */
public final class JsonSchemaSerializer implements Serializer<Object> {
  public static final String FAIL_INVALID_SCHEMA = "json.fail.invalid.schema";

  private SerdeConfig config;
  private SchemaRegistryClient client;
  private JsonSchemas schemas;
  private SchemaIds ids;
  private boolean validate;

  @Override
  public void configure(Map<String, ?> configs, boolean isKey) {
    config = SerdeConfig.of(configs, isKey);
    client = config.client();
    schemas = new JsonSchemas(client);
    ids = new SchemaIds(config, client, SchemaIds.Format.JSON);
    Object v = configs.get(FAIL_INVALID_SCHEMA);
    validate = v != null && Boolean.parseBoolean(v.toString().trim());
  }

  /** True for Confluent's envelope: an object with exactly {@code schema} and {@code payload}. */
  static boolean isEnvelope(Object value) {
    return value instanceof ObjectNode o && o.size() == 2 && o.has("schema") && o.has("payload");
  }

  @Override
  public byte[] serialize(String topic, Object value) {
    if (value == null) {
      return null;
    }
    if (config == null) {
      throw new SerializationException("JsonSchemaSerializer is not configured: schema.registry.url is needed");
    }
    JsonNode payload;
    SchemaRegistryClient.Schema schema;
    int id;
    String subject;
    try {
      if (isEnvelope(value)) {
        ObjectNode envelope = (ObjectNode) value;
        schema = new SchemaRegistryClient.Schema(SchemaIds.Format.JSON.type(), envelope.get("schema").toString(),
            List.of());
        payload = envelope.get("payload");
        // Parsed before it is named, as Confluent's serializer does: an invalid schema is refused with the parser's
        // error, not with a naming strategy's complaint that it has no title.
        schemas.parse(schema);
        subject = config.strategy().subject(topic, config.isKey(), JsonSchemas.title(schema.schema()));
        SchemaRegistryClient.Schema carried = schema;
        id = ids.idFor(topic, subject, carried.schema(), () -> carried);
        if (config.useLatestVersion()) {
          schema = ids.latest(topic, subject).schema();
        }
      } else {
        if (!config.useLatestVersion()) {
          throw new SerializationException("No JSON Schema for a " + value.getClass().getName() + ": send an envelope "
              + "{\"schema\": ..., \"payload\": ...} or set use.latest.version=true");
        }
        payload = value instanceof JsonNode n ? n : SerdeConfig.JSON.valueToTree(value);
        subject = config.strategy().subject(topic, config.isKey(), "");
        SchemaRegistryClient.SubjectVersion v = ids.latest(topic, subject);
        schema = v.schema();
        id = v.id();
      }
    } catch (RegistryApiException e) {
      throw new SerializationException("Error registering JSON schema for topic " + topic + ": " + e.getMessage(), e);
    } catch (HttpTransport.UnreachableException e) {
      throw new SerializationException("Error reaching the schema registry: " + e.getMessage(), e);
    } catch (IllegalArgumentException e) {
      throw new SerializationException("Error serializing JSON message: " + e.getMessage(), e);
    }
    if (!"JSON".equals(schema.type())) {
      throw new SerializationException("Schema " + id + " is " + schema.type() + ", not JSON Schema");
    }
    if (validate) {
      JsonSchemas.validate(schemas.parse(schema), payload);
    }
    try {
      return WireFormat.frame(id, SerdeConfig.JSON.writeValueAsBytes(payload));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new SerializationException("Error serializing JSON message: " + e.getMessage(), e);
    }
  }
}
