package io.sluice.bench.platform;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Freshness of the demo pipeline at given loads, as a user sees it: the default packaged {@code ./sluice up}, then
 * {@code ./sluice demo --rate R} for each rate in turn (a shop PostgreSQL under load, a Debezium source, Sluice's
 * JDBC sink into a second PostgreSQL). After a warm-up (the demo's snapshot and the first batches), it waits a
 * measuring window and asks the metrics server, as a dashboard would, for the 50th and 99th percentiles of both
 * freshness histograms over that window ({@code histogram_quantile} over {@code increase} of the buckets, so within a
 * bucket the figure is interpolated), the exact share of changes within one second (the {@code le="1.0"} bucket over
 * the count), and the changes per second the source and the sink moved.
 *
 * <p>Run: {@code bench/run FreshnessBenchmark [SECONDS [RATES]]}, default 90 s per rate at 200,1000,5000 changes/s.
 * {@code -Dbench.warmup=S} (default 45), {@code -Dbench.source.KEY=V} / {@code -Dbench.sink.KEY=V} change the demo's
 * connectors once they run (to try settings without a rebuild), {@code -Dbench.up=ARGS} adds arguments to
 * {@code sluice up} (space-separated, e.g. {@code --config my.yaml}). The machine's load average is printed beside
 * each row: on a shared machine the other work shows in the tail.
 */
public final class FreshnessBenchmark {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final String SOURCE = "demo-shop-source";
  private static final String SINK = "demo-shop-sink";

  private record Row(int rate, double sourceRate, double sinkRate, double[] write, double[] commit,
      String loadBefore, String loadAfter) {}

  public static void main(String[] args) throws Exception {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 90;
    List<Integer> rates = Arrays.stream((args.length > 1 ? args[1] : "200,1000,5000").split(","))
        .map(String::trim).map(Integer::parseInt).toList();
    int warmup = Integer.getInteger("bench.warmup", 45);
    Path root = Path.of(System.getProperty("sluice.root", ".")).toAbsolutePath();
    Path data = Files.createTempDirectory("sluice-freshness");
    String[] upArgs = System.getProperty("bench.up", "").isBlank() ? new String[0]
        : System.getProperty("bench.up").trim().split("\\s+");
    PackagedUp up = PackagedUp.start(root, data, upArgs);
    List<Row> rows = new ArrayList<>();
    try {
      Rest rest = new Rest(up.url("connect"));
      for (int rate : rates) {
        rows.add(measure(root, data, up, rest, rate, warmup, seconds));
        print(rows.get(rows.size() - 1), seconds);
      }
    } finally {
      up.stop();
    }
    System.out.printf(Locale.ROOT, "%nFreshness of the demo pipeline, %d s windows after %d s of warm-up "
        + "(seconds; p50/p99 interpolated within the histogram's buckets; 'in 1 s' exact):%n", seconds, warmup);
    System.out.println("| --rate | source changes/s | sink changes/s | write p50 | write p99 | write in 1 s "
        + "| commit p50 | commit p99 | commit in 1 s | load avg (before → after) |");
    System.out.println("|---|---|---|---|---|---|---|---|---|---|");
    for (Row r : rows) {
      System.out.printf(Locale.ROOT, "| %,d | %,.0f | %,.0f | %.3f | %.3f | %.2f %% | %.3f | %.3f | %.2f %% | %s → %s |%n",
          r.rate, r.sourceRate, r.sinkRate, r.write[0], r.write[1], 100 * r.write[2], r.commit[0], r.commit[1],
          100 * r.commit[2], r.loadBefore, r.loadAfter);
    }
    System.exit(0);
  }

  private static Row measure(Path root, Path data, PackagedUp up, Rest rest, int rate, int warmup, int seconds)
      throws Exception {
    Path log = data.resolve("demo-" + rate + ".log");
    List<String> command = List.of(root.resolve("sluice").toString(), "demo", "--rate", String.valueOf(rate),
        "--source-port", String.valueOf(PipelineThroughput.freePort()),
        "--sink-port", String.valueOf(PipelineThroughput.freePort()),
        "--connect-url", up.url("connect"), "--metrics-url", up.url("metrics"), "--alerts-url", up.url("alerts"),
        "--registry", up.url("registry"), "--bootstrap", "127.0.0.1:" + up.ports().get("kafka"),
        "--data-dir", data.toString());
    Process demo = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      awaitCreated(rest, demo, log);
      rest.awaitRunning(SOURCE);
      rest.awaitRunning(SINK);
      override(rest, SOURCE, "bench.source.");
      override(rest, SINK, "bench.sink.");
      Thread.sleep(warmup * 1000L);
      String before = loadAverage();
      long t0 = System.currentTimeMillis();
      Thread.sleep(seconds * 1000L);
      long t1 = System.currentTimeMillis();
      String after = loadAverage();
      // The exporter is scraped every 15 s: the scrape after the window's end must be in.
      Thread.sleep(20_000);
      String w = ((t1 - t0) / 1000) + "s";
      double at = t1 / 1000.0;
      String metrics = up.url("metrics");
      double source = query(metrics, at, "sum(increase(svc_connect_source_connector_metrics_source_record_poll_total"
          + "{connector=\"" + SOURCE + "\"}[" + w + "]))") / ((t1 - t0) / 1000.0);
      double sink = query(metrics, at, "sum(increase(svc_connect_sink_connector_metrics_sink_record_send_total"
          + "{connector=\"" + SINK + "\"}[" + w + "]))") / ((t1 - t0) / 1000.0);
      return new Row(rate, source, sink, figures(metrics, at, "svc_cdc_freshness_write_seconds", w),
          figures(metrics, at, "svc_cdc_freshness_commit_seconds", w), before, after);
    } finally {
      demo.destroy(); // SIGTERM: the demo deletes its connectors and its slot
      demo.waitFor();
    }
  }

  /** p50, p99 and the share within 1 s of one histogram of the demo's sink over the window ending at {@code at}. */
  private static double[] figures(String metrics, double at, String histogram, String window) throws Exception {
    String buckets = "sum by (le) (increase(" + histogram + "_bucket{connector=\"" + SINK + "\"}[" + window + "]))";
    return new double[] {
        query(metrics, at, "histogram_quantile(0.5, " + buckets + ")"),
        query(metrics, at, "histogram_quantile(0.99, " + buckets + ")"),
        query(metrics, at, "sum(increase(" + histogram + "_bucket{connector=\"" + SINK + "\",le=\"1.0\"}[" + window
            + "])) / sum(increase(" + histogram + "_count{connector=\"" + SINK + "\"}[" + window + "]))")};
  }

  private static double query(String metrics, double at, String promql) throws Exception {
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(metrics + "/api/v1/query?query="
        + URLEncoder.encode(promql, StandardCharsets.UTF_8) + "&time=" + at)).build(),
        HttpResponse.BodyHandlers.ofString());
    JsonNode result = JSON.readTree(r.body()).path("data").path("result");
    if (r.statusCode() != 200 || result.isEmpty()) {
      System.err.println("no value for " + promql + ": HTTP " + r.statusCode() + " " + r.body());
      return Double.NaN;
    }
    return Double.parseDouble(result.get(0).path("value").get(1).asText());
  }

  /** The demo creates its connectors once its databases are up; a demo that ended says why in its log. */
  private static void awaitCreated(Rest rest, Process demo, Path log) throws Exception {
    for (int i = 0; i < 3000; i++) {
      if (!demo.isAlive()) {
        throw new IllegalStateException("sluice demo ended: " + Files.readString(log));
      }
      try {
        rest.config(SINK);
        return;
      } catch (IllegalStateException notYet) {
        Thread.sleep(100);
      }
    }
    throw new IllegalStateException("sluice demo never created " + SINK + ": " + Files.readString(log));
  }

  private static void override(Rest rest, String connector, String prefix) throws Exception {
    Map<String, String> changes = new LinkedHashMap<>();
    System.getProperties().stringPropertyNames().stream().filter(k -> k.startsWith(prefix))
        .forEach(k -> changes.put(k.substring(prefix.length()), System.getProperty(k)));
    if (changes.isEmpty()) {
      return;
    }
    Map<String, String> config = new LinkedHashMap<>(rest.config(connector));
    config.putAll(changes);
    rest.update(connector, config);
    Thread.sleep(2000);
    rest.awaitRunning(connector);
  }

  private static String loadAverage() throws Exception {
    String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
    return f[0] + " " + f[1];
  }

  private static void print(Row r, int seconds) {
    System.out.printf(Locale.ROOT, "rate %,d: source %,.0f/s, sink %,.0f/s; write p50 %.3f s p99 %.3f s (%.2f %% in 1 s);"
        + " commit p50 %.3f s p99 %.3f s (%.2f %% in 1 s); load %s -> %s%n", r.rate, r.sourceRate, r.sinkRate,
        r.write[0], r.write[1], 100 * r.write[2], r.commit[0], r.commit[1], 100 * r.commit[2], r.loadBefore,
        r.loadAfter);
  }
}
