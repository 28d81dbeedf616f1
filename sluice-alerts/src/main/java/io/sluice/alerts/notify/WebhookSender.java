package io.sluice.alerts.notify;

import io.sluice.alerts.config.Config;
import io.sluice.alerts.types.Alert;
import io.sluice.alerts.types.Times;
import io.sluice.http.Json;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Alertmanager's webhook: payload version 4, truncated to max_alerts. */
record WebhookSender(Config.Webhook conf, HttpClient client, Duration timeout) implements Sender {

  @Override
  public void send(TemplateData d, List<Alert> alerts) throws SendException {
    Sender.postJson(client, conf.url().reveal(), Json.write(payload(d, alerts, conf.maxAlerts())), conf.http(),
        timeout);
  }

  static Map<String, Object> payload(TemplateData d, List<Alert> alerts, int maxAlerts) {
    int truncated = 0;
    List<Alert> sent = alerts;
    if (maxAlerts > 0 && alerts.size() > maxAlerts) {
      truncated = alerts.size() - maxAlerts;
      sent = alerts.subList(0, maxAlerts);
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("receiver", d.receiver());
    m.put("status", d.status());
    List<Object> list = new ArrayList<>();
    for (Alert a : sent) {
      Map<String, Object> x = new LinkedHashMap<>();
      x.put("status", d.alertStatus(a));
      x.put("labels", a.labels());
      x.put("annotations", a.annotations());
      x.put("startsAt", Times.format(a.startsAt()));
      x.put("endsAt", a.resolvedAt(d.now()) ? Times.format(a.endsAt()) : Times.ZERO);
      x.put("generatorURL", a.generatorURL());
      x.put("fingerprint", a.fingerprintHex());
      list.add(x);
    }
    m.put("alerts", list);
    m.put("groupLabels", d.groupLabels());
    m.put("commonLabels", d.commonLabels());
    m.put("commonAnnotations", d.commonAnnotations());
    m.put("externalURL", d.externalURL());
    m.put("version", "4");
    m.put("groupKey", d.groupKey());
    m.put("truncatedAlerts", truncated);
    return m;
  }
}
