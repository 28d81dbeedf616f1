package io.sluice.connect.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.connect.client.ConnectRestClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/** A plain HTTP client for the Connect REST API, as curl would use it: no Sluice code in between. */
public final class ConnectClient {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final String baseUrl;
  private final HttpClient http;
  private final String authorization;

  public ConnectClient(String baseUrl) {
    this(baseUrl, HttpClient.newHttpClient(), null);
  }

  /** A client of a secured worker: its own HTTP client (a TLS context) and an Authorization header value. */
  public ConnectClient(String baseUrl, HttpClient http, String authorization) {
    this.baseUrl = baseUrl;
    this.http = http;
    this.authorization = authorization;
  }

  /** Status code, body and {@code Warning} headers of one call. */
  public record Reply(int status, String body, List<String> warnings) {
    public JsonNode json() {
      try {
        return JSON.readTree(body);
      } catch (IOException e) {
        throw new IllegalStateException("not JSON: " + body, e);
      }
    }
  }

  public Reply call(String method, String path, Object body) {
    try {
      String text = body == null ? null : body instanceof String s ? s : JSON.writeValueAsString(body);
      HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(Duration.ofSeconds(120))
          .method(method, text == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(text));
      if (text != null) {
        b.header("Content-Type", "application/json");
      }
      if (authorization != null) {
        b.header("Authorization", authorization);
      }
      HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
      // A read right after a config change can meet the herder before the rebalance the change calls for (500, "a
      // rebalance is expected": BatchedWritesTest's GET of a config just created, once, on a loaded machine); it
      // answers the next moment. So does any request that found the herder behind its config topic (500, "Failed to
      // read to end of config topic before modifying connector offsets": the herder waits worker.sync.timeout.ms, 3 s,
      // which a loaded machine can take). Each was refused before it changed anything, and Sluice's own client asks
      // again by the same rule.
      for (int attempt = 0; r.statusCode() == 500 && attempt < 20 && ConnectRestClient.rebalancing(r.body());
          attempt++) {
        sleep(250);
        r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
      }
      return new Reply(r.statusCode(), r.body(), r.headers().allValues("Warning"));
    } catch (IOException e) {
      throw new IllegalStateException(method + " " + path + " failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  public Reply create(String name, Map<String, String> config) {
    return call("POST", "/connectors", Map.of("name", name, "config", config));
  }

  /** Polls the connector's status until {@code check} holds; fails with the last status otherwise. */
  public JsonNode awaitStatus(String name, Predicate<JsonNode> check, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    Reply last = null;
    while (System.nanoTime() < deadline) {
      last = call("GET", "/connectors/" + name + "/status", null);
      if (last.status() == 200 && check.test(last.json())) {
        return last.json();
      }
      sleep(250);
    }
    throw new AssertionError("status of " + name + " never matched; last: " + (last == null ? "none" : last.body()));
  }

  /** Connector and every task RUNNING, with at least one task. */
  public JsonNode awaitRunning(String name) {
    return awaitStatus(name, s -> "RUNNING".equals(s.path("connector").path("state").asText())
        && s.path("tasks").size() > 0
        && java.util.stream.StreamSupport.stream(s.path("tasks").spliterator(), false)
            .allMatch(t -> "RUNNING".equals(t.path("state").asText())), Duration.ofSeconds(90));
  }

  public JsonNode awaitState(String name, String state) {
    return awaitStatus(name, s -> state.equals(s.path("connector").path("state").asText()), Duration.ofSeconds(90));
  }

  public static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
