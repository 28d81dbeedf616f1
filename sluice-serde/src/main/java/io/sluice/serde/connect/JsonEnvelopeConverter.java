package io.sluice.serde.connect;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.cache.Cache;
import org.apache.kafka.common.cache.LRUCache;
import org.apache.kafka.common.cache.SynchronizedCache;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.json.JsonConverterConfig;

/**
 * Kafka's {@link JsonConverter}, writing the very same bytes, with each schema envelope serialized once.
 *
 * <p>With {@code schemas.enable=true} (the default) every record carries its full schema as JSON, and for a Debezium
 * change event that schema is several times larger than the row. Kafka's converter rebuilds and re-serializes it for
 * every record: on two cores that was the largest single cost of the PostgreSQL → Kafka path (bench/). This converter
 * serializes a schema the first time it sees it and splices the cached bytes in front of the payload, which Kafka's
 * own code still converts. The output is byte for byte Kafka's ({@code {"schema":…,"payload":…}}, compact), so any
 * consumer, including a worker configured with Kafka's class, reads it unchanged.
 *
 * <p>Reading has the mirror-image cost: Kafka's converter parses the schema into a tree and hashes and compares that
 * tree against its cache for every record. {@link EnvelopeReader} recognises schema bytes it has seen and parses only
 * the payload; whatever it does not handle goes to Kafka's own {@code toConnectData}.
 */
public class JsonEnvelopeConverter extends JsonConverter {
  private static final byte[] SCHEMA_FIELD = "{\"schema\":".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] PAYLOAD_FIELD = ",\"payload\":".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] NULL = "null".getBytes(StandardCharsets.US_ASCII);
  private static final ObjectMapper TREE_WRITER = new ObjectMapper();

  /** Writes the payload alone: Kafka's converter with the envelope off, configured like this one otherwise. */
  private final JsonConverter payloadWriter = new JsonConverter();
  private boolean envelope;
  private Cache<Schema, byte[]> schemaBytes;
  private EnvelopeReader reader;
  /** The schema of the previous record: a source task writes runs of records of one table. */
  private volatile CachedSchema last;

  private record CachedSchema(Schema schema, byte[] json) {}

  @Override
  public void configure(Map<String, ?> given) {
    // A NULL stays NULL unless told otherwise: with Kafka's default, a NULL in a column that has a DEFAULT is read
    // (and written) as the default, a value changed in silence.
    Map<String, Object> configs = new HashMap<>(given);
    configs.putIfAbsent(JsonConverterConfig.REPLACE_NULL_WITH_DEFAULT_CONFIG, false);
    super.configure(configs);
    JsonConverterConfig config = new JsonConverterConfig(configs);
    envelope = config.schemasEnabled();
    Map<String, Object> payloadOnly = new HashMap<>(configs);
    payloadOnly.put(JsonConverterConfig.SCHEMAS_ENABLE_CONFIG, false);
    payloadWriter.configure(payloadOnly);
    schemaBytes = new SynchronizedCache<>(new LRUCache<>(config.schemaCacheSize()));
    reader = new EnvelopeReader(config.replaceNullWithDefault(), config.schemaCacheSize(), this::asConnectSchema);
    last = null;
  }

  @Override
  public byte[] fromConnectData(String topic, Schema schema, Object value) {
    if (!envelope || (schema == null && value == null)) {
      return super.fromConnectData(topic, schema, value);
    }
    byte[] schemaJson = schemaJson(schema);
    byte[] payload = payloadWriter.fromConnectData(topic, schema, value);
    if (payload == null) {
      payload = NULL;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(
        SCHEMA_FIELD.length + schemaJson.length + PAYLOAD_FIELD.length + payload.length + 1);
    out.writeBytes(SCHEMA_FIELD);
    out.writeBytes(schemaJson);
    out.writeBytes(PAYLOAD_FIELD);
    out.writeBytes(payload);
    out.write('}');
    return out.toByteArray();
  }

  @Override
  public SchemaAndValue toConnectData(String topic, byte[] value) {
    if (!envelope || value == null) {
      return super.toConnectData(topic, value);
    }
    SchemaAndValue read = reader.read(value);
    return read != null ? read : super.toConnectData(topic, value);
  }

  private byte[] schemaJson(Schema schema) {
    if (schema == null) {
      return NULL;
    }
    CachedSchema previous = last;
    if (previous != null && previous.schema() == schema) {
      return previous.json();
    }
    byte[] json = schemaBytes.get(schema);
    if (json == null) {
      ObjectNode node = asJsonSchema(schema);
      try {
        json = node == null ? NULL : TREE_WRITER.writeValueAsBytes(node);
      } catch (JsonProcessingException e) {
        throw new DataException("Converting Kafka Connect schema to JSON failed", e);
      }
      schemaBytes.put(schema, json);
    }
    last = new CachedSchema(schema, json);
    return json;
  }

  @Override
  public void close() {
    super.close();
    payloadWriter.close();
  }
}
