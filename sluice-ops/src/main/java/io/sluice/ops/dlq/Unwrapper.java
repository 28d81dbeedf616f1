package io.sluice.ops.dlq;

import io.sluice.registry.client.SchemaRegistryClient;
import io.sluice.serde.view.PayloadDecoder;
import io.sluice.registry.client.WireFormat;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

/**
 * Finds the original value inside a dead-letter record.
 *
 * <p>Kafka Connect's own DLQ stores the failed record's bytes unchanged, so a record carrying Connect's error headers is
 * taken as is: looking inside it for {@code .value} would tear a business field called {@code value} out of a perfectly
 * good record. Any other record may be a wrapper some other producer wrote, and its original is looked up at the
 * first JSON path present of {@code .original.value}, {@code .record.value}, {@code .value},
 * {@code .payload.original.value}, {@code .payload.record.value}; without any, the bytes are the original.
 *
 * <p>A registry-framed original (magic byte 0, 4-byte schema id) is decoded through the schema registry: Avro to its
 * JSON form, JSON Schema payloads are JSON text already, Protobuf to protobuf's JSON mapping ({@link PayloadDecoder},
 * as the console's message browser reads them).
 */
final class Unwrapper {
  static final List<List<String>> PATHS = List.of(
      List.of("original", "value"), List.of("record", "value"), List.of("value"),
      List.of("payload", "original", "value"), List.of("payload", "record", "value"));
  private static final ObjectMapper JSON = new ObjectMapper();
  private final PayloadDecoder decoder;

  /** @param registry where framed values are decoded; null to leave them as base64 */
  Unwrapper(SchemaRegistryClient registry) {
    this.decoder = new PayloadDecoder(registry);
  }

  Unwrapped unwrap(DlqRecord record) {
    if (record.value() == null) {
      return new Unwrapped(record.partition(), record.offset(), record.error(), "raw", null, null, null, null, "null",
          "tombstone (null value)", null);
    }
    Wrapped wrapped = wrapped(record);
    return wrapped == null ? decode(record, "raw", null, record.value()) : fromPath(record, wrapped.path(), wrapped.node());
  }

  /** Only the bytes to produce again: no registry lookup, no decoding. */
  byte[] original(DlqRecord record) {
    Wrapped wrapped = wrapped(record);
    return wrapped == null ? record.value() : nodeBytes(wrapped.node());
  }

  private record Wrapped(String path, JsonNode node) {}

  /** The original inside a JSON wrapper, or null when the value is the original itself. */
  private static Wrapped wrapped(DlqRecord record) {
    if (record.value() == null || record.error().present()) {
      return null;
    }
    JsonNode wrapper = parseJson(record.value());
    if (wrapper == null || !wrapper.isObject()) {
      return null;
    }
    for (List<String> path : PATHS) {
      JsonNode node = wrapper;
      for (String field : path) {
        node = node.get(field);
        if (node == null) {
          break;
        }
      }
      if (node != null) {
        return new Wrapped("." + String.join(".", path), node);
      }
    }
    return null;
  }

  private Unwrapped fromPath(DlqRecord record, String path, JsonNode node) {
    byte[] bytes = nodeBytes(node);
    if (node.isTextual() || node.isBinary()) {
      // A wrapper may carry the original as a string (JSON text, or base64 of framed bytes): decode what it holds.
      return decode(record, "json-path", path, bytes);
    }
    return new Unwrapped(record.partition(), record.offset(), record.error(), "json-path", path, null, null,
        node.toString(), "json", null, bytes);
  }

  private static byte[] nodeBytes(JsonNode node) {
    if (node.isNull()) {
      return null;
    }
    if (node.isBinary()) {
      try {
        return node.binaryValue();
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
    return (node.isTextual() ? node.textValue() : node.toString()).getBytes(StandardCharsets.UTF_8);
  }

  private Unwrapped decode(DlqRecord record, String source, String path, byte[] bytes) {
    if (bytes == null) {
      return new Unwrapped(record.partition(), record.offset(), record.error(), source, path, null, null, null, "null",
          null, null);
    }
    Integer id = WireFormat.schemaIdOrNull(bytes);
    if (id != null) {
      return framed(record, path, id, bytes);
    }
    String text = utf8(bytes);
    if (text == null) {
      return new Unwrapped(record.partition(), record.offset(), record.error(), source, path, null, null,
          Base64.getEncoder().encodeToString(bytes), "base64", "not UTF-8 text", bytes);
    }
    return new Unwrapped(record.partition(), record.offset(), record.error(), source, path, null, null, text,
        parseJson(bytes) != null ? "json" : "text", null, bytes);
  }

  /** Through the one decoding of registry-framed payloads ({@link PayloadDecoder}), the framed bytes kept for replay. */
  private Unwrapped framed(DlqRecord record, String path, int id, byte[] bytes) {
    PayloadDecoder.Decoded d = decoder.framed(id, bytes);
    if (d.format() == PayloadDecoder.Format.BYTES) {
      return new Unwrapped(record.partition(), record.offset(), record.error(), "registry", path, id, d.schemaType(),
          Base64.getEncoder().encodeToString(bytes), "base64", d.note(), bytes);
    }
    return new Unwrapped(record.partition(), record.offset(), record.error(), "registry", path, id, d.schemaType(),
        d.text(), "json", null, bytes);
  }

  private static JsonNode parseJson(byte[] bytes) {
    if (bytes.length == 0 || (bytes[0] != '{' && bytes[0] != '[' && bytes[0] != ' ' && bytes[0] != '\n')) {
      return null;
    }
    try {
      return JSON.readTree(bytes);
    } catch (JsonProcessingException e) {
      return null;
    } catch (IOException e) {
      return null;
    }
  }

  private static String utf8(byte[] bytes) {
    return utf8(ByteBuffer.wrap(bytes));
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
