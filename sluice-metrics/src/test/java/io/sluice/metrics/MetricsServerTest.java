package io.sluice.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.http.HttpResponse;
import io.sluice.http.HttpServer;
import io.sluice.http.Json;
import io.sluice.metrics.config.Config;
import io.sluice.metrics.model.Labels;
import io.sluice.metrics.storage.Appender;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The server as {@code sluice up} runs it: scraping a real exporter over HTTP, answering over HTTP, restarting. */
class MetricsServerTest {
  static final HttpClient client = HttpClient.newHttpClient();

  @TempDir
  Path dir;

  static JsonNode get(MetricsServer s, String pathAndQuery) throws Exception {
    String body = client.send(HttpRequest.newBuilder(URI.create(s.url() + pathAndQuery)).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString()).body();
    return Json.read(body.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void scrapesAnExporterAndServesTheResult() throws Exception {
    try (HttpServer exporter = HttpServer.builder("exporter").port(0)
            .get("/metrics", r -> HttpResponse.text(200, "text/plain; version=0.0.4",
                "# TYPE cdc_records_total counter\ncdc_records_total{connector=\"pg\"} 42\n"))
            .start();
        MetricsServer server = MetricsServer.builder().port(0).configYaml("""
            global: {scrape_interval: 100ms, scrape_timeout: 100ms}
            scrape_configs:
              - job_name: sluice
                static_configs: [{targets: ['127.0.0.1:%d']}]
              - job_name: down
                static_configs: [{targets: ['127.0.0.1:1']}]
            """.formatted(exporter.port())).start()) {
      JsonNode result = null;
      for (int i = 0; i < 200; i++) {
        result = get(server, "/api/v1/query?query=" + URLEncoder.encode("cdc_records_total", StandardCharsets.UTF_8));
        if (result.at("/data/result").size() > 0) {
          break;
        }
        Thread.sleep(20);
      }
      assertEquals("42", result.at("/data/result/0/value/1").asText());
      assertEquals("sluice", result.at("/data/result/0/metric/job").asText());
      JsonNode targets = null;
      for (int i = 0; i < 200; i++) {
        targets = get(server, "/api/v1/targets");
        boolean allScraped = true;
        for (JsonNode t : targets.at("/data/activeTargets")) {
          allScraped &= !t.get("health").asText().equals("unknown");
        }
        if (allScraped) {
          break;
        }
        Thread.sleep(20);
      }
      assertEquals(2, targets.at("/data/activeTargets").size());
      for (JsonNode t : targets.at("/data/activeTargets")) {
        boolean up = t.at("/labels/job").asText().equals("sluice");
        assertEquals(up ? "up" : "down", t.get("health").asText(), t.toString());
        assertEquals("100ms", t.get("scrapeInterval").asText());
        assertTrue(t.get("scrapeUrl").asText().endsWith("/metrics"));
      }
      JsonNode up = get(server, "/api/v1/query?query=" + URLEncoder.encode("sum by (job) (up)", StandardCharsets.UTF_8));
      assertEquals(2, up.at("/data/result").size());
    }
  }

  @Test
  void dataSurvivesARestart() throws Exception {
    long t = System.currentTimeMillis();
    try (MetricsServer s = MetricsServer.builder().port(0).configYaml("scrape_configs: []").dataDir(dir)
        .retention(Duration.ofDays(1)).start()) {
      Appender app = s.storage().appender();
      app.append(Labels.of("__name__", "kept", "a", "b"), t, 7);
      app.commit();
    }
    try (MetricsServer s = MetricsServer.builder().port(0).configYaml("scrape_configs: []").dataDir(dir).start()) {
      JsonNode r = get(s, "/api/v1/query?query=kept&time=" + t / 1000.0);
      assertEquals("7", r.at("/data/result/0/value/1").asText(), r.toString());
    }
  }

  @Test
  void sampleLimitStopsAQueryNotTheServer() throws Exception {
    try (MetricsServer s = MetricsServer.builder().port(0).configYaml("scrape_configs: []").maxSamples(100).start()) {
      Appender app = s.storage().appender();
      for (int i = 0; i < 500; i++) {
        app.append(Labels.of("__name__", "many"), 1_000_000L + i * 1000L, i);
      }
      app.commit();
      JsonNode r = get(s, "/api/v1/query?query=" + URLEncoder.encode("count_over_time(many[10m])",
          StandardCharsets.UTF_8) + "&time=1500");
      assertEquals("execution", r.get("errorType").asText());
      assertEquals("query processing would load too many samples into memory in query execution",
          r.get("error").asText());
      // Sluice counts every sample a query holds, an instant selector's whole lookback window (11 samples here).
      JsonNode ok = get(s, "/api/v1/query?query=many&time=1010");
      assertEquals("success", ok.get("status").asText());
    }
  }

  @Test
  void badConfigurationFailsBeforeBinding() {
    assertThrows(Config.ConfigException.class,
        () -> MetricsServer.builder().port(0).configYaml("global: {scrape_interval: soon}").start());
  }
}
