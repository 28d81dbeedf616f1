package io.sluice.serde.view;

import io.sluice.registry.client.RegistryApiException;
import io.sluice.client.HttpTransport;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.DynamicMessage;
import io.sluice.serde.SerdeConfig;
import io.sluice.serde.avro.AvroDeserializer;
import io.sluice.registry.client.SchemaRegistryClient;
import io.sluice.serde.protobuf.ProtobufJson;
import io.sluice.serde.protobuf.ProtobufSchemas;
import io.sluice.registry.client.WireFormat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.generic.GenericData;
import org.apache.kafka.common.errors.SerializationException;

/**
 * A record's key or value as people read it, whatever wrote it: registry-framed Avro, Protobuf or JSON Schema decoded
 * through the registry (with the schema's id, subject and version), Kafka Connect's JSON envelope
 * ({@code {"schema", "payload"}}), plain JSON, UTF-8 text, and anything else as hex. The one decoding of the console's
 * message browser and of the dead-letter tools; it never throws for a value it cannot read, it says why in
 * {@link Decoded#note}.
 *
 * <pre>{@code
 * PayloadDecoder decoder = new PayloadDecoder(new SchemaRegistryClient("http://127.0.0.1:8081"));
 * Decoded v = decoder.decode(record.value(), record.topic(), false);
 * }</pre>
 */
public final class PayloadDecoder {
  /** Exact numbers: a NUMERIC-format decimal in an envelope is shown with every digit it has. */
  private static final ObjectMapper JSON = SerdeConfig.JSON;

  /** How a payload was read. */
  public enum Format { NULL, AVRO, PROTOBUF, JSON_SCHEMA, CONNECT_JSON, JSON, TEXT, BYTES }

  /**
   * One payload decoded.
   *
   * @param format how it was read; {@code BYTES} also for a framed payload that did not decode (see {@code note})
   * @param text JSON text for the structured formats, the text itself for {@code TEXT}, lower-case hex for
   *     {@code BYTES}, null for {@code NULL}
   * @param schemaId the registry id a framed payload names, or null
   * @param schemaType the registry's type of that schema ({@code AVRO}, {@code PROTOBUF}, {@code JSON}), or null when
   *     unknown
   * @param subject the subject of that schema the topic uses (its {@code -key}/{@code -value} subject where it is one
   *     of them), or null when not asked or unknown
   * @param version that subject's version of the schema, or null
   * @param note why a framed payload was not decoded, or what the envelope's schema is called; null otherwise
   */
  public record Decoded(Format format, String text, Integer schemaId, String schemaType, String subject,
      Integer version, String note) {}

  private final SchemaRegistryClient registry;
  private final AvroDeserializer avro;
  private final ProtobufSchemas protobuf;
  private final Map<Integer, List<SchemaRegistryClient.Use>> uses = new ConcurrentHashMap<>();

  /** @param registry where framed payloads are decoded; null leaves them as hex, with a note */
  public PayloadDecoder(SchemaRegistryClient registry) {
    this.registry = registry;
    this.avro = registry == null ? null : new AvroDeserializer(registry);
    this.protobuf = registry == null ? null : new ProtobufSchemas(registry);
  }

  /**
   * Decodes a record's key or value and, for a framed one, names the subject and version of its schema: the
   * topic's {@code <topic>-key} or {@code <topic>-value} subject when it holds the id (TopicNameStrategy), else the
   * first subject that does.
   */
  public Decoded decode(byte[] bytes, String topic, boolean isKey) {
    Decoded d = decode(bytes);
    if (d.schemaId() == null || registry == null || d.schemaType() == null) {
      return d;
    }
    List<SchemaRegistryClient.Use> all;
    try {
      all = uses.computeIfAbsent(d.schemaId(), registry::versionsOf);
    } catch (RuntimeException e) {
      return d;
    }
    String own = topic + (isKey ? "-key" : "-value");
    SchemaRegistryClient.Use use = all.stream().filter(u -> u.subject().equals(own)).findFirst()
        .orElse(all.isEmpty() ? null : all.get(0));
    return use == null ? d : new Decoded(d.format(), d.text(), d.schemaId(), d.schemaType(), use.subject(),
        use.version(), d.note());
  }

  /** Decodes a payload without naming its subject. */
  public Decoded decode(byte[] bytes) {
    if (bytes == null) {
      return new Decoded(Format.NULL, null, null, null, null, null, null);
    }
    Integer id = WireFormat.schemaIdOrNull(bytes);
    if (id != null) {
      return framed(id, bytes);
    }
    String text = utf8(ByteBuffer.wrap(bytes));
    if (text == null) {
      return new Decoded(Format.BYTES, HexFormat.of().formatHex(bytes), null, null, null, null, null);
    }
    JsonNode json = parseJson(text);
    if (json == null) {
      return new Decoded(Format.TEXT, text, null, null, null, null, null);
    }
    if (isConnectEnvelope(json)) {
      String name = json.path("schema").path("name").asText(null);
      return new Decoded(Format.CONNECT_JSON, json.get("payload").toString(), null, null, null, null,
          name == null ? "schema " + json.path("schema").path("type").asText("unnamed") : "schema " + name);
    }
    return new Decoded(Format.JSON, text, null, null, null, null, null);
  }

  /** Kafka Connect's JsonConverter with {@code schemas.enable=true}: exactly {@code schema} and {@code payload}. */
  static boolean isConnectEnvelope(JsonNode json) {
    return json.isObject() && json.size() == 2 && json.has("payload") && json.path("schema").isObject()
        && json.path("schema").has("type");
  }

  /**
   * A registry-framed payload decoded with the schema its id names; when the registry is not given, does not know the
   * id, or the payload does not decode with the schema, the bytes as hex and the reason in the note.
   */
  public Decoded framed(int id, byte[] bytes) {
    if (registry == null) {
      return undecoded(id, null, bytes, "registry-framed; no registry given to decode it");
    }
    String type;
    try {
      type = registry.schemaById(id).type();
    } catch (RegistryApiException | HttpTransport.UnreachableException e) {
      // The id unknown ("Schema 7 not found"), or the registry out of reach.
      return undecoded(id, null, bytes, e.getMessage());
    }
    try {
      return switch (type) {
        case "AVRO" -> new Decoded(Format.AVRO, GenericData.get().toString(avro.deserialize(null, bytes)), id, type,
            null, null, null);
        case "PROTOBUF" -> {
          ByteBuffer payload = WireFormat.unframe(bytes).payload();
          List<Integer> path = WireFormat.readMessageIndexes(payload);
          DynamicMessage m = DynamicMessage.parseFrom(ProtobufSchemas.message(protobuf.file(id), path, id),
              com.google.protobuf.CodedInputStream.newInstance(payload.array(),
                  payload.arrayOffset() + payload.position(), payload.remaining()));
          yield new Decoded(Format.PROTOBUF, ProtobufJson.toJson(m).toString(), id, type, null, null, null);
        }
        case "JSON" -> {
          String text = utf8(ByteBuffer.wrap(bytes, WireFormat.HEADER, bytes.length - WireFormat.HEADER));
          yield text == null ? undecoded(id, type, bytes, "JSON Schema payload is not UTF-8 text")
              : new Decoded(Format.JSON_SCHEMA, text, id, type, null, null, null);
        }
        default -> undecoded(id, type, bytes, "schema " + id + " is of type " + type + ", which Sluice cannot read");
      };
    } catch (SerializationException | IOException | IllegalArgumentException | IllegalStateException
        | IndexOutOfBoundsException e) {
      return undecoded(id, type, bytes, "does not decode with " + type + " schema " + id + ": " + e.getMessage());
    }
  }

  private static Decoded undecoded(int id, String type, byte[] bytes, String why) {
    return new Decoded(Format.BYTES, HexFormat.of().formatHex(bytes), id, type, null, null, why);
  }

  private static JsonNode parseJson(String text) {
    String t = text.stripLeading();
    if (t.isEmpty() || (t.charAt(0) != '{' && t.charAt(0) != '[')) {
      return null;
    }
    try {
      return JSON.readTree(t);
    } catch (IOException e) {
      return null;
    }
  }

  private static String utf8(ByteBuffer buffer) {
    try {
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(buffer).toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }
}
