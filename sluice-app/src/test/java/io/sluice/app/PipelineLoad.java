package io.sluice.app;

import static io.sluice.app.SluiceNodes.send;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.app.PackagedSluice.Run;
import io.sluice.connect.testing.Pipeline;
import io.sluice.connect.testing.SharedPostgres;
import io.sluice.connect.testing.SinkMismatch;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A pipeline on a Sluice cluster, PostgreSQL {@code orders} → Debezium → Kafka → Sluice's JDBC sink, and a load on its
 * source while the cluster tests inflict their faults: every 100 ms 20 inserts, a delete, and updates of the 20 rows
 * of the round before, about 410 changes a second however long it runs. A load that updated a third of the table each
 * round grew with the table until it asked more than two cores keep up with: PlaneIsolationIT spent 400 s of CPU on it
 * and the IT beside it waited, without proving more than a steady load does.
 */
final class PipelineLoad implements AutoCloseable {
  final Pipeline pipeline;
  final String source;
  private final String sink;
  private final AtomicBoolean running = new AtomicBoolean();
  private final AtomicBoolean held = new AtomicBoolean();
  /** Held by the load thread through a round of changes, so that a hold knows when the round in progress is over. */
  private final Object round = new Object();
  private Thread thread;
  private int next;

  /**
   * Where a failed comparison asks what the sink was doing: each node's Connect (node name → URL), and the Kafka
   * that holds the sink's consumer group; one Connect and no Kafka unless {@link #diagnoseOn} says more.
   */
  private Supplier<Map<String, String>> connectUrls;
  private String bootstrap;

  private PipelineLoad(Pipeline pipeline, String source, String sink, int rows, String connectUrl) {
    this.pipeline = pipeline;
    this.source = source;
    this.sink = sink;
    this.next = rows + 1;
    this.connectUrls = () -> Map.of("", connectUrl);
  }

  /**
   * A failed comparison asks every node in {@code connectUrls} (name → Connect URL, asked anew each time: nodes are
   * started again on other processes) for its connectors' and tasks' states, and {@code bootstrap}'s Kafka how much
   * of the topic the sink's consumer group has not committed, so that it can say whether rows are late or lost.
   */
  void diagnoseOn(Supplier<Map<String, String>> connectUrls, String bootstrap) {
    this.connectUrls = connectUrls;
    this.bootstrap = bootstrap;
  }

  /**
   * {@code rows} rows in the source, connectors {@code <name>-source} and {@code <name>-sink} created through
   * {@code connectUrl}, and the sink holding the snapshot.
   */
  static PipelineLoad create(String name, String connectUrl, int rows) throws Exception {
    Pipeline pipeline = new Pipeline(name.replace('-', '_') + "_" + ProcessHandle.current().pid());
    if (rows > 0) {
      pipeline.insert(1, rows);
    }
    Map<String, String> sink = new LinkedHashMap<>(pipeline.sinkConfig());
    sink.put("connector.class", "io.sluice.sink.jdbc.SluiceJdbcSinkConnector");
    assertEquals(201, send("POST", connectUrl + "/connectors", Map.of("name", name + "-source",
        "config", pipeline.sourceConfig(pipeline.name + "_slot", Map.of()))).statusCode());
    assertEquals(201, send("POST", connectUrl + "/connectors", Map.of("name", name + "-sink", "config", sink))
        .statusCode());
    pipeline.awaitSinkMatchesSource();
    return new PipelineLoad(pipeline, name + "-source", name + "-sink", rows, connectUrl);
  }

  void start() {
    running.set(true);
    thread = new Thread(() -> {
      while (running.get()) {
        synchronized (round) {
          if (!held.get()) {
            pipeline.insert(next, next + 19);
            pipeline.execute(pipeline.sourceDb,
                "UPDATE orders SET qty = qty + 1 WHERE id BETWEEN " + (next - 20) + " AND " + (next - 1));
            pipeline.execute(pipeline.sourceDb, "DELETE FROM orders WHERE id = " + (next - 150));
            next += 20;
          }
        }
        try {
          Thread.sleep(100);
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "pipeline-load");
    thread.start();
  }

  /**
   * Holds the load, waits for the sink and proves it equal with the packaged {@code sluice reconcile} run in
   * {@code dir}; a running load goes on afterwards.
   */
  void assertSinkEqualsSource(Path dir) throws Exception {
    holdRounds();
    try {
      awaitSink();
      String src = SharedPostgres.jdbcUrl(pipeline.sourceDb) + "?user=postgres&password=postgres";
      String dst = SharedPostgres.jdbcUrl(pipeline.sinkDb) + "?user=postgres&password=postgres";
      Run equal = PackagedSluice.run(dir, "reconcile", "--source", src, "--sink", dst, "--table", "public.orders");
      assertEquals(0, equal.exit(), equal::toString);
    } finally {
      held.set(false);
    }
  }

  /**
   * Holds the load and waits until the sink has every change made before it: the pipeline idles, nothing of it in
   * flight, until {@link #resume}.
   */
  void holdCaughtUp() {
    holdRounds();
    awaitSink();
  }

  /** The load goes on after {@link #holdCaughtUp}. */
  void resume() {
    held.set(false);
  }

  /** The sink equal to the source, or a failure that says whether rows are late or lost, and each node's view. */
  private void awaitSink() {
    try {
      pipeline.awaitSinkMatchesSource();
    } catch (SinkMismatch e) {
      throw new AssertionError(diagnosis(e), e);
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "; connectors as each node sees them: " + statuses(), e);
    }
  }

  /**
   * What a sink that did not come to equal its source was doing: LATE (still writing), STALLED (standing still with
   * records of the topic it has not read: a task down or stuck) or NOT IN THE TOPIC (every record read and committed,
   * and still different: a source that stopped delivering, or a sink that lost what it committed), then how it
   * differs, who holds the source's replication slot, and each node's view of the connectors.
   */
  private String diagnosis(SinkMismatch e) {
    long unread = unread();
    String verdict;
    if (e.moving()) {
      verdict = "LATE: the sink was still writing when the wait ended";
    } else if (unread > 0) {
      verdict = "STALLED: the sink stood still with " + unread + " records of the topic to read past its committed"
          + " offsets (see the task states)";
    } else if (unread == 0) {
      verdict = "NOT IN THE TOPIC: the sink read and committed every record of the topic and still differs from the"
          + " source: the source did not deliver these changes (see the source slot and the task states), or the sink"
          + " committed records it did not write";
    } else {
      verdict = "the sink stood still; its consumer group could not be read";
    }
    return verdict + ". " + e.getMessage() + "; sink consumer group: " + (unread < 0 ? "unknown"
        : unread + " records to read past its commits") + "; source slot: " + slot()
        + "; connectors as each node sees them: " + statuses();
  }

  /**
   * The records a read-committed reader finds past the sink's committed offsets; -1 when Kafka is not known or does
   * not say. Counted by reading, not from the end offsets: with exactly-once sources each transaction ends in a commit
   * marker, which takes an offset, is never delivered, so never committed by the sink; and an open transaction's
   * records are past the end offset but not readable yet.
   */
  private long unread() {
    if (bootstrap == null) {
      return -1;
    }
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap, "client.id", "test-sink-diagnosis"));
        KafkaConsumer<byte[], byte[]> reader = new KafkaConsumer<>(Map.of("bootstrap.servers", bootstrap,
            "client.id", "test-sink-diagnosis", "isolation.level", "read_committed", "enable.auto.commit", "false"),
            new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets("connect-" + sink)
          .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
      List<TopicPartition> partitions = reader.partitionsFor(pipeline.topic()).stream()
          .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
      reader.assign(partitions);
      for (TopicPartition p : partitions) {
        OffsetAndMetadata c = committed.get(p);
        reader.seek(p, c == null ? 0 : c.offset());
      }
      Map<TopicPartition, Long> ends = reader.endOffsets(partitions);
      long records = 0;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (partitions.stream().anyMatch(p -> reader.position(p) < ends.get(p)) && System.nanoTime() < deadline) {
        records += reader.poll(Duration.ofMillis(500)).count();
      }
      return records;
    } catch (Exception e) {
      return -1;
    }
  }

  /**
   * Who holds the source's replication slot and how far its consumer confirmed, against the database's WAL: a slot
   * active for a connection that streams nothing, or one nobody holds, says which side a stalled source waits on.
   */
  private String slot() {
    try (Connection c = SharedPostgres.connect(pipeline.sourceDb);
        PreparedStatement q = c.prepareStatement("""
            SELECT s.active, s.active_pid, s.confirmed_flush_lsn, pg_current_wal_lsn() AS wal, a.backend_start,
                   a.client_port, a.state, r.state AS replication, r.reply_time
            FROM pg_replication_slots s
            LEFT JOIN pg_stat_activity a ON a.pid = s.active_pid
            LEFT JOIN pg_stat_replication r ON r.pid = s.active_pid
            WHERE s.slot_name = ?""")) {
      q.setString(1, pipeline.name + "_slot");
      try (ResultSet r = q.executeQuery()) {
        if (!r.next()) {
          return "none named " + pipeline.name + "_slot";
        }
        return (r.getBoolean("active") ? "held by backend " + r.getInt("active_pid") + " (connected "
            + r.getTimestamp("backend_start") + " from port " + r.getInt("client_port") + ", " + r.getString("state")
            + ", replication " + r.getString("replication") + ", last reply " + r.getTimestamp("reply_time") + ")"
            : "not held") + ", confirmed to " + r.getString("confirmed_flush_lsn") + " of the WAL's "
            + r.getString("wal") + " at " + Instant.now();
      }
    } catch (SQLException e) {
      return "could not be read (" + e + ")";
    }
  }

  /** No round starts from now on, and the one in progress, if any, is over. */
  private void holdRounds() {
    held.set(true);
    synchronized (round) {
      // Taken once the load thread is out of its round.
    }
  }

  /**
   * Each node's view of each connector: its state and worker, and each task's state and worker (the node's name
   * where the worker is one of the nodes), with the first line of a failed task's trace; or why a node did not say.
   */
  private String statuses() {
    Map<String, String> urls = connectUrls.get();
    Map<String, String> names = new LinkedHashMap<>();
    urls.forEach((name, url) -> names.put(java.net.URI.create(url).getAuthority(), name));
    List<String> views = new ArrayList<>();
    urls.forEach((name, url) -> {
      StringBuilder view = new StringBuilder(name.isEmpty() ? "" : "node " + name + ": ");
      try {
        JsonNode all = SluiceNodes.get(url + "/connectors?expand=status");
        List<String> connectors = new ArrayList<>();
        all.fields().forEachRemaining(c -> {
          JsonNode status = c.getValue().path("status");
          StringBuilder line = new StringBuilder(c.getKey() + " " + state(status.path("connector"), names));
          status.path("tasks").forEach(t -> line.append(", task ").append(t.path("id").asInt()).append(' ')
              .append(state(t, names)));
          connectors.add(line.toString());
        });
        view.append(connectors.isEmpty() ? "no connectors" : String.join("; ", connectors));
      } catch (Exception e) {
        view.append("Connect at ").append(url).append(" did not answer (").append(e).append(")");
      }
      views.add(view.toString());
    });
    return String.join(" | ", views);
  }

  private static String state(JsonNode s, Map<String, String> names) {
    String worker = s.path("worker_id").asText();
    String trace = s.path("trace").asText("");
    return s.path("state").asText() + " on " + names.getOrDefault(worker, worker)
        + (trace.isEmpty() ? "" : " (" + trace.lines().findFirst().orElse("") + ")");
  }

  /** Stops the load and waits for its last changes to be written. */
  @Override
  public void close() throws InterruptedException {
    running.set(false);
    if (thread != null) {
      thread.join();
    }
  }
}
