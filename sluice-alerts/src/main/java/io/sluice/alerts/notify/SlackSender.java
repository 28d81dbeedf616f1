package io.sluice.alerts.notify;

import io.sluice.alerts.config.Config;
import io.sluice.alerts.types.Alert;
import io.sluice.http.Json;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A Slack incoming-webhook message with one attachment, as Alertmanager builds it. */
record SlackSender(Config.Slack conf, HttpClient client, Duration timeout) implements Sender {

  @Override
  public void send(TemplateData d, List<Alert> alerts) throws SendException {
    Sender.postJson(client, conf.apiUrl().reveal(), Json.write(payload(conf, d)), conf.http(), timeout);
  }

  static Map<String, Object> payload(Config.Slack c, TemplateData d) {
    Map<String, Object> att = new LinkedHashMap<>();
    att.put("title", Templates.render(c.title(), d));
    att.put("title_link", Templates.render(c.titleLink(), d));
    putIfSet(att, "pretext", Templates.render(c.pretext(), d));
    putIfSet(att, "text", Templates.render(c.text(), d));
    att.put("fallback", Templates.render(c.fallback(), d));
    att.put("color", Templates.render(c.color(), d));
    att.put("mrkdwn_in", List.of("fallback", "pretext", "text"));
    Map<String, Object> m = new LinkedHashMap<>();
    putIfSet(m, "channel", Templates.render(c.channel(), d));
    putIfSet(m, "username", Templates.render(c.username(), d));
    putIfSet(m, "icon_emoji", Templates.render(c.iconEmoji(), d));
    putIfSet(m, "icon_url", Templates.render(c.iconUrl(), d));
    m.put("attachments", List.of(att));
    return m;
  }

  private static void putIfSet(Map<String, Object> m, String k, String v) {
    if (v != null && !v.isEmpty()) {
      m.put(k, v);
    }
  }
}
