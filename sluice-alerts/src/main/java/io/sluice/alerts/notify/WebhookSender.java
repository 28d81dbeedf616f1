package io.sluice.alerts.notify;

import com.fasterxml.jackson.core.JsonGenerator;
import io.sluice.alerts.config.Config;
import io.sluice.alerts.types.Alert;
import io.sluice.alerts.types.Times;
import io.sluice.http.Json;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** Alertmanager's webhook: payload version 4, truncated to max_alerts. */
record WebhookSender(Config.Webhook conf, HttpClient client, Duration timeout) implements Sender {

  @Override
  public void send(TemplateData d, List<Alert> alerts) throws SendException {
    byte[] body = payload(d, alerts, conf.maxAlerts());
    Sender.postJson(client, conf.url().reveal(), body, conf.http(), timeout);
  }

  /**
   * The payload's JSON, written field by field rather than built as maps for the object mapper: a notification is
   * made once per group and interval, so this code mostly runs cold, where the mapper's per-value serializer lookups
   * cost about a millisecond before the webhook leaves.
   */
  static byte[] payload(TemplateData d, List<Alert> alerts, int maxAlerts) {
    int truncated = 0;
    List<Alert> sent = alerts;
    if (maxAlerts > 0 && alerts.size() > maxAlerts) {
      truncated = alerts.size() - maxAlerts;
      sent = alerts.subList(0, maxAlerts);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(512 + 384 * sent.size());
    try (JsonGenerator g = Json.MAPPER.getFactory().createGenerator(out)) {
      g.writeStartObject();
      g.writeStringField("receiver", d.receiver());
      g.writeStringField("status", d.status());
      g.writeArrayFieldStart("alerts");
      for (Alert a : sent) {
        g.writeStartObject();
        g.writeStringField("status", d.alertStatus(a));
        writeMap(g, "labels", a.labels());
        writeMap(g, "annotations", a.annotations());
        g.writeStringField("startsAt", Times.format(a.startsAt()));
        g.writeStringField("endsAt", a.resolvedAt(d.now()) ? Times.format(a.endsAt()) : Times.ZERO);
        g.writeStringField("generatorURL", a.generatorURL());
        g.writeStringField("fingerprint", a.fingerprintHex());
        g.writeEndObject();
      }
      g.writeEndArray();
      writeMap(g, "groupLabels", d.groupLabels());
      writeMap(g, "commonLabels", d.commonLabels());
      writeMap(g, "commonAnnotations", d.commonAnnotations());
      g.writeStringField("externalURL", d.externalURL());
      g.writeStringField("version", "4");
      g.writeStringField("groupKey", d.groupKey());
      g.writeNumberField("truncatedAlerts", truncated);
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  private static void writeMap(JsonGenerator g, String field, Map<String, String> m) throws IOException {
    g.writeObjectFieldStart(field);
    for (Map.Entry<String, String> e : m.entrySet()) {
      g.writeStringField(e.getKey(), e.getValue());
    }
    g.writeEndObject();
  }
}
