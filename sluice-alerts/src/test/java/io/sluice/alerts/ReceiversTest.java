package io.sluice.alerts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.testing.TestClock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Slack, PagerDuty and email notifications as the in-test listeners receive them. */
class ReceiversTest {
  static final Instant T0 = Instant.parse("2026-11-18T12:00:00Z");

  @TempDir Path dir;
  final TestClock clock = new TestClock(T0);
  final Receivers http = new Receivers();
  AlertRouter router;
  SmtpListener smtp;

  @AfterEach
  void stop() throws Exception {
    if (router != null) {
      router.close();
    }
    http.close();
    if (smtp != null) {
      smtp.close();
    }
  }

  void start(String yaml) throws Exception {
    router = AlertRouter.builder().port(0).configYaml(yaml).dataDir(dir).clock(clock)
        .externalUrl("http://sluice.test:9093").manualTicks().retrySleeper(d -> {}).start();
  }

  void fire(String labels, Instant end) {
    var r = Http.post(router.url() + "/api/v2/alerts", "[{\"labels\":" + labels
        + ",\"annotations\":{\"summary\":\"lag is high\"},\"startsAt\":\"" + T0 + "\",\"endsAt\":\"" + end
        + "\",\"generatorURL\":\"http://prom/g\"}]");
    assertEquals(200, r.statusCode(), r.body());
  }

  void step(Duration d) {
    clock.advance(d);
    router.tick();
  }

  @Test
  void slackDefaultMessage() throws Exception {
    Files.createDirectories(dir.resolve("secrets"));
    Files.writeString(dir.resolve("secrets/slack"), http.url("slack") + "\n");
    start("""
        route: {receiver: chat, group_by: [alertname], group_wait: 10s}
        receivers:
          - name: chat
            slack_configs:
              - api_url_file: secrets/slack
                channel: '#cdc-warnings'
                send_resolved: true
              - api_url_file: secrets/slack
                channel: '#custom'
                title: '{{ .CommonLabels.alertname }} is {{ .Status | toUpper }}'
                text: '{{ range .Alerts }}*{{ .Labels.connector }}*: {{ .Annotations.summary }} {{ end }}'
        """);
    fire("{\"alertname\":\"ConnectHighLag\",\"connector\":\"orders\",\"severity\":\"warning\"}",
        T0.plus(Duration.ofMinutes(20)));
    step(Duration.ofSeconds(10));
    List<Receivers.Received> got = http.take("slack");
    assertEquals(2, got.size());
    JsonNode msg = got.get(0).body().get("channel").asText().equals("#cdc-warnings") ? got.get(0).body()
        : got.get(1).body();
    assertEquals("Alertmanager", msg.get("username").asText());
    JsonNode att = msg.get("attachments").get(0);
    assertEquals("[FIRING:1] ConnectHighLag (orders warning)", att.get("title").asText());
    assertEquals("http://sluice.test:9093/#/alerts?receiver=chat", att.get("title_link").asText());
    assertEquals("[FIRING:1] ConnectHighLag (orders warning) | http://sluice.test:9093/#/alerts?receiver=chat",
        att.get("fallback").asText());
    assertEquals("danger", att.get("color").asText());
    assertEquals("", att.get("text").asText(), "Alertmanager's default Slack text is empty");
    JsonNode custom = got.get(0).body() == msg ? got.get(1).body() : got.get(0).body();
    assertEquals("ConnectHighLag is FIRING", custom.get("attachments").get(0).get("title").asText());
    assertEquals("*orders*: lag is high ", custom.get("attachments").get(0).get("text").asText());

    step(Duration.ofMinutes(20));
    List<Receivers.Received> resolved = http.take("slack");
    assertEquals(1, resolved.size(), "only the send_resolved config sends the recovery");
    JsonNode ratt = resolved.get(0).body().get("attachments").get(0);
    assertEquals("[RESOLVED] ConnectHighLag (orders warning)", ratt.get("title").asText());
    assertEquals("good", ratt.get("color").asText());
  }

  @Test
  void templateFilesDefineCustomTexts() throws Exception {
    Files.writeString(dir.resolve("cdc.tmpl"), """
        {{ define "cdc.title" }}[{{ .Status | toUpper }}] {{ .CommonLabels.alertname }}{{ end }}
        {{ define "cdc.text" }}{{ range .Alerts.Firing }}{{ .Labels.connector }}: {{ .Annotations.summary }}
        {{ end }}{{ end }}
        """);
    start("""
        templates: ['*.tmpl']
        route: {receiver: chat, group_by: [alertname], group_wait: 10s}
        receivers:
          - name: chat
            slack_configs:
              - api_url: %s
                title: '{{ template "cdc.title" . }}'
                text: '{{ template "cdc.text" . }}'
        """.formatted(http.url("slack")));
    fire("{\"alertname\":\"ConnectHighLag\",\"connector\":\"orders\"}", T0.plus(Duration.ofMinutes(20)));
    step(Duration.ofSeconds(10));
    JsonNode att = http.take("slack").get(0).body().get("attachments").get(0);
    assertEquals("[FIRING] ConnectHighLag", att.get("title").asText());
    assertEquals("orders: lag is high\n", att.get("text").asText());

    Files.writeString(dir.resolve("broken.tmpl"), "{{ define \"x\" }}{{ if .Status }}");
    Path file = dir.resolve("am.yml");
    Files.writeString(file, "templates: ['*.tmpl']\nroute: {receiver: r}\nreceivers: [{name: r}]\n");
    assertTrue(AlertRouter.checkConfig(file).get(0).startsWith("failed to parse templates"),
        AlertRouter.checkConfig(file).toString());
  }

  @Test
  void webhookFromUrlFileWithAuthorizationAndCustomHeaders() throws Exception {
    Files.writeString(dir.resolve("hook-url"), http.url("hook"));
    Files.writeString(dir.resolve("token"), "tok-from-file\n");
    start("""
        route: {receiver: hook, group_wait: 10s}
        receivers:
          - name: hook
            webhook_configs:
              - url_file: hook-url
                http_config:
                  authorization: {type: Bearer, credentials_file: token}
                  http_headers:
                    X-Sluice-Team: {values: [cdc]}
                    X-Sluice-Secret: {secrets: [s3]}
        """);
    fire("{\"alertname\":\"ConnectHighLag\"}", T0.plus(Duration.ofMinutes(20)));
    step(Duration.ofSeconds(10));
    Receivers.Received got = http.take("hook").get(0);
    assertEquals("Bearer tok-from-file", got.headers().get("authorization"));
    assertEquals("cdc", got.headers().get("x-sluice-team"));
    assertEquals("s3", got.headers().get("x-sluice-secret"));
    assertEquals("4", got.body().get("version").asText());
    // enable_http2 (on by default) is HTTP/2 over TLS only, as in Go: no h2c upgrade on a plain URL.
    assertEquals(null, got.headers().get("upgrade"), got.headers().toString());
    assertEquals(null, got.headers().get("http2-settings"), got.headers().toString());
  }

  @Test
  void pagerDutyEventsV2TriggerAndResolve() throws Exception {
    start("""
        global:
          pagerduty_url: %s
        route: {receiver: paging, group_by: [alertname, connector], group_wait: 10s}
        receivers:
          - name: paging
            pagerduty_configs:
              - routing_key: ${PD_KEY}
        """.formatted(http.url("pd")).replace("${PD_KEY}", "'0123456789abcdef0123456789abcdef'"));
    fire("{\"alertname\":\"ConnectConnectorDown\",\"connector\":\"orders\",\"severity\":\"critical\"}",
        T0.plus(Duration.ofMinutes(20)));
    step(Duration.ofSeconds(10));
    JsonNode ev = http.take("pd").get(0).body();
    String groupKey = "{}:{alertname=\"ConnectConnectorDown\", connector=\"orders\"}";
    String dedup = HexFormat.of().formatHex(
        MessageDigest.getInstance("SHA-256").digest(groupKey.getBytes(StandardCharsets.UTF_8)));
    assertEquals("0123456789abcdef0123456789abcdef", ev.get("routing_key").asText());
    assertEquals("trigger", ev.get("event_action").asText());
    assertEquals(dedup, ev.get("dedup_key").asText());
    assertEquals("Alertmanager", ev.get("client").asText());
    assertEquals("http://sluice.test:9093/#/alerts?receiver=paging", ev.get("client_url").asText());
    JsonNode p = ev.get("payload");
    assertEquals("[FIRING:1] ConnectConnectorDown orders (critical)", p.get("summary").asText());
    assertEquals("error", p.get("severity").asText());
    assertEquals("Alertmanager", p.get("source").asText());
    assertEquals("1", p.get("custom_details").get("num_firing").asText());
    assertEquals("0", p.get("custom_details").get("num_resolved").asText());
    assertEquals("Labels:\n - alertname = ConnectConnectorDown\n - connector = orders\n - severity = critical\n"
        + "Annotations:\n - summary = lag is high\nSource: http://prom/g\n",
        p.get("custom_details").get("firing").asText());

    step(Duration.ofMinutes(20));
    JsonNode resolve = http.take("pd").get(0).body();
    assertEquals("resolve", resolve.get("event_action").asText());
    assertEquals(dedup, resolve.get("dedup_key").asText());
  }

  @Test
  void emailThroughSmtpWithAuth() throws Exception {
    smtp = new SmtpListener();
    start("""
        global:
          smtp_smarthost: 127.0.0.1:%d
          smtp_from: sluice@example.com
          smtp_auth_username: alerts
          smtp_auth_password: s3cret
          smtp_require_tls: false
        route: {receiver: mail, group_by: [alertname], group_wait: 10s}
        receivers:
          - name: mail
            email_configs:
              - to: oncall@example.com
                headers: {X-Sluice: cdc}
        """.formatted(smtp.port()));
    fire("{\"alertname\":\"ConnectHighErrorRate\",\"connector\":\"orders\"}", T0.plus(Duration.ofMinutes(20)));
    step(Duration.ofSeconds(10));
    assertEquals(1, smtp.mails.size());
    SmtpListener.Mail m = smtp.mails.get(0);
    assertEquals("|alerts|s3cret", m.auth());
    assertEquals("<sluice@example.com>", m.from());
    assertEquals(List.of("<oncall@example.com>"), m.to());
    assertTrue(m.data().contains("Subject: [FIRING:1] ConnectHighErrorRate (orders)"), m.data());
    assertTrue(m.data().contains("X-Sluice: cdc"), m.data());
    assertTrue(m.data().contains("To: oncall@example.com"), m.data());
    assertTrue(m.data().contains("text/html"), m.data());
    assertTrue(m.data().contains("ConnectHighErrorRate"), m.data());
    step(Duration.ofMinutes(20));
    assertEquals(1, smtp.mails.size(), "email send_resolved defaults to false");
  }

  @Test
  void requireTlsRefusesAServerWithoutStartTls() throws Exception {
    smtp = new SmtpListener();
    start("""
        global: {smtp_smarthost: '127.0.0.1:%d', smtp_from: sluice@example.com}
        route: {receiver: mail, group_wait: 10s}
        receivers: [{name: mail, email_configs: [{to: oncall@example.com}]}]
        """.formatted(smtp.port()));
    fire("{\"alertname\":\"ConnectHighErrorRate\"}", T0.plus(Duration.ofMinutes(20)));
    step(Duration.ofSeconds(10));
    assertEquals(0, smtp.mails.size(), "smtp_require_tls defaults to true: no mail over a plain connection");
    assertEquals(1, router.metrics().get("alertmanager_notifications_failed_total", "integration", "email"));
  }
}
