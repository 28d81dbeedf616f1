package io.sluice.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

/** A tiny HTTP client for the tests: real requests over loopback, JSON answers. */
final class Http {
  static final ObjectMapper MAPPER = new ObjectMapper();
  static final String SR = "application/vnd.schemaregistry.v1+json";
  private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  record Answer(int status, String contentType, String body) {
    JsonNode json() {
      try {
        return MAPPER.readTree(body);
      } catch (IOException e) {
        throw new UncheckedIOException(body, e);
      }
    }

    int errorCode() {
      return json().path("error_code").asInt();
    }
  }

  private final String base;

  Http(String base) {
    this.base = base;
  }

  Answer get(String path) {
    return send(HttpRequest.newBuilder(URI.create(base + path)).GET());
  }

  Answer delete(String path) {
    return send(HttpRequest.newBuilder(URI.create(base + path)).DELETE());
  }

  Answer post(String path, Object body) {
    return post(path, body, SR);
  }

  Answer post(String path, Object body, String contentType) {
    return send(HttpRequest.newBuilder(URI.create(base + path))
        .POST(HttpRequest.BodyPublishers.ofString(text(body))).header("Content-Type", contentType));
  }

  Answer put(String path, Object body) {
    return send(HttpRequest.newBuilder(URI.create(base + path))
        .PUT(HttpRequest.BodyPublishers.ofString(text(body))).header("Content-Type", SR));
  }

  /** Registers {@code schema} (Avro) under {@code subject}. */
  Answer register(String subject, String schema) {
    return post("/subjects/" + subject + "/versions", Map.of("schema", schema));
  }

  int registerOk(String subject, String schema) {
    Answer a = register(subject, schema);
    if (a.status() != 200) {
      throw new AssertionError("register " + subject + " failed: " + a);
    }
    return a.json().get("id").asInt();
  }

  private static String text(Object body) {
    if (body instanceof String s) {
      return s;
    }
    try {
      return MAPPER.writeValueAsString(body);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Answer send(HttpRequest.Builder b) {
    HttpRequest request = b.timeout(Duration.ofSeconds(60)).build();
    try {
      HttpResponse<String> r;
      try {
        r = CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
      } catch (IOException e) {
        if (!String.valueOf(e.getMessage()).contains("received no bytes")) {
          throw e;
        }
        // The JDK client took a kept-alive connection from its pool just as the pool's watch of idle connections
        // saw it end or speak and closed it ("connection closed locally"), and it retries that only for idempotent
        // methods. No byte of an answer came back, so the request is sent once more, as HttpURLConnection does with
        // a POST by default; ClusterTest's 16 threads of registrations met it once in CI (why the server ended that
        // connection is not known).
        r = CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
      }
      return new Answer(r.statusCode(), r.headers().firstValue("content-type").orElse(null), r.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
