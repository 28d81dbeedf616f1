package io.sluice.app.snapshot;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.client.ClientOptions;
import io.sluice.client.HttpTransport;
import io.sluice.ops.snapshot.SnapshotStatus;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A source's snapshot series as the metrics server last scraped them ({@code svc_debezium_snapshot_*}, exported from
 * Debezium's snapshot MBean), through its Prometheus query API: so that the status is the same on every node of a
 * cluster, whichever worker runs the source's task.
 */
final class SnapshotMetrics {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpTransport http;

  SnapshotMetrics(String metricsUrl, ClientOptions options) {
    this.http = new HttpTransport(metricsUrl, options, "the metrics server");
  }

  Optional<SnapshotStatus.Metrics> read(String connector) {
    String label = "connector=\"" + connector.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    JsonNode series = query("{__name__=~\"svc_debezium_snapshot_.+\"," + label + "}");
    if (series.isEmpty()) {
      return Optional.empty();
    }
    Map<String, Double> gauges = new HashMap<>();
    Map<String, Long> rows = new HashMap<>();
    Map<String, Long> estimates = new HashMap<>();
    for (JsonNode s : series) {
      String name = s.path("metric").path("__name__").asText();
      double v = Double.parseDouble(s.path("value").path(1).asText("NaN"));
      String table = s.path("metric").path("table").asText(null);
      switch (name) {
        case "svc_debezium_snapshot_rows_scanned" -> rows.put(table, (long) v);
        case "svc_debezium_snapshot_table_rows_estimate" -> estimates.put(table, (long) v);
        default -> gauges.put(name, v);
      }
    }
    // The time of the scrape the values come from, not of the query: what a signal sent since can be compared with.
    double scraped = 0;
    for (JsonNode s : query("timestamp(svc_debezium_snapshot_running{" + label + "})")) {
      scraped = Math.max(scraped, Double.parseDouble(s.path("value").path(1).asText("0")));
    }
    return Optional.of(new SnapshotStatus.Metrics(on(gauges, "running"), on(gauges, "paused"),
        on(gauges, "completed"), on(gauges, "aborted"), (int) get(gauges, "tables"),
        (int) get(gauges, "remaining_tables"), (long) get(gauges, "duration_seconds"), rows, estimates,
        Instant.ofEpochMilli((long) (scraped * 1000))));
  }

  private static boolean on(Map<String, Double> gauges, String name) {
    return get(gauges, name) == 1;
  }

  private static double get(Map<String, Double> gauges, String name) {
    return gauges.getOrDefault("svc_debezium_snapshot_" + name, 0.0);
  }

  private JsonNode query(String promql) {
    HttpTransport.Reply r = http.send("GET", "/api/v1/query?query=" + URLEncoder.encode(promql,
        StandardCharsets.UTF_8), null, true);
    if (!r.ok()) {
      throw new IllegalStateException("the metrics server at " + http.baseUrl() + " answered " + r.status() + ": "
          + r.body());
    }
    try {
      return JSON.readTree(r.body()).path("data").path("result");
    } catch (IOException e) {
      throw new IllegalStateException("the metrics server at " + http.baseUrl() + " answered no JSON: " + r.body(), e);
    }
  }
}
