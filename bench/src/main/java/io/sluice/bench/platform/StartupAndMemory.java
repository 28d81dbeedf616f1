package io.sluice.bench.platform;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Start-to-ready time on an empty data directory and resident memory idling with one PostgreSQL source connector, of
 * {@code sluice up} and, side by side in the same run, of the stack a user assembles instead ({@link AssembledStack}:
 * a Kafka broker, a Connect distributed worker with the same plugins, Apicurio Registry, Prometheus and Alertmanager,
 * each its own process). The system description's figure (30 s, 4 GB) is printed as a second, labelled baseline.
 *
 * <p>Run: {@code bench/run StartupAndMemory [runs]}. Sluice and the assembled stack alternate, run by run. Sluice's
 * first run after a build records the class-data-sharing archive (slower), so medians are over the later runs.
 */
public final class StartupAndMemory {
  public static void main(String[] args) throws Exception {
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 4;
    Path root = Path.of(System.getProperty("sluice.root", ".")).toAbsolutePath();
    for (String archive : List.of("sluice.jsa", "sluice-data.jsa", "sluice-control.jsa")) {
      Files.deleteIfExists(root.resolve("sluice-app/target/sluice").resolve(archive));
    }
    Optional<String> noBaseline = AssembledStack.missing(root);
    noBaseline.ifPresent(why -> System.out.println("assembled stack SKIPPED: " + why));
    List<String> javaOpts = List.of(System.getProperty("assembled.jvm", "-Xmx1g -XX:+UseParallelGC").split(" "));
    List<Double> readySeconds = new ArrayList<>();
    List<Long> rssMb = new ArrayList<>();
    List<Double> assembledReady = new ArrayList<>();
    List<Long> assembledRssMb = new ArrayList<>();
    try (BenchDatabase db = new BenchDatabase()) {
      for (int i = 0; i < runs; i++) {
        Path data = Files.createTempDirectory("sluice-startup");
        int connectPort = PipelineThroughput.freePort();
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(root.resolve("sluice").toString(), "up", "--data-dir", data.toString(),
            "--kafka-port", String.valueOf(PipelineThroughput.freePort()), "--connect-port", String.valueOf(connectPort))
            .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
          for (String line; (line = r.readLine()) != null; ) {
            if (line.startsWith("sluice ready")) {
              break;
            }
          }
          double ready = (System.nanoTime() - t0) / 1e9;
          if (i > 0) {
            readySeconds.add(ready);
          }
          long rss = idleWithOneSource(db, "startup_" + i, "http://127.0.0.1:" + connectPort,
              () -> processesRssKb(p)) / 1024;
          if (i > 0) {
            rssMb.add(rss);
          }
          System.out.printf(Locale.ROOT, "run %d sluice up: ready in %.2f s, idle RSS with one connector %d MB%n",
              i + 1, ready, rss);
        } finally {
          new ProcessBuilder("kill", "-TERM", String.valueOf(p.pid())).start().waitFor();
          // The first run writes the archive as it exits: let it finish before the next start.
          p.waitFor();
        }
        if (noBaseline.isEmpty()) {
          try (AssembledStack stack = AssembledStack.start(root, Files.createTempDirectory("assembled"), javaOpts)) {
            long rss = idleWithOneSource(db, "assembled_" + i, stack.connectUrl, stack::rssKb) / 1024;
            assembledReady.add(stack.readySeconds);
            assembledRssMb.add(rss);
            System.out.printf(Locale.ROOT, "run %d assembled stack: ready in %.2f s, idle RSS with one connector %d MB"
                + " (five processes)%n", i + 1, stack.readySeconds, rss);
          }
        }
      }
    }
    double medianReady = median(readySeconds);
    double medianRss = median(rssMb.stream().map(Long::doubleValue).toList());
    System.out.printf(Locale.ROOT, "%nsluice up, median of the %d runs after the first: ready %.2f s, idle RSS %.0f MB%n",
        runs - 1, medianReady, medianRss);
    if (!assembledReady.isEmpty()) {
      double aReady = median(assembledReady);
      double aRss = median(assembledRssMb.stream().map(Long::doubleValue).toList());
      System.out.printf(Locale.ROOT, "assembled stack (Kafka, Connect, Apicurio, Prometheus, Alertmanager), median of %d "
          + "runs: ready %.2f s, idle RSS %.0f MB%n", assembledReady.size(), aReady, aRss);
      System.out.printf(Locale.ROOT, "measured baseline: %.1fx faster to ready, %.1fx less memory%n", aReady / medianReady,
          aRss / medianRss);
    }
    System.out.printf(Locale.ROOT, "description's figure (30 s, 4 GB; not measured): %.1fx faster, %.1fx less memory%n",
        30 / medianReady, 4096.0 / medianRss);
    System.exit(0);
  }

  /** Starts one PostgreSQL source on the worker, lets it idle 20 s, and reads the memory. */
  private static long idleWithOneSource(BenchDatabase db, String name, String connectUrl, Reading rss)
      throws Exception {
    db.createDatabase(name);
    db.execute(name, "CREATE TABLE public.t (id int PRIMARY KEY, v text)");
    Map<String, String> source = db.sourceConfig(name, name);
    Rest rest = new Rest(connectUrl);
    rest.create("idle", source);
    rest.awaitRunning("idle");
    Thread.sleep(20_000);
    return rss.kb();
  }

  @FunctionalInterface
  private interface Reading {
    long kb() throws Exception;
  }

  private static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(null);
    return sorted.get(sorted.size() / 2);
  }

  /**
   * The RSS of every JVM of one {@code sluice up}: the supervisor (the launcher's own process when it exec'd java) and
   * the data and control planes it started. Each is printed, so the sizing model can be read per process.
   */
  static long processesRssKb(Process p) throws Exception {
    long total = 0;
    StringBuilder each = new StringBuilder();
    for (ProcessHandle h : java.util.stream.Stream.concat(java.util.stream.Stream.of(p.toHandle()), p.descendants())
        .filter(h -> h.info().command().map(c -> c.endsWith("java")).orElse(false)).toList()) {
      long kb = rssKb(h.pid());
      total += kb;
      String[] args = h.info().arguments().orElse(new String[0]);
      String role = args.length >= 2 && args[args.length - 2].equals("plane") ? args[args.length - 1] + " plane"
          : "supervisor";
      each.append(String.format(Locale.ROOT, " %s %d MB;", role, kb / 1024));
    }
    System.out.println("  RSS per process:" + each);
    return total;
  }

  static long rssKb(long pid) throws Exception {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    throw new IllegalStateException("no VmRSS for " + pid);
  }
}
