package io.sluice.metrics.differential;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.http.Json;
import io.sluice.kafka.testing.RequiredTool;
import io.sluice.metrics.MetricsServer;
import io.sluice.metrics.model.Labels;
import io.sluice.metrics.storage.Appender;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Loads the same generated series into our store and into a real Prometheus (Debian's {@code prometheus} package:
 * backfilled with {@code promtool tsdb create-blocks-from openmetrics}, served on loopback), runs a corpus of PromQL
 * queries through both HTTP APIs and requires equal answers: same result type, same series, same timestamps, values
 * within 1e-9 relative. Needs {@code prometheus} and {@code promtool} ({@link RequiredTool}: a failure under CI).
 */
class PrometheusDifferentialTest {
  static Path prometheusBinary;
  static Path promtool;
  /** Whole minutes, a few hours ago, so that both stores see the data as history. */
  static final long T0 = (System.currentTimeMillis() / 3_600_000L - 4) * 3_600_000L;
  static final long STEP = 15_000;
  static final int POINTS = 2 * 240;
  static final long TEND = T0 + (POINTS - 1) * STEP;

  @TempDir
  static Path tmp;
  static Process prometheus;
  static String prometheusUrl;
  static MetricsServer ours;
  static final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeAll
  static void setUp() throws Exception {
    prometheusBinary = RequiredTool.require("prometheus", "Debian package prometheus");
    promtool = RequiredTool.require("promtool", "Debian package prometheus");
    Map<Labels, double[]> data = generate();
    ours = MetricsServer.builder().port(0).configYaml("scrape_configs: []\n")
        .clock(Clock.fixed(Instant.ofEpochMilli(TEND), ZoneOffset.UTC)).start();
    Appender app = ours.storage().appender();
    StringBuilder om = new StringBuilder();
    for (Map.Entry<Labels, double[]> e : data.entrySet()) {
      double[] v = e.getValue();
      for (int i = 0; i < v.length; i++) {
        if (Double.isNaN(v[i])) {
          continue;
        }
        long t = T0 + i * STEP;
        app.append(e.getKey(), t, v[i]);
        om.append(e.getKey().metricName()).append(omLabels(e.getKey())).append(' ').append(v[i]).append(' ')
            .append(t / 1000).append('\n');
      }
    }
    app.commit();
    om.append("# EOF\n");
    Path omFile = tmp.resolve("data.om");
    Files.writeString(omFile, om);
    Path dataDir = tmp.resolve("prom-data");
    run(List.of(promtool.toString(), "tsdb", "create-blocks-from", "openmetrics", omFile.toString(),
        dataDir.toString()));
    Path config = tmp.resolve("prometheus.yml");
    Files.writeString(config, "global:\n  scrape_interval: 1h\nscrape_configs: []\n");
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    prometheusUrl = "http://127.0.0.1:" + port;
    prometheus = new ProcessBuilder(prometheusBinary.toString(), "--config.file=" + config,
        "--storage.tsdb.path=" + dataDir, "--web.listen-address=127.0.0.1:" + port,
        "--storage.tsdb.retention.time=10y")
        .redirectErrorStream(true).redirectOutput(tmp.resolve("prometheus.log").toFile()).start();
    for (int i = 0; i < 300; i++) {
      try {
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(prometheusUrl + "/-/ready")).build(),
            HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
          return;
        }
      } catch (IOException notYet) {
        // starting
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("Prometheus did not become ready: " + Files.readString(tmp.resolve(
        "prometheus.log")));
  }

  @AfterAll
  static void tearDown() throws Exception {
    if (prometheus != null) {
      prometheus.destroy();
      if (!prometheus.waitFor(10, TimeUnit.SECONDS)) {
        prometheus.destroyForcibly();
      }
    }
    if (ours != null) {
      ours.close();
    }
  }

  private static void run(List<String> cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      throw new IllegalStateException(String.join(" ", cmd) + " failed:\n" + out);
    }
  }

  private static String omLabels(Labels l) {
    StringBuilder sb = new StringBuilder("{");
    boolean first = true;
    for (int i = 0; i < l.size(); i++) {
      if (l.name(i).equals(Labels.METRIC_NAME)) {
        continue;
      }
      if (!first) {
        sb.append(',');
      }
      first = false;
      sb.append(l.name(i)).append("=\"").append(l.value(i)).append('"');
    }
    return sb.append('}').toString();
  }

  /** Counters with resets and gaps, float gauges, small integer gauges, histograms and an info metric. */
  static Map<Labels, double[]> generate() {
    Random rnd = new Random(20261122);
    Map<Labels, double[]> out = new LinkedHashMap<>();
    for (int inst = 0; inst < 5; inst++) {
      for (String mode : List.of("read", "write")) {
        double[] v = new double[POINTS];
        double c = rnd.nextInt(1000);
        for (int i = 0; i < POINTS; i++) {
          if (inst == 1 && mode.equals("read") && i == 200) {
            c = rnd.nextInt(5); // counter reset
          }
          c += rnd.nextDouble() * 20;
          v[i] = c;
        }
        if (inst == 2) {
          for (int i = 100; i < 140; i++) {
            v[i] = Double.NaN; // a 10-minute gap
          }
        }
        out.put(Labels.of("__name__", "dt_requests_total", "job", inst < 3 ? "api" : "db", "instance", "i" + inst,
            "mode", mode), v);
      }
      double[] g = new double[POINTS];
      double[] ig = new double[POINTS];
      double level = rnd.nextDouble() * 100;
      for (int i = 0; i < POINTS; i++) {
        level += rnd.nextGaussian();
        g[i] = level;
        ig[i] = rnd.nextInt(4) == 0 ? rnd.nextInt(6) : (i > 0 ? ig[i - 1] : 0);
      }
      out.put(Labels.of("__name__", "dt_temperature", "job", inst < 3 ? "api" : "db", "instance", "i" + inst), g);
      out.put(Labels.of("__name__", "dt_queue_depth", "job", inst < 3 ? "api" : "db", "instance", "i" + inst), ig);
      double[] info = new double[POINTS];
      java.util.Arrays.fill(info, 1);
      out.put(Labels.of("__name__", "dt_build_info", "instance", "i" + inst, "version", "v" + (inst % 2)), info);
    }
    String[] les = {"0.05", "0.1", "0.5", "1", "5", "+Inf"};
    for (int inst = 0; inst < 3; inst++) {
      double[][] buckets = new double[les.length][POINTS];
      double[] counts = new double[les.length];
      for (int i = 0; i < POINTS; i++) {
        int obs = rnd.nextInt(30);
        for (int o = 0; o < obs; o++) {
          double x = Math.exp(rnd.nextGaussian() - 1);
          for (int b = 0; b < les.length; b++) {
            if (b == les.length - 1 || x <= Double.parseDouble(les[b])) {
              counts[b]++;
            }
          }
        }
        for (int b = 0; b < les.length; b++) {
          buckets[b][i] = counts[b];
        }
      }
      for (int b = 0; b < les.length; b++) {
        out.put(Labels.of("__name__", "dt_latency_seconds_bucket", "job", "api", "instance", "i" + inst, "le",
            les[b]), buckets[b]);
      }
    }
    return out;
  }

  /** At least 200 queries over every function, aggregation and operator of the issue. */
  static List<String> corpus() {
    List<String> q = new ArrayList<>();
    String counter = "dt_requests_total";
    String gauge = "dt_temperature";
    for (String f : List.of("rate", "irate", "increase", "delta", "idelta", "deriv", "changes", "resets",
        "avg_over_time", "min_over_time", "max_over_time", "sum_over_time", "count_over_time", "last_over_time",
        "stddev_over_time", "stdvar_over_time")) {
      for (String sel : List.of(counter, gauge + "{job=\"api\"}")) {
        for (String range : List.of("1m", "5m", "17m")) {
          q.add(f + "(" + sel + "[" + range + "])");
        }
      }
    }
    for (String p : List.of("0", "0.25", "0.9", "1")) {
      q.add("quantile_over_time(" + p + ", " + gauge + "[10m])");
    }
    for (String agg : List.of("sum", "avg", "min", "max", "count", "stddev", "stdvar", "group")) {
      q.add(agg + "(" + counter + ")");
      q.add(agg + " by (job) (rate(" + counter + "[5m]))");
      q.add(agg + " without (instance) (" + gauge + ")");
      q.add(agg + "(" + gauge + ") by (job, instance)");
    }
    for (String k : List.of("1", "3")) {
      q.add("topk(" + k + ", " + gauge + ")");
      q.add("bottomk(" + k + ", rate(" + counter + "[5m]))");
      q.add("topk by (job) (" + k + ", " + gauge + ")");
    }
    for (String p : List.of("0.1", "0.5", "0.99")) {
      q.add("quantile(" + p + ", " + gauge + ")");
      q.add("quantile by (job) (" + p + ", rate(" + counter + "[5m]))");
      q.add("histogram_quantile(" + p + ", rate(dt_latency_seconds_bucket[5m]))");
      q.add("histogram_quantile(" + p + ", sum by (le) (rate(dt_latency_seconds_bucket[10m])))");
    }
    q.add("count_values(\"depth\", dt_queue_depth)");
    q.add("count_values by (job) (\"depth\", dt_queue_depth)");
    for (String op : List.of("+", "-", "*", "/", "%", "^", "atan2")) {
      q.add(gauge + " " + op + " 3");
      q.add("2 " + op + " " + gauge);
      q.add("rate(" + counter + "[5m]) " + op + " ignoring(mode) group_left rate(" + counter + "{mode=\"read\"}[5m])");
    }
    for (String op : List.of("==", "!=", ">", "<", ">=", "<=")) {
      q.add(gauge + " " + op + " 50");
      q.add(gauge + " " + op + " bool 50");
      q.add("dt_queue_depth " + op + " on(instance) dt_queue_depth offset 5m");
      q.add("dt_queue_depth " + op + " bool ignoring(job) group_left dt_build_info");
    }
    q.add("dt_queue_depth * on(instance) group_left(version) dt_build_info");
    q.add("dt_build_info * on(instance) group_right(version) dt_queue_depth");
    q.add(counter + " / on(job, instance) group_left sum by (job, instance) (" + counter + ")");
    q.add("sum by (instance) (" + counter + ") / on(instance) group_right sum by (instance, mode) (" + counter + ")");
    q.add(gauge + " and " + gauge + " > 50");
    q.add(gauge + " or dt_queue_depth");
    q.add(gauge + " unless on(instance) dt_queue_depth > 2");
    q.add(counter + " and on(instance) dt_build_info{version=\"v1\"}");
    q.add("dt_queue_depth or on(job) " + gauge);
    q.add("1 + 2 * 3 - 4 / 2 ^ 2 ^ 0.5");
    q.add("-" + gauge + " + 2 * -3");
    q.add("(" + gauge + " + 1) * 2 > bool 100 or vector(7)");
    for (String f : List.of("abs", "ceil", "floor", "round", "absent", "sort", "sort_desc", "timestamp")) {
      q.add(f + "(" + gauge + " - 50)");
    }
    q.add("round(" + gauge + ", 0.25)");
    q.add("clamp(" + gauge + ", 20, 60)");
    q.add("clamp_min(" + gauge + ", 40)");
    q.add("clamp_max(" + gauge + ", 40)");
    q.add("clamp(" + gauge + ", 60, 20)");
    q.add("time()");
    q.add("timestamp(" + gauge + ")");
    q.add("vector(time())");
    q.add("scalar(sum(" + gauge + "))");
    q.add("scalar(" + gauge + ")");
    q.add(gauge + " * scalar(dt_queue_depth{instance=\"i0\"})");
    q.add("absent(nonexistent{job=\"x\"})");
    q.add("absent(" + gauge + ")");
    q.add("absent_over_time(nonexistent{job=\"x\", a=~\"b\"}[5m])");
    q.add("absent_over_time(" + gauge + "[5m])");
    q.add("label_replace(" + gauge + ", \"host\", \"h-$1\", \"instance\", \"i(.*)\")");
    q.add("label_replace(" + gauge + ", \"instance\", \"\", \"instance\", \".*\")");
    q.add("label_replace(" + gauge + ", \"x\", \"$2\", \"instance\", \"(i)(.)\")");
    q.add("label_join(" + gauge + ", \"both\", \"/\", \"job\", \"instance\")");
    q.add("label_join(" + gauge + ", \"job\", \"\", \"instance\")");
    q.add(gauge + " offset 10m");
    q.add(gauge + " offset -10m");
    q.add("rate(" + counter + "[5m] offset 30m)");
    q.add(gauge + " @ " + (T0 / 1000 + 3600));
    q.add("rate(" + counter + "[5m] @ " + (T0 / 1000 + 3600) + ")");
    q.add(gauge + " @ end()");
    q.add("max_over_time(" + gauge + "[10m:1m])");
    q.add("max_over_time(rate(" + counter + "[2m])[10m:30s])");
    q.add("avg_over_time(" + gauge + "[7m:45s] offset 3m)");
    q.add("rate(" + counter + "[10m:1m])");
    q.add("sum_over_time(sum by (job) (" + gauge + ")[15m:2m])");
    q.add("deriv(" + gauge + "[10m])");
    q.add("predict_linear(" + gauge + "[10m], 600)");
    q.add("dt_requests_total{mode=~\"r.*\", instance!~\"i[01]\"}");
    q.add("{__name__=~\"dt_(temperature|queue_depth)\", job=\"db\"}");
    q.add("sum by (__name__) ({__name__=~\"dt_(temperature|queue_depth)\"})");
    q.add(gauge + "[3m]");
    q.add("dt_requests_total[1m] offset 1h");
    q.add("changes(dt_queue_depth[30m])");
    q.add("resets(dt_requests_total[2h])");
    q.add("increase(dt_requests_total{instance=\"i2\"}[15m])");
    q.add("rate(dt_requests_total{instance=\"i2\"}[3m])");
    return q;
  }

  static JsonNode call(String base, String path, Map<String, String> params) throws Exception {
    StringBuilder form = new StringBuilder();
    params.forEach((k, v) -> form.append(form.length() == 0 ? "" : "&").append(k).append('=')
        .append(URLEncoder.encode(v, StandardCharsets.UTF_8)));
    HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(base + path))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString(form.toString())).build(), HttpResponse.BodyHandlers.ofString());
    return Json.read(r.body().getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void answersMatchPrometheus() throws Exception {
    List<String> corpus = corpus();
    assertTrue(corpus.size() >= 200, "corpus has " + corpus.size() + " queries");
    List<String> failures = new ArrayList<>();
    int compared = 0;
    long[] instants = {TEND, TEND - 450_000, T0 + 3_600_000 + 13_000};
    for (String query : corpus) {
      for (long t : instants) {
        Map<String, String> p = Map.of("query", query, "time", seconds(t));
        compare("instant@" + t + " " + query, call(ours.url(), "/api/v1/query", p),
            call(prometheusUrl, "/api/v1/query", p), failures);
        compared++;
      }
      Map<String, String> range = Map.of("query", query, "start", seconds(T0 + 1_800_000), "end", seconds(TEND),
          "step", "97");
      compare("range " + query, call(ours.url(), "/api/v1/query_range", range),
          call(prometheusUrl, "/api/v1/query_range", range), failures);
      compared++;
    }
    assertTrue(failures.isEmpty(), failures.size() + " of " + compared + " comparisons differ:\n"
        + String.join("\n", failures.subList(0, Math.min(40, failures.size()))));
  }

  static String seconds(long ms) {
    return ms / 1000 + "." + String.format("%03d", ms % 1000);
  }

  private static void compare(String what, JsonNode ours, JsonNode theirs, List<String> failures) {
    String o = ours.path("status").asText();
    String t = theirs.path("status").asText();
    if (!o.equals(t)) {
      failures.add(what + ": status ours=" + ours + " prometheus=" + theirs);
      return;
    }
    if (o.equals("error")) {
      if (!ours.path("errorType").asText().equals(theirs.path("errorType").asText())) {
        failures.add(what + ": errorType ours=" + ours + " prometheus=" + theirs);
      }
      return;
    }
    JsonNode od = ours.path("data");
    JsonNode td = theirs.path("data");
    if (!od.path("resultType").asText().equals(td.path("resultType").asText())) {
      failures.add(what + ": resultType ours=" + od.path("resultType") + " prometheus=" + td.path("resultType"));
      return;
    }
    String diff = switch (od.path("resultType").asText()) {
      case "scalar", "string" -> comparePoint(od.path("result"), td.path("result"));
      default -> compareSeries(od.path("result"), td.path("result"));
    };
    if (diff != null) {
      failures.add(what + ": " + diff);
    }
  }

  private static Map<String, JsonNode> bySeries(JsonNode result) {
    Map<String, JsonNode> m = new TreeMap<>();
    for (JsonNode s : result) {
      Map<String, String> labels = new TreeMap<>();
      for (Iterator<Map.Entry<String, JsonNode>> it = s.path("metric").fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        labels.put(e.getKey(), e.getValue().asText());
      }
      m.put(labels.toString(), s.has("value") ? s.get("value") : s.get("values"));
    }
    return m;
  }

  private static String compareSeries(JsonNode ours, JsonNode theirs) {
    Map<String, JsonNode> o = bySeries(ours);
    Map<String, JsonNode> t = bySeries(theirs);
    if (!o.keySet().equals(t.keySet())) {
      return "series ours=" + o.keySet() + " prometheus=" + t.keySet();
    }
    for (String k : o.keySet()) {
      JsonNode a = o.get(k);
      JsonNode b = t.get(k);
      if (a.size() > 0 && a.get(0).isArray()) {
        if (a.size() != b.size()) {
          return k + ": " + a.size() + " points vs " + b.size() + " (ours " + a + " prometheus " + b + ")";
        }
        for (int i = 0; i < a.size(); i++) {
          String d = comparePoint(a.get(i), b.get(i));
          if (d != null) {
            return k + "[" + i + "]: " + d;
          }
        }
      } else {
        String d = comparePoint(a, b);
        if (d != null) {
          return k + ": " + d;
        }
      }
    }
    return null;
  }

  private static String comparePoint(JsonNode a, JsonNode b) {
    if (a.get(0).asDouble() != b.get(0).asDouble()) {
      return "timestamp " + a + " vs " + b;
    }
    String av = a.get(1).asText();
    String bv = b.get(1).asText();
    if (av.equals(bv)) {
      return null;
    }
    double x;
    double y;
    try {
      x = parse(av);
      y = parse(bv);
    } catch (NumberFormatException e) {
      return "value " + av + " vs " + bv;
    }
    if (Double.isNaN(x) && Double.isNaN(y)) {
      return null;
    }
    double diff = Math.abs(x - y);
    if (diff <= 1e-9 * Math.max(Math.abs(x), Math.abs(y)) || diff < 1e-12) {
      return null;
    }
    return "value ours=" + av + " prometheus=" + bv;
  }

  private static double parse(String s) {
    return switch (s) {
      case "+Inf" -> Double.POSITIVE_INFINITY;
      case "-Inf" -> Double.NEGATIVE_INFINITY;
      case "NaN" -> Double.NaN;
      default -> Double.parseDouble(s);
    };
  }
}
