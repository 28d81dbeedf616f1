package io.sluice.alerts.dispatch;

import io.sluice.alerts.labels.Matchers;
import io.sluice.alerts.types.Alert;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sorts incoming alerts into aggregation groups along the route tree and flushes the groups that are due. Time only
 * moves through {@link #flushDue()}, which the router's ticker calls (and a test calls after moving its clock).
 */
public final class Dispatcher {
  private static final Logger log = LoggerFactory.getLogger(Dispatcher.class);

  /** A group as the API lists it. */
  public record GroupView(Map<String, String> labels, String receiver, String groupKey, List<Alert> alerts) {}

  private final Route root;
  private final Notifier notifier;
  private final Clock clock;
  private final Executor flushExecutor;
  private final Map<String, AggregationGroup> groups = new ConcurrentHashMap<>();
  /**
   * The earliest time (epoch ms) any group may be due; the ticker skips the scan of all groups before it. Inserts
   * lower it; a scan resets it first and then raises it to what it found, so nothing inserted meanwhile is missed.
   */
  private final AtomicLong nextDueMillis = new AtomicLong(Long.MAX_VALUE);

  /** {@code flushExecutor} runs each group's flush; a direct executor makes flushes synchronous for tests. */
  public Dispatcher(Route root, Notifier notifier, Clock clock, Executor flushExecutor) {
    this.root = root;
    this.notifier = notifier;
    this.clock = clock;
    this.flushExecutor = flushExecutor;
  }

  public Route root() {
    return root;
  }

  public void process(Alert alert) {
    Instant now = clock.instant();
    for (Route r : root.match(alert.labels())) {
      Map<String, String> gl = r.groupLabels(alert.labels());
      String key = r.key() + ":" + Matchers.labelSetString(gl);
      // Insert under the map's lock so a flush that drops an emptied group cannot orphan this alert.
      groups.compute(key, (k, g) -> {
        AggregationGroup group = g != null ? g : new AggregationGroup(r, Map.copyOf(gl), k, now);
        group.insert(alert, now);
        nextDueMillis.accumulateAndGet(group.nextFlush().toEpochMilli(), Math::min);
        return group;
      });
    }
  }

  /** Flushes every group whose timer has expired; returns how many flushes were started. */
  public int flushDue() {
    Instant now = clock.instant();
    if (now.toEpochMilli() < nextDueMillis.get()) {
      return 0;
    }
    nextDueMillis.set(Long.MAX_VALUE);
    long earliest = Long.MAX_VALUE;
    int n = 0;
    for (AggregationGroup g : groups.values()) {
      if (g.due(now)) {
        n++;
        List<Alert> alerts = g.beginFlush(now);
        flushExecutor.execute(() -> flush(g, alerts, now));
      }
      earliest = Math.min(earliest, g.nextFlush().toEpochMilli());
    }
    nextDueMillis.accumulateAndGet(earliest, Math::min);
    return n;
  }

  private void flush(AggregationGroup g, List<Alert> alerts, Instant now) {
    boolean ok = false;
    try {
      ok = alerts.isEmpty() || notifier.notify(new Notification(g.key, g.labels, g.route, alerts, now));
    } catch (RuntimeException e) {
      log.warn("notification for group {} failed", g.key, e);
    } finally {
      g.endFlush(alerts, ok, now);
      groups.computeIfPresent(g.key, (k, cur) -> cur == g && g.isEmpty() ? null : cur);
    }
  }

  /** The earliest time a group is due, so the ticker can sleep until then. */
  public Instant nextDue() {
    Instant min = null;
    for (AggregationGroup g : groups.values()) {
      Instant t = g.nextFlush();
      if (min == null || t.isBefore(min)) {
        min = t;
      }
    }
    return min;
  }

  public List<GroupView> groups() {
    List<GroupView> out = new ArrayList<>();
    for (AggregationGroup g : groups.values()) {
      List<Alert> alerts = g.alerts();
      if (!alerts.isEmpty()) {
        out.add(new GroupView(g.labels, g.route.receiver(), g.key, alerts));
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
