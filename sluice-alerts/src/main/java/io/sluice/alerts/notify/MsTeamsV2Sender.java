package io.sluice.alerts.notify;

import io.sluice.alerts.config.Config;
import io.sluice.alerts.types.Alert;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A Microsoft Teams Workflows message: one Adaptive Card with the title as a heading (coloured as the card's
 * "Attention" or "Good" style) above the text.
 */
record MsTeamsV2Sender(Config.MsTeamsV2 conf, HttpClient client, Duration timeout, Templates templates)
    implements Sender {

  @Override
  public void send(TemplateData d, List<Alert> alerts) throws SendException {
    ServiceCall.postJson(conf.webhookUrl().reveal(), payload(conf, d, templates))
        .send(client, conf.http(), timeout, Retry.SERVER_ERRORS);
  }

  static Map<String, Object> payload(Config.MsTeamsV2 c, TemplateData d, Templates templates) {
    Map<String, Object> heading = new LinkedHashMap<>();
    heading.put("type", "TextBlock");
    heading.put("text", templates.render(c.title(), d));
    heading.put("weight", "Bolder");
    heading.put("size", "Medium");
    heading.put("wrap", true);
    heading.put("style", "heading");
    heading.put("color", d.status().equals("firing") ? "Attention" : "Good");
    Map<String, Object> text = new LinkedHashMap<>();
    text.put("type", "TextBlock");
    text.put("text", templates.render(c.text(), d));
    text.put("wrap", true);
    Map<String, Object> card = new LinkedHashMap<>();
    card.put("$schema", "http://adaptivecards.io/schemas/adaptive-card.json");
    card.put("type", "AdaptiveCard");
    card.put("version", "1.2");
    card.put("body", List.of(heading, text));
    card.put("msteams", Map.of("width", "full"));
    // Alertmanager sends contentUrl as an explicit null, which Map.of cannot hold.
    Map<String, Object> attachment = new LinkedHashMap<>();
    attachment.put("contentType", "application/vnd.microsoft.card.adaptive");
    attachment.put("contentUrl", null);
    attachment.put("content", card);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("type", "message");
    m.put("attachments", List.of(attachment));
    return m;
  }
}
