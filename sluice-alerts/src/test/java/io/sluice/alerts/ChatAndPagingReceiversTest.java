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
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Discord, Microsoft Teams (both kinds), Opsgenie, Telegram, Webex and VictorOps notifications as a listener standing
 * in for each service receives them: the payload, where the credentials go, and which failures are retried (each
 * kind as Alertmanager's notifier for it decides). Pushover, whose endpoint no configuration can change, is in
 * {@code notify.PushoverSenderTest}.
 */
class ChatAndPagingReceiversTest {
  static final Instant T0 = Instant.parse("2026-11-18T12:00:00Z");
  static final String GROUP_KEY = "{}:{alertname=\"ConnectHighLag\"}";

  @TempDir Path dir;
  final TestClock clock = new TestClock(T0);
  final Receivers http = new Receivers();
  AlertRouter router;

  @AfterEach
  void stop() {
    if (router != null) {
      router.close();
    }
    http.close();
  }

  void start(String yaml) {
    router = AlertRouter.builder().port(0).configYaml(yaml).dataDir(dir).clock(clock)
        .externalUrl("http://sluice.test:9093").manualTicks().retrySleeper(d -> {}).start();
  }

  void fire(String connector, String summary) {
    var r = Http.post(router.url() + "/api/v2/alerts", "[{\"labels\":{\"alertname\":\"ConnectHighLag\","
        + "\"connector\":\"" + connector + "\",\"severity\":\"warning\"},\"annotations\":{\"summary\":\"" + summary
        + "\"},\"startsAt\":\"" + T0 + "\",\"endsAt\":\"" + T0.plus(Duration.ofMinutes(20))
        + "\",\"generatorURL\":\"http://prom/g\"}]");
    assertEquals(200, r.statusCode(), r.body());
  }

  /** Past group_wait (10 s), then past the alert's end (20 min): the firing, then the resolved notification. */
  void flush() {
    clock.advance(Duration.ofSeconds(10));
    router.tick();
  }

  void resolve() {
    clock.advance(Duration.ofMinutes(20));
    router.tick();
  }

  long failed(String integration) {
    return router.metrics().get("alertmanager_notifications_failed_total", "integration", integration);
  }

  static String route() {
    return "route: {receiver: r, group_by: [alertname], group_wait: 10s}\n";
  }

  static String sha256(String s) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void discordEmbedsTheSubjectAndTheAlertList() throws Exception {
    Files.writeString(dir.resolve("discord-url"), http.url("discord") + "\n");
    start(route() + """
        receivers:
          - name: r
            discord_configs:
              - webhook_url_file: discord-url
                username: Sluice
                avatar_url: 'https://sluice.test/logo.png'
        """);
    fire("orders", "lag is high");
    flush();
    JsonNode msg = http.take("discord").get(0).body();
    assertEquals("", msg.get("content").asText());
    assertEquals("Sluice", msg.get("username").asText());
    assertEquals("https://sluice.test/logo.png", msg.get("avatar_url").asText());
    JsonNode embed = msg.get("embeds").get(0);
    assertEquals("[FIRING:1] ConnectHighLag (orders warning)", embed.get("title").asText());
    assertEquals("\n\nAlerts Firing:\nLabels:\n - alertname = ConnectHighLag\n - connector = orders\n"
        + " - severity = warning\nAnnotations:\n - summary = lag is high\nSource: http://prom/g\n\n\n\n",
        embed.get("description").asText());
    assertEquals(0x992D22, embed.get("color").asInt());
    resolve();
    JsonNode resolved = http.take("discord").get(0).body().get("embeds").get(0);
    assertEquals("[RESOLVED] ConnectHighLag (orders warning)", resolved.get("title").asText());
    assertEquals(0x2ECC71, resolved.get("color").asInt(), "send_resolved defaults to true");
  }

  @Test
  void discordCutsTheTitleAndRetriesOnlyServerErrors() {
    start(route() + """
        receivers:
          - name: r
            discord_configs: [{webhook_url: '%s', title: '{{ .CommonAnnotations.summary }}'}]
        """.formatted(http.url("discord")));
    http.failures.add(502);
    fire("orders", "x".repeat(300));
    flush();
    List<Receivers.Received> got = http.take("discord");
    assertEquals(2, got.size(), "a 502 is retried");
    String title = got.get(1).body().get("embeds").get(0).get("title").asText();
    assertEquals(256, title.codePointCount(0, title.length()));
    assertTrue(title.endsWith("x…"), title);

    http.failures.add(429);
    fire("payments", "again");
    clock.advance(Duration.ofMinutes(5));
    router.tick();
    assertEquals(1, http.take("discord").size(), "Alertmanager's Discord notifier does not retry a 429");
    assertEquals(1, failed("discord"));
  }

  @Test
  void teamsConnectorGetsAMessageCardAndWorkflowsAnAdaptiveCard() {
    start(route() + """
        receivers:
          - name: r
            msteams_configs: [{webhook_url: '%s'}]
            msteamsv2_configs: [{webhook_url: '%s', title: 'CDC: {{ .CommonLabels.alertname }}'}]
        """.formatted(http.url("teams"), http.url("workflows")));
    fire("orders", "lag is high");
    flush();
    JsonNode card = http.take("teams").get(0).body();
    assertEquals("http://schema.org/extensions", card.get("@context").asText());
    assertEquals("MessageCard", card.get("type").asText());
    assertEquals("[FIRING:1] ConnectHighLag (orders warning)", card.get("title").asText());
    assertEquals("[FIRING:1] ConnectHighLag (orders warning)", card.get("summary").asText());
    assertEquals("8C1A1A", card.get("themeColor").asText());
    assertTrue(card.get("text").asText().startsWith("\n\n# Alerts Firing:\n\nLabels:\n  - alertname = ConnectHighLag\n"),
        card.get("text").asText());

    JsonNode flow = http.take("workflows").get(0).body();
    assertEquals("message", flow.get("type").asText());
    JsonNode att = flow.get("attachments").get(0);
    assertEquals("application/vnd.microsoft.card.adaptive", att.get("contentType").asText());
    assertTrue(att.has("contentUrl") && att.get("contentUrl").isNull());
    JsonNode content = att.get("content");
    assertEquals("AdaptiveCard", content.get("type").asText());
    assertEquals("1.2", content.get("version").asText());
    assertEquals("full", content.get("msteams").get("width").asText());
    JsonNode heading = content.get("body").get(0);
    assertEquals("CDC: ConnectHighLag", heading.get("text").asText());
    assertEquals("Attention", heading.get("color").asText());
    assertEquals("heading", heading.get("style").asText());
    assertEquals(card.get("text").asText(), content.get("body").get(1).get("text").asText());

    resolve();
    assertEquals("2DC72D", http.take("teams").get(0).body().get("themeColor").asText());
    assertEquals("Good", http.take("workflows").get(0).body().get("attachments").get(0).get("content").get("body")
        .get(0).get("color").asText());
  }

  @Test
  void opsgenieCreatesAnAlertByTheGroupsAliasAndClosesIt() throws Exception {
    Files.writeString(dir.resolve("og-key"), "og-key-from-file\n");
    start("""
        global:
          opsgenie_api_url: '%s'
          opsgenie_api_key_file: og-key
        """.formatted(http.url("og")) + route() + """
        receivers:
          - name: r
            opsgenie_configs:
              - message: '{{ .CommonAnnotations.summary }}'
                details: {pipeline: cdc}
                responders:
                  - {name: 'dba,platform', type: teams}
                  - {username: 'oncall@example.com', type: User}
                  - {id: '{{ .CommonLabels.nope }}', type: '{{ .CommonLabels.nope }}'}
                tags: 'cdc,{{ .CommonLabels.severity }},'
                priority: P2
        """);
    String alias = sha256(GROUP_KEY);
    fire("orders", "y".repeat(200));
    flush();
    Receivers.Received create = http.take("og/v2/alerts").get(0);
    assertEquals("POST", create.method());
    assertEquals("GenieKey og-key-from-file", create.headers().get("authorization"));
    JsonNode m = create.body();
    assertEquals(alias, m.get("alias").asText());
    assertEquals("y".repeat(129) + "…", m.get("message").asText(), "Opsgenie takes 130 characters");
    assertEquals("http://sluice.test:9093/#/alerts?receiver=r", m.get("source").asText());
    assertEquals(Map.of("alertname", "ConnectHighLag", "connector", "orders", "severity", "warning",
        "pipeline", "cdc"), Receivers.strings(m.get("details")));
    assertEquals("[{\"name\":\"dba\",\"type\":\"team\"},{\"name\":\"platform\",\"type\":\"team\"},"
        + "{\"username\":\"oncall@example.com\",\"type\":\"user\"}]", m.get("responders").toString());
    assertEquals("[\"cdc\",\"warning\"]", m.get("tags").toString());
    assertEquals("P2", m.get("priority").asText());
    assertTrue(m.get("description").asText().startsWith(m.get("message").asText().substring(0, 129)),
        "the description starts with the common annotations");

    http.failures.add(429);
    resolve();
    List<Receivers.Received> close = http.take("og/v2/alerts/" + alias + "/close");
    assertEquals(2, close.size(), "Opsgenie asks to retry a 429");
    assertEquals(List.of("alias"), close.get(1).query().get("identifierType"));
    assertEquals("{\"source\":\"http://sluice.test:9093/#/alerts?receiver=r\"}", close.get(1).text());
    assertEquals("GenieKey og-key-from-file", close.get(1).headers().get("authorization"));
  }

  @Test
  void opsgenieUpdateAlertsAlsoReplacesMessageAndDescription() throws Exception {
    start(route() + """
        receivers:
          - name: r
            opsgenie_configs: [{api_url: '%s', api_key: k, update_alerts: true, description: 'lag on {{ .CommonLabels.connector }}'}]
        """.formatted(http.url("og/")));
    fire("orders", "lag is high");
    flush();
    List<Receivers.Received> all = http.takeAll();
    String alias = sha256(GROUP_KEY);
    assertEquals(List.of("POST og/v2/alerts", "PUT og/v2/alerts/" + alias + "/message",
        "PUT og/v2/alerts/" + alias + "/description"), all.stream().map(x -> x.method() + " " + x.path()).toList());
    assertEquals("{\"message\":\"[FIRING:1] ConnectHighLag (orders warning)\"}", all.get(1).text());
    assertEquals("{\"description\":\"lag on orders\"}", all.get(2).text());
  }

  @Test
  void telegramSendsTheMessageAsHtmlWithTheBotTokenInThePath() {
    http.reply = "{\"ok\":true,\"result\":{\"message_id\":7,\"chat\":{\"id\":-1001}}}";
    start(route() + """
        receivers:
          - name: r
            telegram_configs:
              - api_url: '%s'
                bot_token: '123:bot-secret'
                chat_id: -1001
                message_thread_id: 5
                disable_notifications: true
                message: '<b>{{ .CommonLabels.alertname }}</b>: {{ .CommonAnnotations.summary }}'
        """.formatted(http.url("tg").replace("/tg", "")));
    fire("orders", "lag > 5m & rising");
    flush();
    JsonNode m = http.take("bot123:bot-secret/sendMessage").get(0).body();
    assertEquals("-1001", m.get("chat_id").asText());
    assertEquals("<b>ConnectHighLag</b>: lag &gt; 5m &amp; rising", m.get("text").asText(),
        "values are escaped for HTML, the template's own tags are not");
    assertEquals("HTML", m.get("parse_mode").asText());
    assertEquals("true", m.get("disable_notification").asText());
    assertEquals("true", m.get("disable_web_page_preview").asText());
    assertEquals("5", m.get("message_thread_id").asText());
    String status = Http.get(router.url() + "/api/v2/status").body();
    assertFalse(status.contains("bot-secret"), status);

    // Alertmanager's Telegram client reports every failure as one to retry: a 400, and an answer that is not ok.
    http.failures.add(400);
    http.replies.add("{\"ok\":false,\"error_code\":400,\"description\":\"Bad Request: can't parse entities\"}");
    http.replies.add("{\"ok\":false,\"error_code\":400,\"description\":\"Bad Request: chat not found\"}");
    fire("payments", "again");
    clock.advance(Duration.ofMinutes(5));
    router.tick();
    assertEquals(3, http.take("bot123:bot-secret/sendMessage").size());
    assertEquals(0, failed("telegram"));
    assertEquals(2, router.metrics().get("alertmanager_notification_requests_failed_total", "integration",
        "telegram"));
  }

  @Test
  void webexPostsMarkdownToTheRoomWithTheBotsBearerToken() {
    start("""
        global: {webex_api_url: '%s'}
        """.formatted(http.url("webex/v1/messages")) + route() + """
        receivers:
          - name: r
            webex_configs:
              - room_id: 'room-{{ .CommonLabels.severity }}'
                http_config: {authorization: {credentials: webex-bot-token}}
        """);
    http.failures.add(503);
    fire("orders", "lag is high");
    flush();
    List<Receivers.Received> got = http.take("webex/v1/messages");
    assertEquals(2, got.size(), "a 503 is retried");
    assertEquals("Bearer webex-bot-token", got.get(1).headers().get("authorization"));
    JsonNode m = got.get(1).body();
    assertEquals("room-warning", m.get("roomId").asText());
    assertTrue(m.get("markdown").asText().startsWith("lag is high\n\nAlerts Firing:\nLabels:\n"),
        m.get("markdown").asText());
    String status = Http.get(router.url() + "/api/v2/status").body();
    assertFalse(status.contains("webex-bot-token"), status);
  }

  @Test
  void victorOpsPutsKeyAndRoutingKeyInThePathAndRecoversTheIncident() throws Exception {
    start("""
        global:
          victorops_api_url: '%s'
          victorops_api_key: vo-secret
        """.formatted(http.url("vo")) + route() + """
        receivers:
          - name: r
            victorops_configs:
              - routing_key: 'cdc-{{ .CommonLabels.severity }}'
                message_type: '{{ .CommonLabels.severity | toUpper }}'
                custom_fields: {pipeline: '{{ .CommonLabels.connector }}'}
        """);
    fire("orders", "lag is high");
    flush();
    JsonNode m = http.take("vo/vo-secret/cdc-warning").get(0).body();
    assertEquals("WARNING", m.get("message_type").asText());
    assertEquals(sha256(GROUP_KEY), m.get("entity_id").asText());
    assertEquals("[FIRING:1] ConnectHighLag (orders warning)", m.get("entity_display_name").asText());
    assertEquals("Alertmanager", m.get("monitoring_tool").asText());
    assertEquals("orders", m.get("pipeline").asText());
    assertTrue(m.get("state_message").asText().startsWith("lag is high\nAlerts Firing:\nLabels:\n"),
        m.get("state_message").asText());
    http.failures.add(429);
    resolve();
    List<Receivers.Received> got = http.take("vo/vo-secret/cdc-warning");
    assertEquals(1, got.size(), "Alertmanager's VictorOps notifier retries 5xx only");
    assertEquals(1, failed("victorops"));
    clock.advance(Duration.ofMinutes(5));
    router.tick();
    assertEquals("RECOVERY", http.take("vo/vo-secret/cdc-warning").get(0).body().get("message_type").asText());
    String status = Http.get(router.url() + "/api/v2/status").body();
    assertFalse(status.contains("vo-secret"), status);
  }
}
