package io.sluice.alerts.notify;

import io.sluice.alerts.config.Config;
import io.sluice.alerts.types.Alert;
import io.sluice.http.Json;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** PagerDuty Events API v2: trigger while firing, resolve when resolved, dedup_key = SHA-256 of the group key. */
record PagerDutySender(Config.PagerDuty conf, HttpClient client, Duration timeout, Templates templates) implements Sender {
  private static final int MAX_SUMMARY = 1024;

  @Override
  public void send(TemplateData d, List<Alert> alerts) throws SendException {
    Sender.postJson(client, conf.url(), Json.write(payload(conf, d, conf.routingKey().reveal(), templates)), conf.http(),
        timeout);
  }

  static Map<String, Object> payload(Config.PagerDuty c, TemplateData d, String routingKey, Templates templates) {
    String summary = templates.render(c.description(), d);
    if (summary.length() > MAX_SUMMARY) {
      summary = summary.substring(0, MAX_SUMMARY - 1) + "…";
    }
    Map<String, Object> details = new LinkedHashMap<>();
    c.details().forEach((k, v) -> details.put(k, templates.render(v, d)));
    Map<String, Object> payload = new LinkedHashMap<>();
    payload.put("summary", summary);
    payload.put("source", templates.render(c.client(), d));
    payload.put("severity", templates.render(c.severity(), d));
    payload.put("custom_details", details);
    putIfSet(payload, "class", templates.render(c.eventClass(), d));
    putIfSet(payload, "component", templates.render(c.component(), d));
    putIfSet(payload, "group", templates.render(c.group(), d));
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("routing_key", routingKey);
    m.put("event_action", d.status().equals("firing") ? "trigger" : "resolve");
    m.put("dedup_key", d.groupKeyHash());
    m.put("client", templates.render(c.client(), d));
    m.put("client_url", templates.render(c.clientUrl(), d));
    m.put("payload", payload);
    return m;
  }

  private static void putIfSet(Map<String, Object> m, String k, String v) {
    if (v != null && !v.isEmpty()) {
      m.put(k, v);
    }
  }
}
