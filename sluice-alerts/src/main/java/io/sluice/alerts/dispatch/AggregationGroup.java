package io.sluice.alerts.dispatch;

import io.sluice.alerts.labels.LabelMap;
import io.sluice.alerts.labels.Matchers;
import io.sluice.alerts.types.Alert;
import io.sluice.alerts.types.AlertTable;
import java.time.Instant;
import java.util.List;

/**
 * The alerts of one route that share group labels. It flushes first after group_wait (at once for an alert older than
 * group_wait) and then every group_interval; deciding whether a flush notifies is the notification log's job. The
 * dispatcher's timer queue holds one live deadline per group ({@link #scheduledAt}); older entries for the group are
 * recognised as stale and skipped. Deadlines are epoch nanoseconds: the timer wakes at the flush time itself, not at
 * the next millisecond or tick after it.
 */
final class AggregationGroup {
  static final long UNSCHEDULED = Long.MAX_VALUE;
  /** What {@link #insert} answers when the dispatcher has dropped the group: the alert belongs in a new one. */
  static final long REMOVED = Long.MIN_VALUE;

  final Route route;
  final LabelMap labels;
  private final AlertTable alerts = new AlertTable();
  private Instant nextFlush;
  private boolean hasFlushed;
  private boolean flushing;
  private boolean removed;
  /** The epoch nanosecond of this group's live entry in the timer queue, or {@link #UNSCHEDULED}. */
  private long scheduledAt = UNSCHEDULED;

  AggregationGroup(Route route, LabelMap labels, Instant now) {
    this.route = route;
    this.labels = labels;
    this.nextFlush = now.plus(route.conf().groupWait());
  }

  /**
   * Alertmanager's group key. Built when asked (once a flush, and for API listings) rather than kept: at 20,000
   * groups the strings would hold a few MB for nothing.
   */
  String key() {
    return route.key() + ":" + Matchers.labelSetString(labels);
  }

  /**
   * Adds or replaces an alert; returns the nanosecond a new timer entry is needed for, UNSCHEDULED, or REMOVED (and
   * adds nothing) when the group was dropped.
   */
  synchronized long insert(Alert alert, Instant now) {
    if (removed) {
      return REMOVED;
    }
    alerts.put(alert);
    if (!hasFlushed && !alert.startsAt().plus(route.conf().groupWait()).isAfter(now) && now.isBefore(nextFlush)) {
      nextFlush = now;
    }
    return reschedule();
  }

  /**
   * The nanosecond a timer entry is needed for when none is queued at or before the next flush, else UNSCHEDULED.
   * Records it as the live entry.
   */
  private long reschedule() {
    if (flushing || removed) {
      return UNSCHEDULED;
    }
    long at = epochNanos(nextFlush);
    if (at >= scheduledAt) {
      return UNSCHEDULED;
    }
    scheduledAt = at;
    return at;
  }

  /** {@code t} in nanoseconds since the epoch; times beyond what a long holds (year 2262) come just before UNSCHEDULED. */
  static long epochNanos(Instant t) {
    try {
      return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000_000L), t.getNano());
    } catch (ArithmeticException e) {
      return t.getEpochSecond() < 0 ? Long.MIN_VALUE : UNSCHEDULED - 1;
    }
  }

  /**
   * The timer entry for {@code at} expired: starts a flush when this is the group's live entry and it is due, as
   * Alertmanager resets its timer before notifying. Returns the alerts to flush, or null when there is nothing to do
   * now. A flush that is still running reschedules the group when it ends.
   */
  synchronized List<Alert> expire(long at, Instant now) {
    if (at != scheduledAt || removed) {
      return null;
    }
    scheduledAt = UNSCHEDULED;
    if (flushing) {
      return null;
    }
    if (nextFlush.isAfter(now)) {
      return null;
    }
    flushing = true;
    nextFlush = now.plus(route.conf().groupInterval());
    return alerts.toList();
  }

  /** After {@link #expire} returned null: the nanosecond a new timer entry is needed for, or UNSCHEDULED. */
  synchronized long pendingSchedule() {
    return reschedule();
  }

  synchronized Instant nextFlush() {
    return nextFlush;
  }

  synchronized boolean isEmpty() {
    return alerts.isEmpty();
  }

  synchronized List<Alert> alerts() {
    return alerts.toList();
  }

  /**
   * Marks the group dropped when it holds no alert, in one step with the check so that an alert inserted meanwhile
   * either keeps the group or is refused; its queued timer entries are then void.
   */
  synchronized boolean removeIfEmpty() {
    if (!alerts.isEmpty()) {
      return false;
    }
    removed = true;
    return true;
  }

  /**
   * Ends a flush. After a successful notification the resolved alerts it carried are dropped, unless they changed
   * meanwhile (a resolved alert that fired again must stay). Returns the nanosecond of the next timer entry.
   */
  synchronized long endFlush(List<Alert> sent, boolean ok, Instant now) {
    flushing = false;
    hasFlushed = true;
    if (ok) {
      for (Alert a : sent) {
        if (a.resolvedAt(now)) {
          alerts.remove(a.fingerprint(), a);
        }
      }
    }
    return reschedule();
  }
}
