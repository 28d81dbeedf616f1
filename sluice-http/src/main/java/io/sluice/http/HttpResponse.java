package io.sluice.http;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/** An immutable response; build with the static factories and {@link #withHeader}. */
public record HttpResponse(int status, String contentType, Map<String, String> headers, byte[] body) {

  public static final String JSON = "application/json";

  public HttpResponse {
    headers = Map.copyOf(headers);
  }

  public static HttpResponse of(int status, String contentType, byte[] body) {
    return new HttpResponse(status, contentType, Map.of(), body);
  }

  public static HttpResponse text(int status, String contentType, String body) {
    return of(status, contentType, body.getBytes(StandardCharsets.UTF_8));
  }

  /** Serialises {@code value} with the shared mapper under the given content type. */
  public static HttpResponse json(int status, String contentType, Object value) {
    return of(status, contentType, Json.write(value));
  }

  public static HttpResponse json(int status, Object value) {
    return json(status, JSON, value);
  }

  public static HttpResponse empty(int status) {
    return new HttpResponse(status, null, Map.of(), new byte[0]);
  }

  public HttpResponse withHeader(String name, String value) {
    Map<String, String> h = new LinkedHashMap<>(headers);
    h.put(name, value);
    return new HttpResponse(status, contentType, h, body);
  }

  public String bodyText() {
    return new String(body, StandardCharsets.UTF_8);
  }
}
