package io.sluice.alerts.notify;

import io.sluice.alerts.config.Config;
import io.sluice.alerts.types.Alert;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A Discord webhook message: one embed (title, description, red or green), cut to Discord's limits. */
record DiscordSender(Config.Discord conf, HttpClient client, Duration timeout, Templates templates) implements Sender {
  static final int MAX_TITLE = 256;
  static final int MAX_DESCRIPTION = 4096;
  static final int MAX_CONTENT = 2000;
  static final int RED = 0x992D22;
  static final int GREEN = 0x2ECC71;

  @Override
  public void send(TemplateData d, List<Alert> alerts) throws SendException {
    ServiceCall.postJson(conf.webhookUrl().reveal(), payload(conf, d, templates))
        .send(client, conf.http(), timeout, Retry.SERVER_ERRORS);
  }

  static Map<String, Object> payload(Config.Discord c, TemplateData d, Templates templates) {
    Map<String, Object> embed = new LinkedHashMap<>();
    embed.put("title", Truncation.toRunes(templates.render(c.title(), d), MAX_TITLE));
    embed.put("description", Truncation.toRunes(templates.render(c.message(), d), MAX_DESCRIPTION));
    embed.put("color", d.status().equals("firing") ? RED : GREEN);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("content", Truncation.toRunes(templates.render(c.content(), d), MAX_CONTENT));
    m.put("embeds", List.of(embed));
    // Username and avatar are sent as written, not rendered, as Alertmanager sends them.
    if (!c.username().isEmpty()) {
      m.put("username", c.username());
    }
    if (!c.avatarUrl().isEmpty() && parses(c.avatarUrl())) {
      m.put("avatar_url", c.avatarUrl());
    }
    return m;
  }

  private static boolean parses(String url) {
    try {
      new URI(url);
      return true;
    } catch (URISyntaxException e) {
      return false;
    }
  }
}
