package io.sluice.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.alerts.AlertRouter;
import io.sluice.metrics.MetricsServer;
import io.sluice.metrics.model.Labels;
import io.sluice.metrics.storage.Appender;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The metrics server and the real alert router wired as {@code sluice up} wires them: a rule fires, the router
 * receives it over {@code /api/v2/alerts} and notifies a webhook; the condition clears, the resolved alert reaches
 * the router and the webhook gets the recovery notice.
 */
class MetricsAlertsToRouterTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final long WAIT = 120_000;

  @TempDir
  Path dir;

  @Test
  void firingThenResolvedReachTheRouterAndItsReceiver() throws Exception {
    Webhook hook = Webhook.start();
    List<JsonNode> hooks = hook.notifications();
    Path rules = dir.resolve("down.rules.yml");
    Files.writeString(rules, """
        groups:
          - name: wiring
            interval: 1s
            rules:
              - alert: ConnectConnectorDown
                expr: test_connector_status == 0
                for: 1s
                labels: {severity: critical}
                annotations:
                  summary: 'Connector {{ $labels.connector }} is not running'
                  description: 'It has not been RUNNING for 1s.'
        """);
    try (AlertRouter router = AlertRouter.builder().port(0).dataDir(dir.resolve("alerts")).configYaml("""
            route:
              receiver: hook
              group_by: [alertname, severity, connector]
              group_wait: 1s
              group_interval: 1s
              repeat_interval: 1h
            receivers:
              - name: hook
                webhook_configs: [{url: 'http://127.0.0.1:%d/hook', send_resolved: true}]
            """.formatted(hook.port())).start();
        MetricsServer metrics = MetricsServer.builder().port(0).configYaml("""
            global: {evaluation_interval: 1s}
            rule_files: ['%s']
            alerting:
              alertmanagers:
                - static_configs: [{targets: ['%s']}]
            scrape_configs: []
            """.formatted(rules, URI.create(router.url()).getAuthority())).start()) {
      Labels series = Labels.of("__name__", "test_connector_status", "connector", "pg-orders");
      AtomicReference<Double> status = new AtomicReference<>(0.0);
      Thread writer = new Thread(() -> {
        while (!Thread.currentThread().isInterrupted()) {
          Appender app = metrics.storage().appender();
          app.append(series, System.currentTimeMillis(), status.get());
          app.commit();
          try {
            Thread.sleep(200);
          } catch (InterruptedException e) {
            return;
          }
        }
      });
      writer.setDaemon(true);
      writer.start();
      try {
        JsonNode firing = await(hooks, h -> h.path("status").asText().equals("firing"));
        JsonNode alert = firing.at("/alerts/0");
        assertEquals("ConnectConnectorDown", alert.at("/labels/alertname").asText());
        assertEquals("pg-orders", alert.at("/labels/connector").asText());
        assertEquals("Connector pg-orders is not running", alert.at("/annotations/summary").asText());
        assertTrue(alert.path("generatorURL").asText().startsWith(metrics.url()), alert.toString());
        JsonNode active = JSON.readTree(HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            URI.create(router.url() + "/api/v2/alerts")).build(), HttpResponse.BodyHandlers.ofString()).body());
        assertEquals(1, active.size(), active.toString());
        assertEquals("active", active.at("/0/status/state").asText());

        status.set(1.0);
        JsonNode resolved = await(hooks, h -> h.path("status").asText().equals("resolved"));
        assertEquals("ConnectConnectorDown", resolved.at("/alerts/0/labels/alertname").asText());
        assertEquals("resolved", resolved.at("/alerts/0/status").asText());
      } finally {
        writer.interrupt();
      }
    } finally {
      hook.close();
    }
  }

  /** Every alert name the router's bundled routing and inhibition rules match is one the bundled rules raise. */
  @Test
  void theRoutersInhibitionRulesNameAlertsTheBundledRulesRaise() {
    java.util.Set<String> raised = new java.util.TreeSet<>();
    java.util.regex.Matcher alert = java.util.regex.Pattern.compile("(?m)^\\s*- alert: (\\w+)")
        .matcher(MetricsServer.bundledRules());
    while (alert.find()) {
      raised.add(alert.group(1));
    }
    java.util.Set<String> routed = new java.util.TreeSet<>();
    java.util.regex.Matcher names = java.util.regex.Pattern.compile("alertname=~?\"([^\"]+)\"")
        .matcher(AlertRouter.defaultConfig());
    while (names.find()) {
      routed.addAll(List.of(names.group(1).split("\\|")));
    }
    assertEquals(6, routed.size(), routed.toString());
    assertTrue(raised.containsAll(routed), "routed " + routed + ", raised " + raised);
  }

  private static JsonNode await(List<JsonNode> hooks, Predicate<JsonNode> p) throws InterruptedException {
    long deadline = System.currentTimeMillis() + WAIT;
    while (System.currentTimeMillis() < deadline) {
      synchronized (hooks) {
        for (JsonNode h : hooks) {
          if (p.test(h)) {
            return h;
          }
        }
      }
      Thread.sleep(100);
    }
    synchronized (hooks) {
      throw new AssertionError("no matching webhook call within " + WAIT + " ms; got " + hooks);
    }
  }
}
