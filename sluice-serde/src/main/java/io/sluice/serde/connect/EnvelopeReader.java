package io.sluice.serde.connect;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Function;
import org.apache.kafka.common.cache.Cache;
import org.apache.kafka.common.cache.LRUCache;
import org.apache.kafka.common.cache.SynchronizedCache;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The read side of {@link JsonEnvelopeConverter}: a {@code {"schema":{…},"payload":…}} record whose schema bytes were
 * seen before is read without building or hashing the schema's JSON tree, which Kafka's converter does for every
 * record. Only the payload becomes a tree, converted the way Kafka converts it (same Jackson settings, same node
 * accessors, same checks).
 *
 * <p>It answers {@code null} for anything outside the common shape (another field order, a null schema, extra
 * fields, trailing bytes) and for any value it cannot convert; the caller then hands the record to Kafka's own
 * converter, so unusual records and every error message stay exactly Kafka's. A failure that bad input does not
 * explain (a fault of this reader) is answered the same way, and logged at WARN.
 */
final class EnvelopeReader {
  private static final Logger log = LoggerFactory.getLogger(EnvelopeReader.class);
  /** Kafka's JsonDeserializer settings for the converter: exact decimals, big decimals for floats, leading zeros. */
  private static final ObjectMapper MAPPER = new ObjectMapper()
      .enable(JsonReadFeature.ALLOW_LEADING_ZEROS_FOR_NUMBERS.mappedFeature())
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .setNodeFactory(new JsonNodeFactory(true));

  private final boolean replaceNullWithDefault;
  /** Kafka's own bounded cache, as the write side and Kafka's converter use. */
  private final Cache<SchemaBytes, Schema> schemas;
  private final Function<JsonNode, Schema> parseSchema;
  private final AtomicBoolean faultSaid = new AtomicBoolean();
  /**
   * The schemas of the last records read in Kafka's own layout, by their exact bytes: a record that carries one of
   * them is read without tokenizing its schema (some 3 KB of JSON for a Debezium change event, which the parser would
   * otherwise walk through on every record just to find where it ends) or hashing it for the cache.
   */
  private final AtomicReferenceArray<Recent> recent = new AtomicReferenceArray<>(8);
  private final AtomicInteger nextRecent = new AtomicInteger();

  private static final byte[] SCHEMA_FIELD = "{\"schema\":".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] PAYLOAD_FIELD = ",\"payload\":".getBytes(StandardCharsets.US_ASCII);

  /** A schema's JSON text as records carry it, and the schema it stands for. */
  private record Recent(byte[] bytes, Schema schema) {}

  /** A schema's JSON text; equal when the bytes are. */
  private record SchemaBytes(byte[] bytes, int from, int to, int hash) {
    static SchemaBytes of(byte[] bytes, int from, int to) {
      int h = 1;
      for (int i = from; i < to; i++) {
        h = 31 * h + bytes[i];
      }
      return new SchemaBytes(bytes, from, to, h);
    }

    SchemaBytes copy() {
      return new SchemaBytes(Arrays.copyOfRange(bytes, from, to), 0, to - from, hash);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof SchemaBytes s && s.hash == hash
          && Arrays.equals(bytes, from, to, s.bytes, s.from, s.to);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }

  EnvelopeReader(boolean replaceNullWithDefault, int cacheSize, Function<JsonNode, Schema> parseSchema) {
    this.replaceNullWithDefault = replaceNullWithDefault;
    this.parseSchema = parseSchema;
    this.schemas = new SynchronizedCache<>(new LRUCache<>(cacheSize));
  }

  /** The record as Kafka's converter would read it, or null to let Kafka's converter read it. */
  SchemaAndValue read(byte[] value) {
    try {
      SchemaAndValue known = readRecentLayout(value);
      return known != null ? known : readAny(value);
    } catch (IOException | IllegalArgumentException | DataException | ArithmeticException refused) {
      // What bad input gives: Kafka's converter reads the record again and says what is wrong, as Kafka says it.
      return null;
    } catch (RuntimeException e) {
      // Not what bad input gives: a fault of this reader. Kafka's converter still reads the record, but the fault is
      // said (once per converter, with its stack), not hidden behind a quietly slower path.
      if (faultSaid.compareAndSet(false, true)) {
        log.warn("the fast reader of JSON envelopes failed on a record Kafka's converter reads instead (said once;"
            + " such records take Kafka's slower path): {}", e.toString(), e);
      }
      return null;
    }
  }

  /**
   * {@code {"schema":S,"payload":P}} byte for byte, with S one of the {@link #recent} schemas: only P is parsed. The
   * comparisons are of bytes (vectorized); any other spelling of the same record takes {@link #readAny}.
   */
  private SchemaAndValue readRecentLayout(byte[] value) throws IOException {
    int n = value.length;
    if (n < SCHEMA_FIELD.length + PAYLOAD_FIELD.length + 3 || value[n - 1] != '}'
        || !Arrays.equals(value, 0, SCHEMA_FIELD.length, SCHEMA_FIELD, 0, SCHEMA_FIELD.length)) {
      return null;
    }
    for (int i = 0; i < recent.length(); i++) {
      Recent r = recent.get(i);
      if (r == null) {
        continue;
      }
      int end = SCHEMA_FIELD.length + r.bytes.length;
      int payloadAt = end + PAYLOAD_FIELD.length;
      if (payloadAt >= n - 1 || !Arrays.equals(value, end, payloadAt, PAYLOAD_FIELD, 0, PAYLOAD_FIELD.length)
          || !Arrays.equals(value, SCHEMA_FIELD.length, end, r.bytes, 0, r.bytes.length)) {
        continue;
      }
      try (JsonParser p = MAPPER.createParser(value, payloadAt, n - 1 - payloadAt)) {
        if (p.nextToken() == null) {
          return null;
        }
        JsonNode payload = MAPPER.readTree(p);
        if (p.nextToken() != null) {
          return null;
        }
        return new SchemaAndValue(r.schema, toConnect(r.schema, payload));
      }
    }
    return null;
  }

  private SchemaAndValue readAny(byte[] value) throws IOException {
    try (JsonParser p = MAPPER.createParser(value)) {
      if (p.nextToken() != JsonToken.START_OBJECT || p.nextToken() != JsonToken.FIELD_NAME
          || !"schema".equals(p.currentName()) || p.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      int from = (int) p.currentTokenLocation().getByteOffset();
      p.skipChildren();
      int to = (int) p.currentTokenLocation().getByteOffset() + 1;
      if (p.nextToken() != JsonToken.FIELD_NAME || !"payload".equals(p.currentName()) || p.nextToken() == null) {
        return null;
      }
      JsonNode payload = MAPPER.readTree(p);
      if (p.nextToken() != JsonToken.END_OBJECT || p.nextToken() != null) {
        return null;
      }
      Schema schema = schema(value, from, to);
      if (schema == null) {
        return null;
      }
      SchemaAndValue read = new SchemaAndValue(schema, toConnect(schema, payload));
      if (from == SCHEMA_FIELD.length) {
        remember(Arrays.copyOfRange(value, from, to), schema);
      }
      return read;
    }
  }

  private void remember(byte[] schemaBytes, Schema schema) {
    for (int i = 0; i < recent.length(); i++) {
      Recent r = recent.get(i);
      if (r != null && Arrays.equals(r.bytes, schemaBytes)) {
        return;
      }
    }
    recent.set(Math.floorMod(nextRecent.getAndIncrement(), recent.length()), new Recent(schemaBytes, schema));
  }

  private Schema schema(byte[] value, int from, int to) throws IOException {
    SchemaBytes key = SchemaBytes.of(value, from, to);
    Schema schema = schemas.get(key);
    if (schema == null) {
      schema = parseSchema.apply(MAPPER.readTree(value, from, to - from));
      if (schema != null) {
        // The record's own bytes are only borrowed for the lookup; the cache keeps a copy of the schema's part.
        schemas.put(key.copy(), schema);
      }
    }
    return schema;
  }

  private Object toConnect(Schema schema, JsonNode node) {
    if (node == null || node.isNull()) {
      if (schema.defaultValue() != null && replaceNullWithDefault) {
        return schema.defaultValue();
      }
      if (schema.isOptional()) {
        return null;
      }
      throw new IllegalArgumentException("null for a required " + schema.type());
    }
    String name = schema.name();
    if (name != null) {
      switch (name) {
        case Decimal.LOGICAL_NAME -> {
          if (node.isNumber()) {
            return node.decimalValue();
          }
          if (node.isBinary() || node.isTextual()) {
            try {
              return Decimal.toLogical(schema, node.binaryValue());
            } catch (IOException e) {
              throw new IllegalArgumentException(e);
            }
          }
          throw new IllegalArgumentException("not a decimal");
        }
        case org.apache.kafka.connect.data.Date.LOGICAL_NAME -> {
          return org.apache.kafka.connect.data.Date.toLogical(schema, requireInt(node));
        }
        case Time.LOGICAL_NAME -> {
          return Time.toLogical(schema, requireInt(node));
        }
        case Timestamp.LOGICAL_NAME -> {
          if (!node.isIntegralNumber()) {
            throw new IllegalArgumentException("not an integral timestamp");
          }
          return Timestamp.toLogical(schema, node.longValue());
        }
        default -> { }
      }
    }
    return switch (schema.type()) {
      case BOOLEAN -> node.booleanValue();
      case INT8 -> (byte) node.intValue();
      case INT16 -> (short) node.intValue();
      case INT32 -> node.intValue();
      case INT64 -> node.longValue();
      // NaN and the infinities, which Kafka's writer spells as strings and Kafka's reader turns into 0.0.
      case FLOAT32 -> node.isTextual() ? Float.parseFloat(node.textValue()) : node.floatValue();
      case FLOAT64 -> node.isTextual() ? Double.parseDouble(node.textValue()) : node.doubleValue();
      case BYTES -> {
        try {
          yield node.binaryValue();
        } catch (IOException e) {
          throw new IllegalArgumentException(e);
        }
      }
      case STRING -> node.textValue();
      case ARRAY -> {
        List<Object> out = new ArrayList<>();
        for (JsonNode element : node) {
          out.add(toConnect(schema.valueSchema(), element));
        }
        yield out;
      }
      case MAP -> {
        Map<Object, Object> out = new HashMap<>();
        if (schema.keySchema().type() == Schema.Type.STRING) {
          if (!node.isObject()) {
            throw new IllegalArgumentException("map with string keys is not an object");
          }
          for (Map.Entry<String, JsonNode> e : node.properties()) {
            out.put(e.getKey(), toConnect(schema.valueSchema(), e.getValue()));
          }
        } else {
          if (!node.isArray()) {
            throw new IllegalArgumentException("map with other keys is not an array");
          }
          for (JsonNode entry : node) {
            if (!entry.isArray() || entry.size() != 2) {
              throw new IllegalArgumentException("map entry is not a pair");
            }
            out.put(toConnect(schema.keySchema(), entry.get(0)), toConnect(schema.valueSchema(), entry.get(1)));
          }
        }
        yield out;
      }
      case STRUCT -> {
        if (!node.isObject()) {
          throw new IllegalArgumentException("struct is not an object");
        }
        Struct out = new Struct(schema.schema());
        for (Field field : schema.fields()) {
          out.put(field, toConnect(field.schema(), node.get(field.name())));
        }
        yield out;
      }
    };
  }

  private static int requireInt(JsonNode node) {
    if (!node.isInt()) {
      throw new IllegalArgumentException("not an int");
    }
    return node.intValue();
  }
}
