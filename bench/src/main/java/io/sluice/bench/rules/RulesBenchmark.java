package io.sluice.bench.rules;

import io.sluice.bench.BackfilledPrometheus;
import io.sluice.bench.ProcessCpu;
import io.sluice.metrics.MetricsServer;
import io.sluice.metrics.model.Labels;
import io.sluice.metrics.promql.Engine;
import io.sluice.metrics.rules.AlertingRule;
import io.sluice.metrics.rules.Group;
import io.sluice.metrics.rules.Rule;
import io.sluice.metrics.rules.Ruler;
import io.sluice.metrics.storage.Appender;
import io.sluice.metrics.tsdb.Db;
import java.io.BufferedWriter;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Full evaluation of the bundled CDC rules over the series of 2,000 connectors (1,000 pipelines of a PostgreSQL
 * source and a JDBC sink, every metric of the exporter contract, one hour at 30 s, a few connectors unhealthy so
 * that alerts fire and templates expand): time per evaluation round (all three groups) in our rule engine, and in the
 * real Prometheus evaluating the same file on the same data (backfilled with promtool), as a ratio. Prometheus's
 * figure is the mean of {@code prometheus_rule_group_duration_seconds} over its evaluations times the number of
 * groups.
 *
 * <p>Run: {@code bench/run io.sluice.bench.rules.RulesBenchmark [connectors]} ({@code -Dnoprom=true} through
 * {@code BENCH_JAVA_OPTS} skips Prometheus).
 */
public final class RulesBenchmark {
  static final long STEP = 30_000;
  static final int POINTS = 121;
  /** Both engines look back 15 minutes, so Prometheus still sees the data while it warms up. */
  static final Duration LOOKBACK = Duration.ofMinutes(15);
  /** Rounds before timing (the JIT's warm-up; Prometheus gets as many) and timed rounds, in both engines. */
  static final int WARM_UP = 20;
  static final int TIMED = 10;
  static final String[] LE = {"0.5", "1", "5", "30", "60", "300", "600", "+Inf"};

  public static void main(String[] args) throws Exception {
    int connectors = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
    int pipelines = connectors / 2;
    long end = System.currentTimeMillis() / STEP * STEP;
    long start = end - (POINTS - 1) * STEP;
    Path tmp = Files.createTempDirectory("sluice-rules-bench");
    Path rules = tmp.resolve("cdc-alerts.rules.yml");
    // One evaluation interval for every group, so that a round is each group once in both engines.
    Files.writeString(rules, MetricsServer.bundledRules().replace("    interval: 1m\n", ""));
    Path om = tmp.resolve("data.om");
    long samples;
    double[] oursMs;
    try (Db db = Db.inMemory(); BufferedWriter w = Files.newBufferedWriter(om)) {
      samples = generate(pipelines, start, db, w);
      w.write("# EOF\n");
      w.flush();
      System.out.printf("%d connectors, %d samples (%d points per series, 30 s apart)%n", connectors, samples, POINTS);
      oursMs = ours(db, rules, end);
    }
    if (Boolean.getBoolean("noprom") || !Files.isExecutable(Path.of("/usr/bin/prometheus"))
        || !Files.isExecutable(Path.of("/usr/bin/promtool"))) {
      System.out.println("prometheus not installed (Debian package 'prometheus'): no ratio");
      return;
    }
    theirs(tmp, om, rules, oursMs);
  }

  /** Wall and process CPU milliseconds per round. */
  private static double[] ours(Db db, Path rules, long end) {
    Engine engine = Engine.builder().lookbackDelta(LOOKBACK).build();
    List<Group> groups = Ruler.loadGroups(List.of(rules), Duration.ofSeconds(5));
    try (Ruler ruler = Ruler.builder().storage(db).engine(engine).build()) {
      double[] ms = new double[WARM_UP + Integer.getInteger("rounds", TIMED)];
      com.sun.management.OperatingSystemMXBean os =
          (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
      long cpu0 = 0;
      for (int round = 0; round < ms.length; round++) {
        if (round == WARM_UP) {
          cpu0 = os.getProcessCpuTime();
        }
        long t0 = System.nanoTime();
        for (Group g : groups) {
          ruler.evalGroup(g, end + round * 5_000L);
        }
        ms[round] = (System.nanoTime() - t0) / 1e6;
      }
      // The mean, as Prometheus's summary gives for its side.
      double mean = Arrays.stream(ms, WARM_UP, ms.length).average().orElseThrow();
      double cpuMs = (os.getProcessCpuTime() - cpu0) / 1e6 / (ms.length - WARM_UP);
      int alerts = 0;
      for (Group g : groups) {
        for (Rule r : g.rules()) {
          if (r.lastEvaluation().health().equals("err")) {
            throw new IllegalStateException(r.name() + ": " + r.lastEvaluation().lastError());
          }
          if (r instanceof AlertingRule a) {
            alerts += a.activeAlerts().size();
          }
          if (Boolean.getBoolean("perRule")) {
            System.out.printf("  %-30s %7.1f ms%n", r.name(), r.lastEvaluation().durationSeconds() * 1000);
          }
        }
      }
      System.out.printf("ours: %.1f ms CPU per round (the whole process)%n", cpuMs);
      System.out.printf("ours: %.1f ms per round (mean of %d after %d warm-up rounds; rounds %s), %d active alerts%n",
          mean, ms.length - WARM_UP, WARM_UP, Arrays.toString(Arrays.stream(ms).mapToLong(Math::round).toArray()),
          alerts);
      return new double[] {mean, cpuMs};
    }
  }

  private static void theirs(Path tmp, Path om, Path rules, double[] oursMs) throws Exception {
    System.out.printf("backfilled Prometheus in %.0f s%n", BackfilledPrometheus.backfill(tmp, om).toMillis() / 1e3);
    Files.delete(om);
    try (BackfilledPrometheus p = BackfilledPrometheus.start(tmp, """
        global: {evaluation_interval: 5s}
        rule_files: ['%s']
        scrape_configs: []
        """.formatted(rules), "--query.lookback-delta=15m")) {
      String url = p.url();
      double[] first = waitForEvaluations(url, 3 * WARM_UP);
      long cpu0 = ProcessCpu.ticks(p.pid());
      double[] last = waitForEvaluations(url, 3 * (WARM_UP + TIMED));
      long cpu1 = ProcessCpu.ticks(p.pid());
      double perGroup = (last[0] - first[0]) / (last[1] - first[1]) * 1000;
      double perRound = perGroup * 3;
      System.out.printf("prometheus: %.1f ms per round (mean of %d group evaluations x 3 groups)%n", perRound,
          Math.round(last[1] - first[1]));
      double cpuPerRound = (cpu1 - cpu0) * 10.0 / ((last[1] - first[1]) / 3);
      System.out.printf("prometheus: %.1f ms CPU per round (the whole process)%n", cpuPerRound);
      System.out.printf("ours / prometheus = %.2f of its time, %.2f of its CPU%n", oursMs[0] / perRound,
          oursMs[1] / cpuPerRound);
    }
  }

  static final HttpClient CLIENT = HttpClient.newHttpClient();
  static final Pattern SUM = Pattern.compile("(?m)^prometheus_rule_group_duration_seconds_sum (\\S+)$");
  static final Pattern COUNT = Pattern.compile("(?m)^prometheus_rule_group_duration_seconds_count (\\S+)$");

  /** Waits until Prometheus has evaluated at least {@code n} groups; returns {sum seconds, count}. */
  private static double[] waitForEvaluations(String url, int n) throws Exception {
    for (int i = 0; i < 1800; i++) {
      String m = CLIENT.send(HttpRequest.newBuilder(URI.create(url + "/metrics")).build(),
          HttpResponse.BodyHandlers.ofString()).body();
      Matcher s = SUM.matcher(m);
      Matcher c = COUNT.matcher(m);
      if (s.find() && c.find() && Double.parseDouble(c.group(1)) >= n) {
        return new double[] {Double.parseDouble(s.group(1)), Double.parseDouble(c.group(1))};
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("prometheus evaluated fewer than " + n + " groups");
  }

  /** Writes every series into our store and as OpenMetrics for promtool; returns the number of samples. */
  private static long generate(int pipelines, long start, Db db, BufferedWriter om) throws IOException {
    Random rnd = new Random(7);
    long n = 0;
    for (int p = 0; p < pipelines; p++) {
      List<Series> list = new ArrayList<>();
      String src = "pg-" + p;
      String sink = "jdbc-" + p;
      // 1 in 50 pipelines is in trouble: a failed source, a lagging sink, errors and dead letters.
      boolean bad = p % 50 == 7;
      double rate = 5 + rnd.nextInt(200);
      list.add(counter("svc_connect_source_connector_metrics_source_record_poll_total", rate,
          "connector", src, "task", "0", "pipeline", src));
      list.add(counter("svc_connect_sink_connector_metrics_sink_record_send_total", bad ? rate * 0.3 : rate,
          "connector", sink, "task", "0", "pipeline", src));
      for (String c : new String[] {src, sink}) {
        list.add(counter("svc_connect_task_offset_commit_success_total", 1 / 60.0, "connector", c, "task", "0"));
        list.add(counter("svc_connect_connector_task_metrics_total_errors_logged_total", bad ? 3 : 0,
            "connector", c, "task", "0"));
        list.add(counter("svc_connect_connector_task_metrics_total_restarts_total", 0, "connector", c, "task",
            "0"));
        list.add(gauge("svc_connect_connector_task_metrics_running_ratio", bad ? 0.5 : 0.97, "connector", c, "task",
            "0"));
        boolean down = bad && c.equals(src);
        list.add(gauge("svc_connect_connector_status", down ? 0 : 1, "connector", c));
        list.add(gauge("svc_connect_connector_status_info", 1, "connector", c, "state", down ? "FAILED" : "RUNNING"));
      }
      list.add(gauge("svc_connect_source_task_metrics_poll_batch_avg_time_seconds", (300 + rnd.nextInt(200)) / 1000.0,
          "connector", src, "task", "0"));
      list.add(gauge("svc_postgres_replication_slot_retained_wal_bytes", bad ? 9e9 : 5e7, "connector", src, "slot",
          "sluice_" + p));
      list.add(gauge("svc_postgres_max_slot_wal_keep_size_bytes", 1e10, "connector", src));
      list.add(gauge("svc_postgres_replication_slot_wal_status", 1, "connector", src, "slot", "sluice_" + p,
          "wal_status", "reserved"));
      list.add(gauge("svc_connect_sink_task_metrics_put_batch_avg_time_seconds",
          bad ? 2.5 : (100 + rnd.nextInt(100)) / 1000.0, "connector", sink, "task", "0"));
      list.add(counter("svc_connect_dlq_records_total", bad ? 0.5 : 0, "connector", sink, "topic", "dlq-" + sink));
      // Healthy: 90 % of changes arrive within 0.5 s, all within 5 s; in trouble: a tenth take 5 to 10 minutes.
      for (String le : LE) {
        double share = switch (le) {
          case "0.5" -> 0.9;
          case "1" -> 0.95;
          case "5", "30", "60", "300" -> bad ? 0.9 : 1;
          default -> 1;
        };
        list.add(counter("svc_cdc_freshness_write_seconds_bucket", rate * share, "connector", sink, "pipeline", src,
            "le", le));
      }
      Appender app = db.appender();
      for (Series s : list) {
        StringBuilder line = new StringBuilder(s.labels.metricName()).append('{');
        boolean first = true;
        for (int i = 0; i < s.labels.size(); i++) {
          if (s.labels.name(i).equals(Labels.METRIC_NAME)) {
            continue;
          }
          line.append(first ? "" : ",").append(s.labels.name(i)).append("=\"").append(s.labels.value(i)).append('"');
          first = false;
        }
        String prefix = line.append("} ").toString();
        for (int k = 0; k < POINTS; k++) {
          double v = s.counter ? Math.floor(s.value * k * STEP / 1000) : s.value;
          long t = start + k * STEP;
          app.append(s.labels, t, v);
          om.write(prefix + v + " " + t / 1000 + "\n");
          n++;
        }
      }
      app.commit();
    }
    return n;
  }

  private record Series(Labels labels, double value, boolean counter) {}

  private static Series counter(String name, double perSecond, String... labels) {
    return new Series(labels(name, labels), perSecond, true);
  }

  private static Series gauge(String name, double value, String... labels) {
    return new Series(labels(name, labels), value, false);
  }

  private static Labels labels(String name, String... kv) {
    Labels.Builder b = Labels.builder().set(Labels.METRIC_NAME, name);
    for (int i = 0; i < kv.length; i += 2) {
      b.set(kv[i], kv[i + 1]);
    }
    return b.build();
  }
}
