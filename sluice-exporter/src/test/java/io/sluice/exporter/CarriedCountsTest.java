package io.sluice.exporter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.exporter.CarriedCounts.Write;
import io.sluice.exporter.CarriedCounts.Written;
import io.sluice.exporter.ConnectorCatalog.Connector;
import io.sluice.exporter.ConnectorCatalog.Kind;
import io.sluice.testing.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.CumulativeSum;
import org.junit.jupiter.api.Test;

/**
 * Task counters that go on across restarts and moves: nodes made of what each has in {@code sluice up} (a worker's
 * metrics registry, as Connect fills and empties it, and the exporter's index and carried counts), sharing one
 * counts topic that delivers every write to every node in one order, when the test says so.
 */
class CarriedCountsTest {
  private static final Duration INTERVAL = Duration.ofSeconds(5);
  private static final Duration HOLD = Duration.ofSeconds(15);
  private static final String SINK = "orders-sink";
  private static final String SEND = "svc_connect_sink_connector_metrics_sink_record_send";
  private static final int SEND_AT = indexOf(SEND);
  private final TestClock clock = new TestClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final Topic topic = new Topic();

  private static int indexOf(String exported) {
    for (int i = 0; i < TaskMetric.ALL.size(); i++) {
      if (TaskMetric.ALL.get(i).exported().equals(exported)) {
        return i;
      }
    }
    throw new IllegalArgumentException(exported);
  }

  /** The counts topic: one partition, so every node reads every write in the order written. */
  private static final class Topic {
    final List<CarriedCounts> readers = new ArrayList<>();
    final List<Write> pending = new ArrayList<>();
    final Map<TaskKey, Written> compacted = new LinkedHashMap<>();

    void append(Write w) {
      pending.add(w);
    }

    /** Every write so far reaches every node. */
    void deliver() {
      for (Write w : List.copyOf(pending)) {
        readers.forEach(r -> r.read(w.task(), w.written()));
        if (w.written() == null) {
          compacted.remove(w.task());
        } else {
          compacted.put(w.task(), w.written());
        }
      }
      pending.clear();
    }
  }

  /** One node: its worker's metrics registry and its exporter's index over it. */
  private final class Node {
    final Metrics registry = new Metrics();
    final CarriedCounts carried;
    final TaskMetricIndex index;

    Node(String name) {
      carried = new CarriedCounts(name, clock, INTERVAL, HOLD);
      // An exporter reads the topic to its end when it starts, then follows it.
      topic.compacted.forEach(carried::read);
      topic.readers.add(carried);
      index = new TaskMetricIndex(registry, carried, topic::append);
    }

    /** Connect starts (or restarts) the sink's task 0 here: a new sensor, counting from 0. */
    Sensor start() {
      Sensor s = registry.sensor("send-" + SINK);
      s.add(new MetricName("sink-record-send-total", "sink-task-metrics", "", Map.of("connector", SINK, "task", "0")),
          new CumulativeSum());
      return s;
    }

    /** Connect stops the task here and removes its metrics. */
    void stop() {
      registry.removeSensor("send-" + SINK);
    }

    /** The exporter's once-a-second pass, with the connectors the worker's config holds. */
    void pass(String... connectors) {
      List<Connector> list = new ArrayList<>();
      for (String c : connectors) {
        list.add(new Connector(c, Kind.SINK, Map.of(), "RUNNING", List.of(new ConnectorCatalog.Task(0, "RUNNING")),
            c, List.of()));
      }
      index.reindex(list, java.util.Set.of(connectors));
    }

    /** The exported send counter of the sink's task 0; null when this node exports none. */
    Double send() {
      Double[] v = index.values().get(new TaskKey(SINK, "0"));
      return v == null ? null : v[SEND_AT];
    }
  }

  @Test
  void aCounterGoesOnWhenConnectMakesTheTasksMetricsAgain() {
    Node a = new Node("a");
    a.start().record(100);
    a.pass(SINK);
    assertEquals(100, a.send());

    // A restart between two passes: the old object keeps its last value until the pass, which adds it to the base.
    a.stop();
    a.start().record(5);
    assertEquals(100, a.send(), "the old object's last value until the next pass");
    a.pass(SINK);
    assertEquals(105, a.send());

    // A restart that a pass sees half done: the task gone (its total written, ended), then back.
    a.stop();
    a.pass(SINK);
    assertNull(a.send(), "a task that stopped here is no longer exported here");
    topic.deliver();
    assertEnded(105, topic.compacted.get(new TaskKey(SINK, "0")));
    a.start().record(2);
    a.pass(SINK);
    assertEquals(107, a.send());
  }

  @Test
  void anotherNodeTakesTheTaskAndGoesOnFromItsTotal() {
    Node a = new Node("a");
    Node b = new Node("b");
    Sensor onA = a.start();
    onA.record(100);
    a.pass(SINK);
    clock.advance(INTERVAL);
    a.pass(SINK);
    topic.deliver();
    assertEquals(100, topic.compacted.get(new TaskKey(SINK, "0")).counts().get(SEND), "written every interval");

    // A rebalance: the task stops on a, whose ended total is still on its way when the task starts on b.
    onA.record(30);
    a.stop();
    a.pass(SINK);
    b.start().record(7);
    b.pass(SINK);
    assertNull(a.send(), "a task that left a node is no longer exported there");
    assertNull(b.send(), "held back while scrapers may still hold a's series");
    topic.deliver();
    assertNull(b.send());
    clock.advance(HOLD);
    assertEquals(137, b.send(), "a's ended total and b's own");

    // And back: b stops, a starts it again.
    b.stop();
    b.pass(SINK);
    topic.deliver();
    a.start().record(1);
    a.pass(SINK);
    assertNull(a.send());
    clock.advance(HOLD);
    assertEquals(138, a.send());
  }

  @Test
  void aNodeKilledLosesAtMostWhatItCountedSinceItsLastWrite() {
    Node a = new Node("a");
    Node b = new Node("b");
    Sensor onA = a.start();
    onA.record(100);
    a.pass(SINK);
    topic.deliver();
    onA.record(40);
    // a is killed -9: it writes nothing more. Connect starts the task on b after its session timeout.
    Sensor onB = b.start();
    onB.record(10);
    b.pass(SINK);
    assertNull(b.send());
    // Written while held back: b killed now would lose no more than an interval either.
    clock.advance(INTERVAL);
    onB.record(5);
    b.pass(SINK);
    topic.deliver();
    assertEquals(115, topic.compacted.get(new TaskKey(SINK, "0")).counts().get(SEND));
    clock.advance(HOLD);
    assertEquals(115, b.send(), "the 40 a counted after its last write are lost");
  }

  @Test
  void onlyTheRunATaskContinuesRaisesItsBase() {
    CarriedCounts b = new CarriedCounts("b", clock, INTERVAL, HOLD);
    TaskKey task = new TaskKey(SINK, "0");
    b.read(task, new Written("a/1", false, Map.of(SEND, 100.0)));
    b.started(task);
    assertNull(b.base(task));
    b.read(task, new Written("a/1", false, Map.of(SEND, 120.0)));
    b.read(task, new Written("a/1", true, Map.of(SEND, 130.0)));
    clock.advance(HOLD);
    assertEquals(Map.of(SEND, 130.0), b.base(task));
    // A later run elsewhere counted on top of this one: taking its total would count this run twice.
    b.read(task, new Written("c/1", false, Map.of(SEND, 500.0)));
    assertEquals(Map.of(SEND, 130.0), b.base(task));
    // A total of the run it continues that comes after the hold still raises it (a slow stop there).
    b.read(task, new Written("a/1", true, Map.of(SEND, 131.0)));
    assertEquals(Map.of(SEND, 131.0), b.base(task));
  }

  @Test
  void aDeletedConnectorStartsAgainAtZero() {
    Node a = new Node("a");
    Node b = new Node("b");
    a.start().record(100);
    a.pass(SINK);
    b.pass(SINK);
    topic.deliver();
    assertTrue(topic.compacted.containsKey(new TaskKey(SINK, "0")));

    // Deleted: Connect stops the task and the connector leaves every worker's config.
    a.stop();
    a.pass();
    b.pass();
    topic.deliver();
    assertFalse(topic.compacted.containsKey(new TaskKey(SINK, "0")), "tombstoned, and no ended total after them");

    // Created again under the same name, on b.
    b.start().record(3);
    b.pass(SINK);
    assertEquals(3, b.send());
  }

  @Test
  void theExporterStoppingAfterItsWorkerWritesEveryTotalEnded() {
    Node a = new Node("a");
    Sensor s = a.start();
    s.record(100);
    a.pass(SINK);
    s.record(1);
    a.stop();
    a.index.close();
    topic.deliver();
    assertEnded(101, topic.compacted.get(new TaskKey(SINK, "0")));
  }

  @Test
  void aNodeStartedAgainGoesOnAtOnceOnItsOwnTarget() {
    Node a = new Node("a");
    Sensor s = a.start();
    s.record(100);
    a.pass(SINK);
    topic.deliver();
    // Its data plane dies and starts again (a new exporter, the same worker address): no other node's series to wait
    // for, the same series go on.
    Node again = new Node("a");
    again.start().record(4);
    again.pass(SINK);
    assertEquals(104, again.send());
  }

  private static void assertEnded(double send, Written w) {
    assertTrue(w.ended(), w.toString());
    assertEquals(Map.of(SEND, send), w.counts());
  }

  @Test
  void recordsAndKeysReadBackAsWritten() {
    Written w = new Written("127.0.0.1:8083#1a2b3c4d/7", true, Map.of(SEND, 12345.0, "other", 0.0));
    assertEquals(w, CountsTopic.decode(CountsTopic.encode(w)));
    assertNull(CountsTopic.decode("not json".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    assertEquals(new TaskKey("team/orders-sink", "3"), TaskKey.ofTopicKey(new TaskKey("team/orders-sink", "3")
        .topicKey()));
    assertNull(TaskKey.ofTopicKey("no-task"));
    assertNull(TaskKey.ofTopicKey("trailing/"));
  }
}
