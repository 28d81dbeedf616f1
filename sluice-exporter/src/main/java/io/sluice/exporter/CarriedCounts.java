package io.sluice.exporter;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Keeps each task's counters going across its restarts and its moves between nodes. Connect counts from 0 whenever it
 * creates a task's metrics: when the task starts, restarts, or starts on another node after a rebalance or the death
 * of its node. Summed over a pipeline (records behind = polled − sent), such a fall reads as a jump of the pipeline's
 * lag. So a task's exported counter is Connect's value plus a base: what the task counted before Connect's current
 * metric objects for it began.
 *
 * <p>The base comes from the counts topic ({@link CountsTopic}), in which every node writes the totals of the tasks it
 * runs: every interval while they change, and once more, marked ended, when a task stops on the node. A task that
 * starts on a node (a <em>run</em> of it) takes the last total written for it, and the later totals of the run it
 * continues (the node it left writes its ended total within a second of the stop, which may be after the task started
 * here). A node killed without a word loses what its tasks counted since its last write: at most one interval.
 *
 * <p>A run that comes from another node holds its counters back for a while ({@code hold}, at least the longest scrape
 * interval of whatever scrapes the exporters). The node the task left drops its series within a second of the stop
 * (a dead node's scrape fails), and each scraper ends them with staleness markers at its next scrape of that node;
 * shown earlier here, the task would be counted on both nodes in between, and a sum over a pipeline would jump by its
 * whole count. Held back, the sum lacks the task for a while instead: a pipeline of one source task and one sink task
 * has no lag figure for that while, never a wrong one.
 *
 * <p>A Connect metric object replaced on the same node (the task restarted here) adds its last value to the run's base
 * directly, exactly. A deleted connector's totals are removed (tombstones), so that a connector created again under its
 * name starts at 0, as a new connector should.
 *
 * <p>An exporter carries the counts of its worker's tasks for the worker's lifetime, as in {@code sluice up}, where
 * both live and die in one process and the worker stops first: an exporter closed while its worker's tasks still run
 * would make the next exporter of that worker count their current values twice.
 *
 * <p>Memory: an entry per task of the cluster and a run per task of this node, whatever the records.
 */
final class CarriedCounts {
  /**
   * One record of the counts topic: a run's totals by exported series name, and whether the run has ended (the task
   * stopped there, so the total is exact; for a person reading the topic, and the tests).
   */
  record Written(String run, boolean ended, Map<String, Double> counts) {
    Written {
      counts = Map.copyOf(counts);
    }
  }

  /** A record to write to the counts topic; {@code written} null is a tombstone. */
  record Write(TaskKey task, Written written) {}

  /** One stay of a task on this node, from its start here to its stop here. */
  private static final class Run {
    final String id;
    /** What the task had counted before this run: the total of the run it continues. */
    final Map<String, Double> carried;
    /** The last values of this run's Connect metric objects that Connect replaced (restarts on this node). */
    final Map<String, Double> replaced = new HashMap<>();
    /** The run this one continues, whose later totals raise {@link #carried}; null while none is known. */
    String predecessor;
    /** Until when (ms) the counters are held back; 0 once shown. */
    long heldUntil;
    Map<String, Double> written;

    Run(String id, Map<String, Double> carried) {
      this.id = id;
      this.carried = new HashMap<>(carried);
      this.written = Map.copyOf(carried);
    }
  }

  private final String node;
  private final String writer;
  private final Clock clock;
  private final long intervalMs;
  private final long holdMs;
  /** The last record of every task in the counts topic, as read from it or as written here. */
  private final Map<TaskKey, Written> topic = new HashMap<>();
  private final Map<TaskKey, Run> runs = new HashMap<>();
  private long started;
  private long nextWrite;

  /**
   * {@code node} is what scrapers see as this node (its worker's address, the same when the node starts again); runs
   * are named after it and this exporter ({@code <node>#<exporter>/<n>}). Totals are written every {@code interval}
   * while they change; a run that continues another node's is held back for {@code hold}.
   */
  CarriedCounts(String node, Clock clock, Duration interval, Duration hold) {
    this.node = node;
    this.writer = node + "#" + UUID.randomUUID().toString().substring(0, 8);
    this.clock = clock;
    this.intervalMs = interval.toMillis();
    this.holdMs = hold.toMillis();
  }

  /** A record of the counts topic, in topic order; {@code written} null is a tombstone. */
  synchronized void read(TaskKey task, Written written) {
    if (written == null) {
      // A run here keeps its counts: its connector is gone and so, within a second, is the run.
      topic.remove(task);
      return;
    }
    topic.put(task, written);
    Run r = runs.get(task);
    if (r == null || written.run().equals(r.id)) {
      return;
    }
    if (r.predecessor == null) {
      r.predecessor = written.run();
    }
    // Only the run this one continues: a later run elsewhere (this one is about to stop) counted on top of this one.
    if (written.run().equals(r.predecessor)) {
      written.counts().forEach((k, v) -> r.carried.merge(k, v, Math::max));
    }
  }

  /** The task started on this node: a run that continues from the last total written for it. */
  synchronized void started(TaskKey task) {
    Written last = topic.get(task);
    Run r = new Run(writer + "/" + ++started, last == null ? Map.of() : last.counts());
    r.predecessor = last == null ? null : last.run();
    // A run on this node before (a restart that a pass saw half done, a data plane started again) had its series on
    // this same target: nothing to wait for.
    boolean elsewhere = last != null && !last.run().startsWith(node + "#");
    r.heldUntil = elsewhere ? clock.millis() + holdMs : 0;
    runs.put(task, r);
  }

  /** Connect replaced the metric object of one of the task's counters here; the old one ended at {@code last}. */
  synchronized void replaced(TaskKey task, String counter, double last) {
    Run r = runs.get(task);
    if (r != null) {
      r.replaced.merge(counter, last, Double::sum);
    }
  }

  /** The task stopped on this node with Connect's counters at {@code last}: its total, marked ended. */
  synchronized List<Write> left(TaskKey task, Map<String, Double> last) {
    Run r = runs.remove(task);
    if (r == null) {
      return List.of();
    }
    Written w = new Written(r.id, true, total(r, last));
    topic.put(task, w);
    return List.of(new Write(task, w));
  }

  /** The connector was deleted: tombstones for every task of it the topic holds. */
  synchronized List<Write> deleted(String connector) {
    runs.keySet().removeIf(t -> t.connector().equals(connector));
    List<Write> out = new ArrayList<>();
    for (Iterator<TaskKey> it = topic.keySet().iterator(); it.hasNext(); ) {
      TaskKey t = it.next();
      if (t.connector().equals(connector)) {
        it.remove();
        out.add(new Write(t, null));
      }
    }
    return out;
  }

  /**
   * What to add to Connect's counters of a task running here, by exported series name; null while they are held
   * back (no series until their base is known) or when the task has no run here.
   */
  synchronized Map<String, Double> base(TaskKey task) {
    Run r = runs.get(task);
    if (r == null || held(r, clock.millis())) {
      return null;
    }
    return sum(r.carried, r.replaced);
  }

  /**
   * The totals of the runs that changed since they were last written, given Connect's counters of the tasks now; none
   * until an interval has passed since the last time this wrote.
   */
  synchronized List<Write> changed(Map<TaskKey, Map<String, Double>> current) {
    long now = clock.millis();
    if (now < nextWrite) {
      return List.of();
    }
    nextWrite = now + intervalMs;
    List<Write> out = new ArrayList<>();
    runs.forEach((task, r) -> {
      // Written while held back too: a node killed then loses one interval, not the hold.
      Map<String, Double> total = total(r, current.getOrDefault(task, Map.of()));
      if (!total.equals(r.written)) {
        r.written = total;
        Written w = new Written(r.id, false, total);
        topic.put(task, w);
        out.add(new Write(task, w));
      }
    });
    return out;
  }

  /** The exporter stops: every run ends, with Connect's counters as they are now (their tasks stopped first). */
  synchronized List<Write> endAll(Map<TaskKey, Map<String, Double>> current) {
    List<Write> out = new ArrayList<>();
    for (TaskKey task : List.copyOf(runs.keySet())) {
      out.addAll(left(task, current.getOrDefault(task, Map.of())));
    }
    return out;
  }

  private static boolean held(Run r, long now) {
    if (r.heldUntil != 0 && now >= r.heldUntil) {
      r.heldUntil = 0;
    }
    return r.heldUntil != 0;
  }

  private static Map<String, Double> total(Run r, Map<String, Double> current) {
    Map<String, Double> out = sum(r.carried, r.replaced);
    current.forEach((k, v) -> out.merge(k, v, Double::sum));
    return out;
  }

  private static Map<String, Double> sum(Map<String, Double> a, Map<String, Double> b) {
    Map<String, Double> out = new HashMap<>(a);
    b.forEach((k, v) -> out.merge(k, v, Double::sum));
    return out;
  }
}
