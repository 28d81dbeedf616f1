package io.sluice.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;

/** The one Jackson mapper our servers share: no failure on unknown properties, compact output. */
public final class Json {
  public static final ObjectMapper MAPPER =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  private Json() {}

  public static byte[] write(Object value) {
    try {
      return MAPPER.writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Parses a body; a malformed body throws {@link MalformedJsonException} for the server to map to its error shape. */
  public static JsonNode read(byte[] body) {
    try {
      JsonNode node = MAPPER.readTree(body);
      if (node == null || node.isMissingNode()) {
        throw new MalformedJsonException("empty body");
      }
      return node;
    } catch (IOException e) {
      throw new MalformedJsonException(e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage());
    }
  }

  /** A request body that is not JSON. */
  public static final class MalformedJsonException extends RuntimeException {
    public MalformedJsonException(String message) {
      super(message);
    }
  }
}
