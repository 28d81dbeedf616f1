package io.sluice.bench.platform;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.bench.ProcessCpu;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A fleet on one node ({@code bench/run FleetBenchmark [PIPELINES [DATA_PLANE_HEAP]]}, default 250 and 4g): that many
 * PostgreSQL → JDBC pipelines (two connectors each, a table, slot and publication of its own) on one packaged
 * {@code ./sluice up}, under a light load (one change per pipeline per second). Measured at no pipelines (the
 * baseline, same run) and with the fleet running: the time until every connector runs and every sink holds its table,
 * the RSS of each process, one exporter scrape (time and series), one evaluation round of the bundled rules (the
 * metrics server's own {@code evaluationTime}), and the dashboard's connector overview (its queries and the alerts,
 * server side, to the last row). The differences, per connector, are the sizing model's figures. Last, the ordered stop
 * under the load ({@link TimedStop}): each plane's time from its SIGTERM to its end, the data plane's task threads over
 * its stop, thread dumps of it in {@code <data>/stop-dumps}.
 *
 * <p>{@code -Dfleet.quick=true} measures the fleet's start and its stop only (no samples, 20 s of load before the
 * stop); {@code -Dfleet.set=connect.worker.exactly.once.source.support=disabled} runs the fleet without exactly-once
 * sources, the baseline of what they cost per connector.
 */
public final class FleetBenchmark {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  /** Cores each plane kept busy over a quiet window, and the data plane's busiest threads (name: cores) in it. */
  record Cpu(Map<String, Double> cores, Map<String, Double> dataThreads) {}

  record Sample(Map<String, Long> rssMb, Map<String, Long> retainedMb, Map<String, Long> threads, double scrapeMs,
      long series, double rulesMs, double overviewMs, Cpu cpu) {
    long totalRss() {
      return rssMb.values().stream().mapToLong(Long::longValue).sum();
    }
  }

  public static void main(String[] args) throws Exception {
    int pipelines = args.length > 0 ? Integer.parseInt(args[0]) : 250;
    String heap = args.length > 1 ? args[1] : "4g";
    Path root = Path.of(System.getProperty("sluice.root", ".")).toAbsolutePath();
    Path data = Files.createTempDirectory("sluice-fleet");
    try (BenchDatabase db = new BenchDatabase(pipelines + 8)) {
      db.createDatabase("fleet");
      db.createDatabase("fleet_sink");
      try (Connection c = DriverManager.getConnection(db.url("fleet"), "postgres", "postgres");
          Statement s = c.createStatement()) {
        for (int i = 0; i < pipelines; i++) {
          s.execute("CREATE TABLE public.t" + i + " (id int PRIMARY KEY, qty int NOT NULL, note text)");
          s.execute("INSERT INTO public.t" + i + " SELECT g, g, 'row ' || g FROM generate_series(1, 10) g");
        }
      }
      ProcessBuilder add = new ProcessBuilder(root.resolve("sluice").toString(), "ui", "user", "passwd", "admin",
          "--data-dir", data.toString()).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD);
      add.environment().put("SLUICE_UI_PASSWORD", "fleet-password");
      if (add.start().waitFor() != 0) {
        throw new IllegalStateException("sluice ui user passwd failed");
      }
      long t0 = System.nanoTime();
      List<String> settings = new ArrayList<>(List.of("--set", "dataplane.heap=" + heap,
          // Each Debezium source holds a replication connection; the worker's own pools stay as they are.
          "--set", "connect.worker.offset.flush.interval.ms=10000"));
      // -Dfleet.set=key=value,key=value: more settings for sluice up, -Dfleet.source=… for every source connector, to
      // measure what a setting costs per connector.
      pairs(System.getProperty("fleet.set", "")).forEach((k, v) -> settings.addAll(List.of("--set", k + "=" + v)));
      PackagedUp up = PackagedUp.start(root, data, settings.toArray(String[]::new));
      try {
        double readySeconds = (System.nanoTime() - t0) / 1e9;
        String connect = up.url("connect");
        String ui = up.url("ui");
        String session = login(ui);
        boolean quick = Boolean.getBoolean("fleet.quick");
        Sample idle = null;
        if (!quick) {
          Thread.sleep(30_000);
          idle = sample(up, ui, session);
        }
        System.out.printf(Locale.ROOT, "ready in %.2f s; no pipelines: %s%n", readySeconds, idle);

        Rest rest = new Rest(connect);
        long c0 = System.nanoTime();
        for (int i = 0; i < pipelines; i++) {
          Map<String, String> source = db.sourceConfig("fleet", "f" + i);
          source.put("table.include.list", "public.t" + i);
          source.put("publication.name", "pub_f" + i);
          source.put("publication.autocreate.mode", "filtered");
          source.putAll(pairs(System.getProperty("fleet.source", "")));
          rest.create("f" + i + "-source", source);
          rest.create("f" + i + "-sink", Map.of("connector.class", "io.sluice.sink.jdbc.SluiceJdbcSinkConnector",
              "connection.url", db.url("fleet_sink"), "connection.username", "postgres",
              "connection.password", "postgres", "insert.mode", "upsert", "delete.enabled", "true",
              "primary.key.mode", "record_key", "schema.evolution", "basic", "topics", "f" + i + ".public.t" + i,
              "collection.name.format", "t" + i));
          if ((i + 1) % 25 == 0) {
            System.out.printf(Locale.ROOT, "  %d pipelines created%n", i + 1);
          }
        }
        for (int i = 0; i < pipelines; i++) {
          // A saturated node (load 150-200 as the fleet grows past 200 pipelines) starts a task in minutes, not one.
          rest.awaitRunning("f" + i + "-source", java.time.Duration.ofMinutes(10));
          rest.awaitRunning("f" + i + "-sink", java.time.Duration.ofMinutes(10));
        }
        for (int i = 0; i < pipelines; i++) {
          while (db.count("fleet_sink", "t" + i) < 10) {
            Thread.sleep(200);
          }
        }
        double fleetSeconds = (System.nanoTime() - c0) / 1e9;
        System.out.printf(Locale.ROOT, "%d pipelines (%d connectors) running, every sink holding its table, %.1f s "
            + "after the first was created%n", pipelines, pipelines * 2, fleetSeconds);

        AtomicBoolean running = new AtomicBoolean(true);
        Thread load = new Thread(() -> {
          try (Connection c = DriverManager.getConnection(db.url("fleet"), "postgres", "postgres");
              Statement s = c.createStatement()) {
            while (running.get()) {
              long tick = System.nanoTime();
              for (int i = 0; i < pipelines; i++) {
                s.execute("UPDATE public.t" + i + " SET qty = qty + 1 WHERE id = "
                    + (1 + ThreadLocalRandom.current().nextInt(10)));
              }
              long left = 1_000 - (System.nanoTime() - tick) / 1_000_000;
              if (left > 0) {
                Thread.sleep(left);
              }
            }
          } catch (Exception e) {
            System.out.println("load stopped: " + e);
          }
        }, "fleet-load");
        load.start();
        if (quick) {
          Thread.sleep(20_000);
        } else {
          Thread.sleep(90_000);
          report(pipelines, heap, fleetSeconds, idle, sample(up, ui, session));
        }
        // Under the load still: the sources have changes in flight when they are told to stop.
        TimedStop stop = TimedStop.of(up, data, data.resolve("stop-dumps"));
        running.set(false);
        load.join();
        System.out.printf(Locale.ROOT, "stop of %d pipelines (%d connectors) under load: %s%n", pipelines,
            pipelines * 2, stop);
      } finally {
        if (up.process().isAlive()) {
          up.stop();
        }
      }
    }
    System.exit(0);
  }

  private static void report(int pipelines, String heap, double fleetSeconds, Sample idle, Sample fleet) {
    int connectors = pipelines * 2;
    System.out.printf(Locale.ROOT, "%d pipelines under load: %s%n", pipelines, fleet);
    System.out.printf(Locale.ROOT, "%n| fleet of %d pipelines (%d connectors) on one default sluice up (data plane "
        + "-Xmx%s), one change per pipeline per second | all running %.0f s after the first was created; RSS %s "
        + "(%,d MB in all); retained heap after a full collection %s; threads %s; exporter scrape %.0f ms, %,d "
        + "series; rules round %.1f ms; dashboard overview %.0f ms; cores busy %s | the same sluice up with no "
        + "pipelines: RSS %s "
        + "(%,d MB); retained %s; threads %s; scrape %.1f ms, %,d series; rules %.1f ms; overview %.1f ms; cores "
        + "busy %s | per connector: %.2f MB of RSS, %.2f MB of data-plane heap, %.1f threads, %.0f series, %.3f ms "
        + "of scrape, %.3f ms of rules, %.2f %% of a core in the data plane |%n",
        pipelines, connectors, heap, fleetSeconds, fleet.rssMb(), fleet.totalRss(), fleet.retainedMb(),
        fleet.threads(), fleet.scrapeMs(),
        fleet.series(), fleet.rulesMs(), fleet.overviewMs(), fleet.cpu().cores(), idle.rssMb(), idle.totalRss(),
        idle.retainedMb(), idle.threads(), idle.scrapeMs(), idle.series(), idle.rulesMs(), idle.overviewMs(),
        idle.cpu().cores(),
        (fleet.totalRss() - idle.totalRss()) / (double) connectors,
        (fleet.retainedMb().get("data") - idle.retainedMb().get("data")) / (double) connectors,
        (fleet.threads().get("data") - idle.threads().get("data")) / (double) connectors,
        (fleet.series() - idle.series()) / (double) connectors, (fleet.scrapeMs() - idle.scrapeMs()) / connectors,
        (fleet.rulesMs() - idle.rulesMs()) / connectors,
        (fleet.cpu().cores().get("data") - idle.cpu().cores().get("data")) * 100 / connectors);
    System.out.printf(Locale.ROOT, "data plane's busiest threads, cores: %s%n", fleet.cpu().dataThreads());
    System.out.printf(Locale.ROOT, "settings beyond the defaults: %s%n", System.getProperty("fleet.set", "none"));
  }

  private static Sample sample(PackagedUp up, String ui, String session) throws Exception {
    // First, before the full collections and the scrapes below add work of their own.
    Cpu cpu = cpu(up, 30);
    Map<String, Long> rss = new HashMap<>();
    rss.put("supervisor", StartupAndMemory.rssKb(up.supervisor()) / 1024);
    rss.put("data", StartupAndMemory.rssKb(up.plane("data")) / 1024);
    rss.put("control", StartupAndMemory.rssKb(up.plane("control")) / 1024);
    Map<String, Long> threads = new HashMap<>();
    Map<String, Long> retained = new HashMap<>();
    for (String plane : List.of("data", "control")) {
      long pid = up.plane(plane);
      try (var tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
        threads.put(plane, tasks.count());
      }
      retained.put(plane, Math.round(LargeSnapshot.oldGenAfterFullGc(pid)));
    }
    String exporter = up.url("exporter") + "/metrics";
    List<Double> scrapes = new ArrayList<>();
    long series = 0;
    for (int i = 0; i < 7; i++) {
      long t0 = System.nanoTime();
      String body = HTTP.send(HttpRequest.newBuilder(URI.create(exporter)).build(),
          HttpResponse.BodyHandlers.ofString()).body();
      scrapes.add((System.nanoTime() - t0) / 1e6);
      series = body.lines().filter(l -> !l.isEmpty() && !l.startsWith("#")).count();
    }
    // The rules' own account of their last round, summed over the groups, median of 5 rounds.
    String metrics = up.url("metrics");
    List<Double> rounds = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      JsonNode groups = JSON.readTree(HTTP.send(HttpRequest.newBuilder(URI.create(metrics + "/api/v1/rules")).build(),
          HttpResponse.BodyHandlers.ofString()).body()).path("data").path("groups");
      double sum = 0;
      for (JsonNode g : groups) {
        sum += g.path("evaluationTime").asDouble();
      }
      rounds.add(sum * 1000);
      Thread.sleep(5_000);
    }
    List<Double> overview = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      overview.add(overview(ui, session));
    }
    return new Sample(rss, retained, threads, median(scrapes), series, median(rounds), median(overview), cpu);
  }

  /** CPU over {@code seconds}: each process' cores, and the data plane's ten busiest thread groups. */
  private static Cpu cpu(PackagedUp up, int seconds) throws Exception {
    Map<String, Long> pids = new LinkedHashMap<>();
    pids.put("supervisor", up.supervisor());
    pids.put("data", up.plane("data"));
    pids.put("control", up.plane("control"));
    Map<String, Long> before = new HashMap<>();
    for (Map.Entry<String, Long> p : pids.entrySet()) {
      before.put(p.getKey(), ProcessCpu.ticks(p.getValue()));
    }
    Map<String, Long> threadsBefore = ProcessCpu.ticksByThread(pids.get("data"));
    Thread.sleep(seconds * 1000L);
    Map<String, Double> cores = new LinkedHashMap<>();
    for (Map.Entry<String, Long> p : pids.entrySet()) {
      cores.put(p.getKey(), round((ProcessCpu.ticks(p.getValue()) - before.get(p.getKey()))
          * ProcessCpu.SECONDS_PER_TICK / seconds));
    }
    Map<String, Double> busiest = new LinkedHashMap<>();
    ProcessCpu.ticksByThread(pids.get("data")).entrySet().stream()
        .map(e -> Map.entry(e.getKey(), e.getValue() - threadsBefore.getOrDefault(e.getKey(), 0L)))
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(10)
        .forEach(e -> busiest.put(e.getKey(), round(e.getValue() * ProcessCpu.SECONDS_PER_TICK / seconds)));
    return new Cpu(cores, busiest);
  }

  /** {@code key=value,key=value}. */
  private static Map<String, String> pairs(String list) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String pair : list.split(",")) {
      if (!pair.isBlank()) {
        String[] kv = pair.strip().split("=", 2);
        out.put(kv[0], kv.length > 1 ? kv[1] : "");
      }
    }
    return out;
  }

  private static double round(double v) {
    return Math.round(v * 1000) / 1000.0;
  }

  /** The dashboard's overview as a browser fetches it: the connector list with its queries, then each query. */
  private static double overview(String ui, String session) throws Exception {
    long t0 = System.nanoTime();
    JsonNode list = JSON.readTree(get(ui + "/api/connectors", session));
    for (JsonNode q : list.path("queries")) {
      get(ui + "/api/query?query=" + URLEncoder.encode(q.asText(), StandardCharsets.UTF_8), session);
    }
    return (System.nanoTime() - t0) / 1e6;
  }

  private static String get(String url, String session) throws Exception {
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).header("Cookie", "sluice_session="
        + session).build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IllegalStateException(url + ": " + r.statusCode() + " " + r.body());
    }
    return r.body();
  }

  private static String login(String ui) throws Exception {
    HttpResponse<String> form = HTTP.send(HttpRequest.newBuilder(URI.create(ui + "/login")).build(),
        HttpResponse.BodyHandlers.ofString());
    String cookie = form.headers().firstValue("Set-Cookie").orElseThrow().split(";")[0];
    Matcher m = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"").matcher(form.body());
    m.find();
    HttpResponse<String> in = HTTP.send(HttpRequest.newBuilder(URI.create(ui + "/login")).header("Cookie", cookie)
        .header("Content-Type", "application/x-www-form-urlencoded").POST(HttpRequest.BodyPublishers.ofString(
            "csrf=" + m.group(1) + "&user=admin&password=fleet-password")).build(),
        HttpResponse.BodyHandlers.ofString());
    return in.headers().firstValue("Set-Cookie").orElseThrow().split(";")[0].split("=", 2)[1];
  }

  private static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(null);
    return sorted.get(sorted.size() / 2);
  }
}
