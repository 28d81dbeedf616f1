package io.sluice.bench.exporter;

import io.sluice.connect.ConnectRuntime;
import io.sluice.exporter.MetricsExporter;
import io.sluice.kafka.EmbeddedKafka;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.ServerSocket;
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
import java.util.Locale;
import java.util.Map;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * Scrape time and size of the metrics exporter for 50 connectors of 4 tasks each (25 sources writing one record per
 * task and second, 25 sinks reading them), on one embedded broker and one Connect worker in this JVM.
 *
 * <p>Baseline, same JVM and minute: reading the same worker's metrics the way a JMX exporter does, every attribute of
 * every {@code kafka.connect} MBean from the platform MBean server (without even formatting them as text).
 *
 * <p>Run: {@code bench/run io.sluice.bench.exporter.ScrapeBenchmark [connectors] [tasks] [scrapes]}.
 */
public final class ScrapeBenchmark {
  /** The exporter's HTTP server threads. */
  private static final String HTTP_THREADS = "sluice-http-metrics exporter";
  /** The exporter's own threads that read the worker between scrapes (refresh, slow readings). */
  private static final String REFRESH_THREADS = "sluice-exporter";
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  public static void main(String[] args) throws Exception {
    int connectors = args.length > 0 ? Integer.parseInt(args[0]) : 50;
    int tasks = args.length > 1 ? Integer.parseInt(args[1]) : 4;
    int scrapes = args.length > 2 ? Integer.parseInt(args[2]) : 300;
    Path dir = Files.createTempDirectory("sluice-exporter-bench");
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().dataDir(dir.resolve("kafka")).port(freePort()).start();
        ConnectRuntime connect = ConnectRuntime.builder().bootstrapServers(kafka.bootstrapServers())
            .restPort(freePort()).dataDir(dir).pluginPath(Files.createDirectories(dir.resolve("plugins")))
            .consumerInterceptor(MetricsExporter.FRESHNESS).start();
        MetricsExporter exporter = MetricsExporter.builder(connect).port(0).start()) {
      int pairs = connectors / 2;
      try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
        List<NewTopic> topics = new ArrayList<>();
        for (int i = 0; i < pairs; i++) {
          topics.add(new NewTopic("bench-" + i, tasks, (short) 1));
        }
        admin.createTopics(topics).all().get();
      }
      long t0 = System.nanoTime();
      for (int i = 0; i < pairs; i++) {
        create(connect.restUrl(), "tick-" + i, "{\"connector.class\":\"" + TickSource.class.getName()
            + "\",\"tasks.max\":\"" + tasks + "\",\"topic\":\"bench-" + i + "\"}");
        create(connect.restUrl(), "discard-" + i, "{\"connector.class\":\"" + DiscardSink.class.getName()
            + "\",\"tasks.max\":\"" + tasks + "\",\"topics\":\"bench-" + i + "\","
            + "\"errors.tolerance\":\"all\",\"errors.deadletterqueue.topic.name\":\"bench-dlq-" + i + "\","
            + "\"errors.deadletterqueue.topic.replication.factor\":\"1\"}");
      }
      awaitRunning(connect.restUrl(), pairs * 2, tasks);
      System.out.printf(Locale.ROOT, "%d connectors x %d tasks running after %.1f s%n", pairs * 2, tasks,
          (System.nanoTime() - t0) / 1e9);
      // Let the slow values (end offsets, lag) be read once and the commit counters attach.
      Thread.sleep(15_000);

      String url = exporter.url() + "/metrics";
      for (int i = 0; i < 50; i++) {
        scrape(url);
        jmxRead();
      }
      long[] ours = new long[scrapes];
      long[] jmx = new long[scrapes];
      int bytes = 0;
      int series = 0;
      // CPU time as well as wall time: on a shared, loaded machine the wall time mostly measures the queue for a core.
      ThreadMXBean threads = ManagementFactory.getThreadMXBean();
      long serverCpu0 = threadsCpu(threads, HTTP_THREADS);
      long refreshCpu0 = threadsCpu(threads, REFRESH_THREADS);
      long window0 = System.nanoTime();
      long jmxCpu = 0;
      for (int i = 0; i < scrapes; i++) {
        long s = System.nanoTime();
        String body = scrape(url);
        ours[i] = System.nanoTime() - s;
        bytes = body.length();
        series = (int) body.lines().filter(l -> !l.startsWith("#") && !l.isBlank()).count();
        long c = threads.getCurrentThreadCpuTime();
        s = System.nanoTime();
        jmxRead();
        jmx[i] = System.nanoTime() - s;
        jmxCpu += threads.getCurrentThreadCpuTime() - c;
      }
      double serverCpuMs = (threadsCpu(threads, HTTP_THREADS) - serverCpu0) / 1e6 / scrapes;
      // The exporter also reads the worker's values in a pool of its own between scrapes, whether scraped or not:
      // its CPU per second, charged to one scrape every 15 s (Prometheus' default interval), belongs to the figure.
      double refreshCpuPerSecond = (threadsCpu(threads, REFRESH_THREADS) - refreshCpu0) / 1e6 / ((System.nanoTime() - window0) / 1e9);
      Arrays.sort(ours);
      Arrays.sort(jmx);
      System.out.printf(Locale.ROOT, "exporter scrape over HTTP: median %.2f ms, p90 %.2f ms, p99 %.2f ms;"
          + " %d bytes, %d series%n", ms(ours, 0.5), ms(ours, 0.9), ms(ours, 0.99), bytes, series);
      System.out.printf(Locale.ROOT, "baseline, JMX read of every kafka.connect MBean attribute: median %.2f ms,"
          + " p90 %.2f ms%n", ms(jmx, 0.5), ms(jmx, 0.9));
      System.out.printf(Locale.ROOT, "ratio (baseline / exporter, medians): %.2f%n", ms(jmx, 0.5) / ms(ours, 0.5));
      double perScrape = serverCpuMs + refreshCpuPerSecond * 15;
      System.out.printf(Locale.ROOT, "CPU per scrape: exporter's HTTP threads %.2f ms + its refresh pool %.2f ms/s x 15 s"
          + " = %.2f ms; JMX read %.2f ms; ratio %.2f%n", serverCpuMs, refreshCpuPerSecond, perScrape,
          jmxCpu / 1e6 / scrapes, jmxCpu / 1e6 / scrapes / perScrape);
    }
    System.exit(0);
  }

  /** CPU time so far of the threads whose names start with {@code prefix}. */
  private static long threadsCpu(ThreadMXBean threads, String prefix) {
    long total = 0;
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().startsWith(prefix)) {
        total += Math.max(0, threads.getThreadCpuTime(t.getId()));
      }
    }
    return total;
  }

  private static double ms(long[] sorted, double q) {
    return sorted[Math.min(sorted.length - 1, (int) (q * sorted.length))] / 1e6;
  }

  private static String scrape(String url) throws IOException, InterruptedException {
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IllegalStateException("scrape answered " + r.statusCode() + ": " + r.body());
    }
    return r.body();
  }

  /** What a JMX exporter reads per scrape: every attribute of every Connect MBean. */
  private static int jmxRead() throws Exception {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    int values = 0;
    for (ObjectName name : server.queryNames(new ObjectName("kafka.connect:*"), null)) {
      MBeanAttributeInfo[] attrs = server.getMBeanInfo(name).getAttributes();
      String[] names = new String[attrs.length];
      for (int i = 0; i < attrs.length; i++) {
        names[i] = attrs[i].getName();
      }
      values += server.getAttributes(name, names).size();
    }
    return values;
  }

  private static void create(String connectUrl, String name, String config) throws Exception {
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(connectUrl + "/connectors"))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"name\":\"" + name + "\",\"config\":" + config + "}")).build(),
        HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 201) {
      throw new IllegalStateException("creating " + name + ": " + r.statusCode() + " " + r.body());
    }
  }

  private static void awaitRunning(String connectUrl, int connectors, int tasks) throws Exception {
    long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
    String body = "";
    while (System.nanoTime() < deadline) {
      body = HTTP.send(HttpRequest.newBuilder(URI.create(connectUrl + "/connectors?expand=status")).GET().build(),
          HttpResponse.BodyHandlers.ofString()).body();
      long running = body.split("\"state\":\"RUNNING\"", -1).length - 1;
      if (running >= (long) connectors * (tasks + 1)) {
        return;
      }
      Thread.sleep(1000);
    }
    throw new IllegalStateException("not all running after 3 minutes: " + body);
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
