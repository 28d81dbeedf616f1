package io.sluice.alerts.dispatch;

import io.sluice.alerts.labels.LabelMap;
import io.sluice.alerts.types.Alert;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sorts incoming alerts into aggregation groups along the route tree and flushes each group when its own deadline
 * comes. One timer queue, ordered by deadline, holds an entry per group (no thread or scheduled task per group); time
 * only moves through {@link #flushDue()}, which the router's timer thread calls when {@link #awaitDue} returns (and a
 * test calls after moving its clock). Deadlines are kept and waited for to the nanosecond ({@link #untilDue}), so a
 * group flushes at its group_wait, not on the next tick or millisecond after it.
 *
 * <p>In a cluster a node that is not first waits {@code position × peer timeout} between taking a group's alerts and
 * notifying, as Alertmanager's wait stage does, so that the first node's notification log entry arrives first and
 * the same notification is not sent twice. The wait is a second timer entry carrying the alerts taken, not a blocked
 * thread: at 20,000 groups a thread per waiting flush would stall every other group.
 */
public final class Dispatcher {
  private static final Logger log = LoggerFactory.getLogger(Dispatcher.class);

  /** A group as the API lists it. */
  public record GroupView(Map<String, String> labels, String receiver, String groupKey, List<Alert> alerts) {}

  /** A group's identity: its route and group labels (cheaper to build and compare than the group key string). */
  private record GroupId(Route route, LabelMap labels) {
    @Override
    public int hashCode() {
      return route.hashCode() * 31 + labels.contentHash();
    }

    /** Routes are compared by identity, as the record's own equals would; written out, it skips a method handle. */
    @Override
    public boolean equals(Object o) {
      return o instanceof GroupId g && g.route == route && g.labels.equals(labels);
    }
  }

  /**
   * A timer entry: a group's next flush, or ({@code taken} not null) a flush whose peer wait ends at {@code at} (epoch
   * nanoseconds).
   */
  private record Deadline(long at, AggregationGroup group, Taken taken) {}

  /** Alerts a flush took at {@code now}, to be notified when the peer wait is over. */
  private record Taken(List<Alert> alerts, Instant now) {}

  private final Route root;
  private final Notifier notifier;
  private final Clock clock;
  private final Executor flushExecutor;
  private final Supplier<Duration> peerWait;
  private final Map<GroupId, AggregationGroup> groups = new ConcurrentHashMap<>();
  /** Guarded by {@link #timerLock}. */
  private final PriorityQueue<Deadline> deadlines = new PriorityQueue<>((a, b) -> Long.compare(a.at, b.at));
  private final ReentrantLock timerLock = new ReentrantLock();
  /**
   * Signalled when an earlier deadline is queued. A condition rather than {@code Object.wait}: the JDK rounds the
   * latter's timeout up to whole milliseconds, a condition waits to the nanosecond.
   */
  private final Condition earlierDeadline = timerLock.newCondition();

  /** {@code flushExecutor} runs each group's flush; a direct executor makes flushes synchronous for tests. */
  public Dispatcher(Route root, Notifier notifier, Clock clock, Executor flushExecutor) {
    this(root, notifier, clock, flushExecutor, () -> Duration.ZERO);
  }

  /** {@code peerWait}: how long this node waits before notifying a flush it took (zero for the first or only node). */
  public Dispatcher(Route root, Notifier notifier, Clock clock, Executor flushExecutor, Supplier<Duration> peerWait) {
    this.root = root;
    this.notifier = notifier;
    this.clock = clock;
    this.flushExecutor = flushExecutor;
    this.peerWait = peerWait;
  }

  public Route root() {
    return root;
  }

  public void process(Alert alert) {
    Instant now = clock.instant();
    for (Route r : root.match(alert.labels())) {
      LabelMap gl = r.groupLabels(alert.labels());
      GroupId id = new GroupId(r, gl);
      // Most alerts join a group that exists: a lock-free lookup and the group's own lock. A group that a flush has
      // just dropped refuses the alert, which then goes the other way.
      AggregationGroup existing = groups.get(id);
      if (existing != null) {
        long at = existing.insert(alert, now);
        if (at != AggregationGroup.REMOVED) {
          schedule(existing, at);
          continue;
        }
      }
      // A new group, or a dropped one to replace: created and filled under the map's lock, so a flush that drops an
      // emptied group cannot orphan this alert.
      groups.compute(id, (k, g) -> {
        AggregationGroup group = g != null ? g : new AggregationGroup(r, gl, now);
        schedule(group, group.insert(alert, now));
        return group;
      });
    }
  }

  private void schedule(AggregationGroup g, long at) {
    if (at == AggregationGroup.UNSCHEDULED) {
      return;
    }
    enqueue(new Deadline(at, g, null));
  }

  private void enqueue(Deadline d) {
    timerLock.lock();
    try {
      deadlines.add(d);
      if (deadlines.peek() == d) {
        earlierDeadline.signalAll();
      }
    } finally {
      timerLock.unlock();
    }
  }

  /**
   * How long the timer waits from now, by the clock: until the earliest deadline, at most {@code max}; zero when a
   * group is due.
   */
  public Duration untilDue(Duration max) {
    timerLock.lock();
    try {
      return untilDueLocked(max.toNanos());
    } finally {
      timerLock.unlock();
    }
  }

  private Duration untilDueLocked(long maxNanos) {
    Deadline head = deadlines.peek();
    long wait = maxNanos;
    if (head != null) {
      wait = Math.min(wait, head.at - AggregationGroup.epochNanos(clock.instant()));
    }
    return Duration.ofNanos(Math.max(0, wait));
  }

  /**
   * Waits until the earliest deadline has come by the clock, a new earlier deadline is queued, or {@code max} has
   * passed (so a clock that jumps is caught up with).
   */
  public void awaitDue(Duration max) throws InterruptedException {
    timerLock.lock();
    try {
      long wait = untilDueLocked(max.toNanos()).toNanos();
      if (wait > 0) {
        earlierDeadline.awaitNanos(wait);
      }
    } finally {
      timerLock.unlock();
    }
  }

  /** Ends a wait in {@link #awaitDue} early. */
  public void wakeUp() {
    timerLock.lock();
    try {
      earlierDeadline.signalAll();
    } finally {
      timerLock.unlock();
    }
  }

  /** Flushes every group whose deadline has come; returns how many flushes were started. */
  public int flushDue() {
    List<Runnable> due = takeDue();
    due.forEach(flushExecutor::execute);
    return due.size();
  }

  /**
   * Like {@link #flushDue}, but the first flush that is due is returned for the caller to run on its own thread (null
   * when none is due) and only the others go to the flush executor: the timer thread that woke at the deadline
   * notifies itself, rather than waking another thread to do it, which on a loaded machine waits for a core.
   */
  public Runnable flushDueKeepingOne() {
    List<Runnable> due = takeDue();
    if (due.isEmpty()) {
      return null;
    }
    for (int i = 1; i < due.size(); i++) {
      flushExecutor.execute(due.get(i));
    }
    return due.get(0);
  }

  /** The flushes whose deadline has come, each started (its group marked flushing) but not yet run. */
  private List<Runnable> takeDue() {
    Instant now = clock.instant();
    long nowNanos = AggregationGroup.epochNanos(now);
    List<Deadline> expired = new ArrayList<>();
    timerLock.lock();
    try {
      while (!deadlines.isEmpty() && deadlines.peek().at <= nowNanos) {
        expired.add(deadlines.poll());
      }
    } finally {
      timerLock.unlock();
    }
    List<Runnable> due = new ArrayList<>(expired.size());
    for (Deadline d : expired) {
      AggregationGroup g = d.group;
      if (d.taken != null) {
        due.add(() -> flush(g, d.taken.alerts(), d.taken.now()));
        continue;
      }
      List<Alert> alerts = g.expire(d.at, now);
      if (alerts == null) {
        schedule(g, g.pendingSchedule());
        continue;
      }
      Duration wait = peerWait.get();
      if (!wait.isZero() && !wait.isNegative()) {
        // The group stays in its flush (no new timer entry) until the delayed notification has ended.
        enqueue(new Deadline(AggregationGroup.epochNanos(now.plus(wait)), g, new Taken(alerts, now)));
        continue;
      }
      due.add(() -> flush(g, alerts, now));
    }
    return due;
  }

  private void flush(AggregationGroup g, List<Alert> alerts, Instant now) {
    boolean ok = false;
    String key = g.key();
    try {
      ok = alerts.isEmpty() || notifier.notify(new Notification(key, g.labels, g.route, alerts, now));
    } catch (RuntimeException e) {
      log.warn("notification for group {} failed", key, e);
    } finally {
      schedule(g, g.endFlush(alerts, ok, now));
      groups.computeIfPresent(new GroupId(g.route, g.labels), (k, cur) -> {
        return cur == g && g.removeIfEmpty() ? null : cur;
      });
    }
  }

  /** The earliest time a group is due, so a caller can sleep until then; null when no group is waiting. */
  public Instant nextDue() {
    timerLock.lock();
    try {
      Deadline head = deadlines.peek();
      return head == null ? null : Instant.ofEpochSecond(0, head.at);
    } finally {
      timerLock.unlock();
    }
  }

  public List<GroupView> groups() {
    List<GroupView> out = new ArrayList<>();
    for (AggregationGroup g : groups.values()) {
      List<Alert> alerts = g.alerts();
      if (!alerts.isEmpty()) {
        out.add(new GroupView(g.labels, g.route.receiver(), g.key(), alerts));
      }
    }
    return out;
  }

  public int groupCount() {
    return groups.size();
  }

  /** The receivers an alert is routed to, in route order. */
  public Set<String> receivers(Map<String, String> labels) {
    Set<String> out = new LinkedHashSet<>();
    for (Route r : root.match(labels)) {
      out.add(r.receiver());
    }
    return out;
  }
}
