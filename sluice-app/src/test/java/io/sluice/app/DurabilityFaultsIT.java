package io.sluice.app;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.app.PackagedSluice.Run;
import io.sluice.app.SluiceNodes.Node;
import io.sluice.connect.testing.Eventually;
import io.sluice.connect.testing.Pipeline;
import io.sluice.connect.testing.SharedPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The durability goal, in the {@code cluster-faults} profile: 1,000,000 changes (inserts, updates, deletes) from
 * PostgreSQL through three Sluice nodes on three {@code sluice kafka} brokers into a JDBC sink, while ten SIGKILLs hit
 * random Sluice nodes (each started again) and one hits a broker, spread over five minutes of paced load; at the
 * end the sink equals the source.
 */
class DurabilityFaultsIT {
  private static final long CHANGES = Long.getLong("sluice.durability.changes", 1_000_000);
  private static final int KILLS = 10;
  /** The load is paced over this long, so that the faults fall while changes flow (a node takes ~25 s to restart). */
  private static final Duration LOAD_TIME = Duration.ofMinutes(5);
  @TempDir static Path dir;
  private static final List<Process> brokers = new ArrayList<>();
  private static SluiceNodes cluster;
  @RegisterExtension static final FailedRunLogs LOGS = new FailedRunLogs(() -> cluster);

  @AfterAll
  static void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
    // All at once: a broker stopped after the others would wait for a quorum that is gone.
    brokers.forEach(Process::destroy);
    for (Process p : brokers) {
      p.waitFor(90, java.util.concurrent.TimeUnit.SECONDS);
    }
  }

  private static long count(String db) throws Exception {
    try (Connection c = SharedPostgres.connect(db); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*), coalesce(sum(qty), 0) FROM orders")) {
      rs.next();
      return rs.getLong(1) * 1_000_003L + rs.getLong(2);
    } catch (java.sql.SQLException e) {
      return -1;
    }
  }

  @Test
  @Timeout(value = 40, unit = java.util.concurrent.TimeUnit.MINUTES)
  void aMillionChangesThroughTenNodeKillsAndABrokerKillArriveWhole() throws Exception {
    int[] ports = {PackagedSluice.freePort(), PackagedSluice.freePort(), PackagedSluice.freePort()};
    String voters = "1@127.0.0.1:" + PackagedSluice.freePort() + ",2@127.0.0.1:" + PackagedSluice.freePort()
        + ",3@127.0.0.1:" + PackagedSluice.freePort();
    for (int i = 0; i < 3; i++) {
      brokers.add(SluiceNodes.broker(dir, i + 1, ports[i], voters));
    }
    for (int i = 0; i < 3; i++) {
      SluiceNodes.awaitBroker(dir, i + 1, brokers.get(i));
    }
    String bootstrap = "127.0.0.1:" + ports[0] + ",127.0.0.1:" + ports[1] + ",127.0.0.1:" + ports[2];
    cluster = new SluiceNodes(dir, bootstrap);
    List<Node> nodes = new ArrayList<>();
    for (String name : List.of("a", "b", "c")) {
      nodes.add(cluster.start(name));
    }

    // The pipeline from PipelineLoad; the load is this test's own, paced.
    Pipeline pipeline = PipelineLoad.create("d", nodes.get(0).url("connect"), 0).pipeline;

    AtomicLong changes = new AtomicLong();
    AtomicBoolean loading = new AtomicBoolean(true);
    final long started = System.nanoTime();
    Thread load = new Thread(() -> {
      int next = 1;
      while (changes.get() < CHANGES) {
        long dueMs = changes.get() * LOAD_TIME.toMillis() / CHANGES;
        long aheadMs = dueMs - (System.nanoTime() - started) / 1_000_000;
        if (aheadMs > 0) {
          try {
            Thread.sleep(aheadMs);
          } catch (InterruptedException e) {
            return;
          }
        }
        pipeline.insert(next, next + 999);
        pipeline.execute(pipeline.sourceDb, "UPDATE orders SET qty = qty + 1 WHERE id BETWEEN " + (next - 300)
            + " AND " + (next + 99));
        pipeline.execute(pipeline.sourceDb, "DELETE FROM orders WHERE id BETWEEN " + (next - 500) + " AND "
            + (next - 401));
        changes.addAndGet(1000 + 400 + 100);
        next += 1000;
      }
      loading.set(false);
    }, "durability-load");
    load.start();

    // The faults, spread over the load: ten node kills (each node started again), and broker 3 killed and back.
    Random random = new Random(42);
    List<String> log = new ArrayList<>();
    for (int k = 0; k < KILLS; k++) {
      long dueNanos = started + LOAD_TIME.toNanos() * (k + 1) / (KILLS + 1);
      while (System.nanoTime() < dueNanos && loading.get()) {
        Thread.sleep(200);
      }
      int i = random.nextInt(nodes.size());
      Node victim = nodes.get(i);
      SluiceNodes.kill(victim);
      log.add("kill -9 node " + victim.name() + " at " + changes.get() + " changes");
      if (k == KILLS / 2) {
        brokers.get(2).destroyForcibly().waitFor();
        log.add("kill -9 broker 3 at " + changes.get() + " changes");
        Thread.sleep(5000);
        brokers.set(2, SluiceNodes.broker(dir, 3, ports[2], voters));
        SluiceNodes.awaitBroker(dir, 3, brokers.get(2));
      }
      nodes.set(i, cluster.restart(victim));
    }
    load.join();
    long loaded = (System.nanoTime() - started) / 1_000_000;
    long expected = count(pipeline.sourceDb);
    Eventually.await("the sink caught up with " + changes.get() + " changes", Duration.ofMinutes(20),
        () -> {
          try {
            return count(pipeline.sinkDb);
          } catch (Exception e) {
            return -1L;
          }
        }, n -> n == expected);
    long caughtUp = (System.nanoTime() - started) / 1_000_000;
    String src = SharedPostgres.jdbcUrl(pipeline.sourceDb) + "?user=postgres&password=postgres";
    String dst = SharedPostgres.jdbcUrl(pipeline.sinkDb) + "?user=postgres&password=postgres";
    Run equal = PackagedSluice.run(dir, "reconcile", "--source", src, "--sink", dst, "--table", "public.orders",
        "--lag-window", "10s");
    assertEquals(0, equal.exit(), equal::toString);
    System.out.println("DurabilityFaultsIT: " + changes.get() + " changes loaded in " + loaded + " ms, sink equal "
        + caughtUp + " ms after the start; " + String.join("; ", log));
  }
}
