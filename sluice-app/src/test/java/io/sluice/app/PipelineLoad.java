package io.sluice.app;

import static io.sluice.app.SluiceNodes.send;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.app.PackagedSluice.Run;
import io.sluice.connect.testing.Pipeline;
import io.sluice.connect.testing.SharedPostgres;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A pipeline on a Sluice cluster, PostgreSQL {@code orders} → Debezium → Kafka → Sluice's JDBC sink, and a load on its
 * source while the cluster tests inflict their faults: every 100 ms 20 inserts, a delete, and updates, as
 * {@link Pace} says.
 */
final class PipelineLoad implements AutoCloseable {
  /** How many rows each round updates. */
  enum Pace {
    /** A third of all rows: the load grows with the table, and soon asks more than a small machine keeps up with. */
    GROWING,
    /** The 20 rows of the round before: about 410 changes a second, however long it runs. */
    STEADY
  }

  final Pipeline pipeline;
  final String source;
  private final AtomicBoolean running = new AtomicBoolean();
  private final AtomicBoolean held = new AtomicBoolean();
  /** Held by the load thread through a round of changes, so that a hold knows when the round in progress is over. */
  private final Object round = new Object();
  private Thread thread;
  private int next;

  private final String connectUrl;

  private PipelineLoad(Pipeline pipeline, String source, int rows, String connectUrl) {
    this.pipeline = pipeline;
    this.source = source;
    this.next = rows + 1;
    this.connectUrl = connectUrl;
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
    return new PipelineLoad(pipeline, name + "-source", rows, connectUrl);
  }

  void start() {
    start(Pace.GROWING);
  }

  void start(Pace pace) {
    running.set(true);
    thread = new Thread(() -> {
      while (running.get()) {
        synchronized (round) {
          if (!held.get()) {
            pipeline.insert(next, next + 19);
            pipeline.execute(pipeline.sourceDb, pace == Pace.GROWING
                ? "UPDATE orders SET qty = qty + 1 WHERE id % 3 = " + (next % 3)
                : "UPDATE orders SET qty = qty + 1 WHERE id BETWEEN " + (next - 20) + " AND " + (next - 1));
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
      try {
        pipeline.awaitSinkMatchesSource();
      } catch (AssertionError e) {
        throw new AssertionError(e.getMessage() + "; connectors: " + statuses(), e);
      }
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
    try {
      pipeline.awaitSinkMatchesSource();
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "; connectors: " + statuses(), e);
    }
  }

  /** The load goes on after {@link #holdCaughtUp}. */
  void resume() {
    held.set(false);
  }

  /** No round starts from now on, and the one in progress, if any, is over. */
  private void holdRounds() {
    held.set(true);
    synchronized (round) {
      // Taken once the load thread is out of its round.
    }
  }

  /** Each connector's state and its tasks' states and workers, as Connect says them (or why it did not). */
  private String statuses() {
    try {
      return SluiceNodes.get(connectUrl + "/connectors?expand=status").toString();
    } catch (Exception e) {
      return "(Connect at " + connectUrl + " did not answer: " + e + ")";
    }
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
