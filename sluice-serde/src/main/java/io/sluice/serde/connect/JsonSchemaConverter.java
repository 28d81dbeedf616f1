package io.sluice.serde.connect;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.serde.SchemaIds;
import io.sluice.serde.SerdeConfig;
import io.sluice.registry.client.SchemaRegistryClient;
import io.sluice.registry.client.WireFormat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.errors.DataException;

/**
 * Kafka Connect's converter for JSON with its JSON Schema in the registry, in Confluent's wire format:
 * {@code value.converter=io.sluice.serde.connect.JsonSchemaConverter}. The record travels as plain JSON after the
 * five-byte header, its schema once in the registry instead of inlined in every record ({@link ConnectJsonSchema}
 * has the mapping). A record that cannot be read gets the {@value AvroConverter#SCHEMA_ID_HEADER} header and a
 * {@link DataException} naming its schema id, for the sink's dead letter queue.
 */
public final class JsonSchemaConverter extends RegistryConverter {
  private final ConnectJsonSchema data = new ConnectJsonSchema();
  /** The id of each Connect schema in each topic written to (a subject per topic, under the topic name strategy). */
  private final Map<Written, Integer> ids = new ConcurrentHashMap<>();
  private final Map<Integer, Schema> schemas = new ConcurrentHashMap<>();

  private record Written(String topic, Schema schema) {}

  public JsonSchemaConverter() {
    super(SchemaIds.Format.JSON, null);
  }

  @Override
  byte[] write(RegistryBinding bound, String topic, Schema schema, Object value) {
    Written written = new Written(topic, schema);
    Integer id = ids.get(written);
    if (id == null) {
      id = bound.idFor(topic, schema.name() == null ? "" : schema.name(), schema,
          () -> new SchemaRegistryClient.Schema(SchemaIds.Format.JSON.type(), data.jsonSchema(schema).toString(),
              List.of()));
      ids.put(written, id);
    }
    try {
      return WireFormat.frame(id, SerdeConfig.JSON.writeValueAsBytes(data.jsonValue(schema, value)));
    } catch (IOException e) {
      throw new DataException("Failed to serialize JSON data from topic " + topic + ": " + e.getMessage(), e);
    }
  }

  @Override
  SchemaAndValue read(RegistryBinding bound, String topic, WireFormat.Framed framed) throws IOException {
    Schema schema = schemas.computeIfAbsent(framed.schemaId(), id -> connectSchema(bound.client(), id));
    ByteBuffer p = framed.payload();
    JsonNode json = SerdeConfig.JSON.readTree(p.array(), p.arrayOffset() + p.position(), p.remaining());
    return new SchemaAndValue(schema, data.connectValue(schema, json));
  }

  @Override
  Schema connectSchemaOf(RegistryBinding bound, int id) {
    return schemas.computeIfAbsent(id, i -> connectSchema(bound.client(), i));
  }

  private Schema connectSchema(SchemaRegistryClient client, int id) {
    SchemaRegistryClient.Schema s = SchemaIds.writerSchema(client, id, SchemaIds.Format.JSON);
    try {
      return data.connectSchema(SerdeConfig.JSON.readTree(s.schema()));
    } catch (IOException e) {
      throw new DataException("Schema id " + id + " is not JSON: " + e.getMessage(), e);
    }
  }
}
