package io.sluice.alerts.notify;

import io.sluice.alerts.config.Config;
import io.sluice.alerts.types.Alert;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A Microsoft Teams connector message: a MessageCard with a red or green theme colour. */
record MsTeamsSender(Config.MsTeams conf, HttpClient client, Duration timeout, Templates templates) implements Sender {

  @Override
  public void send(TemplateData d, List<Alert> alerts) throws SendException {
    ServiceCall.postJson(conf.webhookUrl().reveal(), payload(conf, d, templates))
        .send(client, conf.http(), timeout, Retry.SERVER_ERRORS);
  }

  static Map<String, Object> payload(Config.MsTeams c, TemplateData d, Templates templates) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("@context", "http://schema.org/extensions");
    m.put("type", "MessageCard");
    m.put("title", templates.render(c.title(), d));
    m.put("summary", templates.render(c.summary(), d));
    m.put("text", templates.render(c.text(), d));
    m.put("themeColor", d.status().equals("firing") ? "8C1A1A" : "2DC72D");
    return m;
  }
}
