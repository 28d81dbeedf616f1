package io.sluice.metrics.differential;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.http.Json;
import io.sluice.kafka.testing.RequiredTool;
import io.sluice.metrics.MetricsServer;
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
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Loads the same series ({@link DifferentialData}) into our store and into a real Prometheus 2.42 (Debian's
 * {@code prometheus} package, on loopback, loaded through its remote-write receiver so that stale markers, NaN and
 * millisecond timestamps arrive as they are), runs every query of {@link DifferentialCorpus} through both HTTP APIs at
 * several instants and over two ranges, and requires equal answers: same status, error type and error message, same
 * result type, same series, same timestamps, values within 1e-9 relative (NaN equal to NaN), and for sort() and
 * sort_desc() the same order. Needs {@code prometheus} ({@link RequiredTool}: a failure under CI).
 */
class PrometheusDifferentialTest {
  static Path prometheusBinary;
  /** Whole minutes, a few hours ago, so that both stores see the data as history. */
  static final long T0 = (System.currentTimeMillis() / 3_600_000L - 4) * 3_600_000L;
  static final long TEND = T0 + (DifferentialData.POINTS - 1) * DifferentialData.STEP;
  /** Around the stale markers and where series stop: T0 + 70 to 95 minutes. */
  static final long STALE_FROM = T0 + 70 * 60_000;
  static final long STALE_TO = T0 + 95 * 60_000;

  @TempDir
  static Path tmp;
  static Process prometheus;
  static String prometheusUrl;
  static MetricsServer ours;
  static final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeAll
  static void setUp() throws Exception {
    prometheusBinary = RequiredTool.require("prometheus", "Debian package prometheus");
    List<RemoteWrite.Batch> data = DifferentialData.generate(T0);
    ours = MetricsServer.builder().port(0).configYaml("scrape_configs: []\n")
        .clock(Clock.fixed(Instant.ofEpochMilli(TEND), ZoneOffset.UTC)).start();
    Appender app = ours.storage().appender();
    for (RemoteWrite.Batch b : data) {
      for (int i = 0; i < b.ts().length; i++) {
        app.append(b.labels(), b.ts()[i], b.vs()[i]);
      }
    }
    app.commit();
    Path config = tmp.resolve("prometheus.yml");
    Files.writeString(config, "global:\n  scrape_interval: 1h\nscrape_configs: []\n");
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    prometheusUrl = "http://127.0.0.1:" + port;
    prometheus = new ProcessBuilder(prometheusBinary.toString(), "--config.file=" + config,
        "--storage.tsdb.path=" + tmp.resolve("prom-data"), "--web.listen-address=127.0.0.1:" + port,
        "--storage.tsdb.retention.time=10y", "--web.enable-remote-write-receiver")
        .redirectErrorStream(true).redirectOutput(tmp.resolve("prometheus.log").toFile()).start();
    awaitReady();
    // In time order, ten minutes at a time: Prometheus's head takes samples no older than an hour before its newest.
    for (long from = T0; from <= TEND; from += 600_000) {
      List<RemoteWrite.Batch> window = new ArrayList<>();
      for (RemoteWrite.Batch b : data) {
        int lo = 0;
        while (lo < b.ts().length && b.ts()[lo] < from) {
          lo++;
        }
        int hi = lo;
        while (hi < b.ts().length && b.ts()[hi] < from + 600_000) {
          hi++;
        }
        if (hi > lo) {
          window.add(new RemoteWrite.Batch(b.labels(), Arrays.copyOfRange(b.ts(), lo, hi),
              Arrays.copyOfRange(b.vs(), lo, hi)));
        }
      }
      RemoteWrite.send(client, prometheusUrl + "/api/v1/write", window);
    }
  }

  private static void awaitReady() throws Exception {
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
  void corpusCoversEveryFunctionAndOperator() {
    List<String> corpus = DifferentialCorpus.queries(T0, TEND);
    List<String> missing = new ArrayList<>();
    for (String f : DifferentialCorpus.FUNCTIONS) {
      if (corpus.stream().noneMatch(q -> q.matches("(?s).*\\b" + f + "\\(.*"))) {
        missing.add(f + "()");
      }
    }
    for (String a : DifferentialCorpus.AGGREGATIONS) {
      if (corpus.stream().noneMatch(q -> q.matches("(?s).*\\b" + a + "\\b.*"))) {
        missing.add(a);
      }
    }
    for (String op : DifferentialCorpus.OPERATORS) {
      if (corpus.stream().noneMatch(q -> q.contains(op))) {
        missing.add("'" + op + "'");
      }
    }
    assertTrue(missing.isEmpty(), "the corpus never uses " + missing);
  }

  @Test
  void answersMatchPrometheus() throws Exception {
    List<String> corpus = DifferentialCorpus.queries(T0, TEND);
    List<String> failures = Collections.synchronizedList(new ArrayList<>());
    AtomicInteger compared = new AtomicInteger();
    // The last sample, a lookback from it, and a millisecond past it; an odd time; just after the stale markers.
    long[] instants = {TEND, TEND - 450_000, T0 + 3_600_000 + 13_456, T0 + DifferentialData.STALE_AT * 15_000 + 2_000,
        TEND + 300_000, TEND + 300_001};
    // Two threads: one query at a time per server each, so neither server is the bottleneck of the other.
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (String query : corpus) {
        done.add(pool.submit(() -> {
          for (long t : instants) {
            Map<String, String> p = Map.of("query", query, "time", seconds(t));
            compare("instant@" + seconds(t) + " " + query, call(ours.url(), "/api/v1/query", p),
                call(prometheusUrl, "/api/v1/query", p), ordered(query), failures);
            compared.incrementAndGet();
          }
          Map<String, String> range = Map.of("query", query, "start", seconds(T0 + 1_800_000), "end", seconds(TEND),
              "step", "97");
          compare("range " + query, call(ours.url(), "/api/v1/query_range", range),
              call(prometheusUrl, "/api/v1/query_range", range), false, failures);
          Map<String, String> stale = Map.of("query", query, "start", seconds(STALE_FROM), "end", seconds(STALE_TO),
              "step", "15");
          compare("range(stale) " + query, call(ours.url(), "/api/v1/query_range", stale),
              call(prometheusUrl, "/api/v1/query_range", stale), false, failures);
          compared.addAndGet(2);
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    Collections.sort(failures);
    // All of them in a file; the first few, shortened, in the failure.
    Files.writeString(Path.of("target", "differential-failures.txt"), String.join("\n", failures));
    List<String> shown = failures.stream().limit(60)
        .map(f -> f.length() > 700 ? f.substring(0, 700) + "..." : f).toList();
    assertTrue(failures.isEmpty(), failures.size() + " of " + compared + " comparisons (" + corpus.size()
        + " queries) differ (all in target/differential-failures.txt):\n" + String.join("\n", shown));
  }

  /** Whether a query's answer has an order to compare: sort() and sort_desc() at the top. */
  private static boolean ordered(String query) {
    return query.startsWith("sort(") || query.startsWith("sort_desc(");
  }

  static String seconds(long ms) {
    return ms / 1000 + "." + String.format("%03d", ms % 1000);
  }

  private static void compare(String what, JsonNode ours, JsonNode theirs, boolean ordered, List<String> failures) {
    String o = ours.path("status").asText();
    String t = theirs.path("status").asText();
    if (!o.equals(t)) {
      failures.add(what + ": status ours=" + ours + " prometheus=" + theirs);
      return;
    }
    if (o.equals("error")) {
      if (!ours.path("errorType").asText().equals(theirs.path("errorType").asText())) {
        failures.add(what + ": errorType ours=" + ours + " prometheus=" + theirs);
      } else if (!ours.path("error").asText().equals(theirs.path("error").asText())) {
        failures.add(what + ": error ours=" + ours.path("error") + " prometheus=" + theirs.path("error"));
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
    if (diff == null && ordered) {
      diff = compareOrder(od.path("result"), td.path("result"));
    }
    if (diff != null) {
      failures.add(what + ": " + diff);
    }
  }

  /** The values in the order given; equal values may come in either order, as Go's sort is not stable. */
  private static String compareOrder(JsonNode ours, JsonNode theirs) {
    for (int i = 0; i < ours.size(); i++) {
      String d = comparePoint(ours.get(i).get("value"), theirs.get(i).get("value"));
      if (d != null) {
        return "order differs at " + i + ": ours " + ours + " prometheus " + theirs;
      }
    }
    return null;
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
