package io.sluice.alerts.dispatch;

import io.sluice.alerts.types.Alert;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The alerts of one route that share group labels. It flushes first after group_wait (at once for an alert older than
 * group_wait) and then every group_interval; deciding whether a flush notifies is the notification log's job.
 */
final class AggregationGroup {
  final Route route;
  final Map<String, String> labels;
  final String key;
  private final Map<Long, Alert> alerts = new LinkedHashMap<>();
  private Instant nextFlush;
  private boolean hasFlushed;
  private boolean flushing;

  AggregationGroup(Route route, Map<String, String> labels, String key, Instant now) {
    this.route = route;
    this.labels = labels;
    this.key = key;
    this.nextFlush = now.plus(route.conf().groupWait());
  }

  synchronized void insert(Alert alert, Instant now) {
    alerts.put(alert.fingerprint(), alert);
    if (!hasFlushed && !alert.startsAt().plus(route.conf().groupWait()).isAfter(now) && now.isBefore(nextFlush)) {
      nextFlush = now;
    }
  }

  synchronized boolean due(Instant now) {
    return !flushing && !nextFlush.isAfter(now);
  }

  synchronized Instant nextFlush() {
    return nextFlush;
  }

  synchronized boolean isEmpty() {
    return alerts.isEmpty();
  }

  synchronized List<Alert> alerts() {
    return new ArrayList<>(alerts.values());
  }

  /** Starts a flush: reschedules, as Alertmanager resets its timer before notifying, and returns the alerts. */
  synchronized List<Alert> beginFlush(Instant now) {
    flushing = true;
    nextFlush = now.plus(route.conf().groupInterval());
    return new ArrayList<>(alerts.values());
  }

  /**
   * Ends a flush. After a successful notification the resolved alerts it carried are dropped, unless they changed
   * meanwhile (a resolved alert that fired again must stay).
   */
  synchronized void endFlush(List<Alert> sent, boolean ok, Instant now) {
    flushing = false;
    hasFlushed = true;
    if (!ok) {
      return;
    }
    for (Alert a : sent) {
      if (a.resolvedAt(now)) {
        alerts.remove(a.fingerprint(), a);
      }
    }
  }
}
