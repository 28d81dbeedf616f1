package io.sluice.alerts.notify;

import io.sluice.alerts.config.Config;
import io.sluice.alerts.types.Alert;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;

/**
 * Pushover's messages API. As Alertmanager sends it, every parameter (the application token and user key too) is in
 * the query string of an empty POST, and texts are cut to Pushover's limits.
 */
record PushoverSender(Config.Pushover conf, HttpClient client, Duration timeout, Templates templates)
    implements Sender {
  static final int MAX_TITLE = 250;
  static final int MAX_MESSAGE = 1024;
  static final int MAX_URL = 512;

  @Override
  public void send(TemplateData d, List<Alert> alerts) throws SendException {
    String url = conf.apiUrl() + "?" + query(parameters(conf, d, templates));
    new ServiceCall("POST", url, "text/plain", null, Map.of()).send(client, conf.http(), timeout, Retry.SERVER_ERRORS);
  }

  static Map<String, String> parameters(Config.Pushover c, TemplateData d, Templates templates) {
    Map<String, String> p = new TreeMap<>();
    p.put("token", templates.render(c.token().reveal(), d));
    p.put("user", templates.render(c.userKey().reveal(), d));
    p.put("title", Truncation.toRunes(templates.render(c.title(), d), MAX_TITLE));
    String message;
    if (c.html()) {
      p.put("html", "1");
      message = templates.renderHtml(c.message(), d);
    } else {
      message = templates.render(c.message(), d);
    }
    message = Truncation.toRunes(message, MAX_MESSAGE).strip();
    // Pushover refuses an empty message.
    p.put("message", message.isEmpty() ? "(no details)" : message);
    p.put("url", Truncation.toRunes(templates.render(c.url(), d), MAX_URL));
    p.put("url_title", templates.render(c.urlTitle(), d));
    p.put("priority", templates.render(c.priority(), d));
    p.put("retry", String.valueOf(c.retry().toSeconds()));
    p.put("expire", String.valueOf(c.expire().toSeconds()));
    p.put("device", templates.render(c.device(), d));
    p.put("sound", templates.render(c.sound(), d));
    if (c.ttl().toSeconds() > 0) {
      p.put("ttl", String.valueOf(c.ttl().toSeconds()));
    }
    return p;
  }

  private static String query(Map<String, String> parameters) {
    StringJoiner q = new StringJoiner("&");
    parameters.forEach((k, v) -> q.add(URLEncoder.encode(k, StandardCharsets.UTF_8) + "="
        + URLEncoder.encode(v, StandardCharsets.UTF_8)));
    return q.toString();
  }
}
