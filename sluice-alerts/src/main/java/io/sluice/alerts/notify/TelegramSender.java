package io.sluice.alerts.notify;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.alerts.config.Config;
import io.sluice.alerts.types.Alert;
import io.sluice.http.Json;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The Telegram Bot API's sendMessage, the bot's token in the URL as the API wants it. Sent as Alertmanager's Telegram
 * client sends it: every parameter a string, link previews off. A message is delivered when the API answers
 * {@code "ok": true}; any other outcome is retried, as Alertmanager retries every Telegram failure.
 */
record TelegramSender(Config.Telegram conf, HttpClient client, Duration timeout, Templates templates)
    implements Sender {
  /** Telegram's limit for a message, in characters. */
  static final int MAX_MESSAGE = 4096;

  @Override
  public void send(TemplateData d, List<Alert> alerts) throws SendException {
    String url = conf.apiUrl() + "/bot" + conf.botToken().reveal() + "/sendMessage";
    ServiceCall.Answer a = ServiceCall.postJson(url, payload(conf, d, templates)).exchange(client, conf.http(), timeout);
    JsonNode answer = parse(a.body());
    if (a.ok() && answer.path("ok").asBoolean(false)) {
      return;
    }
    // Telegram's own description says what was wrong ("Bad Request: can't parse entities"); it never holds the token.
    String why = answer.path("description").asText("");
    throw new SendException("unexpected status code " + a.status() + (why.isEmpty() ? "" : ": " + why), true, null);
  }

  static Map<String, String> payload(Config.Telegram c, TemplateData d, Templates templates) {
    String text = c.parseMode().equals("HTML") ? templates.renderHtml(c.message(), d)
        : templates.render(c.message(), d);
    Map<String, String> m = new TreeMap<>();
    m.put("chat_id", String.valueOf(c.chatId()));
    m.put("text", Truncation.toRunes(text, MAX_MESSAGE));
    m.put("disable_web_page_preview", "true");
    if (c.disableNotifications()) {
      m.put("disable_notification", "true");
    }
    if (!c.parseMode().isEmpty()) {
      m.put("parse_mode", c.parseMode());
    }
    if (c.messageThreadId() != 0) {
      m.put("message_thread_id", String.valueOf(c.messageThreadId()));
    }
    return m;
  }

  private static JsonNode parse(String body) {
    try {
      return Json.read(body.getBytes(StandardCharsets.UTF_8));
    } catch (RuntimeException e) {
      return Json.MAPPER.missingNode();
    }
  }
}
