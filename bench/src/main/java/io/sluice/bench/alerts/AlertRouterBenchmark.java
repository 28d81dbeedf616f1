package io.sluice.bench.alerts;

import com.sun.net.httpserver.HttpServer;
import io.sluice.alerts.AlertRouter;
import io.sluice.bench.ReadyProbe;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The alert router side by side with the real Alertmanager (Debian's {@code prometheus-alertmanager}), each in its own
 * process, driven by the same client in the same minute:
 *
 * <ol>
 *   <li>ingest: alerts/s posted in batches of 64 and one per request, spread over 20,000 groups of the bundled routing
 *       (receivers without integrations, so ingest is measured, not delivery);
 *   <li>memory: resident set size of each server process after ingest, holding those 20,000 groups;
 *   <li>notification latency: time from posting an alert to its webhook arriving, minus a 1 s {@code group_wait},
 *       each alert alone in its group: the median of {@code bench.latencySamples} (5) just after the server started,
 *       then of twice as many after 2,000 warm-up notifications ({@code bench.latencyWarmup}); then once more with
 *       both servers up and warmed, one sample of each in turn, so that both meet the same minutes' load; last, cold:
 *       {@code bench.coldStarts} (3) starts of each server, alternating, each followed by {@code bench.latencySamples}
 *       samples as soon as it answers {@code /-/ready}, printed as one line beside the warm figure.
 * </ol>
 *
 * The router runs in its own JVM ({@code io.sluice.bench.alerts.AlertRouterBenchmark$Serve}) so that its RSS is the
 * router's alone; {@code -Drouter.jvm="..."} sets that JVM's options (default {@link #ROUTER_JVM}, with
 * {@code MALLOC_ARENA_MAX=2} in its environment). {@code -Dbench.histogram=true} prints the top of the router's class
 * histogram after ingest (and its native memory summary when {@code router.jvm} has
 * {@code -XX:NativeMemoryTracking=summary}); {@code -Dbench.sluiceOnly=true} skips Alertmanager,
 * {@code -Dbench.latencyOnly=true} measures notification latency alone. Through
 * {@code bench/run}, quote a {@code router.jvm} with several options:
 * {@code BENCH_JAVA_OPTS='-Drouter.jvm="-XX:+UseSerialGC -Xmx96m"'}.
 *
 * <p>Run: {@code bench/run io.sluice.bench.alerts.AlertRouterBenchmark}.
 */
public final class AlertRouterBenchmark {
  private static final HttpClient CLIENT = HttpClient.newHttpClient();
  private static final int GROUPS = 20_000;
  /**
   * The router JVM's options, chosen for footprint: the serial collector (on one or two cores a parallel collector's
   * threads and larger heap buy nothing) with a small heap and a small young generation, so the old generation holds
   * the alerts (about 80 MB live after this benchmark's 260,000 alerts in 20,000 groups); both compilers (C2's code
   * cache and arenas cost about 25 MB of RSS, and buy 1.5x the rate once a client as cheap as wrk leaves the router
   * the cores: C1 only kept up with the JDK client alone); small thread stacks. 112 MB holds about 400,000 such
   * alerts; raise {@code -Xmx} for more.
   */
  static final String ROUTER_JVM = "-XX:+UseSerialGC -Xmx112m -Xmn16m -Xss256k"
      + " -XX:ReservedCodeCacheSize=48m -XX:MaxMetaspaceSize=64m";
  private static final java.util.concurrent.atomic.AtomicInteger RETRIES = new java.util.concurrent.atomic.AtomicInteger();

  private record Result(String server, double batched, double single, long rssMb, double latencyMs, double coldMs,
      Wrk wrk) {}

  /** The same server driven by wrk (C, one thread, 8 connections): its rates are the server's, not the client's. */
  private record Wrk(double batched, double single) {}

  /**
   * Re-posts the 200,000 alerts of the batch phase (same label sets, so the store does not grow), 64 or 1 per request.
   * The labels are built exactly as {@link #post} builds them.
   */
  private static final String WRK_SCRIPT = """
      local size = %d
      local requests = {}
      local next = 1
      -- The bodies are built once, before the run, so that wrk spends its time sending, not building strings.
      init = function(args)
        local parts = {}
        for n = 0, 199999 do
          local g = n %% %d
          local sev = (g %% 2 == 0) and "critical" or "warning"
          parts[#parts + 1] = '{"labels":{"alertname":"Bench' .. g .. '","severity":"' .. sev .. '","connector":"c'
            .. (g %% 7) .. '","instance":"i' .. n .. '","run":"batch64"},"annotations":{"summary":"bench"}}'
          if #parts == size then
            requests[#requests + 1] = wrk.format("POST", "/api/v2/alerts",
              {["Content-Type"]="application/json"}, "[" .. table.concat(parts, ",") .. "]")
            parts = {}
          end
        end
      end
      request = function()
        local r = requests[next]
        next = next %% #requests + 1
        return r
      end
      """;

  public static void main(String[] args) throws Exception {
    Path work = Files.createTempDirectory("sluice-alerts-bench");
    String base = AlertRouter.defaultConfig();
    String ingestYaml = base.substring(0, base.indexOf("\nreceivers:"))
        + "\nreceivers:\n  - name: paging\n  - name: chat-warnings\n  - name: chat-slo\n";
    Path ingestConfig = Files.writeString(work.resolve("ingest.yml"), ingestYaml);
    LinkedBlockingQueue<Long> arrivals = new LinkedBlockingQueue<>();
    HttpServer hook = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    hook.createContext("/", ex -> {
      arrivals.add(System.nanoTime());
      ex.getRequestBody().readAllBytes();
      ex.sendResponseHeaders(200, -1);
      ex.close();
    });
    hook.createContext("/warm", ex -> {
      ex.getRequestBody().readAllBytes();
      ex.sendResponseHeaders(200, -1);
      ex.close();
    });
    hook.start();
    // The client's own code warm before it posts to either server: otherwise the server measured first (the router)
    // gets its latency samples from a colder client than the second.
    for (int i = 0; i < 2000; i++) {
      CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + hook.getAddress().getPort() + "/warm"))
          .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("[]")).build(),
          HttpResponse.BodyHandlers.discarding());
    }
    Path latencyConfig = Files.writeString(work.resolve("latency.yml"), """
        route:
          receiver: hook
          group_by: [alertname, run]
          group_wait: 1s
          group_interval: 5m
          repeat_interval: 4h
        receivers:
          - name: hook
            webhook_configs: [{url: 'http://127.0.0.1:%d/'}]
        """.formatted(hook.getAddress().getPort()));

    try {
      run(work, ingestConfig, latencyConfig, arrivals);
    } finally {
      hook.stop(0);
    }
  }

  private static void run(Path work, Path ingestConfig, Path latencyConfig, LinkedBlockingQueue<Long> arrivals)
      throws Exception {
    List<Result> results = new ArrayList<>();
    Path alertmanager = Path.of("/usr/bin/prometheus-alertmanager");
    results.add(measure("sluice", cfg -> startSluice(cfg, work), ingestConfig, latencyConfig, arrivals));
    if (Boolean.getBoolean("bench.sluiceOnly")) {
      System.out.println("alertmanager: skipped (-Dbench.sluiceOnly=true)");
    } else if (Files.isExecutable(alertmanager)) {
      results.add(measure("alertmanager", cfg -> startAlertmanager(alertmanager, cfg, work), ingestConfig,
          latencyConfig, arrivals));
    } else {
      System.out.println("alertmanager: /usr/bin/prometheus-alertmanager not installed, comparison skipped"
          + " (apt-get install prometheus-alertmanager)");
    }
    if (results.size() == 2 && !Boolean.getBoolean("bench.latencyOnly")) {
      alternating(work, ingestConfig, alertmanager);
    }
    Latency cold = null;
    Latency warm = null;
    if (results.size() == 2) {
      warm = alternatingLatency(work, latencyConfig, alertmanager, arrivals);
      cold = coldStarts(work, latencyConfig, alertmanager, arrivals);
    }
    if (RETRIES.get() > 0) {
      System.out.println("requests retried after a lost connection: " + RETRIES.get());
    }
    for (Result r : results) {
      System.out.printf(Locale.ROOT, "%-12s batch64 %,8.0f alerts/s  single %,7.0f alerts/s  RSS %,5d MB at %,d groups"
          + "  notification after group_wait %.1f ms (median; just started: %.1f ms)%n", r.server, r.batched, r.single,
          r.rssMb, GROUPS, r.latencyMs, r.coldMs);
    }
    for (Result r : results) {
      if (r.wrk != null) {
        System.out.printf(Locale.ROOT, "%-12s with wrk: batch64 %,8.0f alerts/s  single %,7.0f alerts/s%n", r.server,
            r.wrk.batched, r.wrk.single);
      }
    }
    if (cold != null) {
      System.out.printf(Locale.ROOT, "notification after group_wait, sluice against alertmanager: cold (first %d after"
          + " each of %d starts, alternating) median %.1f ms (%s) against %.1f ms (%s), first sample after a start"
          + " median %.1f ms %s against %.1f ms %s; warm (alternating) median %.1f ms (%s) against %.1f ms (%s)%n",
          cold.perStart, cold.starts, median(cold.sluice), spread(cold.sluice), median(cold.alertmanager),
          spread(cold.alertmanager), median(cold.firsts(cold.sluice)), format(cold.firsts(cold.sluice)),
          median(cold.firsts(cold.alertmanager)), format(cold.firsts(cold.alertmanager)), median(warm.sluice),
          spread(warm.sluice), median(warm.alertmanager), spread(warm.alertmanager));
    }
    if (results.size() == 2) {
      Result s = results.get(0);
      Result a = results.get(1);
      System.out.printf(Locale.ROOT, "ratio sluice/alertmanager: batch64 %.2fx, single %.2fx, memory %.2fx%n",
          s.batched / a.batched, s.single / a.single, (double) s.rssMb / a.rssMb);
      if (s.wrk != null && a.wrk != null) {
        System.out.printf(Locale.ROOT, "ratio with wrk: batch64 %.2fx, single %.2fx%n", s.wrk.batched / a.wrk.batched,
            s.wrk.single / a.wrk.single);
      }
    }
  }

  @FunctionalInterface
  private interface Starter {
    Server start(Path config) throws Exception;
  }

  private record Server(Process process, String url) implements AutoCloseable {
    @Override
    public void close() throws InterruptedException {
      process.destroy();
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
      }
    }
  }

  private static Result measure(String name, Starter starter, Path ingestConfig, Path latencyConfig,
      LinkedBlockingQueue<Long> arrivals) throws Exception {
    double batched = Double.NaN;
    double single = Double.NaN;
    long rss = -1;
    Wrk wrk = null;
    if (!Boolean.getBoolean("bench.latencyOnly")) {
      try (Server s = starter.start(ingestConfig)) {
        long pid = s.process.pid();
        post(s.url, 64, 1000, 20_000, "warmup");
        long[] cpu0 = cpuMillis(pid);
        batched = post(s.url, 64, GROUPS, 200_000, "batch64");
        long[] cpu1 = cpuMillis(pid);
        single = post(s.url, 1, GROUPS, 40_000, "single");
        long[] cpu2 = cpuMillis(pid);
        // CPU time is steadier than throughput on a shared machine: it does not count time spent waiting for a core.
        System.out.printf(Locale.ROOT, "%s: server CPU per alert (user + system): batch64 %.1f + %.1f us,"
            + " single %.1f + %.1f us%n", name, (cpu1[0] - cpu0[0]) * 1000.0 / 200_000,
            (cpu1[1] - cpu0[1]) * 1000.0 / 200_000, (cpu2[0] - cpu1[0]) * 1000.0 / 40_000,
            (cpu2[1] - cpu1[1]) * 1000.0 / 40_000);
        wrk = wrk(s.url, name, pid);
        Thread.sleep(2000);
        rss = rssMb(s.process.pid());
        if (Boolean.getBoolean("bench.histogram") && name.equals("sluice")) {
          printHistogram(s.process.pid());
        }
      }
    }
    double cold;
    double latency;
    try (Server s = starter.start(latencyConfig)) {
      arrivals.clear();
      int n = Integer.getInteger("bench.latencySamples", 5);
      cold = latencySamples(s.url, name + " (cold, just started)", "cold", n, arrivals);
      warmUp(s.url, name, arrivals);
      latency = latencySamples(s.url, name + " (warm)", "warm", n * 2, arrivals);
    }
    return new Result(name, batched, single, rss, latency, cold, wrk);
  }

  /**
   * A running router has been posted to and has notified before: 2,000 alerts ({@code bench.latencyWarmup}) posted one
   * per request, as Prometheus and the samples post them, each alone in its group, warm both the request path and the
   * notification path (class loading, the JIT), for Alertmanager alike, before the samples that count. Posted 100 to a
   * request, the router's request path had run 20 times before the samples, so they timed its first runs.
   */
  private static void warmUp(String url, String name, LinkedBlockingQueue<Long> arrivals) throws Exception {
    int warmup = Integer.getInteger("bench.latencyWarmup", 2000);
    for (int i = 0; i < warmup; i++) {
      HttpResponse<Void> r = CLIENT.send(HttpRequest.newBuilder(URI.create(url + "/api/v2/alerts"))
          .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
              "[{\"labels\":{\"alertname\":\"Warm\",\"run\":\"warm" + i + "\"}}]")).build(),
          HttpResponse.BodyHandlers.discarding());
      if (r.statusCode() != 200) {
        throw new IllegalStateException("status " + r.statusCode());
      }
    }
    for (int got = 0; got < warmup; got++) {
      if (arrivals.poll(60, TimeUnit.SECONDS) == null) {
        throw new IllegalStateException(name + ": " + got + " of " + warmup + " warm-up notifications");
      }
    }
  }

  /**
   * Notification latency with both servers up and warmed, one sample of each in turn (S A A S ...,
   * {@code bench.latencySamples} x 4 each): the phases above measure the servers minutes apart, and on a machine others
   * share the load of those minutes can differ more than the servers do.
   */
  private static Latency alternatingLatency(Path work, Path latencyConfig, Path alertmanager,
      LinkedBlockingQueue<Long> arrivals) throws Exception {
    try (Server sluice = startSluice(latencyConfig, work);
        Server am = startAlertmanager(alertmanager, latencyConfig, work)) {
      arrivals.clear();
      warmUp(sluice.url, "sluice", arrivals);
      warmUp(am.url, "alertmanager", arrivals);
      Server[] servers = {sluice, am};
      List<List<Double>> samples = List.of(new ArrayList<>(), new ArrayList<>());
      int n = Integer.getInteger("bench.latencySamples", 5) * 4;
      for (int i = 0; i < n; i++) {
        for (int k : i % 2 == 0 ? new int[] {0, 1} : new int[] {1, 0}) {
          samples.get(k).add(oneSample(servers[k].url, "alternating" + i, arrivals)[0]);
        }
      }
      double s = median(samples.get(0));
      double a = median(samples.get(1));
      System.out.printf(Locale.ROOT, "alternating notification latency after group_wait, %d samples each: sluice"
          + " median %.1f ms %s, alertmanager median %.1f ms %s (load %s)%n", n, s, format(samples.get(0)), a,
          format(samples.get(1)), Files.readString(Path.of("/proc/loadavg")).trim());
      return new Latency(samples.get(0), samples.get(1), 1, n);
    }
  }

  /**
   * Notification latencies (ms) of both servers: {@code starts} runs of {@code perStart} samples each, in order (for the
   * warm phase one run).
   */
  private record Latency(List<Double> sluice, List<Double> alertmanager, int starts, int perStart) {
    /** The first sample after each start. */
    List<Double> firsts(List<Double> samples) {
      List<Double> out = new ArrayList<>();
      for (int i = 0; i < samples.size(); i += perStart) {
        out.add(samples.get(i));
      }
      return out;
    }
  }

  /**
   * The first notifications after a start, the figure a user meets after a restart: {@code bench.coldStarts} (3) starts
   * of each server, alternating S A A S ..., each followed at once (when it answers {@code /-/ready}) by
   * {@code bench.latencySamples} (5) samples and stopped. One start gives five samples of one minute's load; several
   * starts, alternated, give both servers the same minutes.
   */
  private static Latency coldStarts(Path work, Path latencyConfig, Path alertmanager,
      LinkedBlockingQueue<Long> arrivals) throws Exception {
    int starts = Integer.getInteger("bench.coldStarts", 3);
    int n = Integer.getInteger("bench.latencySamples", 5);
    List<List<Double>> samples = List.of(new ArrayList<>(), new ArrayList<>());
    String[] names = {"sluice", "alertmanager"};
    for (int round = 0; round < starts; round++) {
      for (int k : round % 2 == 0 ? new int[] {0, 1} : new int[] {1, 0}) {
        String load = Files.readString(Path.of("/proc/loadavg")).trim();
        try (Server s = k == 0 ? startSluice(latencyConfig, work) : startAlertmanager(alertmanager, latencyConfig,
            work)) {
          arrivals.clear();
          List<Double> these = new ArrayList<>();
          for (int i = 0; i < n; i++) {
            these.add(oneSample(s.url, "cold" + round + "-" + i, arrivals)[0]);
          }
          samples.get(k).addAll(these);
          System.out.printf(Locale.ROOT, "cold start %d, %s: notification latency samples after group_wait (ms): %s"
              + " (load %s)%n", round + 1, names[k], format(these), load);
        }
      }
    }
    return new Latency(samples.get(0), samples.get(1), starts, n);
  }

  /** The smallest and largest of some samples, as "min–max". */
  private static String spread(List<Double> v) {
    return String.format(Locale.ROOT, "%.1f–%.1f", v.stream().mapToDouble(Double::doubleValue).min().orElseThrow(),
        v.stream().mapToDouble(Double::doubleValue).max().orElseThrow());
  }

  private static double median(List<Double> v) {
    return v.stream().mapToDouble(Double::doubleValue).sorted().skip(v.size() / 2).findFirst().orElseThrow();
  }

  /**
   * One alert posted alone in its group: its notification's delay after group_wait and the POST's own answer time
   * (ms).
   */
  private static double[] oneSample(String url, String tag, LinkedBlockingQueue<Long> arrivals) throws Exception {
    // Built before the clock starts and sent from this thread, so the sample holds the server's time and the wire's,
    // not the building of a request or the start of a client thread.
    HttpRequest req = HttpRequest.newBuilder(URI.create(url + "/api/v2/alerts")).timeout(Duration.ofSeconds(60))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
            "[{\"labels\":{\"alertname\":\"Latency\",\"run\":\"" + tag
                + "\"},\"annotations\":{\"summary\":\"bench\"}}]")).build();
    long sent = System.nanoTime();
    HttpResponse<Void> r = CLIENT.send(req, HttpResponse.BodyHandlers.discarding());
    long answered = System.nanoTime();
    if (r.statusCode() != 200) {
      throw new IllegalStateException("status " + r.statusCode());
    }
    Long got = arrivals.poll(30, TimeUnit.SECONDS);
    if (got == null) {
      throw new IllegalStateException(url + ": no notification within 30 s");
    }
    return new double[] {(got - sent) / 1e6 - 1000, (answered - sent) / 1e6};
  }

  /** The median of {@code n} notification delays after group_wait (ms), each alert posted alone in a group. */
  private static double latencySamples(String url, String label, String tag, int n, LinkedBlockingQueue<Long> arrivals)
      throws Exception {
    List<Double> samples = new ArrayList<>();
    List<Double> answers = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      double[] sample = oneSample(url, tag + i, arrivals);
      samples.add(sample[0]);
      answers.add(sample[1]);
    }
    System.out.println(label + ": notification latency samples after group_wait (ms): " + format(samples)
        + "; the POST's own answer took (ms): " + format(answers));
    return median(samples);
  }

  private static String format(List<Double> ms) {
    return ms.stream().map(v -> String.format(Locale.ROOT, "%.1f", v)).toList().toString();
  }

  /** Batches of 64 and single alerts from wrk, 15 s each after 5 s of warm-up; null when wrk is not installed. */
  private static Wrk wrk(String url, String name, long pid) throws Exception {
    Path wrk = Path.of("/usr/bin/wrk");
    if (!Files.isExecutable(wrk)) {
      System.out.println(name + ": wrk not installed, its rows skipped (apt-get install wrk)");
      return null;
    }
    Path dir = Files.createTempDirectory("alerts-wrk");
    try {
      Path batch = Files.writeString(dir.resolve("batch.lua"), WRK_SCRIPT.formatted(64, GROUPS));
      Path single = Files.writeString(dir.resolve("single.lua"), WRK_SCRIPT.formatted(1, GROUPS));
      wrkRate(wrk, batch, url, "5s");
      long[] cpu0 = cpuMillis(pid);
      double batched = wrkRate(wrk, batch, url, "15s") * 64;
      long[] cpu1 = cpuMillis(pid);
      double one = wrkRate(wrk, single, url, "15s");
      long[] cpu2 = cpuMillis(pid);
      // The server's CPU per alert under wrk: what the rate would be if the server had the cores to itself, rather
      // than sharing two with wrk (and whatever else runs).
      System.out.printf(Locale.ROOT, "%s: with wrk: batch64 %,.0f alerts/s (server CPU %.1f us/alert), single %,.0f"
          + " alerts/s (server CPU %.1f us/alert)%n", name, batched, cpuSum(cpu0, cpu1) * 1000.0 / (batched * 15),
          one, cpuSum(cpu1, cpu2) * 1000.0 / (one * 15));
      return new Wrk(batched, one);
    } finally {
      for (String f : new String[] {"batch.lua", "single.lua"}) {
        Files.deleteIfExists(dir.resolve(f));
      }
      Files.deleteIfExists(dir);
    }
  }

  /**
   * Single alerts from wrk with both servers up, 10 s runs alternating S A A S S A A S after a warm-up of each: on a
   * machine others share, a server measured alone gets whatever the load of its own minute leaves it, so the rates of
   * the two phases above can differ by the machine's load as much as by the servers. Sums the rounds of each.
   */
  private static void alternating(Path work, Path ingestConfig, Path alertmanager) throws Exception {
    Path wrk = Path.of("/usr/bin/wrk");
    if (!Files.isExecutable(wrk)) {
      return;
    }
    Path dir = Files.createTempDirectory("alerts-wrk");
    try (Server sluice = startSluice(ingestConfig, work);
        Server am = startAlertmanager(alertmanager, ingestConfig, work)) {
      Path batch = Files.writeString(dir.resolve("batch.lua"), WRK_SCRIPT.formatted(64, GROUPS));
      Path single = Files.writeString(dir.resolve("single.lua"), WRK_SCRIPT.formatted(1, GROUPS));
      Server[] servers = {sluice, am};
      for (Server s : servers) {
        wrkRate(wrk, batch, s.url, "5s");
        wrkRate(wrk, single, s.url, "5s");
      }
      double[] requests = new double[2];
      long[] cpu = new long[2];
      for (int round : new int[] {0, 1, 1, 0, 0, 1, 1, 0}) {
        Server s = servers[round];
        long[] before = cpuMillis(s.process.pid());
        requests[round] += wrkRate(wrk, single, s.url, "10s") * 10;
        cpu[round] += cpuSum(before, cpuMillis(s.process.pid()));
      }
      System.out.printf(Locale.ROOT, "alternating with wrk, single alerts, 4 x 10 s each: sluice %,.0f alerts/s"
          + " (server CPU %.1f us/alert), alertmanager %,.0f alerts/s (%.1f us/alert): %.2fx the rate, %.2fx less CPU"
          + " per alert%n", requests[0] / 40, cpu[0] * 1000.0 / requests[0], requests[1] / 40,
          cpu[1] * 1000.0 / requests[1], requests[0] / requests[1],
          (cpu[1] / requests[1]) / (cpu[0] / requests[0]));
    } finally {
      for (String f : new String[] {"batch.lua", "single.lua"}) {
        Files.deleteIfExists(dir.resolve(f));
      }
      Files.deleteIfExists(dir);
    }
  }

  private static double wrkRate(Path wrk, Path script, String url, String duration) throws Exception {
    Process p = new ProcessBuilder(wrk.toString(), "-t1", "-c8", "-d" + duration, "-s", script.toString(), url)
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    p.waitFor();
    if (out.contains("Non-2xx")) {
      throw new IllegalStateException("wrk saw error answers: " + out);
    }
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("Requests/sec:\\s+([0-9.]+)").matcher(out);
    if (!m.find()) {
      throw new IllegalStateException("no rate in wrk's output: " + out);
    }
    return Double.parseDouble(m.group(1));
  }

  private static Server startSluice(Path config, Path work) throws Exception {
    int port = freePort();
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(List.of(System.getProperty("router.jvm", ROUTER_JVM).split(" ")));
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Serve.class.getName(), config.toString(),
        String.valueOf(port), Files.createTempDirectory(work, "sluice").toString()));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(work.resolve("sluice-" + port + ".log").toFile());
    // glibc gives each thread that mallocs its own arena (64 MB reserved, partly touched): with Jetty's, the
    // notifier's and the JIT's threads that is tens of MB of RSS for nothing the router needs.
    pb.environment().putIfAbsent("MALLOC_ARENA_MAX", "2");
    Process p = pb.start();
    return awaitReady(p, "http://127.0.0.1:" + port);
  }

  private static Server startAlertmanager(Path binary, Path config, Path work) throws Exception {
    int port = freePort();
    Process p = new ProcessBuilder(binary.toString(), "--config.file=" + config,
        "--storage.path=" + Files.createTempDirectory(work, "am"), "--web.listen-address=127.0.0.1:" + port,
        "--cluster.listen-address=").redirectErrorStream(true)
        .redirectOutput(work.resolve("alertmanager-" + port + ".log").toFile()).start();
    return awaitReady(p, "http://127.0.0.1:" + port);
  }

  private static Server awaitReady(Process p, String url) throws Exception {
    try {
      ReadyProbe.await(url, Duration.ofSeconds(60), p);
      return new Server(p, url);
    } catch (RuntimeException e) {
      p.destroyForcibly();
      throw e;
    }
  }

  private static double post(String url, int batch, int groups, int total, String tag) throws Exception {
    int threads = Math.min(4, total);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    long start = System.nanoTime();
    List<Future<?>> fs = new ArrayList<>();
    int perThread = total / threads;
    for (int t = 0; t < threads; t++) {
      int offset = t * perThread;
      fs.add(pool.submit(() -> {
        for (int i = 0; i < perThread; i += batch) {
          StringBuilder b = new StringBuilder("[");
          for (int j = 0; j < batch; j++) {
            int n = offset + i + j;
            if (j > 0) {
              b.append(',');
            }
            b.append("{\"labels\":{\"alertname\":\"Bench").append(n % groups).append("\",\"severity\":\"")
                .append(n % groups % 2 == 0 ? "critical" : "warning").append("\",\"connector\":\"c")
                .append(n % groups % 7).append("\",\"instance\":\"i").append(n).append("\",\"run\":\"").append(tag)
                .append("\"},\"annotations\":{\"summary\":\"bench\"}}");
          }
          b.append(']');
          HttpRequest req = HttpRequest.newBuilder(URI.create(url + "/api/v2/alerts"))
              .timeout(Duration.ofSeconds(60))
              .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(b.toString()))
              .build();
          HttpResponse<Void> r;
          try {
            r = CLIENT.send(req, HttpResponse.BodyHandlers.discarding());
          } catch (IOException e) {
            // The JDK client now and then loses a pooled keep-alive connection ("connection closed locally");
            // posting the same alerts again is harmless, and the retries are reported.
            RETRIES.incrementAndGet();
            r = CLIENT.send(req, HttpResponse.BodyHandlers.discarding());
          }
          if (r.statusCode() != 200) {
            throw new IllegalStateException("status " + r.statusCode());
          }
        }
        return null;
      }));
    }
    try {
      for (Future<?> f : fs) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    return total / ((System.nanoTime() - start) / 1e9);
  }

  /** The top of the router's class histogram after ingest: where its memory per alert and per group goes. */
  private static void printHistogram(long pid) throws Exception {
    Process jcmd = new ProcessBuilder("jcmd", String.valueOf(pid), "GC.class_histogram").redirectErrorStream(true)
        .start();
    List<String> lines = new String(jcmd.getInputStream().readAllBytes()).lines().toList();
    jcmd.waitFor();
    lines.stream().limit(30).forEach(System.out::println);
    lines.stream().filter(l -> l.startsWith("Total")).forEach(System.out::println);
    // Where the rest of the RSS goes, when the router JVM runs with -XX:NativeMemoryTracking=summary.
    Process nmt = new ProcessBuilder("jcmd", String.valueOf(pid), "VM.native_memory", "summary")
        .redirectErrorStream(true).start();
    new String(nmt.getInputStream().readAllBytes()).lines().filter(l -> l.contains("committed="))
        .filter(l -> !l.contains("(malloc=") || l.startsWith("-") || l.startsWith("Total"))
        .forEach(System.out::println);
    nmt.waitFor();
  }

  private static long cpuSum(long[] from, long[] to) {
    return to[0] - from[0] + to[1] - from[1];
  }

  /** User and system CPU time (ms) of a process and its threads so far, from /proc (clock ticks of 10 ms). */
  private static long[] cpuMillis(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return new long[] {Long.parseLong(f[11]) * 10, Long.parseLong(f[12]) * 10};
  }

  private static long rssMb(long pid) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("\\D", "")) / 1024;
      }
    }
    throw new IllegalStateException("no VmRSS for " + pid);
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** The router alone in this JVM: {@code Serve CONFIG PORT DATA_DIR}. */
  public static final class Serve {
    public static void main(String[] args) throws Exception {
      AlertRouter router = AlertRouter.builder().port(Integer.parseInt(args[1])).configFile(Path.of(args[0]))
          .dataDir(Path.of(args[2])).start();
      Runtime.getRuntime().addShutdownHook(new Thread(router::close));
      Thread.currentThread().join();
    }
  }
}
