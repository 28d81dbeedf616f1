package io.sluice.bench.platform;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;

/** The few Connect REST calls a benchmark makes. */
final class Rest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient http = HttpClient.newHttpClient();
  private final String base;

  Rest(String base) {
    this.base = base;
  }

  void create(String name, Map<String, String> config) throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/connectors"))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(Map.of("name", name, "config", config))))
        .build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 201) {
      throw new IllegalStateException("create " + name + ": HTTP " + r.statusCode() + " " + r.body());
    }
  }

  /** The connector's config as Connect holds it (Sluice's defaults filled in). */
  Map<String, String> config(String name) throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/connectors/" + name + "/config"))
        .GET().build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IllegalStateException("config of " + name + ": HTTP " + r.statusCode() + " " + r.body());
    }
    return JSON.readValue(r.body(), new com.fasterxml.jackson.core.type.TypeReference<Map<String, String>>() {});
  }

  void update(String name, Map<String, String> config) throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/connectors/" + name + "/config"))
        .header("Content-Type", "application/json")
        .PUT(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(config))).build(),
        HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IllegalStateException("update " + name + ": HTTP " + r.statusCode() + " " + r.body());
    }
  }

  void delete(String name) throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/connectors/" + name)).DELETE()
        .build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 204 && r.statusCode() != 200) {
      throw new IllegalStateException("delete " + name + ": HTTP " + r.statusCode() + " " + r.body());
    }
  }

  /** The trace of the connector's first task where it has failed; empty while it runs (or has no task yet). */
  java.util.Optional<String> taskFailure(String name) throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/connectors/" + name + "/status"))
        .GET().build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      return java.util.Optional.empty();
    }
    var task = JSON.readTree(r.body()).path("tasks").path(0);
    return "FAILED".equals(task.path("state").asText())
        ? java.util.Optional.of(task.path("trace").asText()) : java.util.Optional.empty();
  }

  void awaitRunning(String name) throws Exception {
    awaitRunning(name, java.time.Duration.ofMinutes(1));
  }

  /** As {@link #awaitRunning(String)}, waiting up to {@code patience}, then naming the state it saw last. */
  void awaitRunning(String name, java.time.Duration patience) throws Exception {
    long deadline = System.nanoTime() + patience.toNanos();
    String last = "no status";
    while (System.nanoTime() < deadline) {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/connectors/" + name + "/status"))
          .GET().build(), HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() == 200) {
        var s = JSON.readTree(r.body());
        if ("RUNNING".equals(s.path("connector").path("state").asText()) && s.path("tasks").size() > 0
            && "RUNNING".equals(s.path("tasks").get(0).path("state").asText())) {
          return;
        }
        if ("FAILED".equals(s.path("connector").path("state").asText()) || s.path("tasks").size() > 0
            && "FAILED".equals(s.path("tasks").get(0).path("state").asText())) {
          throw new IllegalStateException(name + " failed: " + r.body());
        }
        last = r.body();
      } else {
        last = "HTTP " + r.statusCode() + ": " + r.body();
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException(name + " not running within " + patience + "; its status last: " + last);
  }
}
