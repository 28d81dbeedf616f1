package io.sluice.metrics.rules;

import io.sluice.metrics.model.Labels;
import io.sluice.metrics.model.Matcher;
import io.sluice.metrics.model.StaleNaN;
import io.sluice.metrics.promql.Value;
import io.sluice.metrics.promql.parser.Expr;
import io.sluice.metrics.storage.Querier;
import io.sluice.metrics.storage.SeriesData;
import io.sluice.metrics.template.Expander;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * An alerting rule: each series of its expression is an alert, pending until the expression held for {@code for},
 * then firing; when the series goes away the alert is resolved (after {@code keep_firing_for}, if set) and kept for
 * 15 minutes so that the resolution reaches the alert router. Follows Prometheus's {@code rules/alerting.go}.
 */
public final class AlertingRule implements Rule {
  /** How long a resolved alert is kept (and re-sent) so that routers learn of the resolution. */
  static final long RESOLVED_RETENTION = 15 * 60_000L;

  private final String name;
  private final Expr expr;
  private final long holdMillis;
  private final long keepFiringForMillis;
  private final Map<String, String> labels;
  private final Map<String, String> annotations;
  /** Active alerts by label set; guarded by this. */
  private final Map<Labels, Mutable> active = new LinkedHashMap<>();
  private volatile Evaluation last = Evaluation.NEVER;
  /** False between a restart and the restoration of the {@code for} state: no ALERTS series are written then. */
  private volatile boolean restored = true;

  AlertingRule(String name, Expr expr, long holdMillis, long keepFiringForMillis, Map<String, String> labels,
      Map<String, String> annotations) {
    this.name = name;
    this.expr = expr;
    this.holdMillis = holdMillis;
    this.keepFiringForMillis = keepFiringForMillis;
    this.labels = labels;
    this.annotations = annotations;
  }

  private static final class Mutable {
    Labels labels;
    Map<String, String> annotations;
    Alert.State state;
    double value;
    long activeAt;
    long firedAt = Alert.UNSET;
    long resolvedAt = Alert.UNSET;
    long lastSentAt = Alert.UNSET;
    long validUntil = Alert.UNSET;
    long keepFiringSince = Alert.UNSET;

    Alert snapshot() {
      return new Alert(labels, annotations, state, value, activeAt, firedAt, resolvedAt, lastSentAt, validUntil,
          keepFiringSince);
    }

    boolean needsSending(long ts, long resendDelay) {
      if (state == Alert.State.PENDING) {
        return false;
      }
      // Resolved since the last send: tell the router now.
      if (resolvedAt != Alert.UNSET && resolvedAt > lastSentAt) {
        return true;
      }
      return lastSentAt + resendDelay < ts;
    }
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Expr expr() {
    return expr;
  }

  public long holdMillis() {
    return holdMillis;
  }

  public long keepFiringForMillis() {
    return keepFiringForMillis;
  }

  @Override
  public Map<String, String> labels() {
    return labels;
  }

  public Map<String, String> annotations() {
    return annotations;
  }

  @Override
  public Evaluation lastEvaluation() {
    return last;
  }

  void recordEvaluation(Evaluation e) {
    last = e;
  }

  /** The rule's state: the highest state among its active alerts. */
  public synchronized Alert.State state() {
    Alert.State s = Alert.State.INACTIVE;
    for (Mutable a : active.values()) {
      if (a.state.ordinal() > s.ordinal()) {
        s = a.state;
      }
    }
    return s;
  }

  /** Pending and firing alerts. */
  public synchronized List<Alert> activeAlerts() {
    List<Alert> out = new ArrayList<>();
    for (Mutable a : active.values()) {
      if (a.state != Alert.State.INACTIVE) {
        out.add(a.snapshot());
      }
    }
    return out;
  }

  @Override
  public synchronized List<Value.Sample> eval(long ts, QueryFunction query, RuleContext ctx) {
    List<Value.Sample> res = query.query(expr, ts);
    Expander expander = Expander.of(e -> ctx.templateQuery().query(e, ts), ctx.externalUrl());
    Map<String, String> external = ctx.externalLabels().toMap();
    Map<Labels, Mutable> found = new LinkedHashMap<>();
    String tname = "__alert_" + name;
    for (Value.Sample s : res) {
      Map<String, String> l = s.labels().toMap();
      Labels.Builder lb = s.labels().toBuilder().del(Labels.METRIC_NAME);
      for (Map.Entry<String, String> e : labels.entrySet()) {
        lb.set(e.getKey(), expander.expandAlert(tname, e.getValue(), l, external, s.v()));
      }
      lb.set("alertname", name);
      Map<String, String> ann = new TreeMap<>();
      for (Map.Entry<String, String> e : annotations.entrySet()) {
        ann.put(e.getKey(), expander.expandAlert(tname, e.getValue(), l, external, s.v()));
      }
      Labels lbs = lb.build();
      if (found.containsKey(lbs)) {
        throw new RuleEvaluationException("vector contains metrics with the same labelset after applying alert "
            + "labels");
      }
      Mutable a = new Mutable();
      a.labels = lbs;
      a.annotations = Map.copyOf(ann);
      a.activeAt = ts;
      a.state = Alert.State.PENDING;
      a.value = s.v();
      found.put(lbs, a);
    }
    for (Map.Entry<Labels, Mutable> e : found.entrySet()) {
      Mutable known = active.get(e.getKey());
      if (known != null && known.state != Alert.State.INACTIVE) {
        known.value = e.getValue().value;
        known.annotations = e.getValue().annotations;
        continue;
      }
      active.put(e.getKey(), e.getValue());
    }
    List<Value.Sample> vec = new ArrayList<>();
    int activeCount = 0;
    for (var it = active.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<Labels, Mutable> e = it.next();
      Mutable a = e.getValue();
      if (!found.containsKey(e.getKey())) {
        boolean keepFiring = false;
        if (a.state == Alert.State.FIRING && keepFiringForMillis > 0) {
          if (a.keepFiringSince == Alert.UNSET) {
            a.keepFiringSince = ts;
          }
          keepFiring = ts - a.keepFiringSince < keepFiringForMillis;
        }
        // A pending alert just goes away; a resolved one is kept a while so its resolution is sent.
        if (a.state == Alert.State.PENDING
            || (a.resolvedAt != Alert.UNSET && ts - a.resolvedAt > RESOLVED_RETENTION)) {
          it.remove();
        }
        if (a.state != Alert.State.INACTIVE && !keepFiring) {
          a.state = Alert.State.INACTIVE;
          a.resolvedAt = ts;
        }
        if (!keepFiring) {
          continue;
        }
      } else {
        a.keepFiringSince = Alert.UNSET;
      }
      activeCount++;
      if (a.state == Alert.State.PENDING && ts - a.activeAt >= holdMillis) {
        a.state = Alert.State.FIRING;
        a.firedAt = ts;
      }
      if (!restored) {
        continue;
      }
      vec.add(new Value.Sample(a.labels.toBuilder().set(Labels.METRIC_NAME, "ALERTS")
          .set("alertstate", a.state.apiName()).build(), ts, 1));
      vec.add(new Value.Sample(a.labels.toBuilder().set(Labels.METRIC_NAME, "ALERTS_FOR_STATE").build(), ts,
          Math.floorDiv(a.activeAt, 1000)));
    }
    if (ctx.limit() > 0 && activeCount > ctx.limit()) {
      active.clear();
      throw new RuleEvaluationException("exceeded limit of " + ctx.limit() + " with " + activeCount + " alerts");
    }
    return vec;
  }

  /**
   * The alerts due to be sent at {@code ts}: firing ones not sent for {@code resendDelay}, and newly resolved ones.
   * Marks them sent and valid until {@code ts + 4 × max(interval, resendDelay)}, Prometheus's convention that lets two
   * evaluations or sends fail before the router resolves the alert by itself.
   */
  synchronized List<Alert> takeAlertsToSend(long ts, long resendDelay, long interval) {
    List<Alert> out = new ArrayList<>();
    for (Mutable a : active.values()) {
      if (a.needsSending(ts, resendDelay)) {
        a.lastSentAt = ts;
        a.validUntil = ts + 4 * Math.max(interval, resendDelay);
        out.add(a.snapshot());
      }
    }
    return out;
  }

  void setRestored(boolean restored) {
    this.restored = restored;
  }

  /**
   * After a restart, gives each active alert back the time it became active, from the last {@code ALERTS_FOR_STATE}
   * sample before the restart (Prometheus's {@code RestoreForState}): an alert that was firing fires again at the
   * next evaluation; one that was pending keeps the time it had already spent pending, but waits at least
   * {@code gracePeriod} more. Rules whose {@code for} is shorter than the grace period are not restored.
   */
  synchronized void restoreForState(long ts, Querier q, long gracePeriod) {
    try {
      if (holdMillis < gracePeriod) {
        return;
      }
      for (Mutable a : active.values()) {
        List<Matcher> matchers = new ArrayList<>();
        matchers.add(Matcher.eq(Labels.METRIC_NAME, "ALERTS_FOR_STATE"));
        a.labels.forEach((k, v) -> matchers.add(Matcher.eq(k, v)));
        List<SeriesData> found = q.select(matchers);
        SeriesData s = null;
        for (SeriesData d : found) {
          if (d.labels().size() == a.labels.size() + 1 && d.size() > 0) {
            s = d;
          }
        }
        if (s == null || StaleNaN.is(s.values()[s.size() - 1])) {
          continue;
        }
        long downAt = Math.floorDiv(s.timestamps()[s.size() - 1], 1000) * 1000;
        long activeAt = (long) s.values()[s.size() - 1] * 1000;
        long remaining = holdMillis - (downAt - activeAt);
        if (remaining <= 0) {
          // It was firing: it fires again at the next evaluation if it still holds.
          a.activeAt = activeAt;
        } else if (remaining < gracePeriod) {
          a.activeAt = ts + gracePeriod - holdMillis;
        } else {
          a.activeAt = activeAt + (ts - downAt);
        }
      }
    } finally {
      restored = true;
    }
  }

  /** Carries the state of the same rule of the group this one replaces on reload. */
  synchronized void copyStateFrom(AlertingRule old) {
    synchronized (old) {
      for (Map.Entry<Labels, Mutable> e : old.active.entrySet()) {
        active.put(e.getKey(), e.getValue());
      }
    }
  }
}
