package io.sluice.alerts.notify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.alerts.Receivers;
import io.sluice.alerts.config.Config;
import io.sluice.alerts.config.ConfigLoader;
import io.sluice.alerts.types.Alert;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pushover as a listener standing in for api.pushover.net receives it. Alertmanager has no key to point Pushover
 * elsewhere, so the sender is given the listener's URL here instead of through a configuration.
 */
class PushoverSenderTest {
  static final Instant NOW = Instant.parse("2026-11-18T12:00:00Z");

  @TempDir Path dir;
  final Receivers http = new Receivers();

  @AfterEach
  void stop() {
    http.close();
  }

  PushoverSender sender(String pushoverConfig) throws Exception {
    Config c = ConfigLoader.parse("route: {receiver: r}\nreceivers: [{name: r, pushover_configs: [" + pushoverConfig
        + "]}]", dir, Map.of());
    Config.Pushover p = (Config.Pushover) c.receivers().get(0).integrations().get(0);
    Config.Pushover here = new Config.Pushover(p.sendResolved(), p.userKey(), p.token(), http.url("1/messages.json"),
        p.title(), p.message(), p.url(), p.urlTitle(), p.device(), p.sound(), p.priority(), p.retry(), p.expire(),
        p.ttl(), p.html(), p.http());
    return new PushoverSender(here, HttpClient.newHttpClient(), Duration.ofSeconds(10), Templates.DEFAULT);
  }

  static TemplateData data(String summary, boolean resolved) {
    Alert a = Alert.of(Map.of("alertname", "ConnectHighLag", "connector", "orders"), Map.of("summary", summary),
        NOW.minusSeconds(60), resolved ? NOW.minusSeconds(1) : NOW.plusSeconds(300), "http://prom/g", NOW, false);
    return TemplateData.of("paging", "{}:{alertname=\"ConnectHighLag\"}", Map.of("alertname", "ConnectHighLag"),
        List.of(a), "http://sluice.test:9093", NOW);
  }

  Map<String, List<String>> send(PushoverSender s, TemplateData d) throws SendException {
    s.send(d, d.alerts());
    Receivers.Received r = http.take("1/messages.json").get(0);
    assertEquals("POST", r.method());
    assertEquals("", r.text(), "every parameter is in the query string");
    assertEquals("text/plain", r.headers().get("content-type"));
    return r.query();
  }

  @Test
  void firingIsAnEmergencyUntilResolved() throws Exception {
    PushoverSender s = sender("{user_key: u-key, token: app-token}");
    Map<String, List<String>> q = send(s, data("lag is high", false));
    assertEquals(List.of("app-token"), q.get("token"));
    assertEquals(List.of("u-key"), q.get("user"));
    assertEquals(List.of("[FIRING:1] ConnectHighLag (orders)"), q.get("title"));
    assertEquals(List.of("lag is high\n\nAlerts Firing:\nLabels:\n - alertname = ConnectHighLag\n"
        + " - connector = orders\nAnnotations:\n - summary = lag is high\nSource: http://prom/g"), q.get("message"),
        "the default message, white space around it dropped");
    assertEquals(List.of("http://sluice.test:9093/#/alerts?receiver=paging"), q.get("url"));
    assertEquals(List.of("2"), q.get("priority"), "emergency while firing");
    assertEquals(List.of("60"), q.get("retry"));
    assertEquals(List.of("3600"), q.get("expire"));
    assertEquals(List.of(""), q.get("url_title"));
    assertFalse(q.containsKey("ttl") || q.containsKey("html"), q.toString());
    assertEquals(List.of("0"), send(s, data("lag is high", true)).get("priority"), "normal once resolved");
  }

  @Test
  void textsAreCutToPushoversLimitsAndHtmlEscapesValues() throws Exception {
    PushoverSender s = sender("{user_key: u, token: t, title: '{{ .CommonAnnotations.summary }}', ttl: 10m,"
        + " html: true, message: '<b>{{ .CommonAnnotations.summary }}</b>', url: 'https://x/{{ .CommonAnnotations.summary }}'}");
    Map<String, List<String>> q = send(s, data("<" + "x".repeat(1100), false));
    String title = q.get("title").get(0);
    assertEquals(250, title.codePointCount(0, title.length()));
    assertTrue(title.endsWith("x…"), title);
    String message = q.get("message").get(0);
    assertEquals(1024, message.codePointCount(0, message.length()));
    assertTrue(message.startsWith("<b>&lt;xx"), message);
    assertEquals(512, q.get("url").get(0).codePointCount(0, q.get("url").get(0).length()));
    assertEquals(List.of("1"), q.get("html"));
    assertEquals(List.of("600"), q.get("ttl"));
    assertEquals(List.of("(no details)"), send(sender("{user_key: u, token: t, message: ' '}"), data("x", false))
        .get("message"), "Pushover refuses an empty message");
  }

  @Test
  void onlyServerErrorsAreRetried() throws Exception {
    PushoverSender s = sender("{user_key: u, token: t}");
    http.failures.add(500);
    assertTrue(assertThrows(SendException.class, () -> s.send(data("x", false), List.of())).retryable());
    http.failures.add(429);
    assertFalse(assertThrows(SendException.class, () -> s.send(data("x", false), List.of())).retryable(),
        "Alertmanager's Pushover notifier retries 5xx only");
  }
}
