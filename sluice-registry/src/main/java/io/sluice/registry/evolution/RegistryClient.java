package io.sluice.registry.evolution;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/** The few reads of the Confluent-compatible REST API an evolution check needs. */
final class RegistryClient {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** An answer other than 200 or 404 from the registry, or no answer at all. */
  static final class RegistryUnavailableException extends IOException {
    RegistryUnavailableException(String message) {
      super(message);
    }
  }

  private final String base;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  RegistryClient(String base) {
    this.base = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
  }

  static String encode(String pathSegment) {
    return URLEncoder.encode(pathSegment, StandardCharsets.UTF_8).replace("+", "%20");
  }

  /** The JSON at {@code path}, or empty on 404. */
  Optional<JsonNode> get(String path) throws IOException {
    HttpRequest req = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30))
        .header("Accept", "application/vnd.schemaregistry.v1+json").GET().build();
    HttpResponse<String> r;
    try {
      r = http.send(req, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new RegistryUnavailableException("registry at " + base + " is not reachable: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    if (r.statusCode() == 404) {
      return Optional.empty();
    }
    if (r.statusCode() != 200) {
      throw new RegistryUnavailableException("GET " + path + " answered " + r.statusCode() + ": " + r.body());
    }
    return Optional.of(MAPPER.readTree(r.body()));
  }
}
