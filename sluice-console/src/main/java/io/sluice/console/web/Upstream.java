package io.sluice.console.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.client.ClientOptions;
import io.sluice.client.HttpTransport;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
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

  private final HttpTransport metrics;
  private final HttpTransport alerts;

  /**
   * Each API reached with everything its options say, tried once: the console passes an upstream's answer on as it
   * came, and a page asks again on its own.
   */
  Upstream(String metricsUrl, ClientOptions metricsClient, String alertsUrl, ClientOptions alertsClient) {
    this.metrics = new HttpTransport(metricsUrl, once(metricsClient), "the metrics API");
    this.alerts = new HttpTransport(alertsUrl, once(alertsClient), "the alerts API");
  }

  private static ClientOptions once(ClientOptions options) {
    return options.withConnectTimeout(Duration.ofSeconds(5)).withRequestTimeout(Duration.ofSeconds(30))
        .withAttempts(1, Duration.ZERO);
  }

  String metricsUrl() {
    return metrics.baseUrl();
  }

  String alertsUrl() {
    return alerts.baseUrl();
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
    return get(metrics, "/api/v1/" + path + q);
  }

  /** The router's active alerts (not silenced, not inhibited), as {@code GET /api/v2/alerts} lists them. */
  Answer activeAlerts() {
    return get(alerts, "/api/v2/alerts?active=true&silenced=false&inhibited=false");
  }

  private static Answer get(HttpTransport api, String path) {
    try {
      HttpTransport.Reply r = api.send("GET", path, null, true);
      return new Answer(r.status(), r.body());
    } catch (HttpTransport.UnreachableException e) {
      URI base = URI.create(api.baseUrl());
      return new Answer(502, JSON.createObjectNode().put("status", "error").put("errorType", "unavailable")
          .put("error", "cannot reach " + base.getHost() + ":" + base.getPort() + ": " + cause(e)).toString());
    }
  }

  /** Why the API was not reached, without the transport's words around it (the page names the API itself). */
  private static String cause(HttpTransport.UnreachableException e) {
    return e.getCause() != null && e.getCause().getMessage() != null ? e.getCause().getMessage() : e.getMessage();
  }
}
