package io.sluice.alerts.notify;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.alerts.types.Alert;
import io.sluice.http.Json;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The webhook's JSON, written field by field: Alertmanager's payload version 4, its fields in its order. */
class WebhookPayloadTest {
  private static final Instant NOW = Instant.parse("2026-11-26T12:00:00Z");

  @Test
  void firingAndResolvedAlertsTruncatedToMaxAlerts() throws Exception {
    Alert firing = Alert.of(Map.of("alertname", "Lag", "connector", "orders", "quote", "say \"hi\"\n"),
        Map.of("summary", "lag is high"), NOW.minusSeconds(60), NOW.plusSeconds(300), "http://prom/g", NOW, false);
    Alert resolved = Alert.of(Map.of("alertname", "Lag", "connector", "users"), Map.of("summary", "lag is high"),
        NOW.minusSeconds(600), NOW.minusSeconds(30), "", NOW, false);
    Alert dropped = Alert.of(Map.of("alertname", "Lag", "connector", "zzz"), Map.of(), NOW.minusSeconds(60),
        NOW.plusSeconds(300), "", NOW, false);
    List<Alert> alerts = List.of(firing, resolved, dropped);
    TemplateData d = TemplateData.of("hook", "{}:{alertname=\"Lag\"}", Map.of("alertname", "Lag"), alerts,
        "http://am:9093", NOW);
    byte[] body = WebhookSender.payload(d, alerts, 2);
    String text = new String(body, StandardCharsets.UTF_8);
    JsonNode expected = Json.MAPPER.readTree("""
        {"receiver":"hook","status":"firing","alerts":[
          {"status":"firing","labels":{"alertname":"Lag","connector":"orders","quote":"say \\"hi\\"\\n"},
           "annotations":{"summary":"lag is high"},"startsAt":"2026-11-26T11:59:00Z",
           "endsAt":"0001-01-01T00:00:00Z","generatorURL":"http://prom/g","fingerprint":"%s"},
          {"status":"resolved","labels":{"alertname":"Lag","connector":"users"},
           "annotations":{"summary":"lag is high"},"startsAt":"2026-11-26T11:50:00Z",
           "endsAt":"2026-11-26T11:59:30Z","generatorURL":"","fingerprint":"%s"}],
         "groupLabels":{"alertname":"Lag"},"commonLabels":{"alertname":"Lag"},"commonAnnotations":{},
         "externalURL":"http://am:9093","version":"4","groupKey":"{}:{alertname=\\"Lag\\"}","truncatedAlerts":1}
        """.formatted(firing.fingerprintHex(), resolved.fingerprintHex()));
    assertEquals(expected, Json.MAPPER.readTree(body), text);
    // Field order as Alertmanager's encoder writes them (receivers that read the text, not the JSON, see the same).
    assertEquals(Json.MAPPER.writeValueAsString(expected), text);
  }
}
