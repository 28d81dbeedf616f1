package io.sluice.bench.registry;

import io.sluice.http.HttpServer;
import io.sluice.kafka.EmbeddedKafka;
import io.sluice.kafka.ExitControl;
import io.sluice.registry.SchemaRegistry;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Registry benchmarks against an embedded broker in this JVM: {@code bench/run
 * io.sluice.bench.registry.RegistryLookupBenchmark}. Prints a table. The lookup needs {@code wrk}
 * ({@code apt-get install wrk}); without it that row says so.
 *
 * <ul>
 *   <li>{@code GET /schemas/ids/{id}} requests/s with 64 keep-alive connections, measured by {@code wrk} when it is
 *       installed (a load generator outside the JVM, so client and server do not share a JIT and heap);</li>
 *   <li>registrations/s of new schemas from 16 client threads;</li>
 *   <li>latency of one FULL_TRANSITIVE registration with 10, 100 and 1,000 earlier versions.</li>
 * </ul>
 */
public final class RegistryLookupBenchmark {
  private static final HttpClient CLIENT = HttpClient.newHttpClient();

  public static void main(String[] args) throws Exception {
    ExitControl.install((code, message) -> { });
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().dataDir(Files.createTempDirectory("registry-bench-kafka"))
            .port(0).start();
        SchemaRegistry registry = SchemaRegistry.builder().bootstrapServers(kafka.bootstrapServers())
            .topic("_schemas").port(0).start()) {
      String url = registry.url();
      put(url + "/config", "{\"compatibility\":\"NONE\"}");
      List<String> rows = new ArrayList<>();

      // Registration throughput: distinct schemas over 50 subjects, 16 threads.
      int n = 2000;
      AtomicInteger next = new AtomicInteger();
      ExecutorService pool = Executors.newFixedThreadPool(16);
      long start = System.nanoTime();
      List<Future<?>> fs = new ArrayList<>();
      for (int t = 0; t < 16; t++) {
        fs.add(pool.submit(() -> {
          for (int k; (k = next.getAndIncrement()) < n; ) {
            register(url, "bench-" + (k % 50), schema("B" + k, 1));
          }
          return null;
        }));
      }
      for (Future<?> f : fs) {
        f.get();
      }
      double regPerSec = n / ((System.nanoTime() - start) / 1e9);
      pool.shutdown();
      rows.add(String.format(Locale.ROOT, "| registration of new schemas, 16 client threads | %.0f req/s |", regPerSec));

      rows.add(lookupRow("GET /schemas/ids/{id}, registry", url, n));
      // Baseline in the same minute: the shared HTTP server answering the same route with fixed bytes and no registry
      // behind it. The ratio of the two rows is what the registry costs on top of the HTTP stack.
      byte[] fixed = "{\"schema\":\"\\\"string\\\"\"}".getBytes(StandardCharsets.UTF_8);
      try (HttpServer bare = HttpServer.builder("baseline").port(0).maxThreads(64)
          .get("/schemas/ids/{id}", req -> io.sluice.http.HttpResponse.of(200, "application/vnd.schemaregistry.v1+json", fixed))
          .start()) {
        rows.add(lookupRow("same route, bare sluice-http server (baseline)", bare.url(), n));
      }

      for (int versions : new int[] {10, 100, 1000}) {
        String subject = "full-transitive-" + versions;
        put(url + "/config/" + subject, "{\"compatibility\":\"NONE\"}");
        for (int v = 1; v <= versions; v++) {
          register(url, subject, schema("FT" + versions, v));
        }
        // Baseline: the same subject under NONE, so the difference is the compatibility check alone.
        long none = median(url, subject, versions, versions + 1);
        put(url + "/config/" + subject, "{\"compatibility\":\"FULL_TRANSITIVE\"}");
        long full = median(url, subject, versions, versions + 6);
        rows.add(String.format(Locale.ROOT, "| registration after %d versions: FULL_TRANSITIVE / NONE (median of 5) "
            + "| %.1f ms / %.1f ms |", versions, full / 1e6, none / 1e6));
      }
      System.out.println("| benchmark | result |");
      System.out.println("|---|---|");
      rows.forEach(System.out::println);
    }
  }

  private static long median(String url, String subject, int versions, int firstNew) throws Exception {
    long[] samples = new long[5];
    for (int i = 0; i < samples.length; i++) {
      long t0 = System.nanoTime();
      register(url, subject, schema("FT" + versions, firstNew + i));
      samples[i] = System.nanoTime() - t0;
    }
    Arrays.sort(samples);
    return samples[samples.length / 2];
  }

  private static String lookupRow(String label, String url, int ids) throws Exception {
    if (!Files.isExecutable(Path.of("/usr/bin/wrk"))) {
      return "| " + label + " | wrk not installed |";
    }
    Path script = Files.createTempFile("ids", ".lua");
    Files.writeString(script, "math.randomseed(7)\nrequest = function()\n  return wrk.format(\"GET\", \"/schemas/ids/\" .. "
        + "math.random(1, " + ids + "))\nend\n");
    // Warm up the JIT, then measure.
    wrk(url, script, 5);
    String out = wrk(url, script, 15);
    String rps = out.lines().filter(l -> l.startsWith("Requests/sec")).findFirst().orElse("Requests/sec: ?");
    String non2xx = out.lines().filter(l -> l.contains("Non-2xx")).findFirst().orElse("");
    return "| " + label + ", 64 keep-alive connections, wrk -t2 | " + rps.replace("Requests/sec:", "").trim()
        + " req/s " + non2xx.trim() + " |";
  }

  private static String wrk(String url, Path script, int seconds) throws IOException, InterruptedException {
    Process p = new ProcessBuilder("wrk", "-t2", "-c64", "-d" + seconds + "s", "-s", script.toString(), url)
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor(seconds + 30L, TimeUnit.SECONDS);
    return out;
  }

  /** Version {@code v} of a rolling evolution: a record of about 20 fields, one added and the oldest dropped per version. */
  private static String schema(String name, int v) {
    StringBuilder f = new StringBuilder("{\"name\":\"a\",\"type\":\"int\"}");
    for (int i = Math.max(2, v - 19); i <= v; i++) {
      f.append(",{\"name\":\"f").append(i).append("\",\"type\":\"int\",\"default\":0}");
    }
    return "{\"type\":\"record\",\"name\":\"" + name + "\",\"fields\":[" + f + "]}";
  }

  private static void register(String url, String subject, String schema) throws Exception {
    String body = "{\"schema\":" + quote(schema) + "}";
    HttpResponse<String> r = CLIENT.send(HttpRequest.newBuilder(URI.create(url + "/subjects/" + subject + "/versions"))
        .header("Content-Type", "application/vnd.schemaregistry.v1+json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IllegalStateException("register failed: " + r.body());
    }
  }

  private static void put(String url, String body) throws Exception {
    CLIENT.send(HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
        .PUT(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
