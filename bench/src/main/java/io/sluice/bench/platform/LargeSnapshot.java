package io.sluice.bench.platform;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * A table of production size through the default {@code ./sluice up} ({@code bench/run LargeSnapshot [ROWS]},
 * default 20,000,000): a PostgreSQL table of several column types (about 100 bytes a row) snapshotted by Debezium into
 * Kafka and written by Sluice's JDBC sink (upsert, deletes on, so the snapshot is carried to its end), then by
 * Debezium's own {@code JdbcSinkConnector} from the same topic into another database, the baseline of the same run.
 *
 * <p>For each sink: rows/s, and the data plane's old generation after a full collection ({@code jcmd GC.run}, then
 * {@code jstat -gc}: what the heap really retains) at 1M, 5M, 10M and 20M rows written; for Sluice's, also how long a
 * change made after the snapshot takes to reach the sink and whether {@code sluice reconcile} finds the tables equal.
 */
public final class LargeSnapshot {
  private static final long[] MILESTONES = {1_000_000, 5_000_000, 10_000_000, 20_000_000, 50_000_000};

  public static void main(String[] args) throws Exception {
    long rows = args.length > 0 ? Long.parseLong(args[0]) : 20_000_000;
    Path root = Path.of(System.getProperty("sluice.root", ".")).toAbsolutePath();
    Path data = Files.createTempDirectory("sluice-large");
    try (BenchDatabase db = new BenchDatabase()) {
      db.createDatabase("large");
      db.createDatabase("sink_sluice");
      db.createDatabase("sink_debezium");
      db.execute("large", "CREATE TABLE public.items (id bigint PRIMARY KEY, name text NOT NULL, qty int NOT NULL, "
          + "price numeric(12,2) NOT NULL, created timestamptz NOT NULL, note varchar(40), active boolean NOT NULL)");
      long t0 = System.nanoTime();
      for (long from = 1; from <= rows; from += 1_000_000) {
        long to = Math.min(rows, from + 999_999);
        db.execute("large", "INSERT INTO public.items SELECT g, 'item-' || g, (g % 1000)::int, (g % 100000) / 100.0,"
            + " timestamptz '2026-01-01' + g * interval '1 second', 'note ' || md5(g::text), g % 2 = 0"
            + " FROM generate_series(" + from + ", " + to + ") g");
      }
      System.out.printf(Locale.ROOT, "source table: %,d rows in %.0f s%n", rows, (System.nanoTime() - t0) / 1e9);

      PackagedUp up = PackagedUp.start(root, data);
      try {
        long dataPlane = up.plane("data");
        Rest rest = new Rest(up.url("connect"));
        Map<String, String> source = db.sourceConfig("large", "large");
        rest.create("large-source", source);
        // Both sinks read a topic that already holds the whole snapshot, so neither shares the CPU with the source.
        long s0 = System.nanoTime();
        awaitTopic("127.0.0.1:" + up.ports().get("kafka"), "large.public.items", rows);
        System.out.printf(Locale.ROOT, "snapshot in Kafka: %,d events in %.0f s%n", rows, (System.nanoTime() - s0) / 1e9);
        Map<String, String> sluice = sink(db, "sink_sluice", "io.sluice.sink.jdbc.SluiceJdbcSinkConnector");
        Result s = run("Sluice's JDBC sink", rest, db, "sink_sluice", "large-sluice-sink", sluice, rows, dataPlane);

        long c0 = System.nanoTime();
        db.execute("large", "INSERT INTO public.items VALUES (" + (rows + 1) + ", 'after', 1, 1.00, now(), null, true)");
        while (db.count("sink_sluice", "items WHERE id = " + (rows + 1)) == 0) {
          Thread.sleep(20);
        }
        double changeSeconds = (System.nanoTime() - c0) / 1e9;
        Process reconcile = new ProcessBuilder(root.resolve("sluice").toString(), "reconcile",
            "--source", db.url("large") + "?user=postgres&password=postgres",
            "--sink", db.url("sink_sluice") + "?user=postgres&password=postgres", "--table", "public.items")
            .redirectErrorStream(true).redirectOutput(data.resolve("reconcile.txt").toFile()).start();
        int equal = reconcile.waitFor();

        Map<String, String> debezium = sink(db, "sink_debezium", "io.debezium.connector.jdbc.JdbcSinkConnector");
        Result d = run("Debezium's JdbcSinkConnector", rest, db, "sink_debezium", "large-debezium-sink", debezium,
            rows, dataPlane);

        System.out.printf(Locale.ROOT, "%n| %,d-row table, PostgreSQL -> Kafka -> Sluice's JDBC sink on the default "
            + "sluice up | %,.0f rows/s; data plane old generation after a full collection %s; a change after the "
            + "snapshot arrived in %.2f s; reconcile exit %d | Debezium's JdbcSinkConnector, same topic, same run: "
            + "%,.0f rows/s; old generation %s | %.2fx the rows/s |%n", rows, s.rowsPerSecond, s.oldGen(),
            changeSeconds, equal, d.rowsPerSecond, d.oldGen(), s.rowsPerSecond / d.rowsPerSecond);
        System.out.println(Files.readString(data.resolve("reconcile.txt")));
      } finally {
        up.stop();
      }
    }
    System.exit(0);
  }

  record Result(double rowsPerSecond, Map<Long, Double> oldGenMb) {
    String oldGen() {
      List<String> out = new ArrayList<>();
      oldGenMb.forEach((at, mb) -> out.add(String.format(Locale.ROOT, "%,d rows %.0f MB", at, mb)));
      return String.join(", ", out);
    }
  }

  private static Map<String, String> sink(BenchDatabase db, String database, String connectorClass) {
    Map<String, String> c = new HashMap<>();
    c.put("connector.class", connectorClass);
    c.put("connection.url", db.url(database));
    c.put("connection.username", "postgres");
    c.put("connection.password", "postgres");
    c.put("insert.mode", "upsert");
    c.put("delete.enabled", "true");
    c.put("primary.key.mode", "record_key");
    c.put("schema.evolution", "basic");
    c.put("tasks.max", "1");
    c.put("topics", "large.public.items");
    c.put("collection.name.format", "items");
    return c;
  }

  /** Writes the whole topic with one sink, measuring as it goes; the sink is deleted afterwards. */
  private static Result run(String what, Rest rest, BenchDatabase db, String database, String name,
      Map<String, String> config, long rows, long dataPlane) throws Exception {
    long t0 = System.nanoTime();
    rest.create(name, config);
    Map<Long, Double> oldGen = new TreeMap<>();
    int next = 0;
    long seen = 0;
    long lastChange = System.nanoTime();
    while (seen < rows) {
      Thread.sleep(2_000);
      long now = db.count(database, "items");
      if (now != seen) {
        lastChange = System.nanoTime();
      } else if (System.nanoTime() - lastChange > 300_000_000_000L) {
        throw new IllegalStateException(what + " stalled at " + now + " of " + rows + " rows");
      }
      seen = now;
      while (next < MILESTONES.length && MILESTONES[next] <= rows && seen >= MILESTONES[next]) {
        oldGen.put(MILESTONES[next], oldGenAfterFullGc(dataPlane));
        System.out.printf(Locale.ROOT, "  %s: %,d rows, old generation %.0f MB after a full collection%n", what,
            MILESTONES[next], oldGen.get(MILESTONES[next]));
        next++;
      }
    }
    double rps = rows / ((System.nanoTime() - t0) / 1e9);
    if (!oldGen.containsKey(rows)) {
      oldGen.put(rows, oldGenAfterFullGc(dataPlane));
    }
    System.out.printf(Locale.ROOT, "%s: %,d rows at %,.0f rows/s%n", what, rows, rps);
    return new Result(rps, oldGen);
  }

  /** Waits until {@code topic} holds at least {@code records}. */
  private static void awaitTopic(String bootstrap, String topic, long records) throws Exception {
    try (org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]> c =
        new org.apache.kafka.clients.consumer.KafkaConsumer<>(Map.of("bootstrap.servers", bootstrap),
            new org.apache.kafka.common.serialization.ByteArrayDeserializer(),
            new org.apache.kafka.common.serialization.ByteArrayDeserializer())) {
      org.apache.kafka.common.TopicPartition tp = new org.apache.kafka.common.TopicPartition(topic, 0);
      while (c.endOffsets(List.of(tp)).getOrDefault(tp, 0L) < records) {
        Thread.sleep(1_000);
      }
    }
  }

  /** {@code jcmd PID GC.run}, then the old generation's use from {@code jstat -gc}, in MB. */
  static double oldGenAfterFullGc(long pid) throws Exception {
    Path bin = Path.of(System.getProperty("java.home"), "bin");
    new ProcessBuilder(bin.resolve("jcmd").toString(), String.valueOf(pid), "GC.run")
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
    Process p = new ProcessBuilder(bin.resolve("jstat").toString(), "-gc", String.valueOf(pid))
        .redirectErrorStream(true).start();
    List<String> lines = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
    p.waitFor();
    List<String> head = List.of(lines.get(0).trim().split("\\s+"));
    String[] values = lines.get(1).trim().split("\\s+");
    return Double.parseDouble(values[head.indexOf("OU")]) / 1024;
  }
}
