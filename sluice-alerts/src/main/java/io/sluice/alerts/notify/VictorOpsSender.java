package io.sluice.alerts.notify;

import io.sluice.alerts.config.Config;
import io.sluice.alerts.types.Alert;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * VictorOps' (Splunk On-Call) REST endpoint: {@code <api_url><api_key>/<routing_key>}. The incident is the group
 * (entity_id, the SHA-256 of the group key); a firing group sends its {@code message_type}, a resolved one RECOVERY.
 */
record VictorOpsSender(Config.VictorOps conf, HttpClient client, Duration timeout, Templates templates)
    implements Sender {
  /** VictorOps' limit for the state message, in characters. */
  static final int MAX_STATE_MESSAGE = 20480;
  /** The message types a firing group may send; any other becomes CRITICAL. */
  private static final Set<String> FIRING_TYPES = Set.of("INFO", "WARNING", "CRITICAL");

  @Override
  public void send(TemplateData d, List<Alert> alerts) throws SendException {
    String url = conf.apiUrl() + segment(conf.apiKey().reveal()) + "/" + segment(templates.render(conf.routingKey(), d));
    ServiceCall.postJson(url, payload(conf, d, templates)).send(client, conf.http(), timeout, Retry.SERVER_ERRORS);
  }

  static Map<String, String> payload(Config.VictorOps c, TemplateData d, Templates templates) {
    String type = templates.render(c.messageType(), d);
    if (d.status().equals("resolved")) {
      type = "RECOVERY";
    } else if (!FIRING_TYPES.contains(type)) {
      type = "CRITICAL";
    }
    Map<String, String> m = new TreeMap<>();
    m.put("message_type", type);
    m.put("entity_id", d.groupKeyHash());
    m.put("entity_display_name", templates.render(c.entityDisplayName(), d));
    m.put("state_message", Truncation.toRunes(templates.render(c.stateMessage(), d), MAX_STATE_MESSAGE));
    m.put("monitoring_tool", templates.render(c.monitoringTool(), d));
    c.customFields().forEach((k, v) -> m.put(k, templates.render(v, d)));
    return m;
  }

  /** A path segment, escaped as a URL's path escapes it. */
  private static String segment(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
