package io.sluice.bench.registry;

import io.sluice.kafka.EmbeddedKafka;
import io.sluice.kafka.ExitControl;
import io.sluice.registry.SchemaRegistry;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The registry at production size ({@code bench/run io.sluice.bench.registry.RegistryScaleBenchmark [SUBJECTS
 * [VERSIONS]]}, default 10,000 × 10): registers every version through the REST API (16 client threads, BACKWARD, each
 * version adding an optional field), then reports the heap the registry retains per schema version (after full
 * collections, against the same JVM with the broker and an empty registry), the time a new registry node takes to
 * replay the whole {@code _schemas} log to ready, and lookups/s from 16 threads of {@code GET /schemas/ids/{id}} over
 * random ids and of {@code GET /subjects/{s}/versions/{v}} over random versions, against the same lookups on a registry
 * holding 100 schemas in the same run (the baseline: lookups must not slow down with size).
 */
public final class RegistryScaleBenchmark {
  private static final HttpClient CLIENT = HttpClient.newHttpClient();

  public static void main(String[] args) throws Exception {
    int subjects = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    int versions = args.length > 1 ? Integer.parseInt(args[1]) : 10;
    ExitControl.install((code, message) -> { });
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().dataDir(Files.createTempDirectory("registry-scale-kafka"))
        .port(0).start()) {
      // Baseline: a small registry of its own topic, the same lookups.
      double smallLookups;
      double smallVersionLookups;
      try (SchemaRegistry small = SchemaRegistry.builder().bootstrapServers(kafka.bootstrapServers())
          .topic("_schemas_small").port(0).start()) {
        register(small.url(), 10, 10);
        lookups(small.url(), byId(100), 2);
        smallLookups = lookups(small.url(), byId(100), 10);
        smallVersionLookups = lookups(small.url(), byVersion(10, 10), 10);
      }
      long before = retainedHeap();
      SchemaRegistry registry = SchemaRegistry.builder().bootstrapServers(kafka.bootstrapServers())
          .topic("_schemas").port(0).start();
      long t0 = System.nanoTime();
      int total = register(registry.url(), subjects, versions);
      double registerSeconds = (System.nanoTime() - t0) / 1e9;
      long after = retainedHeap();
      lookups(registry.url(), byId(total), 2);
      double bigLookups = lookups(registry.url(), byId(total), 10);
      double bigVersionLookups = lookups(registry.url(), byVersion(subjects, versions), 10);
      registry.close();
      // Its state must be garbage before the new node replays, or the replay would be measured beside it.
      registry = null;
      long before2 = retainedHeap();
      long r0 = System.nanoTime();
      double replaySeconds;
      try (SchemaRegistry again = SchemaRegistry.builder().bootstrapServers(kafka.bootstrapServers())
          .topic("_schemas").port(0).start()) {
        replaySeconds = (System.nanoTime() - r0) / 1e9;
        long afterReplay = retainedHeap();
        String count = get(again.url() + "/subjects").body();
        System.out.printf(Locale.ROOT, "| registry holding %,d subjects x %,d versions (%,d schemas) | registered in "
            + "%.1f s (%,.0f/s, 16 threads); retained heap %.1f MB (%.0f bytes per version; after a replay %.1f MB); "
            + "a new node replays the log to ready in %.2f s; GET /schemas/ids/{id} %,.0f req/s, "
            + "GET /subjects/{s}/versions/{v} %,.0f req/s (16 threads) | the same lookups on a registry of 100 "
            + "schemas, same run: %,.0f req/s, %,.0f req/s | lookups %.2fx, %.2fx of the small registry's |%n",
            subjects, versions, total, registerSeconds, total / registerSeconds, (after - before) / 1e6,
            (after - before) / (double) total, (afterReplay - before2) / 1e6, replaySeconds, bigLookups,
            bigVersionLookups, smallLookups, smallVersionLookups, bigLookups / smallLookups,
            bigVersionLookups / smallVersionLookups);
        if (count.length() < 10) {
          throw new IllegalStateException("the replayed registry lists no subjects: " + count);
        }
      }
    }
    System.exit(0);
  }

  /** Registers {@code subjects} × {@code versions} Avro schemas; returns how many ids exist. */
  private static int register(String url, int subjects, int versions) throws Exception {
    AtomicInteger next = new AtomicInteger();
    AtomicInteger done = new AtomicInteger();
    int total = subjects * versions;
    ExecutorService pool = Executors.newFixedThreadPool(16);
    List<Future<?>> work = new ArrayList<>();
    for (int t = 0; t < 16; t++) {
      work.add(pool.submit(() -> {
        for (int s; (s = next.getAndIncrement()) < subjects; ) {
          for (int v = 1; v <= versions; v++) {
            HttpResponse<String> r = post(url + "/subjects/bench-" + s + "-value/versions", body(s, v));
            if (r.statusCode() != 200) {
              throw new IllegalStateException("registration refused: " + r.statusCode() + " " + r.body());
            }
            int d = done.incrementAndGet();
            if (d % 10_000 == 0) {
              System.out.printf(Locale.ROOT, "  %,d of %,d registered%n", d, total);
            }
          }
        }
        return null;
      }));
    }
    for (Future<?> f : work) {
      f.get();
    }
    pool.shutdown();
    return total;
  }

  /** Version {@code v} of subject {@code s}: a record with {@code v} optional fields, each new one with a default. */
  private static String body(int s, int v) {
    StringBuilder fields = new StringBuilder("{\\\"name\\\":\\\"id\\\",\\\"type\\\":\\\"long\\\"}");
    for (int f = 1; f < v; f++) {
      fields.append(",{\\\"name\\\":\\\"f").append(f).append("\\\",\\\"type\\\":[\\\"null\\\",\\\"string\\\"],")
          .append("\\\"default\\\":null}");
    }
    return "{\"schema\":\"{\\\"type\\\":\\\"record\\\",\\\"name\\\":\\\"R" + s + "\\\",\\\"fields\\\":[" + fields
        + "]}\"}";
  }

  /** Paths of {@code GET /schemas/ids/{id}} over random ids from 1 to {@code ids}. */
  private static Supplier<String> byId(int ids) {
    return () -> "/schemas/ids/" + (1 + ThreadLocalRandom.current().nextInt(ids));
  }

  /** Paths of {@code GET /subjects/{s}/versions/{v}} over random versions of the registered subjects. */
  private static Supplier<String> byVersion(int subjects, int versions) {
    return () -> "/subjects/bench-" + ThreadLocalRandom.current().nextInt(subjects) + "-value/versions/"
        + (1 + ThreadLocalRandom.current().nextInt(versions));
  }

  /** Lookups/s over {@code seconds}, 16 threads, each of a path from {@code paths}. */
  private static double lookups(String url, Supplier<String> paths, int seconds) throws Exception {
    AtomicLong count = new AtomicLong();
    long end = System.nanoTime() + seconds * 1_000_000_000L;
    ExecutorService pool = Executors.newFixedThreadPool(16);
    List<Future<?>> work = new ArrayList<>();
    for (int t = 0; t < 16; t++) {
      work.add(pool.submit(() -> {
        while (System.nanoTime() < end) {
          String path = paths.get();
          HttpResponse<String> r = get(url + path);
          if (r.statusCode() != 200) {
            throw new IllegalStateException("lookup of " + path + ": " + r.statusCode() + " " + r.body());
          }
          count.incrementAndGet();
        }
        return null;
      }));
    }
    for (Future<?> f : work) {
      f.get();
    }
    pool.shutdown();
    return count.get() / (double) seconds;
  }

  private static long retainedHeap() throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(200);
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private static HttpResponse<String> post(String url, String body) throws Exception {
    return CLIENT.send(HttpRequest.newBuilder(URI.create(url)).header("Content-Type",
        "application/vnd.schemaregistry.v1+json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> get(String url) throws Exception {
    return CLIENT.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
  }
}
