package io.sluice.ops.dlq;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.connect.client.ConnectRestClient;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/** Which sink connectors of a Connect cluster write to which dead-letter topic, from its REST API. */
final class ConnectDeadLetterTopics {
  private final ConnectRestClient connect;

  /** A sink connector with a dead-letter topic; {@code group} is its consumer group. */
  record Sink(String connector, String deadLetterTopic, String group, String state) {}

  ConnectDeadLetterTopics(String baseUrl, io.sluice.client.ClientOptions options) {
    this.connect = new ConnectRestClient(baseUrl, options);
  }

  /** Every connector configured with {@code errors.deadletterqueue.topic.name}. */
  List<Sink> sinks() {
    JsonNode all = connect.connectorsExpanded();
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
}
