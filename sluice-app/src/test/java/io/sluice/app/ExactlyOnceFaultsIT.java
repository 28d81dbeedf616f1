package io.sluice.app;

import static io.sluice.app.SluiceNodes.get;
import static io.sluice.app.SluiceNodes.send;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.app.DeliveryCheck.Tally;
import io.sluice.app.SluiceNodes.Node;
import io.sluice.connect.testing.BinlogMariaDb;
import io.sluice.connect.testing.Eventually;
import io.sluice.connect.testing.Pipeline;
import io.sluice.connect.testing.PostgresSource;
import io.sluice.connect.testing.SharedPostgres;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exactly once, proven through faults (issue #41 §3), in the {@code cluster-faults} profile: a known history of
 * changes ({@link ChangeHistory}: inserts and updates in transactions of 1 to 20 changes, one in ten rolled back,
 * every change with a sequence value of its own) is written at a steady rate to PostgreSQL and to MariaDB while their
 * sources, on two Sluice nodes over three {@code sluice kafka} brokers, go through one fault after another: the kill -9
 * of every node's data plane (every task mid-transaction), of the broker leading the PostgreSQL topic, of the broker
 * coordinating the PostgreSQL task's transactions, of the node running the MariaDB task (the task moves to the other
 * node, whose leader fences the old one), and of the PostgreSQL task's node and coordinator together. Then
 * {@link DeliveryCheck} reads each topic as a read-committed consumer and counts, per fault, the changes written,
 * delivered once, duplicated, missing and out of order per key: with exactly once on (Sluice's default) every change
 * must arrive once, in order, with nothing of a rolled back transaction. The same histories through the same faults
 * with exactly once off (the engines' defaults: the worker without exactly-once source support, the sources not asking
 * for it) are the baseline, reported beside it and not asserted: the duplicates it counts are what users gain. The
 * figures go to {@code sluice-app/target/exactly-once-faults.md}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 30, unit = TimeUnit.MINUTES)
class ExactlyOnceFaultsIT {
  /** Changes a second each source's history is written at, through every fault. */
  private static final int RATE = 300;
  /** How long the load runs before each fault: the source is mid-stream, with transactions open. */
  private static final Duration BEFORE = Duration.ofSeconds(8);
  /** How long a killed broker stays down. */
  private static final Duration DOWN = Duration.ofSeconds(10);
  private static final Duration WAIT = Duration.ofSeconds(180);
  /** How long a check waits for a topic that stopped growing before it calls the rest missing. */
  private static final Duration QUIET = Duration.ofSeconds(90);
  private static final String GROUP = "sluice";
  @TempDir static Path dir;
  private static final List<Process> brokers = new ArrayList<>();
  private static final int[] ports = new int[3];
  private static String voters;
  private static String bootstrap;
  private static SluiceNodes cluster;
  private static final List<Node> nodes = new ArrayList<>();
  private static BinlogMariaDb mariaDb;
  @RegisterExtension static final FailedRunLogs LOGS = new FailedRunLogs(() -> cluster);
  /** Each run's rows for the report: run title → its faults, in order. */
  private static final Map<String, List<Row>> report = new LinkedHashMap<>();
  /** The broker the exactly-once run found coordinating its task's transactions; the baseline kills the same. */
  private static int coordinatorBroker = 3;

  /** One fault of a run: what was done, the part of each source's history it covers, what was seen. */
  private static final class Fault {
    final String name;
    final Map<Source, Long> from = new LinkedHashMap<>();
    final Map<Source, Long> to = new LinkedHashMap<>();
    String note = "";

    Fault(String name) {
      this.name = name;
    }
  }

  /** One row of the report: a source, a fault and its tally, read committed and read uncommitted. */
  private record Row(String source, String fault, String note, Tally committed, Tally uncommitted) {}

  @BeforeAll
  static void start() throws Exception {
    voters = "1@127.0.0.1:" + PackagedSluice.freePort() + ",2@127.0.0.1:" + PackagedSluice.freePort()
        + ",3@127.0.0.1:" + PackagedSluice.freePort();
    for (int i = 0; i < 3; i++) {
      ports[i] = PackagedSluice.freePort();
      brokers.add(SluiceNodes.broker(dir, i + 1, ports[i], voters));
    }
    for (int i = 0; i < 3; i++) {
      SluiceNodes.awaitBroker(dir, i + 1, brokers.get(i));
    }
    bootstrap = "127.0.0.1:" + ports[0] + ",127.0.0.1:" + ports[1] + ",127.0.0.1:" + ports[2];
    cluster = new SluiceNodes(dir, bootstrap);
    for (String name : List.of("a", "b")) {
      nodes.add(cluster.start(name));
    }
    Pipeline.ensureCdcUser();
    mariaDb = BinlogMariaDb.start(Files.createDirectories(dir.resolve("mariadb")), "the exactly-once fault checker");
  }

  @AfterAll
  static void stop() throws Exception {
    writeReport();
    if (cluster != null) {
      cluster.close();
    }
    if (mariaDb != null) {
      mariaDb.close();
    }
    // All at once: a broker stopped after the others would wait for a quorum that is gone.
    brokers.forEach(Process::destroy);
    for (Process p : brokers) {
      p.waitFor(90, TimeUnit.SECONDS);
    }
  }

  @Test
  @Order(1)
  void withExactlyOnceOnEveryChangeArrivesOnceInOrderThroughEveryFault() throws Exception {
    List<Row> rows = run("exactly once (Sluice's default)", "eos", true);
    List<String> wrong = rows.stream().filter(r -> !r.committed().exact())
        .map(r -> r.source() + ", " + r.fault() + ": " + r.committed() + " (" + r.note() + ")").toList();
    assertTrue(wrong.isEmpty(), "not exactly once: " + wrong);
  }

  @Test
  @Order(2)
  void withExactlyOnceOffTheSameFaultsAreReportedAsTheBaseline() throws Exception {
    // The engines' defaults: every worker started again without exactly-once source support, so that the source is
    // given nothing and Connect's own default applies.
    for (int i = 0; i < nodes.size(); i++) {
      Node n = nodes.get(i);
      if (n.up().process().isAlive()) {
        assertEquals(0, PackagedSluice.down(n.up()), "node " + n.name() + " stops cleanly");
      }
    }
    for (int i = 0; i < nodes.size(); i++) {
      nodes.set(i, cluster.start(nodes.get(i).name(), "--set",
          "connect.worker.exactly.once.source.support=disabled"));
    }
    List<Row> rows = run("at least once (exactly once off: the engines' defaults)", "alo", false);
    // Reported, not asserted; but the run must have written and read a history to be a baseline at all.
    assertTrue(rows.stream().mapToLong(r -> r.committed().written()).sum() > 0);
  }

  /**
   * Creates a PostgreSQL and a MariaDB source on the cluster, writes each one's history through every fault, reads
   * their topics and returns each fault's tallies, as it also adds them to the report under {@code title}.
   */
  private static List<Row> run(String title, String name, boolean exactlyOnce) throws Exception {
    List<Source> sources = List.of(Source.postgres(name, exactlyOnce), Source.mariaDb(name, exactlyOnce));
    return new Run(sources, exactlyOnce).through(title);
  }

  /** One source of a run: its database's history, its connector and topic, and the checks of its topic. */
  private static final class Source {
    final String engine;
    final String connector;
    final String topic;
    final ChangeHistory history;
    final DeliveryCheck committed;
    final DeliveryCheck uncommitted;

    private Source(String engine, String connector, String topic, ChangeHistory history, Map<String, String> config,
        boolean exactlyOnce) throws Exception {
      this.engine = engine;
      this.connector = connector;
      this.topic = topic;
      this.history = history;
      HttpResponse<String> created = send("POST", nodes.get(0).url("connect") + "/connectors",
          Map.of("name", connector, "config", config));
      assertEquals(201, created.statusCode(), created.body());
      JsonNode stored = get(nodes.get(0).url("connect") + "/connectors/" + connector + "/config");
      assertEquals(exactlyOnce ? "required" : "", stored.path("exactly.once.support").asText(), stored.toString());
      committed = new DeliveryCheck(history, bootstrap, topic, "read_committed");
      uncommitted = new DeliveryCheck(history, bootstrap, topic, "read_uncommitted");
    }

    static Source postgres(String name, boolean exactlyOnce) throws Exception {
      String db = name + "_" + ProcessHandle.current().pid();
      SharedPostgres.createDatabase(db);
      ChangeHistory history = new ChangeHistory(() -> SharedPostgres.connect(db), RATE, 41);
      Map<String, String> config = PostgresSource.of(db, db, db + "_slot").tables("public." + ChangeHistory.TABLE)
          .config();
      return new Source("PostgreSQL", name + "-pg", db + ".public." + ChangeHistory.TABLE, history, config,
          exactlyOnce);
    }

    static Source mariaDb(String name, boolean exactlyOnce) throws Exception {
      String db = name + "_" + ProcessHandle.current().pid();
      mariaDb.execute("CREATE DATABASE " + db);
      String url = "jdbc:mariadb://127.0.0.1:" + mariaDb.port() + "/" + db + "?user=root";
      ChangeHistory history = new ChangeHistory(() -> DriverManager.getConnection(url), RATE, 43);
      String prefix = "m_" + db;
      Map<String, String> config = new LinkedHashMap<>(mariaDb.sourceConfig(prefix, exactlyOnce ? "5401" : "5402"));
      config.put("database.include.list", db);
      config.put("table.include.list", db + "." + ChangeHistory.TABLE);
      return new Source("MariaDB", name + "-mariadb", prefix + "." + db + "." + ChangeHistory.TABLE, history, config,
          exactlyOnce);
    }
  }

  /** One run: its sources, their histories and checks, through the faults. */
  private static final class Run {
    final boolean exactlyOnce;
    final List<Source> sources;
    /** The source whose task the faults aim at: its node, its transaction coordinator, its topic's leader. */
    final Source aimed;
    final String connector;
    final List<Fault> faults = new ArrayList<>();

    Run(List<Source> sources, boolean exactlyOnce) {
      this.exactlyOnce = exactlyOnce;
      this.sources = sources;
      this.aimed = sources.get(0);
      this.connector = aimed.connector;
    }

    List<Row> through(String title) throws Exception {
      // The histories start once each source streams: a change written while a source snapshots could be both in its
      // snapshot and streamed after it (a MariaDB source without locks reads its binlog position apart from its
      // snapshot), which would count against the faults what the start did.
      for (Source s : sources) {
        taskNode(s.connector, null);
        Eventually.await(s.connector + "'s snapshot completed", WAIT, () -> snapshotCompleted(s.connector), ok -> ok);
      }
      sources.forEach(s -> s.history.start());
      try {
        for (Source s : sources) {
          assertTrue(s.committed.awaitDelivered(1, WAIT), s.engine + ": the first changes never arrived");
        }
        fault("kill -9 of every node's data plane (every task mid-transaction)", this::killDataPlanes);
        fault("kill -9 of the broker leading the PostgreSQL topic", f -> {
          int leader = leader();
          f.note = "broker " + leader;
          killBroker(leader);
        });
        fault("kill -9 of the PostgreSQL task's transaction coordinator", f -> {
          int broker = coordinator();
          f.note = "broker " + broker + (exactlyOnce ? "" : " (no transactions: the exactly-once run's coordinator)");
          killBroker(broker);
        });
        fault("kill -9 of the node running the MariaDB task: it moves to the other", f -> killNode(f,
            sources.get(1), 0));
        fault("mixed: the PostgreSQL task's node and coordinator killed -9 together", f -> killNode(f, aimed,
            coordinator()));
      } finally {
        for (Source s : sources) {
          s.history.close();
        }
      }
      List<Row> rows = new ArrayList<>();
      for (Source s : sources) {
        long end = s.history.ended();
        faults.get(faults.size() - 1).to.put(s, end);
        boolean all = s.committed.awaitDelivered(s.history.lastCommitted(), QUIET);
        s.uncommitted.awaitDelivered(s.history.lastCommitted(), QUIET);
        // Anything a late retry would add after the last change: read once more after a pause.
        Thread.sleep(3000);
        s.committed.read();
        s.uncommitted.read();
        for (Fault f : faults) {
          long from = f.from.get(s);
          long to = f.to.get(s);
          String where = s.committed.where(from, to);
          Row row = new Row(s.engine, f.name, f.note + (where.isEmpty() ? "" : "; sequence values " + where),
              s.committed.tally(from, to), s.uncommitted.tally(from, to));
          rows.add(row);
          System.out.println("ExactlyOnceFaultsIT: " + title + " | " + s.engine + " | " + f.name + " (" + row.note()
              + "): " + row.committed() + "; read uncommitted: " + row.uncommitted());
        }
        rows.add(new Row(s.engine, "all", String.format("%,d changes of rolled back transactions written too; %,d"
            + " records read committed, %,d read uncommitted; %d records unknown to the history%s",
            s.history.rolledBackChanges(), s.committed.records(), s.uncommitted.records(), s.committed.unknown(),
            all ? "" : "; the last committed change never arrived"),
            s.committed.tally(1, end), s.uncommitted.tally(1, end)));
        System.out.println("ExactlyOnceFaultsIT: " + title + " | " + s.engine + " | all: " + rows.get(rows.size() - 1));
      }
      report.put(title, rows);
      writeReport();
      for (Source s : sources) {
        assertEquals(0, s.committed.unknown(), s.engine + ": records that match no change of the history");
        HttpResponse<String> deleted = send("DELETE", nodes.get(0).url("connect") + "/connectors/" + s.connector,
            null);
        assertEquals(204, deleted.statusCode(), deleted.body());
      }
      return rows;
    }

    /**
     * Lets the load run for {@link #BEFORE}, inflicts {@code step}, and waits until each topic holds every change
     * committed by then: the fault covers each history from the end of the one before to there.
     */
    private void fault(String name, Step step) throws Exception {
      Fault f = new Fault(name);
      for (Source s : sources) {
        f.from.put(s, faults.isEmpty() ? 1 : faults.get(faults.size() - 1).to.get(s) + 1);
      }
      faults.add(f);
      Thread.sleep(BEFORE.toMillis());
      long at = System.nanoTime();
      step.run(f);
      List<String> late = new ArrayList<>();
      for (Source s : sources) {
        long upTo = s.history.lastCommitted();
        if (!s.committed.awaitDelivered(upTo, QUIET)) {
          late.add(s.engine);
        }
        f.to.put(s, upTo);
        s.history.check();
      }
      f.note += (f.note.isEmpty() ? "" : "; ") + String.format("caught up %.0f s after the fault",
          (System.nanoTime() - at) / 1e9) + (late.isEmpty() ? "" : ", except " + late + ", which never did");
    }

    /** Whether a node's exporter says that {@code connector}'s snapshot completed. */
    private static boolean snapshotCompleted(String connector) {
      for (Node n : nodes) {
        try {
          HttpResponse<String> metrics = send("GET", n.url("exporter") + "/metrics", null);
          if (metrics.body().lines().anyMatch(l -> l.startsWith("svc_debezium_snapshot_completed{")
              && l.contains("connector=\"" + connector + "\"") && l.matches(".* 1(\\.0)?$"))) {
            return true;
          }
        } catch (Exception e) {
          // Not answering: ask the next.
        }
      }
      return false;
    }

    /**
     * The node whose worker runs task 0 of {@code connector}, once it runs on a node other than {@code not} (as the
     * first node that answers sees it).
     */
    private static Node taskNode(String connector, Node not) {
      return Eventually.await(connector + "'s task running", WAIT, () -> {
        for (Node n : nodes) {
          if (!n.up().process().isAlive()) {
            continue;
          }
          try {
            JsonNode task = get(n.url("connect") + "/connectors/" + connector + "/status").at("/tasks/0");
            if (task.path("state").asText().equals("RUNNING")) {
              String worker = task.path("worker_id").asText();
              return nodes.stream().filter(m -> m.authority("connect").equals(worker) && m != not).findFirst()
                  .orElse(null);
            }
          } catch (Exception e) {
            // Not answering (starting again): ask the next.
          }
        }
        return null;
      }, n -> n != null);
    }

    /**
     * kill -9 of every node's data plane at once, as of a single {@code sluice up}: every task stops mid-transaction;
     * each node's supervisor starts its plane again.
     */
    private void killDataPlanes(Fault f) throws Exception {
      Map<String, Node> ran = new LinkedHashMap<>();
      for (Source s : sources) {
        ran.put(s.engine, taskNode(s.connector, null));
      }
      List<ProcessHandle> planes = new ArrayList<>();
      for (Node n : nodes) {
        planes.add(PackagedSluice.plane(n.up(), "data"));
      }
      planes.forEach(ProcessHandle::destroyForcibly);
      planes.forEach(p -> p.onExit().join());
      long at = System.nanoTime();
      for (Node n : nodes) {
        // The supervisor starts it again, on the same ports.
        Eventually.await("node " + n.name() + "'s data plane back", WAIT, () -> {
          try {
            return send("GET", n.url("connect") + "/connectors", null).statusCode();
          } catch (Exception e) {
            return 0;
          }
        }, code -> code == 200);
      }
      double back = (System.nanoTime() - at) / 1e9;
      List<String> moves = new ArrayList<>();
      for (Source s : sources) {
        moves.add(s.engine + " on " + ran.get(s.engine).name() + ", then " + taskNode(s.connector, null).name());
      }
      f.note = String.format("back in %.0f s; tasks ", back) + String.join(", ", moves);
    }

    private int leader() throws Exception {
      try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
        return admin.describeTopics(List.of(aimed.topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(aimed.topic)
            .partitions().get(0).leader().id();
      }
    }

    /**
     * The broker coordinating the transactions of the source's task (transactional id {@code <group>-<connector>-0});
     * with exactly once off there are none, and the broker the exactly-once run found is taken.
     */
    private int coordinator() throws Exception {
      if (!exactlyOnce) {
        return coordinatorBroker;
      }
      String id = GROUP + "-" + connector + "-0";
      try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
        coordinatorBroker = admin.describeTransactions(List.of(id)).description(id).get(30, TimeUnit.SECONDS)
            .coordinatorId();
        return coordinatorBroker;
      }
    }

    /**
     * kill -9 of the node running {@code source}'s task, and of broker {@code broker} with it unless 0; the task must
     * come to run on the other node, then the killed one is started again (and the broker, after {@link #DOWN}).
     */
    private void killNode(Fault f, Source source, int broker) throws Exception {
      Node victim = taskNode(source.connector, null);
      if (broker > 0) {
        brokers.get(broker - 1).destroyForcibly().waitFor();
      }
      SluiceNodes.kill(victim);
      long at = System.nanoTime();
      Node runs = taskNode(source.connector, victim);
      double moved = (System.nanoTime() - at) / 1e9;
      if (broker > 0) {
        long left = DOWN.toNanos() - (System.nanoTime() - at);
        if (left > 0) {
          Thread.sleep(left / 1_000_000);
        }
        startBroker(broker);
      }
      nodes.set(nodes.indexOf(victim), cluster.restart(victim));
      f.note = (broker > 0 ? "broker " + broker + " and " : "") + "node " + victim.name() + ", which ran the "
          + source.engine + " task; it ran on " + runs.name() + String.format(" %.0f s after the kill", moved);
    }
  }

  /** kill -9 of broker {@code id}; started again after {@link #DOWN}. */
  private static void killBroker(int id) throws Exception {
    brokers.get(id - 1).destroyForcibly().waitFor();
    Thread.sleep(DOWN.toMillis());
    startBroker(id);
  }

  private static void startBroker(int id) throws Exception {
    brokers.set(id - 1, SluiceNodes.broker(dir, id, ports[id - 1], voters));
    SluiceNodes.awaitBroker(dir, id, brokers.get(id - 1));
  }

  /** A step of a run that may throw. */
  private interface Step {
    void run(Fault f) throws Exception;
  }

  /** The figures so far, as a Markdown table per run, in {@code sluice-app/target/exactly-once-faults.md}. */
  private static synchronized void writeReport() throws Exception {
    StringBuilder out = new StringBuilder("# Exactly once through faults\n\n").append("`ExactlyOnceFaultsIT`, ")
        .append(Instant.now()).append(String.format(": PostgreSQL and MariaDB → Debezium → Kafka on two Sluice nodes"
        + " and three `sluice kafka` brokers, %d changes/s into each database (inserts and updates in transactions of 1"
        + " to 20, one in ten rolled back), each fault after %d s of load. Read by a read-committed consumer; in brackets, what a consumer"
        + " left at Kafka's default (read_uncommitted) counts.%n", RATE, BEFORE.toSeconds()));
    for (Map.Entry<String, List<Row>> run : report.entrySet()) {
      out.append("\n## ").append(run.getKey()).append("\n\n| source | fault | written | delivered once | duplicated"
          + " | missing | out of order | of rolled back transactions | notes |\n|---|---|---|---|---|---|---|---|---|\n");
      for (Row r : run.getValue()) {
        Tally c = r.committed();
        Tally u = r.uncommitted();
        out.append(String.format("| %s | %s | %,d | %,d (%,d) | %,d (%,d) | %,d (%,d) | %,d (%,d) | %,d (%,d) | %s |%n",
            r.source(), r.fault(), c.written(), c.once(), u.once(), c.duplicated(), u.duplicated(), c.missing(), u.missing(),
            c.outOfOrder(), u.outOfOrder(), c.fromAborted(), u.fromAborted(), r.note()));
      }
    }
    Path file = PackagedSluice.root().resolve("sluice-app/target/exactly-once-faults.md");
    Files.createDirectories(file.getParent());
    Files.writeString(file, out);
  }
}
