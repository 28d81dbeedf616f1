package io.sluice.bench.exporter;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.connect.ConnectRuntime;
import io.sluice.kafka.EmbeddedKafka;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.connect.runtime.Herder;

/**
 * The CPU of one pass of the exporter's slow readings (topic end offsets, every sink's consumer lag, every PostgreSQL
 * source's slot retention) as the fleet grows: half the connectors Debezium PostgreSQL sources, each with a logical
 * slot of its own on one embedded PostgreSQL database, half sinks, each with a topic and a consumer group that has
 * committed on it. The connectors are created stopped (Connect's {@code initial_state}): a pass reads their configs and
 * statuses, and no task's CPU muddies the figure.
 *
 * <p>Counted per pass: the CPU of the thread that runs it and of its admin client's network thread, and of the
 * PostgreSQL server (its postmaster, whose reaped backends count as its children, and the backends alive). Wall time
 * is reported too, but on a shared machine it mostly measures the queue for a core.
 *
 * <p>Variants of the exporter compare in one JVM, alternating over the same broker, database and connectors: each is
 * a folder of compiled {@code io.sluice.exporter} classes loaded ahead of the classpath's
 * ({@code -Dbench.variants=before=/tmp/main-classes,after=sluice-exporter/target/classes}); without it, the
 * classpath's exporter alone. The connector plugins come from {@code -Dsluice.plugin.path} (a folder with the
 * {@code debezium-postgres} and {@code jdbc-sink} plugins, as {@code sluice-exporter/target/plugins} after its tests).
 *
 * <p>Run: {@code bench/run io.sluice.bench.exporter.RefreshPassBenchmark [sizes] [passes] [rounds]}, sizes a list of
 * connector counts (default {@code 50,200}), passes per measurement (default 10), rounds of all variants per size
 * (default 2).
 */
public final class RefreshPassBenchmark {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  /** The exporter's admin client's network thread ({@code client.id} sluice-exporter). */
  private static final String ADMIN_THREAD = "kafka-admin-client-thread | sluice-exporter";
  private static final String DB = "fleet";

  /** One exporter build: its pass, and the admin thread it started. */
  private record Variant(String name, Object slow, Method refresh, Method close, Set<Long> adminThreads) {}

  /** Per pass: CPU of the exporter's threads and of PostgreSQL, and wall time (median), in milliseconds. */
  private record Figure(double exporterCpuMs, double postgresCpuMs, double wallMs) {}

  public static void main(String[] args) throws Exception {
    int[] sizes = Arrays.stream((args.length > 0 ? args[0] : "50,200").split(",")).mapToInt(Integer::parseInt)
        .toArray();
    int passes = args.length > 1 ? Integer.parseInt(args[1]) : 10;
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 2;
    int sources = Arrays.stream(sizes).max().orElseThrow() / 2;
    Path dir = Files.createTempDirectory("sluice-refresh-bench");
    Path pgData = dir.resolve("pg");
    try (EmbeddedPostgres pg = EmbeddedPostgres.builder().setDataDirectory(pgData)
            .setServerConfig("wal_level", "logical")
            .setServerConfig("max_replication_slots", String.valueOf(sources + 8))
            .setServerConfig("max_wal_senders", String.valueOf(sources + 8))
            .setServerConfig("max_connections", String.valueOf(sources * 2 + 50)).start();
        EmbeddedKafka kafka = EmbeddedKafka.builder().dataDir(dir.resolve("kafka")).port(freePort()).start();
        ConnectRuntime connect = ConnectRuntime.builder().bootstrapServers(kafka.bootstrapServers())
            .restPort(freePort()).dataDir(dir).pluginPath(Path.of(System.getProperty("sluice.plugin.path")))
            .start();
        Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
      long postmaster = Long.parseLong(Files.readAllLines(pgData.resolve("postmaster.pid")).get(0).strip());
      String pgUrl = "jdbc:postgresql://127.0.0.1:" + pg.getPort() + "/";
      try (Connection c = DriverManager.getConnection(pgUrl + "postgres", "postgres", "postgres");
          Statement s = c.createStatement()) {
        s.execute("CREATE DATABASE " + DB);
        // Passwords over TCP, as a real server asks for them (SCRAM: its key stretching is client CPU per connection);
        // -Dbench.pg.auth=trust for the embedded server's default.
        s.execute("ALTER ROLE postgres PASSWORD 'postgres'");
        String auth = System.getProperty("bench.pg.auth", "scram-sha-256");
        Files.writeString(pgData.resolve("pg_hba.conf"), "local all all trust\nhost all all 127.0.0.1/32 " + auth
            + "\nhost all all ::1/128 " + auth + "\n");
        s.execute("SELECT pg_reload_conf()");
        System.out.printf(Locale.ROOT, "PostgreSQL %s, authentication %s%n", c.getMetaData()
            .getDatabaseProductVersion(), auth);
      }
      List<Variant> variants = variants(connect);
      int created = 0;
      for (int size : sizes) {
        long t0 = System.nanoTime();
        for (int i = created / 2; i < size / 2; i++) {
          addPipeline(connect.restUrl(), admin, kafka.bootstrapServers(), pgUrl + DB, pg.getPort(), i);
        }
        created = size - size % 2;
        awaitStopped(connect.restUrl(), created);
        System.out.printf(Locale.ROOT, "%d connectors (%d PostgreSQL sources with a slot each, %d sinks with a group"
            + " each) in %.1f s; load %s%n", created, created / 2, created / 2, (System.nanoTime() - t0) / 1e9,
            loadAverage());
        for (Variant v : variants) {
          for (int i = 0; i < 5; i++) {
            v.refresh().invoke(v.slow());
          }
        }
        Map<String, List<Figure>> figures = new LinkedHashMap<>();
        for (int r = 0; r < rounds; r++) {
          // A B, then B A: neither variant always runs first after the other.
          List<Variant> order = new ArrayList<>(variants);
          if (r % 2 == 1) {
            java.util.Collections.reverse(order);
          }
          for (Variant v : order) {
            Figure f = measure(v, passes, postmaster);
            figures.computeIfAbsent(v.name(), k -> new ArrayList<>()).add(f);
            System.out.printf(Locale.ROOT, "  %d connectors, round %d, %s: exporter CPU %.2f ms/pass, PostgreSQL"
                + " CPU %.2f ms/pass, wall median %.1f ms; load %s%n", created, r + 1, v.name(), f.exporterCpuMs(),
                f.postgresCpuMs(), f.wallMs(), loadAverage());
          }
        }
        for (Variant v : variants) {
          // What the last pass read, to see that every variant reads the same things.
          Object readings = call(v.slow(), "last");
          System.out.printf(Locale.ROOT, "  %s read: %s%n", v.name(), readSummary(readings));
        }
        int count = created;
        figures.forEach((name, fs) -> System.out.printf(Locale.ROOT, "%d connectors, %s: exporter CPU %.2f ms/pass"
            + " (rounds %s), PostgreSQL %.2f ms/pass, wall %.1f ms%n", count, name,
            fs.stream().mapToDouble(Figure::exporterCpuMs).average().orElse(0),
            fs.stream().map(f -> String.format(Locale.ROOT, "%.2f", f.exporterCpuMs())).toList(),
            fs.stream().mapToDouble(Figure::postgresCpuMs).average().orElse(0),
            fs.stream().mapToDouble(Figure::wallMs).average().orElse(0)));
      }
      for (Variant v : variants) {
        v.close().invoke(v.slow());
      }
    }
    System.exit(0);
  }

  /** The variants named in {@code bench.variants}, each a SlowReadings of its own over the same worker. */
  private static List<Variant> variants(ConnectRuntime connect) throws Exception {
    String spec = System.getProperty("bench.variants", "");
    Map<String, ClassLoader> loaders = new LinkedHashMap<>();
    if (spec.isBlank()) {
      loaders.put("classpath", RefreshPassBenchmark.class.getClassLoader());
    } else {
      for (String v : spec.split(",")) {
        String[] nameDir = v.split("=", 2);
        loaders.put(nameDir[0], new ExporterFirst(Path.of(nameDir[1]), RefreshPassBenchmark.class.getClassLoader()));
      }
    }
    List<Variant> out = new ArrayList<>();
    for (Map.Entry<String, ClassLoader> e : loaders.entrySet()) {
      Class<?> catalogClass = Class.forName("io.sluice.exporter.ConnectorCatalog", true, e.getValue());
      Class<?> slowClass = Class.forName("io.sluice.exporter.SlowReadings", true, e.getValue());
      Constructor<?> catalogNew = catalogClass.getDeclaredConstructor(Herder.class);
      catalogNew.setAccessible(true);
      Constructor<?> slowNew = slowClass.getDeclaredConstructor(catalogClass, Herder.class, Map.class, Clock.class);
      slowNew.setAccessible(true);
      Set<Long> before = threadIds(ADMIN_THREAD);
      Object slow = slowNew.newInstance(catalogNew.newInstance(connect.herder()), connect.herder(),
          connect.workerConfig(), Clock.systemUTC());
      Set<Long> admin = threadIds(ADMIN_THREAD);
      admin.removeAll(before);
      Method refresh = slowClass.getDeclaredMethod("refresh");
      refresh.setAccessible(true);
      Method close = slowClass.getDeclaredMethod("close");
      close.setAccessible(true);
      out.add(new Variant(e.getKey(), slow, refresh, close, admin));
    }
    return out;
  }

  private static Figure measure(Variant v, int passes, long postmaster) throws Exception {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long[] wall = new long[passes];
    long cpu0 = threads.getCurrentThreadCpuTime() + cpuOf(threads, v.adminThreads());
    long pg0 = postgresTicks(postmaster);
    for (int i = 0; i < passes; i++) {
      long t = System.nanoTime();
      v.refresh().invoke(v.slow());
      wall[i] = System.nanoTime() - t;
    }
    long cpu = threads.getCurrentThreadCpuTime() + cpuOf(threads, v.adminThreads()) - cpu0;
    double pgMs = (postgresTicks(postmaster) - pg0) * 10.0;
    Arrays.sort(wall);
    return new Figure(cpu / 1e6 / passes, pgMs / passes, wall[passes / 2] / 1e6);
  }

  /** How many partitions' end offsets, sinks' lag and sources' retention a pass read, and the retained WAL in all. */
  private static String readSummary(Object readings) throws Exception {
    Map<?, ?> ends = (Map<?, ?>) value(call(readings, "endOffsets"));
    Map<?, ?> lag = (Map<?, ?>) call(readings, "sinkLag");
    Map<?, ?> retention = (Map<?, ?>) call(readings, "retention");
    long lagged = 0;
    for (Object timed : lag.values()) {
      for (Object l : ((Map<?, ?>) value(timed)).values()) {
        lagged += (Long) l;
      }
    }
    long statuses = retention.values().stream().map(t -> {
      try {
        return call(value(t), "walStatus");
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }).filter("reserved"::equals).count();
    return String.format(Locale.ROOT, "%d end offsets, %d sinks' lag (%d records in all), %d sources' retention"
        + " (%d slots reserved)", ends.size(), lag.size(), lagged, retention.size(), statuses);
  }

  private static Object value(Object timed) throws Exception {
    return call(timed, "value");
  }

  private static Object call(Object target, String method) throws Exception {
    Method m = target.getClass().getDeclaredMethod(method);
    m.setAccessible(true);
    return m.invoke(target);
  }

  /** A source with its slot, and a sink with its topic and a committed group. */
  private static void addPipeline(String connectUrl, Admin admin, String bootstrap, String dbUrl, int pgPort, int i)
      throws Exception {
    try (Connection c = DriverManager.getConnection(dbUrl, "postgres", "postgres"); Statement s = c.createStatement()) {
      s.execute("SELECT pg_create_logical_replication_slot('slot_" + i + "', 'pgoutput')");
    }
    Map<String, String> source = new LinkedHashMap<>();
    source.put("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
    source.put("plugin.name", "pgoutput");
    source.put("database.hostname", "127.0.0.1");
    source.put("database.port", String.valueOf(pgPort));
    source.put("database.user", "postgres");
    source.put("database.password", "postgres");
    source.put("database.dbname", DB);
    source.put("topic.prefix", "p" + i);
    source.put("slot.name", "slot_" + i);
    create(connectUrl, "source-" + i, source);

    String topic = "p" + i + ".public.t";
    admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of("bootstrap.servers", bootstrap),
        new StringSerializer(), new StringSerializer())) {
      for (int r = 0; r < 10; r++) {
        producer.send(new ProducerRecord<>(topic, "k" + r, "v" + r));
      }
    }
    admin.alterConsumerGroupOffsets("connect-sink-" + i, Map.of(new TopicPartition(topic, 0),
        new OffsetAndMetadata(4))).all().get();
    create(connectUrl, "sink-" + i, Map.of("connector.class", "io.debezium.connector.jdbc.JdbcSinkConnector",
        "connection.url", "jdbc:postgresql://127.0.0.1:1/none", "topics", topic, "tasks.max", "1"));
  }

  private static void create(String connectUrl, String name, Map<String, String> config) throws Exception {
    String body = JSON.writeValueAsString(Map.of("name", name, "initial_state", "STOPPED", "config", config));
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(connectUrl + "/connectors"))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 201) {
      throw new IllegalStateException("creating " + name + ": " + r.statusCode() + " " + r.body());
    }
  }

  /** Until every connector has its status: a pass leaves out one that has none yet. */
  private static void awaitStopped(String connectUrl, int connectors) throws Exception {
    long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
    String body = "";
    while (System.nanoTime() < deadline) {
      body = HTTP.send(HttpRequest.newBuilder(URI.create(connectUrl + "/connectors?expand=status")).GET().build(),
          HttpResponse.BodyHandlers.ofString()).body();
      if (body.split("\"state\":\"STOPPED\"", -1).length - 1 >= connectors) {
        return;
      }
      Thread.sleep(500);
    }
    throw new IllegalStateException("not all stopped after 3 minutes: " + body);
  }

  private static Set<Long> threadIds(String name) {
    Set<Long> out = new HashSet<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().equals(name)) {
        out.add(t.getId());
      }
    }
    return out;
  }

  private static long cpuOf(ThreadMXBean threads, Set<Long> ids) {
    return ids.stream().mapToLong(id -> Math.max(0, threads.getThreadCpuTime(id))).sum();
  }

  /**
   * CPU of the PostgreSQL server in clock ticks: the postmaster with the backends it has reaped (its children's
   * time), and the backends alive now.
   */
  private static long postgresTicks(long postmaster) throws IOException {
    long total = statFields(postmaster, 11, 12, 13, 14);
    Map<Long, Long> parents = new HashMap<>();
    try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
      for (Path p : (Iterable<Path>) procs::iterator) {
        String name = p.getFileName().toString();
        if (name.chars().allMatch(Character::isDigit)) {
          try {
            long pid = Long.parseLong(name);
            if (statFields(pid, 1) == postmaster) {
              parents.put(pid, statFields(pid, 11, 12));
            }
          } catch (IOException | RuntimeException ended) {
            // The process ended between the listing and the read.
          }
        }
      }
    }
    return total + parents.values().stream().mapToLong(Long::longValue).sum();
  }

  /** The sum of fields of {@code /proc/PID/stat} after the command name (0: state, 1: ppid, 11: utime, 12: stime). */
  private static long statFields(long pid, int... fields) throws IOException {
    String s = Files.readString(Path.of("/proc/" + pid + "/stat"));
    String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
    long sum = 0;
    for (int i : fields) {
      sum += Long.parseLong(f[i]);
    }
    return sum;
  }

  private static String loadAverage() throws IOException {
    String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
    return f[0] + " " + f[1] + " " + f[2];
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** Loads the exporter's classes from one folder ahead of the classpath's, everything else as usual. */
  private static final class ExporterFirst extends URLClassLoader {
    ExporterFirst(Path classes, ClassLoader parent) throws IOException {
      super(new URL[] {classes.toUri().toURL()}, parent);
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      if (!name.startsWith("io.sluice.exporter.")) {
        return super.loadClass(name, resolve);
      }
      synchronized (getClassLoadingLock(name)) {
        Class<?> c = findLoadedClass(name);
        if (c == null) {
          c = findClass(name);
        }
        if (resolve) {
          resolveClass(c);
        }
        return c;
      }
    }
  }
}
