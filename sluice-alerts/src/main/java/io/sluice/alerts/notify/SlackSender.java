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
record SlackSender(Config.Slack conf, HttpClient client, Duration timeout, Templates templates) implements Sender {

  @Override
  public void send(TemplateData d, List<Alert> alerts) throws SendException {
    Sender.postJson(client, conf.apiUrl().reveal(), Json.write(payload(conf, d, templates)), conf.http(), timeout);
  }

  static Map<String, Object> payload(Config.Slack c, TemplateData d, Templates templates) {
    Map<String, Object> att = new LinkedHashMap<>();
    att.put("title", templates.render(c.title(), d));
    att.put("title_link", templates.render(c.titleLink(), d));
    // Alertmanager always sends text, callback_id and footer, empty when unset.
    putIfSet(att, "pretext", templates.render(c.pretext(), d));
    att.put("text", templates.render(c.text(), d));
    att.put("fallback", templates.render(c.fallback(), d));
    att.put("callback_id", "");
    att.put("footer", "");
    att.put("color", templates.render(c.color(), d));
    att.put("mrkdwn_in", List.of("fallback", "pretext", "text"));
    Map<String, Object> m = new LinkedHashMap<>();
    putIfSet(m, "channel", templates.render(c.channel(), d));
    putIfSet(m, "username", templates.render(c.username(), d));
    putIfSet(m, "icon_emoji", templates.render(c.iconEmoji(), d));
    putIfSet(m, "icon_url", templates.render(c.iconUrl(), d));
    m.put("attachments", List.of(att));
    return m;
  }

  private static void putIfSet(Map<String, Object> m, String k, String v) {
    if (v != null && !v.isEmpty()) {
      m.put(k, v);
    }
  }
}
