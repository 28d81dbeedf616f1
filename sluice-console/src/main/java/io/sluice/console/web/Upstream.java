package io.sluice.console.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.http.client.HttpClientConfig;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The two APIs the console reads, and nothing else: the metrics server's Prometheus HTTP API and the alert router's
 * Alertmanager API v2, so that it draws the same against a real Prometheus and Alertmanager.
 */
final class Upstream {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** An upstream answer the console passes on: its status and body, as the API gave them. */
  record Answer(int status, String body) {
    JsonNode json() {
      try {
        return JSON.readTree(body);
      } catch (IOException e) {
        return JSON.createObjectNode().put("status", "error").put("error", "not JSON: " + e.getMessage());
      }
    }
  }

  /** One API and how to reach it: credentials and TLS in the keys of Prometheus' {@code http_config}. */
  private record Api(String url, HttpClientConfig config, HttpClient http) {
    static Api of(String url, HttpClientConfig config) {
      return new Api(trim(url), config, config.builder().connectTimeout(Duration.ofSeconds(5)).build());
    }
  }

  private final Api metrics;
  private final Api alerts;

  Upstream(String metricsUrl, HttpClientConfig metricsClient, String alertsUrl, HttpClientConfig alertsClient) {
    this.metrics = Api.of(metricsUrl, metricsClient);
    this.alerts = Api.of(alertsUrl, alertsClient);
  }

  private static String trim(String url) {
    return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }

  String metricsUrl() {
    return metrics.url();
  }

  String alertsUrl() {
    return alerts.url();
  }

  /** {@code GET /api/v1/<path>?<query>} of the metrics server. */
  Answer metrics(String path, String... params) {
    StringBuilder q = new StringBuilder();
    for (int i = 0; i + 1 < params.length; i += 2) {
      if (params[i + 1] == null) {
        continue;
      }
      q.append(q.isEmpty() ? "?" : "&").append(params[i]).append('=')
          .append(URLEncoder.encode(params[i + 1], StandardCharsets.UTF_8));
    }
    return get(metrics, metrics.url() + "/api/v1/" + path + q);
  }

  /** The router's active alerts (not silenced, not inhibited), as {@code GET /api/v2/alerts} lists them. */
  Answer activeAlerts() {
    return get(alerts, alerts.url() + "/api/v2/alerts?active=true&silenced=false&inhibited=false");
  }

  private static Answer get(Api api, String url) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).GET()
        .header("Accept", "application/json");
    api.config().apply(b);
    try {
      HttpResponse<String> r = api.http().send(b.build(), HttpResponse.BodyHandlers.ofString());
      return new Answer(r.statusCode(), r.body());
    } catch (IOException e) {
      return new Answer(502, JSON.createObjectNode().put("status", "error").put("errorType", "unavailable")
          .put("error", "cannot reach " + URI.create(url).getHost() + ":" + URI.create(url).getPort() + ": "
              + e.getMessage()).toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Answer(503, "{\"status\":\"error\",\"error\":\"interrupted\"}");
    }
  }
}
