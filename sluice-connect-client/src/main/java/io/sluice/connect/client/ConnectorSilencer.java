package io.sluice.connect.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.client.ClientOptions;
import io.sluice.client.HttpTransport;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;

/**
 * Creates a silence on the alert router (Alertmanager's {@code POST /api/v2/silences}) for one connector's alerts, as
 * {@code sluice connectors pause --silence} and the console's pause both do. It lives beside the Connect client because
 * it silences a connector: its matcher is the {@code connector} label every Sluice alert of a connector carries.
 */
public final class ConnectorSilencer {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpTransport http;

  public ConnectorSilencer(String alertsUrl, ClientOptions options) {
    this.http = new HttpTransport(alertsUrl, options, "the alert router");
  }

  /** Silences every alert with {@code connector=<connector>} from now for {@code duration}; returns the silence id. */
  public String silence(String connector, Duration duration, String createdBy, String comment) {
    Instant now = Instant.now();
    ObjectNode body = JSON.createObjectNode();
    body.putArray("matchers").addObject().put("name", "connector").put("value", connector).put("isRegex", false)
        .put("isEqual", true);
    body.put("startsAt", now.toString()).put("endsAt", now.plus(duration).toString())
        .put("createdBy", createdBy).put("comment", comment);
    HttpTransport.Reply r = http.send("POST", "/api/v2/silences", body.toString(), false);
    if (r.status() != 200) {
      throw new IllegalStateException("the alert router at " + http.baseUrl() + " refused the silence (HTTP "
          + r.status() + "): " + r.body().strip());
    }
    try {
      JsonNode reply = JSON.readTree(r.body());
      return reply.path("silenceID").asText();
    } catch (IOException e) {
      throw new IllegalStateException("the alert router answered something that is not JSON: " + r.body(), e);
    }
  }
}
