package io.sluice.bench.platform;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A long run at a steady load ({@code bench/run SoakBenchmark [MINUTES [CHANGES_PER_SECOND [PIPELINES]]]}, default 30
 * minutes, 2,000 changes/s, 20 pipelines) on one default packaged {@code ./sluice up}: PostgreSQL → Debezium →
 * Kafka → Sluice's JDBC sink, a table, slot and publication per pipeline, the changes spread evenly (inserts, updates,
 * deletes). At minute 5 and at the end, what each plane's heap retains after a full collection ({@code jcmd GC.run},
 * {@code jstat -gc}): memory that grows with time rather than with configuration shows as the difference. At the end
 * the load stops and {@code sluice reconcile} compares every table.
 */
public final class SoakBenchmark {
  public static void main(String[] args) throws Exception {
    int minutes = args.length > 0 ? Integer.parseInt(args[0]) : 30;
    int rate = args.length > 1 ? Integer.parseInt(args[1]) : 2_000;
    int pipelines = args.length > 2 ? Integer.parseInt(args[2]) : 20;
    Path root = Path.of(System.getProperty("sluice.root", ".")).toAbsolutePath();
    Path data = Files.createTempDirectory("sluice-soak");
    try (BenchDatabase db = new BenchDatabase(pipelines + 8)) {
      db.createDatabase("soak");
      db.createDatabase("soak_sink");
      for (int i = 0; i < pipelines; i++) {
        db.execute("soak", "CREATE TABLE public.s" + i + " (id bigint PRIMARY KEY, qty int NOT NULL, note text)");
        db.execute("soak", "INSERT INTO public.s" + i + " SELECT g, g, 'row ' || g FROM generate_series(1, 1000) g");
        // A publication of its own, made here: Debezium's filtered mode would read pg_publication_tables on its
        // replication connection at every task start, which can crash PostgreSQL (docs/pipelines.md).
        db.execute("soak", "CREATE PUBLICATION pub_k" + i + " FOR TABLE public.s" + i);
      }
      PackagedUp up = PackagedUp.start(root, data);
      try {
        Rest rest = new Rest(up.url("connect"));
        for (int i = 0; i < pipelines; i++) {
          Map<String, String> source = db.sourceConfig("soak", "k" + i);
          source.put("table.include.list", "public.s" + i);
          source.put("publication.name", "pub_k" + i);
          source.put("publication.autocreate.mode", "disabled");
          rest.create("k" + i + "-source", source);
          rest.create("k" + i + "-sink", Map.of("connector.class", "io.sluice.sink.jdbc.SluiceJdbcSinkConnector",
              "connection.url", db.url("soak_sink"), "connection.username", "postgres",
              "connection.password", "postgres", "insert.mode", "upsert", "delete.enabled", "true",
              "primary.key.mode", "record_key", "schema.evolution", "basic", "topics", "k" + i + ".public.s" + i,
              "collection.name.format", "s" + i));
        }
        for (int i = 0; i < pipelines; i++) {
          rest.awaitRunning("k" + i + "-source");
          rest.awaitRunning("k" + i + "-sink");
        }
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong changes = new AtomicLong();
        Thread load = new Thread(() -> load(db, pipelines, rate, running, changes), "soak-load");
        load.start();
        long t0 = System.nanoTime();
        long dataPid = up.plane("data");
        long controlPid = up.plane("control");
        sleepUntil(t0, 5);
        double data5 = LargeSnapshot.oldGenAfterFullGc(dataPid);
        double control5 = LargeSnapshot.oldGenAfterFullGc(controlPid);
        System.out.printf(Locale.ROOT, "minute 5: %,d changes; old generation after a full collection: data plane "
            + "%.1f MB, control plane %.1f MB%n", changes.get(), data5, control5);
        for (int m = 10; m < minutes; m += 5) {
          sleepUntil(t0, m);
          System.out.printf(Locale.ROOT, "minute %d: %,d changes (%.0f/s)%n", m, changes.get(),
              changes.get() / ((System.nanoTime() - t0) / 1e9));
        }
        sleepUntil(t0, minutes);
        double dataEnd = LargeSnapshot.oldGenAfterFullGc(dataPid);
        double controlEnd = LargeSnapshot.oldGenAfterFullGc(controlPid);
        running.set(false);
        load.join();
        double achieved = changes.get() / ((System.nanoTime() - t0) / 1e9);
        System.out.printf(Locale.ROOT, "minute %d: %,d changes (%.0f/s); data plane %.1f MB, control plane %.1f MB%n",
            minutes, changes.get(), achieved, dataEnd, controlEnd);
        int equal = 0;
        long w0 = System.nanoTime();
        for (int i = 0; i < pipelines; i++) {
          while (db.count("soak_sink", "s" + i) != db.count("soak", "public.s" + i)
              && System.nanoTime() - w0 < 600_000_000_000L) {
            Thread.sleep(500);
          }
          Process reconcile = new ProcessBuilder(root.resolve("sluice").toString(), "reconcile",
              "--source", db.url("soak") + "?user=postgres&password=postgres",
              "--sink", db.url("soak_sink") + "?user=postgres&password=postgres", "--table", "public.s" + i)
              .redirectErrorStream(true).redirectOutput(data.resolve("reconcile-" + i + ".txt").toFile()).start();
          if (reconcile.waitFor() == 0) {
            equal++;
          } else {
            System.out.println(Files.readString(data.resolve("reconcile-" + i + ".txt")));
          }
        }
        System.out.printf(Locale.ROOT, "%n| soak: %d minutes at %,d changes/s over %d pipelines on one default sluice "
            + "up (achieved %,.0f/s, %,d changes) | retained heap after a full collection at minute %d: data plane "
            + "%.1f MB, control plane %.1f MB; reconcile equal for %d of %d tables | the same at minute 5: data plane "
            + "%.1f MB, control plane %.1f MB | data plane %+.1f %%, control plane %+.1f %% (target within 10 %%) |%n",
            minutes, rate, pipelines, achieved, changes.get(), minutes, dataEnd, controlEnd, equal, pipelines, data5,
            control5, (dataEnd - data5) / data5 * 100, (controlEnd - control5) / control5 * 100);
      } finally {
        up.stop();
      }
    }
    System.exit(0);
  }

  /**
   * {@code rate} changes a second spread over the tables: of every ten, five updates of an existing row, three
   * inserts and two deletes of rows inserted earlier, so the tables grow slowly and every kind of change flows.
   */
  private static void load(BenchDatabase db, int tables, int rate, AtomicBoolean running, AtomicLong changes) {
    long[] next = new long[tables];
    long[] oldest = new long[tables];
    java.util.Arrays.fill(next, 1001);
    java.util.Arrays.fill(oldest, 1);
    try (Connection c = DriverManager.getConnection(db.url("soak"), "postgres", "postgres");
        Statement s = c.createStatement()) {
      long start = System.nanoTime();
      long done = 0;
      while (running.get()) {
        for (int batch = 0; batch < 10; batch++) {
          int t = (int) (done % tables);
          int kind = (int) ((done / tables) % 10);
          String table = "public.s" + t;
          if (kind < 5) {
            s.addBatch("UPDATE " + table + " SET qty = qty + 1 WHERE id = " + (oldest[t] + done % 500));
          } else if (kind < 8) {
            s.addBatch("INSERT INTO " + table + " VALUES (" + next[t]++ + ", 1, 'soak')");
          } else {
            s.addBatch("DELETE FROM " + table + " WHERE id = " + oldest[t]++);
          }
          done++;
        }
        s.executeBatch();
        changes.addAndGet(10);
        long due = start + done * 1_000_000_000L / rate;
        long wait = due - System.nanoTime();
        if (wait > 0) {
          Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
        }
      }
    } catch (Exception e) {
      System.out.println("load stopped: " + e);
    }
  }

  private static void sleepUntil(long t0, int minute) throws InterruptedException {
    long wait = t0 + minute * 60_000_000_000L - System.nanoTime();
    if (wait > 0) {
      Thread.sleep(wait / 1_000_000);
    }
  }
}
