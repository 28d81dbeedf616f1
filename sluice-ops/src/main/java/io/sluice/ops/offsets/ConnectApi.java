package io.sluice.ops.offsets;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The Kafka Connect REST calls offset surgery makes. Stop/offsets endpoints exist from Kafka 3.5/3.6 on; on older
 * runtimes they answer 404 or 405 for an existing connector, which callers take as "not available".
 */
final class ConnectApi {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final String baseUrl;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  record Reply(int status, String body) {
    JsonNode json() {
      try {
        return JSON.readTree(body);
      } catch (IOException e) {
        throw new IllegalStateException("Kafka Connect answered with something that is not JSON: " + body, e);
      }
    }

    String message() {
      try {
        return JSON.readTree(body).path("message").asText(body);
      } catch (IOException e) {
        return body;
      }
    }
  }

  ConnectApi(String baseUrl) {
    this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
  }

  String baseUrl() {
    return baseUrl;
  }

  /** The connector's config, or empty when the runtime does not know the connector. */
  Optional<ObjectNode> config(String connector) {
    Reply r = call("GET", path(connector) + "/config", null);
    if (r.status() == 404) {
      return Optional.empty();
    }
    expect(r, 200, "read the config of connector " + connector);
    return Optional.of((ObjectNode) r.json());
  }

  /** The names of all connectors the runtime knows. */
  java.util.Set<String> connectorNames() {
    Reply r = call("GET", "/connectors", null);
    expect(r, 200, "list connectors");
    java.util.Set<String> out = new java.util.HashSet<>();
    r.json().forEach(n -> out.add(n.asText()));
    return out;
  }

  String state(String connector) {
    Reply r = call("GET", path(connector) + "/status", null);
    expect(r, 200, "read the status of connector " + connector);
    return r.json().path("connector").path("state").asText();
  }

  /** Stops the connector (tasks shut down, offsets flushed); false when the runtime has no stop endpoint. */
  boolean stop(String connector, Duration timeout) {
    Reply r = call("PUT", path(connector) + "/stop", null);
    if (r.status() == 404 || r.status() == 405) {
      return false;
    }
    expect(r, 204, "stop connector " + connector);
    awaitStatus(connector, s -> "STOPPED".equals(s.path("connector").path("state").asText())
        && s.path("tasks").isEmpty(), timeout, "STOPPED with no tasks");
    return true;
  }

  void pause(String connector, Duration timeout) {
    expect(call("PUT", path(connector) + "/pause", null), 202, "pause connector " + connector);
    awaitStatus(connector, s -> "PAUSED".equals(s.path("connector").path("state").asText()), timeout, "PAUSED");
  }

  void resume(String connector) {
    expect(call("PUT", path(connector) + "/resume", null), 202, "resume connector " + connector);
  }

  /** Restarts connector and tasks, so tasks of a paused connector read the stored offsets again. */
  void restartAll(String connector) {
    Reply r = call("POST", path(connector) + "/restart?includeTasks=true", null);
    if (r.status() != 202 && r.status() != 204) {
      expect(r, 202, "restart connector " + connector);
    }
  }

  /** The connector's offsets as the runtime reports them, or empty when the runtime has no offsets API. */
  Optional<JsonNode> offsets(String connector) {
    Reply r = call("GET", path(connector) + "/offsets", null);
    if (r.status() == 404 || r.status() == 405) {
      return Optional.empty();
    }
    expect(r, 200, "read the offsets of connector " + connector);
    return Optional.of(r.json());
  }

  void patchOffsets(String connector, ObjectNode body) {
    expect(call("PATCH", path(connector) + "/offsets", body.toString()), 200, "write the offsets of connector "
        + connector);
  }

  void deleteOffsets(String connector) {
    expect(call("DELETE", path(connector) + "/offsets", null), 200, "delete the offsets of connector " + connector);
  }

  void putConfig(String connector, ObjectNode config) {
    Reply r = call("PUT", path(connector) + "/config", config.toString());
    if (r.status() != 200 && r.status() != 201) {
      expect(r, 200, "update the config of connector " + connector);
    }
  }

  private void awaitStatus(String connector, Predicate<JsonNode> done, Duration timeout, String what) {
    long deadline = System.nanoTime() + timeout.toNanos();
    String last = "";
    while (System.nanoTime() < deadline) {
      Reply r = call("GET", path(connector) + "/status", null);
      if (r.status() == 200) {
        last = r.body();
        if (done.test(r.json())) {
          return;
        }
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted waiting for connector " + connector, e);
      }
    }
    throw new IllegalStateException("connector " + connector + " was not " + what + " within " + timeout.toSeconds()
        + " s; last status: " + last);
  }

  private static String path(String connector) {
    return "/connectors/" + URLEncoder.encode(connector, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private Reply call(String method, String path, String body) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(Duration.ofSeconds(120))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      b.header("Content-Type", "application/json");
    }
    try {
      HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
      return new Reply(r.statusCode(), r.body());
    } catch (IOException e) {
      throw new IllegalStateException("cannot reach Kafka Connect at " + baseUrl + " (" + method + " " + path + "): "
          + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private static void expect(Reply r, int status, String what) {
    if (r.status() != status) {
      throw new IllegalStateException("cannot " + what + ": Kafka Connect answered HTTP " + r.status() + ": "
          + r.message());
    }
  }
}
