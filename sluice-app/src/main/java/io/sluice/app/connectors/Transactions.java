package io.sluice.app.connectors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.client.ClientOptions;
import io.sluice.client.HttpTransport;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * An exactly-once source's transactions as the metrics server last scraped them: commits and failed (aborted) commits
 * of each task since it started ({@code svc_connect_task_offset_commit_*_total}, which for such a source count its
 * transactions), and the transaction each task has open, from its coordinator ({@code
 * svc_connect_task_transaction_*_seconds}).
 *
 * {@link Figures#open()} holds per task the seconds its open transaction has been open (0: none) and its timeout.
 */
sealed interface Transactions {
  ObjectMapper JSON = new ObjectMapper();

  /** The figures could not be read, and why. */
  record Unread(String why) implements Transactions {}

  /** The figures of one connector, read. */
  record Figures(long committed, long failed, Map<Integer, double[]> open) implements Transactions {
    /** One line for {@code describe}: counts, then each open transaction with its age against its timeout. */
    String line() {
      StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%,d committed, %,d failed (aborted) since the"
          + " tasks started", committed, failed));
      StringBuilder opened = new StringBuilder();
      open.forEach((task, t) -> {
        if (t[0] > 0) {
          opened.append(opened.isEmpty() ? "" : ", ").append(String.format(Locale.ROOT,
              "task %d's open for %.1f s of its %.0f s timeout", task, t[0], t[1]));
        }
      });
      b.append("; ").append(opened.isEmpty() ? "none open" : opened);
      return b.append(" (the metrics server's last scrape)").toString();
    }

    ObjectNode json() {
      ObjectNode o = JSON.createObjectNode().put("committed", committed).put("failed", failed);
      var tasks = o.putArray("open");
      open.forEach((task, t) -> {
        if (t[0] > 0) {
          tasks.addObject().put("task", task).put("seconds", t[0]).put("timeout_seconds", t[1]);
        }
      });
      return o;
    }
  }

  /** The figures of {@code connector}, or why they could not be read. */
  static Transactions read(String metricsUrl, ClientOptions options, String connector) {
    String label = "connector=\"" + connector.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    String query = "{__name__=~\"svc_connect_task_offset_commit_(success|failure)_total"
        + "|svc_connect_task_transaction_(open|timeout)_seconds\"," + label + "}";
    JsonNode result;
    try {
      HttpTransport.Reply r = new HttpTransport(metricsUrl, options, "the metrics server").send("GET",
          "/api/v1/query?query=" + URLEncoder.encode(query, StandardCharsets.UTF_8), null, true);
      if (!r.ok()) {
        return new Unread("the metrics server at " + metricsUrl + " answered " + r.status());
      }
      result = JSON.readTree(r.body()).path("data").path("result");
    } catch (RuntimeException | IOException e) {
      return new Unread("the metrics server at " + metricsUrl + " did not answer: " + e.getMessage());
    }
    // Per task: the commit counters of the node running it, and the coordinator's view, alike on every node.
    Map<Integer, Double> committed = new TreeMap<>();
    Map<Integer, Double> failed = new TreeMap<>();
    Map<Integer, double[]> open = new TreeMap<>();
    for (JsonNode s : result) {
      String name = s.path("metric").path("__name__").asText();
      int task;
      try {
        task = Integer.parseInt(s.path("metric").path("task").asText());
      } catch (NumberFormatException e) {
        continue;
      }
      double v = Double.parseDouble(s.path("value").path(1).asText("NaN"));
      switch (name) {
        case "svc_connect_task_offset_commit_success_total" -> committed.merge(task, v, Math::max);
        case "svc_connect_task_offset_commit_failure_total" -> failed.merge(task, v, Math::max);
        case "svc_connect_task_transaction_open_seconds" ->
            open.computeIfAbsent(task, k -> new double[2])[0] = Math.max(open.get(task)[0], v);
        case "svc_connect_task_transaction_timeout_seconds" ->
            open.computeIfAbsent(task, k -> new double[2])[1] = Math.max(open.get(task)[1], v);
        default -> { }
      }
    }
    if (committed.isEmpty() && failed.isEmpty() && open.isEmpty()) {
      return new Unread("no transaction figures for " + connector + " on " + metricsUrl + " yet (its tasks not running,"
          + " or not scraped yet)");
    }
    return new Figures(sum(committed), sum(failed), open);
  }

  private static long sum(Map<Integer, Double> perTask) {
    return Math.round(perTask.values().stream().mapToDouble(Double::doubleValue).sum());
  }
}
