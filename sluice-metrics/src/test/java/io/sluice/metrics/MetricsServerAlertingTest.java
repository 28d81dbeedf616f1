package io.sluice.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.http.Json;
import io.sluice.metrics.model.Labels;
import io.sluice.metrics.notifier.AlertReceiver;
import io.sluice.metrics.rules.RuleFile;
import io.sluice.metrics.storage.Appender;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The metrics server evaluating rules on its schedule and sending their alerts over HTTP to a router (a listener
 * recording {@code POST /api/v2/alerts}): firing with Prometheus's {@code endsAt} convention, then resolved; the
 * rules and alerts APIs, the alerts page, and reloads that refuse a broken file and keep the old rules running.
 */
class MetricsServerAlertingTest {
  static final HttpClient client = HttpClient.newHttpClient();
  static final long WAIT = 120_000;

  @TempDir
  Path dir;

  static final String RULES = """
      groups:
        - name: pipeline
          interval: 1s
          rules:
            - record: connector:up:min
              expr: min by (connector) (test_connector_up)
            - alert: TestConnectorDown
              expr: connector:up:min == 0
              for: 2s
              labels:
                severity: critical
              annotations:
                summary: 'Connector {{ $labels.connector }} is down'
                description: 'value {{ $value }}'
      """;

  static HttpResponse<String> send(String method, String url) throws Exception {
    return client.send(HttpRequest.newBuilder(URI.create(url)).method(method, HttpRequest.BodyPublishers.noBody())
        .build(), HttpResponse.BodyHandlers.ofString());
  }

  static JsonNode get(MetricsServer s, String path) throws Exception {
    return Json.read(send("GET", s.url() + path).body().getBytes(StandardCharsets.UTF_8));
  }

  static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.currentTimeMillis() + WAIT;
    while (!condition.getAsBoolean()) {
      if (System.currentTimeMillis() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.sleep(50);
    }
  }

  /** Keeps writing the connector's up value at the current time, as a scrape would. */
  static Thread writer(MetricsServer s, AtomicReference<Double> up) {
    Thread t = new Thread(() -> {
      Labels l = Labels.of("__name__", "test_connector_up", "connector", "pg-orders");
      while (!Thread.currentThread().isInterrupted()) {
        Appender app = s.storage().appender();
        app.append(l, System.currentTimeMillis(), up.get());
        app.commit();
        try {
          Thread.sleep(200);
        } catch (InterruptedException e) {
          return;
        }
      }
    });
    t.setDaemon(true);
    t.start();
    return t;
  }

  @Test
  void sendsFiringThenResolvedAlertToTheRouter() throws Exception {
    Path rules = dir.resolve("pipeline.rules.yml");
    Files.writeString(rules, RULES);
    try (AlertReceiver router = new AlertReceiver();
        MetricsServer server = MetricsServer.builder().port(0).configYaml("""
            global: {evaluation_interval: 1s}
            rule_files: ['%s']
            alerting:
              alertmanagers:
                - static_configs: [{targets: ['%s']}]
            scrape_configs: []
            """.formatted(rules, router.hostPort())).start()) {
      AtomicReference<Double> up = new AtomicReference<>(0.0);
      Thread w = writer(server, up);
      try {
        JsonNode firing = router.awaitAlert(a -> a.path("labels").path("alertname").asText()
            .equals("TestConnectorDown"), WAIT);
        Instant sentAround = Instant.now();
        assertEquals("critical", firing.at("/labels/severity").asText());
        assertEquals("pg-orders", firing.at("/labels/connector").asText());
        assertEquals("Connector pg-orders is down", firing.at("/annotations/summary").asText());
        assertEquals("value 0", firing.at("/annotations/description").asText());
        assertTrue(firing.at("/generatorURL").asText().startsWith(server.url() + "/graph?g0.expr="),
            firing.toString());
        // endsAt = sent + 4 x max(evaluation interval 1s, resend delay 1m): about 4 minutes after startsAt.
        Instant startsAt = Instant.parse(firing.at("/startsAt").asText());
        Instant endsAt = Instant.parse(firing.at("/endsAt").asText());
        long validFor = Duration.between(startsAt, endsAt).toMillis();
        assertEquals(240_000, validFor, "endsAt - startsAt of the first send");
        assertTrue(!startsAt.isAfter(sentAround));

        // The APIs agree while it fires.
        JsonNode alerts = get(server, "/api/v1/alerts");
        assertEquals("success", alerts.path("status").asText());
        JsonNode a0 = alerts.at("/data/alerts/0");
        assertEquals("firing", a0.path("state").asText());
        assertEquals("0e+00", a0.path("value").asText());
        assertEquals("pg-orders", a0.at("/labels/connector").asText());
        JsonNode group = get(server, "/api/v1/rules").at("/data/groups/0");
        assertEquals("pipeline", group.path("name").asText());
        assertEquals(1.0, group.path("interval").asDouble());
        assertEquals(rules.toString(), group.path("file").asText());
        assertEquals("recording", group.at("/rules/0/type").asText());
        assertEquals("connector:up:min", group.at("/rules/0/name").asText());
        JsonNode rule = group.at("/rules/1");
        assertEquals("alerting", rule.path("type").asText());
        assertEquals("firing", rule.path("state").asText());
        assertEquals("ok", rule.path("health").asText());
        assertEquals(2.0, rule.path("duration").asDouble());
        assertEquals("connector:up:min == 0", rule.path("query").asText());
        assertEquals("Connector {{ $labels.connector }} is down", rule.at("/annotations/summary").asText());
        assertEquals(1, get(server, "/api/v1/rules?type=record").at("/data/groups/0/rules").size());
        assertEquals(400, send("GET", server.url() + "/api/v1/rules?type=nope").statusCode());
        String page = send("GET", server.url() + "/alerts").body();
        assertTrue(page.contains("TestConnectorDown") && page.contains("FIRING") && page.contains("pg-orders"),
            page);
        JsonNode series = get(server, "/api/v1/query?query=" + URLEncoder.encode(
            "ALERTS{alertname=\"TestConnectorDown\"}", StandardCharsets.UTF_8));
        assertEquals("firing", series.at("/data/result/0/metric/alertstate").asText());

        // Recovery: the alert is sent once more, resolved, with endsAt = when it resolved.
        up.set(1.0);
        JsonNode resolved = router.awaitAlert(a -> a.path("labels").path("alertname").asText()
            .equals("TestConnectorDown") && !Instant.parse(a.path("endsAt").asText()).isAfter(Instant.now()), WAIT);
        assertEquals(startsAt, Instant.parse(resolved.path("startsAt").asText()));
        assertTrue(Instant.parse(resolved.path("endsAt").asText()).isAfter(startsAt));
        await("no active alerts", () -> {
          try {
            return get(server, "/api/v1/alerts").at("/data/alerts").isEmpty();
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
        assertEquals("inactive", get(server, "/api/v1/rules").at("/data/groups/0/rules/1/state").asText());
      } finally {
        w.interrupt();
      }
    }
  }

  @Test
  void reloadRefusesABrokenRuleFileAndKeepsTheOldRules() throws Exception {
    Path rules = dir.resolve("pipeline.rules.yml");
    Files.writeString(rules, RULES);
    Path config = dir.resolve("prometheus.yml");
    Files.writeString(config, """
        global: {evaluation_interval: 1s}
        rule_files: ['*.rules.yml']
        scrape_configs: []
        """);
    try (MetricsServer server = MetricsServer.builder().port(0).configFile(config).start()) {
      assertEquals(2, get(server, "/api/v1/rules").at("/data/groups/0/rules").size());
      Files.writeString(rules, RULES.replace("connector:up:min == 0", "connector:up:min == (0"));
      HttpResponse<String> refused = send("POST", server.url() + "/-/reload");
      assertEquals(500, refused.statusCode());
      assertTrue(refused.body().startsWith("failed to reload config: "), refused.body());
      assertTrue(refused.body().contains("could not parse expression"), refused.body());
      // Still the old rules, still evaluated.
      JsonNode old = get(server, "/api/v1/rules").at("/data/groups/0");
      assertEquals("connector:up:min == 0", old.at("/rules/1/query").asText());
      long before = Instant.parse(old.path("lastEvaluation").asText().replace("0001-01-01T00:00:00Z",
          "1970-01-01T00:00:00Z")).toEpochMilli();
      await("an evaluation after the refused reload", () -> {
        try {
          String last = get(server, "/api/v1/rules").at("/data/groups/0/lastEvaluation").asText();
          return !last.startsWith("0001") && Instant.parse(last).toEpochMilli() > before;
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });

      Files.writeString(rules, RULES + "      - alert: Another\n        expr: vector(1)\n"
          + "        labels: {severity: warning}\n");
      HttpResponse<String> accepted = send("POST", server.url() + "/-/reload");
      assertEquals(200, accepted.statusCode(), accepted.body());
      JsonNode fresh = get(server, "/api/v1/rules").at("/data/groups/0/rules");
      assertEquals(3, fresh.size());
      assertEquals("Another", fresh.at("/2/name").asText());

      // A broken configuration file is refused the same way.
      Files.writeString(config, "global: {evaluation_interval: soon}\n");
      assertEquals(500, send("PUT", server.url() + "/-/reload").statusCode());
      assertEquals(3, get(server, "/api/v1/rules").at("/data/groups/0/rules").size());
    }
  }

  @Test
  void aBrokenRuleFileStopsTheStart() throws Exception {
    Path rules = dir.resolve("broken.rules.yml");
    Files.writeString(rules, """
        groups:
          - name: g
            rules:
              - alert: NoExpr
              - record: 'bad name'
                expr: up
              - alert: BadTemplate
                expr: up
                annotations: {summary: '{{ nosuchfunc }}'}
        """);
    RuleFile.RuleFileException e = assertThrows(RuleFile.RuleFileException.class, () -> MetricsServer.builder()
        .port(0).configYaml("rule_files: ['" + rules + "']\n").start());
    assertEquals(3, e.errors().size(), e.errors().toString());
    assertTrue(e.errors().get(0).contains("field 'expr' must be set in rule"), e.errors().get(0));
    assertTrue(e.errors().get(1).contains("invalid recording rule name: bad name"), e.errors().get(1));
    assertTrue(e.errors().get(2).contains("function \"nosuchfunc\" not defined"), e.errors().get(2));
  }

  @Test
  void withoutAConfigurationItLoadsTheBundledCatalogAndAlertsTheConfiguredRouter() throws Exception {
    try (AlertReceiver router = new AlertReceiver();
        MetricsServer server = MetricsServer.builder().port(0).dataDir(dir.resolve("metrics"))
            .alertmanager(router.hostPort()).start()) {
      JsonNode groups = get(server, "/api/v1/rules").at("/data/groups");
      assertEquals(3, groups.size());
      int rules = 0;
      for (JsonNode g : groups) {
        rules += g.path("rules").size();
      }
      assertEquals(18, rules);
      assertEquals(java.util.List.of(router.url()), server.config().alertmanagers());
      assertEquals(router.url() + "/api/v2/alerts",
          get(server, "/api/v1/alertmanagers").at("/data/activeAlertmanagers/0/url").asText());
      assertTrue(Files.exists(dir.resolve("metrics/rules/cdc-alerts.rules.yml")));
    }
  }
}
