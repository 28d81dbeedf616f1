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

/**
 * Start-to-ready time of {@code sluice up} on an empty data directory (process start to the {@code sluice ready}
 * line), and the resident memory of the process idling with one PostgreSQL source connector running.
 *
 * <p>Run: {@code bench/run StartupAndMemory [runs]}. Each run is {@code ./sluice up} as an operator starts it. The
 * first run after a build records the class-data-sharing archive (slower); the median is taken over the later runs.
 */
public final class StartupAndMemory {
  public static void main(String[] args) throws Exception {
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 4;
    Path root = Path.of(System.getProperty("sluice.root", ".")).toAbsolutePath();
    Files.deleteIfExists(root.resolve("sluice-app/target/sluice/sluice.jsa"));
    List<Double> readySeconds = new ArrayList<>();
    List<Long> rssMb = new ArrayList<>();
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
          String dbName = "startup_" + i;
          db.createDatabase(dbName);
          db.execute(dbName, "CREATE TABLE public.t (id int PRIMARY KEY, v text)");
          Map<String, String> source = db.sourceConfig(dbName, dbName);
          Rest rest = new Rest("http://127.0.0.1:" + connectPort);
          rest.create("idle", source);
          rest.awaitRunning("idle");
          Thread.sleep(20_000);
          long rss = rssKb(javaPid(p)) / 1024;
          if (i > 0) {
            rssMb.add(rss);
          }
          System.out.printf(Locale.ROOT, "run %d: ready in %.2f s, idle RSS with one connector %d MB%n", i + 1, ready, rss);
        } finally {
          new ProcessBuilder("kill", "-TERM", String.valueOf(p.pid())).start().waitFor();
          // The first run writes the archive as it exits: let it finish before the next start.
          p.waitFor();
        }
      }
    }
    readySeconds.sort(null);
    rssMb.sort(null);
    double medianReady = readySeconds.get(readySeconds.size() / 2);
    System.out.printf(Locale.ROOT, "%nmedian of the %d runs after the first: ready %.2f s (%.1fx faster than the 30 s of the hand-assembled "
        + "stack), idle RSS %d MB (%.1fx less than its 4 GB)%n", runs - 1, medianReady, 30 / medianReady,
        rssMb.get(rssMb.size() / 2), 4096.0 / rssMb.get(rssMb.size() / 2));
    System.exit(0);
  }

  /** The JVM: the launcher itself when it exec'd java, else its child. */
  private static long javaPid(Process p) {
    return p.toHandle().descendants()
        .filter(h -> h.info().command().map(c -> c.endsWith("java")).orElse(false))
        .map(ProcessHandle::pid).findFirst().orElse(p.pid());
  }

  private static long rssKb(long pid) throws Exception {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    throw new IllegalStateException("no VmRSS for " + pid);
  }
}
