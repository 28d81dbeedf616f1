package io.sluice.ops.dlq;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/** Which sink connectors of a Connect cluster write to which dead-letter topic, from its REST API. */
final class ConnectDeadLetterTopics {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final String baseUrl;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  /** A sink connector with a dead-letter topic; {@code group} is its consumer group. */
  record Sink(String connector, String deadLetterTopic, String group, String state) {}

  ConnectDeadLetterTopics(String baseUrl) {
    this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
  }

  /** Every connector configured with {@code errors.deadletterqueue.topic.name}. */
  List<Sink> sinks() {
    JsonNode all = get("/connectors?expand=info&expand=status");
    List<Sink> out = new ArrayList<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = all.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode config = e.getValue().path("info").path("config");
      String dlq = config.path("errors.deadletterqueue.topic.name").asText("");
      if (dlq.isBlank()) {
        continue;
      }
      String group = config.path("consumer.override.group.id").asText("connect-" + e.getKey());
      String state = e.getValue().path("status").path("connector").path("state").asText(null);
      out.add(new Sink(e.getKey(), dlq.trim(), group, state));
    }
    return out;
  }

  private JsonNode get(String path) {
    HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(Duration.ofSeconds(30)).GET().build();
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IllegalStateException("Kafka Connect " + baseUrl + " answered " + response.statusCode() + " to GET "
            + path + ": " + response.body());
      }
      return JSON.readTree(response.body());
    } catch (IOException e) {
      throw new IllegalStateException("Kafka Connect " + baseUrl + " unreachable: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
