package io.sluice.bench.metrics;

import io.sluice.bench.BackfilledPrometheus;
import io.sluice.metrics.MetricsServer;
import io.sluice.metrics.model.Labels;
import io.sluice.metrics.promql.Engine;
import io.sluice.metrics.storage.Appender;
import io.sluice.metrics.tsdb.Db;
import java.io.IOException;
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
import java.util.List;
import java.util.Random;

/**
 * The metrics store's benchmarks (a plain runner, not a unit test; numbers go to stdout):
 *
 * <ol>
 *   <li>samples/s appended (10,000 series, one commit per scrape-sized batch; in memory and with the WAL),
 *   <li>bytes per sample of persisted blocks on realistic counter and gauge data,
 *   <li>latency of {@code sum by (job) (rate(x[5m]))} over 10,000 series, 1 h at 15 s steps, against the real
 *       Prometheus on the same data when {@code /usr/bin/prometheus} is installed, as a ratio: both read persisted
 *       blocks (Prometheus promtool's backfill, Sluice's own blocks read back by a fresh server), and Sluice's
 *       in-memory head is reported beside.
 * </ol>
 *
 * Run: {@code bench/run io.sluice.bench.metrics.MetricsBenchmark [series]} ({@code -Donly=append|bytes|query},
 * {@code -Dnoprom=true} through {@code BENCH_JAVA_OPTS}).
 */
public final class MetricsBenchmark {
  static final long STEP = 15_000;

  public static void main(String[] args) throws Exception {
    int series = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    Labels[] labels = new Labels[series];
    for (int i = 0; i < series; i++) {
      labels[i] = Labels.of("__name__", "bench_requests_total", "job", "job" + (i % 10), "instance",
          "host" + (i / 10) + ":9100", "path", "/p" + (i % 7));
    }
    String only = System.getProperty("only", "");
    if (only.isEmpty() || only.equals("append")) {
      appendThroughput(labels, null);
      appendThroughput(labels, null);
      appendThroughput(labels, Files.createTempDirectory("sluice-metrics-bench"));
    }
    if (only.isEmpty() || only.equals("bytes")) {
      bytesPerSample(labels, Files.createTempDirectory("sluice-metrics-bench-blocks"));
    }
    if (only.isEmpty() || only.equals("query")) {
      queryLatency(labels);
    }
  }

  private static double nextValue(Random rnd, int i, double prev) {
    // Half counters (idle half the time, else bursts), half gauges that change now and then.
    if (i % 2 == 0) {
      return rnd.nextBoolean() ? prev : prev + rnd.nextInt(300);
    }
    return rnd.nextInt(10) == 0 ? Math.round(rnd.nextDouble() * 1000) / 1000.0 : prev;
  }

  static void appendThroughput(Labels[] labels, Path dir) {
    Db db = dir == null ? Db.inMemory() : Db.open(dir, Duration.ofDays(15));
    Random rnd = new Random(1);
    double[] prev = new double[labels.length];
    int scrapes = 240;
    long t0 = 1_700_000_000_000L;
    // Warm-up: creates the series.
    Appender app = db.appender();
    for (int i = 0; i < labels.length; i++) {
      app.append(labels[i], t0, 0);
    }
    app.commit();
    java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
    long cpuStart = mx.getCurrentThreadCpuTime();
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    long procStart = os.getProcessCpuTime();
    long start = System.nanoTime();
    long samples = 0;
    for (int s = 1; s <= scrapes; s++) {
      long t = t0 + s * STEP;
      for (int i = 0; i < labels.length; i++) {
        prev[i] = nextValue(rnd, i, prev[i]);
        app.append(labels[i], t, prev[i]);
      }
      app.commit();
      samples += labels.length;
    }
    double secs = (System.nanoTime() - start) / 1e9;
    double cpu = (mx.getCurrentThreadCpuTime() - cpuStart) / 1e9;
    double proc = (os.getProcessCpuTime() - procStart) / 1e9;
    // CPU time too: on a shared machine wall time says more about the neighbours than about us. Process CPU
    // includes the garbage collector.
    System.out.printf("append %s: %d samples in %.2f s wall = %.0f samples/s; appending thread %.2f s CPU = %.0f "
        + "samples/CPU-s; whole process %.2f s CPU = %.0f samples/CPU-s%n", dir == null ? "in memory" : "with WAL",
        samples, secs, samples / secs, cpu, samples / cpu, proc, samples / proc);
    db.close();
  }

  static void bytesPerSample(Labels[] labels, Path dir) {
    Db db = Db.open(dir, Duration.ofDays(15));
    Random rnd = new Random(2);
    double[] prev = new double[labels.length];
    long t0 = 1_700_000_000_000L;
    Appender app = db.appender();
    int scrapes = (int) (Duration.ofHours(5).toMillis() / STEP);
    for (int s = 0; s < scrapes; s++) {
      // Scrape timestamps are on schedule except for an occasional few ms of jitter beyond the tolerance.
      long t = t0 + s * STEP + (rnd.nextInt(10) == 0 ? rnd.nextInt(11) - 5 : 0);
      for (int i = 0; i < labels.length; i++) {
        prev[i] = nextValue(rnd, i, prev[i]);
        app.append(labels[i], t, prev[i]);
      }
      app.commit();
    }
    Db.Stats st = db.stats();
    System.out.printf("blocks: %d samples in %d bytes = %.3f bytes/sample (head: %d series)%n", st.blockSamples(),
        st.blockBytes(), st.blockBytes() / (double) st.blockSamples(), st.headSeries());
    db.close();
  }

  static void queryLatency(Labels[] labels) throws Exception {
    long t0 = (System.currentTimeMillis() / 3_600_000L - 3) * 3_600_000L;
    int scrapes = (int) (Duration.ofMinutes(70).toMillis() / STEP);
    long end = t0 + (scrapes - 1) * STEP;
    long start = end - 3_600_000;
    Random rnd = new Random(3);
    double[][] values = new double[labels.length][scrapes];
    for (int i = 0; i < labels.length; i++) {
      double v = 0;
      for (int s = 0; s < scrapes; s++) {
        v += rnd.nextInt(100);
        values[i][s] = v;
      }
    }
    String query = "sum by (job) (rate(bench_requests_total[5m]))";
    // Prometheus below reads promtool's backfilled blocks: 2 h ranges aligned as Prometheus aligns them. Sluice is
    // timed on the same storage state: its default 2 h block range, and one sample of another series three block
    // ranges later, so that compaction persists every range the data spans (as the backfill does) and the query
    // reads them from blocks. A server started on that directory answers, beside the all-in-memory head it answers
    // from after a live ingest.
    Path blocksDir = Files.createTempDirectory("sluice-metrics-bench-query");
    Db persisted = Db.open(blocksDir, Duration.ofDays(3650));
    Appender toBlocks = persisted.appender();
    for (int s = 0; s < scrapes; s++) {
      for (int i = 0; i < labels.length; i++) {
        toBlocks.append(labels[i], t0 + s * STEP, values[i][s]);
      }
      toBlocks.commit();
    }
    toBlocks.append(Labels.of("__name__", "bench_later"), end + Duration.ofHours(6).toMillis(), 1);
    toBlocks.commit();
    persisted.compact();
    Db.Stats stored = persisted.stats();
    persisted.close();
    System.out.printf("Sluice's blocks: %d blocks, %d samples; %d series left in the head%n", stored.blocks(),
        stored.blockSamples(), stored.headSeries());
    try (MetricsServer fromBlocks = MetricsServer.builder().port(0).configYaml("scrape_configs: []\n")
        .dataDir(blocksDir).retention(Duration.ofDays(3650))
        .clock(Clock.fixed(Instant.ofEpochMilli(end), ZoneOffset.UTC)).start();
        MetricsServer ours = MetricsServer.builder().port(0).configYaml("scrape_configs: []\n")
        .clock(Clock.fixed(Instant.ofEpochMilli(end), ZoneOffset.UTC)).start()) {
      Appender app = ours.storage().appender();
      for (int s = 0; s < scrapes; s++) {
        for (int i = 0; i < labels.length; i++) {
          app.append(labels[i], t0 + s * STEP, values[i][s]);
        }
        app.commit();
      }
      Engine engine = ours.engine();
      java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
      double engineMs = median(() -> engine.rangeQuery(ours.storage(), query, start, end, STEP));
      long cpu0 = mx.getCurrentThreadCpuTime();
      for (int i = 0; i < 5; i++) {
        engine.rangeQuery(ours.storage(), query, start, end, STEP);
      }
      System.out.printf("engine CPU per query: %.1f ms%n", (mx.getCurrentThreadCpuTime() - cpu0) / 5e6);
      double oursMs = median(() -> httpRange(ours.url(), query, start, end));
      double oursBlocksMs = median(() -> httpRange(fromBlocks.url(), query, start, end));
      System.out.printf("query_range %s, %d series, 1h at 15s: engine %.1f ms, ours over HTTP %.1f ms from the head,"
          + " %.1f ms from blocks%n", query, labels.length, engineMs, oursMs, oursBlocksMs);
      if (Boolean.getBoolean("noprom") || !BackfilledPrometheus.installed()) {
        System.out.println("prometheus not installed (Debian package 'prometheus'): no ratio");
        return;
      }
      Path tmp = Files.createTempDirectory("sluice-metrics-bench-prom");
      Path om = tmp.resolve("data.om");
      try (var w = Files.newBufferedWriter(om)) {
        for (int i = 0; i < labels.length; i++) {
          String l = "bench_requests_total{job=\"" + labels[i].get("job") + "\",instance=\"" + labels[i].get("instance")
              + "\",path=\"" + labels[i].get("path") + "\"} ";
          for (int s = 0; s < scrapes; s++) {
            w.write(l + values[i][s] + " " + (t0 + s * STEP) / 1000 + "\n");
          }
        }
        w.write("# EOF\n");
      }
      BackfilledPrometheus.backfill(tmp, om);
      try (BackfilledPrometheus theirs = BackfilledPrometheus.start(tmp, "scrape_configs: []\n")) {
        String url = theirs.url();
        // Alternating rounds, so that a load that comes and goes on a shared machine falls on both sides alike.
        List<Double> ratios = new ArrayList<>();
        for (int round = 1; round <= 3; round++) {
          double theirsMs = median(() -> httpRange(url, query, start, end));
          double blocksMs = median(() -> httpRange(fromBlocks.url(), query, start, end));
          double headMs = median(() -> httpRange(ours.url(), query, start, end));
          ratios.add(blocksMs / theirsMs);
          System.out.printf("round %d: prometheus 2.x over HTTP %.1f ms from its backfilled blocks; ours %.1f ms from"
              + " blocks, %.1f ms from the head; ours/prometheus = %.2f from blocks (the same storage state), %.2f"
              + " from our head%n", round, theirsMs, blocksMs, headMs, blocksMs / theirsMs, headMs / theirsMs);
        }
        Collections.sort(ratios);
        System.out.printf("median ours/prometheus from blocks: %.2f%n", ratios.get(1));
      }
    }
  }

  interface Run {
    void run() throws Exception;
  }

  static double median(Run r) throws Exception {
    for (int i = 0; i < 3; i++) {
      r.run();
    }
    List<Double> ms = new ArrayList<>();
    for (int i = 0; i < 9; i++) {
      long s = System.nanoTime();
      r.run();
      ms.add((System.nanoTime() - s) / 1e6);
    }
    double[] a = ms.stream().mapToDouble(Double::doubleValue).toArray();
    Arrays.sort(a);
    return a[a.length / 2];
  }

  static final HttpClient CLIENT = HttpClient.newHttpClient();

  static void httpRange(String base, String query, long start, long end) throws Exception {
    String uri = base + "/api/v1/query_range?query=" + URLEncoder.encode(query, StandardCharsets.UTF_8) + "&start="
        + start / 1000 + "&end=" + end / 1000 + "&step=15";
    HttpResponse<String> r = CLIENT.send(HttpRequest.newBuilder(URI.create(uri)).build(),
        HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IllegalStateException(r.body());
    }
  }
}
