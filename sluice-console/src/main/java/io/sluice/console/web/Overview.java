package io.sluice.console.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * Every connector in one table: name, type, state, lag, throughput, errors and alerts firing. A handful of instant
 * queries, each answering for all connectors at once, joined here, so the cost of a refresh does not grow with the
 * number of connectors in requests (200 connectors are still eight queries).
 */
final class Overview {
  private static final ObjectMapper JSON = new ObjectMapper();
  static final Map<String, String> QUERIES = new TreeMap<>(Map.of(
      "state", "max by (connector, pipeline, state) (svc_connect_connector_status_info)",
      "sources", "count by (connector) (svc_connect_source_connector_metrics_source_record_poll_total)",
      "sinks", "count by (connector) (svc_connect_sink_connector_metrics_sink_record_send_total)",
      "source", "sum by (connector) (rate(svc_connect_source_connector_metrics_source_record_poll_total[1m]))",
      "sink", "sum by (connector) (rate(svc_connect_sink_connector_metrics_sink_record_send_total[1m]))",
      "errors", "sum by (connector) (rate(svc_connect_connector_task_metrics_total_errors_logged_total[5m]))",
      "lagRecords", "sum by (pipeline) (svc_connect_source_connector_metrics_source_record_poll_total) - sum by "
          + "(pipeline) (svc_connect_sink_connector_metrics_sink_record_send_total)",
      // The sinks' writes; for a pipeline whose sink does not measure them, its offset commits.
      "lagSeconds", "histogram_quantile(0.99, sum by (pipeline, le) (rate(svc_cdc_freshness_write_seconds_bucket[5m])))"
          + " or histogram_quantile(0.99, sum by (pipeline, le) (rate(svc_cdc_freshness_commit_seconds_bucket[5m])))"));

  private Overview() {}

  /**
   * The rows, or an error object naming the query that failed. The queries and the alerts are asked side by side on
   * {@code pool}: the answer takes as long as the slowest of them, not their sum.
   */
  static ObjectNode rows(Upstream upstream, Executor pool) {
    Map<String, CompletableFuture<Upstream.Answer>> asked = new TreeMap<>();
    for (Map.Entry<String, String> q : QUERIES.entrySet()) {
      asked.put(q.getKey(), CompletableFuture.supplyAsync(() -> upstream.metrics("query", "query", q.getValue()),
          pool));
    }
    CompletableFuture<Upstream.Answer> alerting = CompletableFuture.supplyAsync(upstream::activeAlerts, pool);
    Map<String, JsonNode> results = new HashMap<>();
    for (Map.Entry<String, String> q : QUERIES.entrySet()) {
      Upstream.Answer a = asked.get(q.getKey()).join();
      JsonNode body = a.json();
      if (a.status() != 200 || !"success".equals(body.path("status").asText())) {
        return JSON.createObjectNode().put("error", "the metrics server answered " + a.status() + " to "
            + q.getValue() + ": " + body.path("error").asText(a.body()));
      }
      results.put(q.getKey(), body.path("data").path("result"));
    }
    Map<String, ObjectNode> rows = new TreeMap<>();
    for (JsonNode s : results.get("state")) {
      String name = s.path("metric").path("connector").asText();
      ObjectNode row = rows.computeIfAbsent(name, n -> JSON.createObjectNode().put("name", n).put("type", "")
          .put("throughput", 0.0).put("errors", 0.0).put("alerts", 0));
      row.put("pipeline", s.path("metric").path("pipeline").asText(name));
      // A connector with a failed task has two state series (its own and FAILED): FAILED wins.
      String state = s.path("metric").path("state").asText();
      if (!row.has("state") || state.equals("FAILED")) {
        row.put("state", state);
      }
    }
    // The type from the series a connector's tasks write at all; the throughput from their rate (which needs two
    // scrapes in the window).
    for (String type : new String[] {"source", "sink"}) {
      byLabel(results.get(type + "s"), "connector").forEach((c, v) -> {
        ObjectNode row = rows.get(c);
        if (row != null) {
          row.put("type", type);
        }
      });
      byLabel(results.get(type), "connector").forEach((c, v) -> {
        ObjectNode row = rows.get(c);
        if (row != null && type.equals(row.path("type").asText())) {
          row.put("throughput", v);
        }
      });
    }
    byLabel(results.get("errors"), "connector").forEach((c, v) -> {
      ObjectNode row = rows.get(c);
      if (row != null) {
        row.put("errors", v);
      }
    });
    Map<String, Double> lagRecords = byLabel(results.get("lagRecords"), "pipeline");
    Map<String, Double> lagSeconds = byLabel(results.get("lagSeconds"), "pipeline");
    for (ObjectNode row : rows.values()) {
      String pipeline = row.path("pipeline").asText();
      Double records = lagRecords.get(pipeline);
      Double seconds = lagSeconds.get(pipeline);
      if (records != null) {
        row.put("lagRecords", records);
      }
      if (seconds != null && !seconds.isNaN()) {
        row.put("lagSeconds", seconds);
      }
    }
    Upstream.Answer alerts = alerting.join();
    ObjectNode out = JSON.createObjectNode();
    if (alerts.status() == 200) {
      for (JsonNode a : alerts.json()) {
        String c = a.path("labels").path("connector").asText("");
        ObjectNode row = rows.get(c);
        if (row != null) {
          row.put("alerts", row.path("alerts").asInt() + 1);
        }
      }
    } else {
      out.put("alertsError", "the alert router answered " + alerts.status());
    }
    ArrayNode list = out.putArray("connectors");
    rows.values().forEach(list::add);
    ObjectNode queries = out.putObject("queries");
    QUERIES.forEach(queries::put);
    return out;
  }

  private static Map<String, Double> byLabel(JsonNode result, String label) {
    Map<String, Double> out = new HashMap<>();
    for (JsonNode s : result) {
      String key = s.path("metric").path(label).asText(null);
      if (key != null) {
        out.put(key, parse(s.path("value").path(1).asText()));
      }
    }
    return out;
  }

  private static double parse(String v) {
    return switch (v) {
      case "NaN" -> Double.NaN;
      case "+Inf" -> Double.POSITIVE_INFINITY;
      case "-Inf" -> Double.NEGATIVE_INFINITY;
      default -> Double.parseDouble(v);
    };
  }
}
