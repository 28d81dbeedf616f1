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
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Registry benchmarks, against Sluice's registry on an embedded broker in this JVM ({@code bench/run
 * io.sluice.bench.registry.RegistryLookupBenchmark}) or against another Confluent-compatible registry already running
 * ({@code ... RegistryLookupBenchmark --url http://127.0.0.1:PORT/apis/ccompat/v7 --label apicurio --pid PID}, which
 * {@code bench/apicurio/run --sequential} does for Apicurio Registry), or both at once ({@code ... RegistryLookupBenchmark
 * --against http://127.0.0.1:PORT/apis/ccompat/v7 --label apicurio --pid PID [--rounds 4]}, what {@code
 * bench/apicurio/run} does), each wrk measurement then alternating between the two registries. Both get the same client
 * and the same requests. Prints a table. The rows measured by {@code wrk} ({@code apt-get install wrk}) say so when it
 * is missing.
 *
 * <ul>
 *   <li>registrations/s of new schemas from 16 client threads of this JVM;</li>
 *   <li>{@code GET /schemas/ids/{id}} requests/s with 64 keep-alive connections, measured by {@code wrk} (a load
 *       generator outside the JVM, so client and server do not share a JIT and heap), over the ids registered above;</li>
 *   <li>registrations/s of new schemas with 64 keep-alive connections, by {@code wrk};</li>
 *   <li>latency of one FULL_TRANSITIVE registration with 10, 100 and 1,000 earlier versions;</li>
 *   <li>with {@code --pid}: resident set size of that server process after the run.</li>
 * </ul>
 *
 * Sluice's run also measures the bare HTTP stack on the same route as a baseline.
 */
public final class RegistryLookupBenchmark {
  private static final HttpClient CLIENT = HttpClient.newHttpClient();
  private static final Pattern ID = Pattern.compile("\\{\\s*\"id\"\\s*:\\s*(\\d+)");

  /** The registry under measurement: its base URL, a name for the output, its process when it is not this JVM. */
  private record Target(String url, String label, long pid) {}

  public static void main(String[] args) throws Exception {
    String url = null;
    String against = null;
    String label = "external";
    long pid = -1;
    int rounds = 4;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--url" -> url = args[++i].replaceAll("/+$", "");
        case "--against" -> against = args[++i].replaceAll("/+$", "");
        case "--label" -> label = args[++i];
        case "--pid" -> pid = Long.parseLong(args[++i]);
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        default -> throw new IllegalArgumentException("usage: RegistryLookupBenchmark [--url BASE | --against BASE] "
            + "[--label NAME] [--pid PID] [--rounds N]; unknown argument " + args[i]);
      }
    }
    if (url != null) {
      measure(new Target(url, label, pid));
      return;
    }
    ExitControl.install((code, message) -> { });
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().dataDir(Files.createTempDirectory("registry-bench-kafka"))
            .port(0).start();
        SchemaRegistry registry = SchemaRegistry.builder().bootstrapServers(kafka.bootstrapServers())
            .topic("_schemas").port(0).start()) {
      Target sluice = new Target(registry.url(), "sluice", -1);
      if (against != null) {
        sideBySide(sluice, new Target(against, label, pid), rounds);
      } else {
        measure(sluice);
      }
    }
  }

  /**
   * Sluice and another registry in the same run, each wrk measurement alternating between the two (A B B A A B ...),
   * so a machine whose load changes during the run weighs on both alike; prints every run and the ratio of the means.
   */
  private static void sideBySide(Target sluice, Target other, int rounds) throws Exception {
    List<Target> both = List.of(sluice, other);
    List<String> rows = new ArrayList<>();
    List<Set<Integer>> ids = new ArrayList<>();
    for (Target t : both) {
      put(t.url() + "/config", "{\"compatibility\":\"NONE\"}");
      Set<Integer> registered = ConcurrentHashMap.newKeySet();
      double perSec = registerWithThreads(t.url(), registered, 2000, 16);
      ids.add(registered);
      rows.add(String.format(Locale.ROOT, "| registration of new schemas, 16 client threads, %s (one run each) | "
          + "%.0f req/s |", t.label(), perSec));
    }
    if (!Files.isExecutable(Path.of("/usr/bin/wrk"))) {
      rows.add("| wrk rows | wrk not installed |");
    } else {
      List<Path> lookups = List.of(lookupScript(sluice.url(), ids.get(0)), lookupScript(other.url(), ids.get(1)));
      rows.add(alternating("GET /schemas/ids/{id}", both, i -> lookups.get(i), rounds));
      rows.add(alternating("registration of new schemas", both,
          i -> registrationScript(both.get(i).url(), "R" + i + "x" + System.nanoTime()), rounds));
    }
    if (other.pid() >= 0) {
      rows.add(String.format(Locale.ROOT, "| %s process RSS after the run / its peak (pid %d) | %d MB / %d MB |",
          other.label(), other.pid(), statusKb(other.pid(), "VmRSS:") / 1024, statusKb(other.pid(), "VmHWM:") / 1024));
    }
    System.out.println("registries side by side: " + sluice.label() + " at " + sluice.url() + ", " + other.label()
        + " at " + other.url() + "; each wrk run -t2 -c64, 10 s after 15 s of warm-up per registry");
    System.out.println("| benchmark | result |");
    System.out.println("|---|---|");
    rows.forEach(System.out::println);
  }

  /** A wrk script for target {@code i} of a side-by-side run. */
  @FunctionalInterface
  private interface ScriptFor {
    Path script(int target) throws IOException;
  }

  /**
   * wrk against both targets in turns (A B, then B A, ...), each run 10 s, after one 15 s warm-up per target (a JVM
   * registry still compiling its request path measures low for its first seconds: Apicurio's first 5 s are a fraction
   * of its later ones).
   */
  private static String alternating(String what, List<Target> both, ScriptFor scripts, int rounds) throws Exception {
    for (int i = 0; i < both.size(); i++) {
      wrk(both.get(i).url(), scripts.script(i), 64, 15);
    }
    double[][] perSec = new double[both.size()][rounds];
    StringBuilder runs = new StringBuilder();
    for (int r = 0; r < rounds; r++) {
      for (int k = 0; k < both.size(); k++) {
        int i = r % 2 == 0 ? k : both.size() - 1 - k;
        String out = wrk(both.get(i).url(), scripts.script(i), 64, 10);
        perSec[i][r] = requestsPerSecond(out);
        String errors = out.lines().filter(l -> l.contains("Non-2xx") || l.contains("Socket errors"))
            .map(String::trim).collect(Collectors.joining("; "));
        runs.append(String.format(Locale.ROOT, "%s%s %.0f%s (load %s)", runs.length() == 0 ? "" : ", ",
            both.get(i).label(), perSec[i][r], errors.isEmpty() ? "" : " [" + errors + "]", loadAverage()));
      }
    }
    double a = Arrays.stream(perSec[0]).average().orElse(0);
    double b = Arrays.stream(perSec[1]).average().orElse(0);
    return String.format(Locale.ROOT, "| %s, 64 keep-alive connections, wrk -t2, %d rounds alternating | %s %.0f req/s, "
        + "%s %.0f req/s (means): %.2fx; runs in order: %s |", what, rounds, both.get(0).label(), a,
        both.get(1).label(), b, a / b, runs);
  }

  private static double requestsPerSecond(String wrkOutput) {
    return wrkOutput.lines().filter(l -> l.startsWith("Requests/sec")).findFirst()
        .map(l -> Double.parseDouble(l.replace("Requests/sec:", "").trim())).orElse(0.0);
  }

  private static String loadAverage() throws IOException {
    return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
  }

  /** Registers {@code n} new schemas over 50 subjects from {@code threads} threads; answers registrations/s. */
  private static double registerWithThreads(String url, Set<Integer> ids, int n, int threads) throws Exception {
    AtomicInteger next = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    long start = System.nanoTime();
    List<Future<?>> fs = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      fs.add(pool.submit(() -> {
        for (int k; (k = next.getAndIncrement()) < n; ) {
          ids.add(register(url, "bench-" + (k % 50), schema("B" + k, 1)));
        }
        return null;
      }));
    }
    for (Future<?> f : fs) {
      f.get();
    }
    pool.shutdown();
    return n / ((System.nanoTime() - start) / 1e9);
  }

  private static void measure(Target target) throws Exception {
    String url = target.url();
    put(url + "/config", "{\"compatibility\":\"NONE\"}");
    List<String> rows = new ArrayList<>();

    // Registration throughput: distinct schemas over 50 subjects, 16 threads.
    Set<Integer> ids = ConcurrentHashMap.newKeySet();
    double regPerSec = registerWithThreads(url, ids, 2000, 16);
    rows.add(String.format(Locale.ROOT, "| registration of new schemas, 16 client threads | %.0f req/s |", regPerSec));

    // Ids as the registry gave them: Sluice numbers schemas 1..n, another registry may number them otherwise.
    rows.add(wrkRow("GET /schemas/ids/{id}, " + target.label(), url, lookupScript(url, ids), 64));
    if (target.pid() < 0) {
      // Baseline in the same minute: the shared HTTP server answering the same route with fixed bytes and no registry
      // behind it. The ratio of the two rows is what the registry costs on top of the HTTP stack.
      byte[] fixed = "{\"schema\":\"\\\"string\\\"\"}".getBytes(StandardCharsets.UTF_8);
      try (HttpServer bare = HttpServer.builder("baseline").port(0).maxThreads(64)
          // Answered on the selector thread, as the registry's own lookup route is.
          .nonBlocking("GET", "/schemas/ids/{id}", req -> io.sluice.http.HttpResponse.of(200,
              "application/vnd.schemaregistry.v1+json", fixed))
          .start()) {
        rows.add(wrkRow("same route, bare sluice-http server (baseline)", bare.url(), lookupScript(bare.url(), ids), 64));
      }
    }
    rows.add(registrationRow(target, url));

    for (int versions : new int[] {10, 100, 1000}) {
      String subject = "full-transitive-" + versions;
      for (int v = 1; v <= versions; v++) {
        register(url, subject, schema("FT" + versions, v));
      }
      // Baseline: the same subject under NONE (the global level), so the difference is the compatibility check alone.
      long none = median(url, subject, versions, versions + 1);
      put(url + "/config/" + subject, "{\"compatibility\":\"FULL_TRANSITIVE\"}");
      long full = median(url, subject, versions, versions + 6);
      rows.add(String.format(Locale.ROOT, "| registration after %d versions: FULL_TRANSITIVE / NONE (median of 5) "
          + "| %.1f ms / %.1f ms |", versions, full / 1e6, none / 1e6));
    }
    if (target.pid() >= 0) {
      rows.add(String.format(Locale.ROOT, "| %s process RSS after the run / its peak (pid %d) | %d MB / %d MB |",
          target.label(), target.pid(), statusKb(target.pid(), "VmRSS:") / 1024, statusKb(target.pid(), "VmHWM:") / 1024));
    }
    System.out.println("registry: " + target.label() + " at " + url);
    System.out.println("| benchmark | result |");
    System.out.println("|---|---|");
    rows.forEach(System.out::println);
  }

  /**
   * Registration of new schemas by wrk: each request a record of its own name, so none is an idempotent re-register.
   * Names carry a per-run tag, so the measured run does not repeat the warm-up's schemas.
   */
  private static String registrationRow(Target target, String url) throws Exception {
    if (!Files.isExecutable(Path.of("/usr/bin/wrk"))) {
      return "| registration of new schemas, wrk | wrk not installed |";
    }
    String label = "registration of new schemas, " + target.label();
    wrk(url, registrationScript(url, "Warm"), 64, 5);
    String out = wrk(url, registrationScript(url, "Run"), 64, 15);
    return row(label + ", 64 keep-alive connections, wrk -t2", out);
  }

  private static Path registrationScript(String url, String tag) throws IOException {
    Path script = Files.createTempFile("register", ".lua");
    script.toFile().deleteOnExit();
    Files.writeString(script, """
        local threads = 0
        function setup(thread)
          thread:set("tid", threads)
          threads = threads + 1
        end
        local counter = 0
        local headers = { ["Content-Type"] = "application/vnd.schemaregistry.v1+json" }
        request = function()
          counter = counter + 1
          local name = "%s" .. tid .. "_" .. counter
          local body = [=[{"schema":"{\\"type\\":\\"record\\",\\"name\\":\\"]=] .. name
            .. [=[\\",\\"fields\\":[{\\"name\\":\\"a\\",\\"type\\":\\"int\\"}]}"}]=]
          return wrk.format("POST", "%s/subjects/wrk-" .. (counter %% 50) .. "/versions", headers, body)
        end
        """.formatted(tag, URI.create(url).getPath()));
    return script;
  }

  private static Path lookupScript(String url, Set<Integer> ids) throws IOException {
    Path script = Files.createTempFile("ids", ".lua");
    script.toFile().deleteOnExit();
    String table = ids.stream().sorted().map(String::valueOf).collect(Collectors.joining(","));
    Files.writeString(script, """
        math.randomseed(7)
        local ids = { %s }
        request = function()
          return wrk.format("GET", "%s/schemas/ids/" .. ids[math.random(1, #ids)])
        end
        """.formatted(table, URI.create(url).getPath()));
    return script;
  }

  private static long statusKb(long pid, String field) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith(field)) {
        return Long.parseLong(line.replaceAll("\\D", ""));
      }
    }
    throw new IllegalStateException("no " + field + " for " + pid);
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

  private static String wrkRow(String label, String url, Path script, int connections) throws Exception {
    if (!Files.isExecutable(Path.of("/usr/bin/wrk"))) {
      return "| " + label + " | wrk not installed |";
    }
    // Warm up the JIT, then measure.
    wrk(url, script, connections, 5);
    return row(label + ", " + connections + " keep-alive connections, wrk -t2", wrk(url, script, connections, 15));
  }

  private static String row(String label, String wrkOutput) {
    String rps = wrkOutput.lines().filter(l -> l.startsWith("Requests/sec")).findFirst().orElse("Requests/sec: ?");
    String errors = wrkOutput.lines().filter(l -> l.contains("Non-2xx") || l.contains("Socket errors"))
        .map(String::trim).collect(Collectors.joining("; "));
    return "| " + label + " | " + rps.replace("Requests/sec:", "").trim() + " req/s " + errors + " |";
  }

  private static String wrk(String url, Path script, int connections, int seconds)
      throws IOException, InterruptedException {
    Process p = new ProcessBuilder("wrk", "-t2", "-c" + connections, "-d" + seconds + "s", "--timeout", "10s",
        "-s", script.toString(), url).redirectErrorStream(true).start();
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

  private static int register(String url, String subject, String schema) throws Exception {
    String body = "{\"schema\":" + quote(schema) + "}";
    HttpResponse<String> r = CLIENT.send(HttpRequest.newBuilder(URI.create(url + "/subjects/" + subject + "/versions"))
        .header("Content-Type", "application/vnd.schemaregistry.v1+json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IllegalStateException("register failed: " + r.statusCode() + " " + r.body());
    }
    Matcher id = ID.matcher(r.body());
    if (!id.find()) {
      throw new IllegalStateException("no id in " + r.body());
    }
    return Integer.parseInt(id.group(1));
  }

  private static void put(String url, String body) throws Exception {
    HttpResponse<String> r = CLIENT.send(HttpRequest.newBuilder(URI.create(url))
        .header("Content-Type", "application/vnd.schemaregistry.v1+json")
        .PUT(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IllegalStateException("PUT " + url + " failed: " + r.statusCode() + " " + r.body());
    }
  }

  private static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
