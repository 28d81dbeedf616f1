package io.sluice.alerts;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Ingest benchmark, not part of the test run (no @Test): posts alerts to an Alertmanager-compatible URL in batches of
 * 64 and one per request, spread over 20,000 groups of the bundled config. Without an argument it starts Sluice's
 * router in this JVM; with a URL it measures that server (e.g. a real Alertmanager) with the same client.
 *
 * <pre>java -cp ... io.sluice.alerts.IngestBench [http://127.0.0.1:9093]</pre>
 */
public final class IngestBench {
  private static final HttpClient CLIENT = HttpClient.newHttpClient();

  public static void main(String[] args) throws Exception {
    AlertRouter router = null;
    String url;
    if (args.length > 0) {
      url = args[0];
    } else {
      // The bundled routing with receivers that have no integrations: ingest is measured, not delivery.
      String base = AlertRouter.defaultConfig();
      String yaml = base.substring(0, base.indexOf("\nreceivers:"))
          + "\nreceivers:\n  - name: paging\n  - name: chat-warnings\n  - name: chat-slo\n";
      router = AlertRouter.builder().port(0).configYaml(yaml).dataDir(Files.createTempDirectory("bench")).start();
      url = router.url();
    }
    int groups = 20_000;
    warm(url);
    double batched = run(url, 64, groups, 200_000, "batch64");
    double single = run(url, 1, groups, 40_000, "single");
    System.gc();
    Thread.sleep(500);
    long used = Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory();
    System.out.printf("%s batch64 %.0f alerts/s, single %.0f alerts/s%s%n", url, batched, single,
        router == null ? "" : String.format(", heap used %d MB, %d groups", used >> 20, router.groupCount()));
    // -Dbench.holdSeconds=N keeps the process up to inspect it (heap histogram, RSS).
    Thread.sleep(Long.getLong("bench.holdSeconds", 0) * 1000);
    if (router != null) {
      router.close();
    }
  }

  private static void warm(String url) throws Exception {
    run(url, 64, 1000, 20_000, "warmup");
  }

  private static double run(String url, int batch, int groups, int total, String tag) throws Exception {
    int threads = 4;
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
                .append(n % groups % 2 == 0 ? "critical" : "warning").append("\",\"connector\":\"c").append(n % groups % 7)
                .append("\",\"instance\":\"i").append(n).append("\",\"run\":\"").append(tag)
                .append("\"},\"annotations\":{\"summary\":\"bench\"}}");
          }
          b.append(']');
          HttpRequest req = HttpRequest.newBuilder(URI.create(url + "/api/v2/alerts"))
              .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(b.toString()))
              .build();
          HttpResponse<Void> r = CLIENT.send(req, HttpResponse.BodyHandlers.discarding());
          if (r.statusCode() != 200) {
            throw new IllegalStateException("status " + r.statusCode());
          }
        }
        return null;
      }));
    }
    for (Future<?> f : fs) {
      f.get();
    }
    pool.shutdown();
    double secs = (System.nanoTime() - start) / 1e9;
    return total / secs;
  }

}
