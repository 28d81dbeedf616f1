package io.sluice.ops.dlq;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Looks schemas up by id on a Confluent-compatible registry ({@code GET /schemas/ids/{id}}); ids never change, so cached. */
final class SchemaRegistryClient {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final String baseUrl;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  private final Map<Integer, RegisteredSchema> cache = new ConcurrentHashMap<>();

  /** A schema as the registry returns it; {@code type} is AVRO when the registry leaves {@code schemaType} out. */
  record RegisteredSchema(int id, String type, String schema) {}

  SchemaRegistryClient(String baseUrl) {
    this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
  }

  /**
   * The schema with this id.
   *
   * @throws IllegalStateException saying what went wrong: unknown id, registry unreachable, unexpected answer
   */
  RegisteredSchema schema(int id) {
    RegisteredSchema cached = cache.get(id);
    if (cached != null) {
      return cached;
    }
    HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl + "/schemas/ids/" + id))
        .header("Accept", "application/vnd.schemaregistry.v1+json, application/json")
        .timeout(Duration.ofSeconds(30)).GET().build();
    HttpResponse<String> response;
    try {
      response = http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new IllegalStateException("schema registry " + baseUrl + " unreachable: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while asking " + baseUrl, e);
    }
    if (response.statusCode() == 404) {
      throw new IllegalStateException("schema id " + id + " not found in " + baseUrl);
    }
    if (response.statusCode() != 200) {
      throw new IllegalStateException("schema registry " + baseUrl + " answered " + response.statusCode() + " for id "
          + id + ": " + response.body());
    }
    try {
      JsonNode body = JSON.readTree(response.body());
      RegisteredSchema schema = new RegisteredSchema(id, body.path("schemaType").asText("AVRO"),
          body.path("schema").asText());
      cache.put(id, schema);
      return schema;
    } catch (IOException e) {
      throw new IllegalStateException("schema registry " + baseUrl + " answered non-JSON for id " + id, e);
    }
  }
}
