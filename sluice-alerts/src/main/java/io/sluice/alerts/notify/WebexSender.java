package io.sluice.alerts.notify;

import io.sluice.alerts.config.Config;
import io.sluice.alerts.types.Alert;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A Webex message in Markdown to a room; the bot's token comes from the http_config's authorization. */
record WebexSender(Config.Webex conf, HttpClient client, Duration timeout, Templates templates) implements Sender {
  /** Webex's limit for a message, in bytes. */
  static final int MAX_MESSAGE_BYTES = 7439;

  @Override
  public void send(TemplateData d, List<Alert> alerts) throws SendException {
    ServiceCall.postJson(conf.apiUrl(), payload(conf, d, templates))
        .send(client, conf.http(), timeout, Retry.SERVER_ERRORS);
  }

  static Map<String, Object> payload(Config.Webex c, TemplateData d, Templates templates) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("markdown", Truncation.toBytes(templates.render(c.message(), d), MAX_MESSAGE_BYTES));
    String room = templates.render(c.roomId(), d);
    if (!room.isEmpty()) {
      m.put("roomId", room);
    }
    return m;
  }
}
