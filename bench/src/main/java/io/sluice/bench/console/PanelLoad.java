package io.sluice.bench.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.alerts.AlertRouter;
import io.sluice.bench.BackfilledPrometheus;
import io.sluice.console.ConsoleServer;
import io.sluice.console.auth.Accounts;
import io.sluice.metrics.MetricsServer;
import io.sluice.metrics.model.Labels;
import io.sluice.metrics.storage.Appender;
import io.sluice.metrics.tsdb.Db;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.openqa.selenium.Cookie;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The console with 200 connectors (100 pipelines of a source and a sink), an hour of their series at a 15 s scrape
 * interval written straight into a metrics server: the server-side cost of one refresh (the overview, and a pipeline's
 * eight panels for a 1 h range), against the same PromQL sent straight to the metrics server (the console's own
 * overhead); the same PromQL against Debian's Prometheus 2.42 on the same data, both read from blocks; and in headless
 * chromium, the time from navigation to every panel drawn (and to the 200-row table).
 *
 * <p>{@code bench/run io.sluice.bench.console.PanelLoad [pipelines] [runs]}
 */
public final class PanelLoad {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long STEP = 15_000;

  public static void main(String[] args) throws Exception {
    int pipelines = args.length > 0 ? Integer.parseInt(args[0]) : 100;
    int runs = args.length > 1 ? Integer.parseInt(args[1]) : 15;
    Path dir = Files.createTempDirectory("console-bench");
    long now = System.currentTimeMillis();
    try (MetricsServer metrics = MetricsServer.builder().port(0).configYaml("scrape_configs: []\n").start();
        AlertRouter alerts = AlertRouter.builder().port(0).dataDir(dir.resolve("alerts")).start()) {
      Samples samples = fill(metrics, pipelines, now);
      System.out.printf("%d connectors, %d series, %d samples each (1 h at 15 s)%n", pipelines * 2,
          samples.labels().size(), 3600_000 / STEP + 1);
      Accounts.in(dir.resolve("ui")).setPassword("admin", "bench-password");
      try (ConsoleServer ui = ConsoleServer.builder().port(0).dataDir(dir.resolve("ui")).metricsUrl(metrics.url())
          .alertsUrl(alerts.url()).start()) {
        HttpClient http = HttpClient.newHttpClient();
        String session = login(http, ui.url());
        String pipeline = "p-7-source";
        // The same PromQL the console runs, straight to the metrics server: the baseline.
        JsonNode info = get(http, ui.url() + "/api/pipeline?name=" + pipeline, session);
        List<String> panelUrls = new ArrayList<>();
        long end = now / 1000;
        long start = end - 3600;
        for (JsonNode p : info.path("panels")) {
          boolean instant = p.path("kind").asText().equals("GAUGE") || p.path("kind").asText().equals("STAT");
          for (JsonNode q : p.path("queries")) {
            String e = URLEncoder.encode(q.path("expr").asText(), StandardCharsets.UTF_8);
            panelUrls.add(instant ? "query?query=" + e + "&time=" + end
                : "query_range?query=" + e + "&start=" + start + "&end=" + end + "&step=15");
          }
        }
        List<String> overviewUrls = new ArrayList<>();
        for (JsonNode q : get(http, ui.url() + "/api/connectors", session).path("queries")) {
          overviewUrls.add("query?query=" + URLEncoder.encode(q.asText(), StandardCharsets.UTF_8));
        }
        for (int warm = 0; warm < 3; warm++) {
          refresh(http, ui.url() + "/api/", panelUrls, session);
          refresh(http, metrics.url() + "/api/v1/", panelUrls, null);
        }
        double[] dashPanels = new double[runs];
        double[] directPanels = new double[runs];
        double[] dashOverview = new double[runs];
        double[] directOverview = new double[runs];
        for (int i = 0; i < runs; i++) {
          dashPanels[i] = refresh(http, ui.url() + "/api/", panelUrls, session);
          directPanels[i] = refresh(http, metrics.url() + "/api/v1/", panelUrls, null);
          dashOverview[i] = refresh(http, ui.url() + "/api/", List.of("connectors"), session);
          // The overview also asks the router which alerts fire: the direct side does the same work.
          directOverview[i] = refresh(http, metrics.url() + "/api/v1/", overviewUrls, null)
              + refresh(http, alerts.url() + "/api/v2/", List.of("alerts?active=true&silenced=false&inhibited=false"),
                  null);
        }
        System.out.printf("server, pipeline page refresh (8 panels, %d queries, 1 h): console %.1f ms, direct "
            + "%.1f ms, ratio %.2fx%n", panelUrls.size(), median(dashPanels), median(directPanels),
            median(dashPanels) / median(directPanels));
        System.out.printf("server, overview refresh (%d connectors, %d queries + alerts): console %.1f ms, direct "
            + "%.1f ms, ratio %.2fx%n", pipelines * 2, overviewUrls.size(), median(dashOverview),
            median(directOverview), median(dashOverview) / median(directOverview));
        againstPrometheus(samples, panelUrls, overviewUrls, dir, runs);
        browser(ui.url(), session, pipeline, pipelines * 2, Math.min(runs, 7));
      }
    }
  }

  /** An hour of samples: each series' labels and its values, one every {@link #STEP} from {@code t0}. */
  private record Samples(List<Labels> labels, long t0, double[][] values) {
    void appendTo(Appender app) {
      for (int s = 0; s < values[0].length; s++) {
        for (int i = 0; i < labels.size(); i++) {
          app.append(labels.get(i), t0 + s * STEP, values[i][s]);
        }
        app.commit();
      }
    }
  }

  /** Writes an hour of every series the panels and the overview read, for {@code pipelines} source/sink pairs. */
  private static Samples fill(MetricsServer metrics, int pipelines, long now) {
    List<Labels> labels = new ArrayList<>();
    List<double[]> steps = new ArrayList<>();
    Random rnd = new Random(7);
    for (int p = 0; p < pipelines; p++) {
      String src = "p-" + p + "-source";
      String sink = "p-" + p + "-sink";
      for (String c : List.of(src, sink)) {
        labels.add(Labels.of("__name__", "svc_connect_connector_status_info", "connector", c, "pipeline", src,
            "state", "RUNNING", "job", "sluice"));
        steps.add(new double[] {1, 0});
        labels.add(Labels.of("__name__", "svc_connect_connector_task_metrics_total_errors_logged_total",
            "connector", c, "task", "0", "job", "sluice"));
        steps.add(new double[] {0, 0});
        labels.add(Labels.of("__name__", "svc_connect_connector_task_metrics_running_ratio", "connector", c,
            "task", "0", "job", "sluice"));
        steps.add(new double[] {1, 0});
        labels.add(Labels.of("__name__", "svc_connect_connector_task_metrics_total_restarts_total", "connector", c,
            "task", "0", "job", "sluice"));
        steps.add(new double[] {0, 0});
      }
      labels.add(Labels.of("__name__", "svc_connect_source_connector_metrics_source_record_poll_total",
          "connector", src, "task", "0", "pipeline", src, "job", "sluice"));
      steps.add(new double[] {0, 1500});
      labels.add(Labels.of("__name__", "svc_connect_sink_connector_metrics_sink_record_send_total",
          "connector", sink, "task", "0", "pipeline", src, "job", "sluice"));
      steps.add(new double[] {0, 1490});
      labels.add(Labels.of("__name__", "svc_connect_source_task_metrics_poll_batch_avg_time_seconds",
          "connector", src, "task", "0", "job", "sluice"));
      steps.add(new double[] {0.02, 0});
      labels.add(Labels.of("__name__", "svc_connect_sink_task_metrics_put_batch_avg_time_seconds",
          "connector", sink, "task", "0", "job", "sluice"));
      steps.add(new double[] {0.03, 0});
      labels.add(Labels.of("__name__", "svc_connect_dlq_records_total", "connector", sink, "topic", sink + ".dlq",
          "job", "sluice"));
      steps.add(new double[] {0, 0.01});
      double[] buckets = {0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600};
      for (int b = 0; b < buckets.length; b++) {
        labels.add(Labels.of("__name__", "svc_cdc_freshness_write_seconds_bucket", "connector", sink, "pipeline", src,
            "le", String.valueOf(buckets[b]), "job", "sluice"));
        steps.add(new double[] {0, 1490 * Math.min(1, (b + 1) / 6.0)});
      }
      labels.add(Labels.of("__name__", "svc_cdc_freshness_write_seconds_bucket", "connector", sink, "pipeline", src,
          "le", "+Inf", "job", "sluice"));
      steps.add(new double[] {0, 1490});
    }
    long t0 = now - 3600_000;
    int points = (int) ((now - t0) / STEP) + 1;
    double[][] values = new double[labels.size()][points];
    double[] value = new double[labels.size()];
    for (int i = 0; i < value.length; i++) {
      value[i] = steps.get(i)[0];
    }
    for (int s = 0; s < points; s++) {
      for (int i = 0; i < value.length; i++) {
        value[i] += steps.get(i)[1] * (0.8 + 0.4 * rnd.nextDouble());
        values[i][s] = value[i];
      }
    }
    Samples samples = new Samples(labels, t0, values);
    samples.appendTo(metrics.storage().appender());
    return samples;
  }

  /**
   * The console's queries on the same data in the same storage state on both sides, Sluice's metrics server against
   * Debian's Prometheus 2.42: each reads the hour from its own blocks (Sluice's written by its store with its 2 h range
   * and a later sample so that compaction persists it, Prometheus' by promtool's backfill), alternating rounds.
   */
  private static void againstPrometheus(Samples samples, List<String> panelUrls, List<String> overviewUrls, Path dir,
      int runs) throws Exception {
    if (!BackfilledPrometheus.installed()) {
      System.out.println("prometheus not installed (Debian package 'prometheus'): no comparison");
      return;
    }
    Path blocks = dir.resolve("sluice-blocks");
    try (Db db = Db.open(blocks, Duration.ofDays(3650))) {
      Appender app = db.appender();
      samples.appendTo(app);
      app.append(Labels.of("__name__", "bench_later"), samples.t0() + Duration.ofHours(8).toMillis(), 1);
      app.commit();
      db.compact();
    }
    Path om = dir.resolve("data.om");
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < samples.labels().size(); i++) {
      order.add(i);
    }
    // OpenMetrics wants a family's samples together: series sorted by their labels, the metric name first.
    order.sort((a, b) -> samples.labels().get(a).compareTo(samples.labels().get(b)));
    try (var w = Files.newBufferedWriter(om)) {
      for (int i : order) {
        Labels l = samples.labels().get(i);
        StringBuilder name = new StringBuilder(l.metricName()).append('{');
        l.forEach((k, v) -> {
          if (!k.equals("__name__")) {
            name.append(name.charAt(name.length() - 1) == '{' ? "" : ",").append(k).append("=\"").append(v)
                .append('"');
          }
        });
        name.append("} ");
        for (int s = 0; s < samples.values()[i].length; s++) {
          w.write(name + Double.toString(samples.values()[i][s]) + " " + (samples.t0() + s * STEP) / 1000.0 + "\n");
        }
      }
      w.write("# EOF\n");
    }
    BackfilledPrometheus.backfill(dir, om);
    try (BackfilledPrometheus prometheus = BackfilledPrometheus.start(dir, "scrape_configs: []\n");
        MetricsServer fromBlocks = MetricsServer.builder().port(0).configYaml("scrape_configs: []\n")
        .dataDir(blocks).retention(Duration.ofDays(3650)).start()) {
      String theirs = prometheus.url();
      HttpClient http = HttpClient.newHttpClient();
      String ours = fromBlocks.url() + "/api/v1/";
      for (int warm = 0; warm < 3; warm++) {
        refresh(http, ours, panelUrls, null);
        refresh(http, theirs + "/api/v1/", panelUrls, null);
        refresh(http, ours, overviewUrls, null);
        refresh(http, theirs + "/api/v1/", overviewUrls, null);
      }
      // The floor: as many queries that need no data (the literal 1), so the round trip and the request's own cost.
      List<String> floorUrls = java.util.Collections.nCopies(panelUrls.size(), "query?query=1");
      double[] oursFloor = new double[runs];
      double[] theirsFloor = new double[runs];
      double[] oursPanels = new double[runs];
      double[] theirsPanels = new double[runs];
      double[] oursOverview = new double[runs];
      double[] theirsOverview = new double[runs];
      for (int i = 0; i < runs; i++) {
        theirsPanels[i] = refresh(http, theirs + "/api/v1/", panelUrls, null);
        oursPanels[i] = refresh(http, ours, panelUrls, null);
        theirsOverview[i] = refresh(http, theirs + "/api/v1/", overviewUrls, null);
        oursOverview[i] = refresh(http, ours, overviewUrls, null);
        theirsFloor[i] = refresh(http, theirs + "/api/v1/", floorUrls, null);
        oursFloor[i] = refresh(http, ours, floorUrls, null);
      }
      System.out.printf("same storage state (both from blocks), pipeline page's %d queries: Sluice %.1f ms, "
          + "Prometheus %.1f ms, ratio %.2fx; overview's %d queries: Sluice %.1f ms, Prometheus %.1f ms, ratio "
          + "%.2fx%n", panelUrls.size(), median(oursPanels), median(theirsPanels),
          median(oursPanels) / median(theirsPanels), overviewUrls.size(), median(oursOverview),
          median(theirsOverview), median(oursOverview) / median(theirsOverview));
      System.out.printf("the floor, %d queries of the literal 1: Sluice %.1f ms, Prometheus %.1f ms%n",
          floorUrls.size(), median(oursFloor), median(theirsFloor));
      // For a profiler: -Dbench.loop=N repeats the pipeline page's queries against Sluice's blocks N times.
      for (int i = 0; i < Integer.getInteger("bench.loop", 0); i++) {
        refresh(http, ours, panelUrls, null);
      }
    }
  }

  private static double refresh(HttpClient http, String base, List<String> paths, String session) throws Exception {
    long t0 = System.nanoTime();
    for (String p : paths) {
      HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + p));
      if (session != null) {
        b.header("Cookie", "sluice_session=" + session);
      }
      HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        throw new IllegalStateException(base + p + ": " + r.statusCode() + " " + r.body());
      }
    }
    return (System.nanoTime() - t0) / 1e6;
  }

  private static String login(HttpClient http, String ui) throws Exception {
    HttpResponse<String> form = http.send(HttpRequest.newBuilder(URI.create(ui + "/login")).build(),
        HttpResponse.BodyHandlers.ofString());
    String cookie = form.headers().firstValue("Set-Cookie").orElseThrow().split(";")[0];
    Matcher m = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"").matcher(form.body());
    m.find();
    HttpResponse<String> in = http.send(HttpRequest.newBuilder(URI.create(ui + "/login")).header("Cookie", cookie)
        .header("Content-Type", "application/x-www-form-urlencoded").POST(HttpRequest.BodyPublishers.ofString(
            "csrf=" + m.group(1) + "&user=admin&password=bench-password")).build(),
        HttpResponse.BodyHandlers.ofString());
    return in.headers().firstValue("Set-Cookie").orElseThrow().split(";")[0].split("=", 2)[1];
  }

  private static JsonNode get(HttpClient http, String url, String session) throws Exception {
    return JSON.readTree(http.send(HttpRequest.newBuilder(URI.create(url)).header("Cookie", "sluice_session="
        + session).build(), HttpResponse.BodyHandlers.ofString()).body());
  }

  private static void browser(String ui, String session, String pipeline, int connectors, int runs)
      throws Exception {
    if (!Files.isExecutable(Path.of("/usr/bin/chromium")) || !Files.isExecutable(Path.of("/usr/bin/chromedriver"))) {
      System.out.println("browser: skipped, chromium and chromium-driver are not installed");
      return;
    }
    ChromeOptions options = new ChromeOptions();
    options.setBinary("/usr/bin/chromium");
    options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1800");
    ChromeDriver d = new ChromeDriver(new ChromeDriverService.Builder()
        .usingDriverExecutable(Path.of("/usr/bin/chromedriver").toFile()).usingAnyFreePort().build(), options);
    try {
      d.get(ui + "/login");
      d.manage().addCookie(new Cookie("sluice_session", session, "/"));
      double[] page = new double[runs];
      double[] table = new double[runs];
      for (int i = 0; i < runs; i++) {
        page[i] = loadUntil(d, ui + "/pipeline?name=" + pipeline,
            "document.querySelectorAll('#panels .panel').length === 8 "
                + "&& document.querySelectorAll('#panels .panel .body .state').length === 0");
        // To the last row, not the first: the table is done when every connector is in it.
        table[i] = loadUntil(d, ui + "/", "document.querySelectorAll('#connectors tbody tr').length >= "
            + connectors);
      }
      System.out.printf("browser (chromium, headless): pipeline page navigation to 8 panels drawn %.0f ms "
          + "(median of %d: %s); overview with %d rows %.0f ms%n", median(page), runs, Arrays.toString(page),
          d.findElements(org.openqa.selenium.By.cssSelector("#connectors tbody tr")).size(), median(table));
    } finally {
      d.quit();
    }
  }

  /** Milliseconds from the start of navigation until {@code condition} holds in the page. */
  private static double loadUntil(ChromeDriver d, String url, String condition) throws Exception {
    d.get(url);
    JavascriptExecutor js = d;
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < deadline) {
      if (Boolean.TRUE.equals(js.executeScript("return " + condition))) {
        return ((Number) js.executeScript("return performance.now()")).doubleValue();
      }
      Thread.sleep(10);
    }
    throw new IllegalStateException("not drawn within 60 s: " + url);
  }

  private static double median(double[] xs) {
    double[] s = xs.clone();
    Arrays.sort(s);
    return s[s.length / 2];
  }
}
