package io.sluice.app.snapshot;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.client.ClientOptions;
import io.sluice.client.HttpTransport;
import io.sluice.metrics.model.Labels;
import io.sluice.metrics.textparse.ExpositionParser;
import io.sluice.ops.snapshot.SnapshotStatus;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A source's snapshot series ({@code svc_debezium_snapshot_*}, exported from Debezium's snapshot MBean). The metrics
 * server says which node's exporter serves the source's task (the series' {@code instance}), so that the status is the
 * same on every node of a cluster; the figures are then read from that exporter itself, as they are now. The metrics
 * server's last scrape, up to a scrape interval old, is what is shown only when the exporter cannot be read from here
 * (another node's address not reachable, credentials of its own): a snapshot that ended since would otherwise read as
 * idle with nothing read until the next scrape.
 */
final class SnapshotMetrics {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PREFIX = "svc_debezium_snapshot_";
  private final HttpTransport http;
  private final ClientOptions options;

  SnapshotMetrics(String metricsUrl, ClientOptions options) {
    this.http = new HttpTransport(metricsUrl, options, "the metrics server");
    this.options = options;
  }

  /** The metrics and where they were read: {@code fresh} when from the exporter, at {@code from}. */
  record Reading(SnapshotStatus.Metrics metrics, boolean fresh, String from) {
    /** What the figures are, for a reader of the status: how old, and from where. */
    String describe(Instant now) {
      if (fresh) {
        return "metrics read from the exporter at " + from + " at " + metrics.scrapedAt();
      }
      long age = Math.max(0, Duration.between(metrics.scrapedAt(), now).toSeconds());
      return "metrics as of " + metrics.scrapedAt() + ", the metrics server's last scrape (" + age + " s old; the next"
          + " comes within its scrape interval); " + from;
    }
  }

  Optional<Reading> read(String connector) {
    String label = "connector=\"" + connector.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    JsonNode series = query("{__name__=~\"" + PREFIX + ".+\"," + label + "}");
    if (series.isEmpty()) {
      return Optional.empty();
    }
    String instance = series.get(0).path("metric").path("instance").asText("");
    String exporter = scrapeUrl(instance);
    String unread;
    if (exporter == null) {
      unread = "no scrape target of the metrics server is instance " + instance;
    } else {
      try {
        Optional<SnapshotStatus.Metrics> now = fromExporter(exporter, connector);
        if (now.isPresent()) {
          return Optional.of(new Reading(now.get(), true, exporter));
        }
        unread = "the exporter at " + exporter + " no longer serves " + connector + "'s snapshot metrics";
      } catch (RuntimeException | ExpositionParser.ParseError e) {
        unread = "the exporter at " + exporter + " could not be read: " + e.getMessage();
      }
    }
    List<Sample> samples = new ArrayList<>();
    for (JsonNode s : series) {
      samples.add(new Sample(s.path("metric").path("__name__").asText(), s.path("metric").path("table").asText(null),
          Double.parseDouble(s.path("value").path(1).asText("NaN"))));
    }
    // The time of the scrape the values come from, not of the query: what a signal sent since can be compared with.
    double scraped = 0;
    for (JsonNode s : query("timestamp(svc_debezium_snapshot_running{" + label + "})")) {
      scraped = Math.max(scraped, Double.parseDouble(s.path("value").path(1).asText("0")));
    }
    return Optional.of(new Reading(metrics(samples, Instant.ofEpochMilli((long) (scraped * 1000))), false, unread));
  }

  private record Sample(String name, String table, double value) {}

  private static SnapshotStatus.Metrics metrics(List<Sample> samples, Instant at) {
    Map<String, Double> gauges = new HashMap<>();
    Map<String, Long> rows = new HashMap<>();
    Map<String, Long> estimates = new HashMap<>();
    for (Sample s : samples) {
      switch (s.name()) {
        case PREFIX + "rows_scanned" -> rows.put(s.table(), (long) s.value());
        case PREFIX + "table_rows_estimate" -> estimates.put(s.table(), (long) s.value());
        default -> gauges.put(s.name(), s.value());
      }
    }
    return new SnapshotStatus.Metrics(on(gauges, "running"), on(gauges, "paused"), on(gauges, "completed"),
        on(gauges, "aborted"), (int) get(gauges, "tables"), (int) get(gauges, "remaining_tables"),
        (long) get(gauges, "duration_seconds"), rows, estimates, at);
  }

  /** The connector's snapshot series in the exporter's exposition, now; empty when it has none. */
  private Optional<SnapshotStatus.Metrics> fromExporter(String scrapeUrl, String connector)
      throws ExpositionParser.ParseError {
    URI uri = URI.create(scrapeUrl);
    String base = uri.getScheme() + "://" + uri.getRawAuthority();
    String path = uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
    Instant at = Instant.now();
    HttpTransport.Reply r = new HttpTransport(base, options, "the exporter").send("GET", path, null, true);
    if (!r.ok()) {
      throw new IllegalStateException("it answered " + r.status());
    }
    List<Sample> samples = new ArrayList<>();
    for (ExpositionParser.Entry e : ExpositionParser.parse(r.body(), false)) {
      Labels l = e.labels();
      if (l.metricName().startsWith(PREFIX) && connector.equals(l.get("connector"))) {
        samples.add(new Sample(l.metricName(), l.get("table"), e.value()));
      }
    }
    return samples.isEmpty() ? Optional.empty() : Optional.of(metrics(samples, at));
  }

  /** The address the metrics server scrapes {@code instance} at, from its targets; null when none is. */
  private String scrapeUrl(String instance) {
    HttpTransport.Reply r = http.send("GET", "/api/v1/targets", null, true);
    if (!r.ok()) {
      return null;
    }
    try {
      for (JsonNode t : JSON.readTree(r.body()).path("data").path("activeTargets")) {
        if (instance.equals(t.path("labels").path("instance").asText())) {
          return t.path("scrapeUrl").asText(null);
        }
      }
    } catch (IOException e) {
      return null;
    }
    return null;
  }

  private static boolean on(Map<String, Double> gauges, String name) {
    return get(gauges, name) == 1;
  }

  private static double get(Map<String, Double> gauges, String name) {
    return gauges.getOrDefault(PREFIX + name, 0.0);
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
