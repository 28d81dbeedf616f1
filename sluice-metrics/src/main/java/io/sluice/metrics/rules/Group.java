package io.sluice.metrics.rules;

import io.sluice.metrics.model.Labels;
import io.sluice.metrics.model.StaleNaN;
import io.sluice.metrics.promql.Value;
import io.sluice.metrics.storage.Appender;
import io.sluice.metrics.storage.Querier;
import io.sluice.metrics.storage.Queryable;
import io.sluice.metrics.storage.Storage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A rule group: its rules are evaluated in order at one timestamp, each rule's output committed before the next
 * rule runs (so later rules see earlier ones), series a rule stopped returning get a stale marker, and alerting rules
 * hand their due alerts to the {@link AlertSender}. Follows Prometheus's {@code rules/group.go}.
 */
public final class Group {
  private static final Logger log = LoggerFactory.getLogger(Group.class);

  private final String name;
  private final String file;
  private final long intervalMillis;
  private final int limit;
  private final List<Rule> rules;
  /** Per rule, the series it wrote at the previous evaluation (for stale markers). */
  private final List<Set<Labels>> previous;
  private volatile long lastEvaluation;
  private volatile double lastDurationSeconds;

  /** Receives the alerts an alerting rule decided to send, with the rule's expression for the generator URL. */
  @FunctionalInterface
  public interface AlertSender {
    void send(String expr, List<Alert> alerts);

    AlertSender NONE = (expr, alerts) -> {};
  }

  Group(String name, String file, long intervalMillis, int limit, List<Rule> rules) {
    this.name = name;
    this.file = file;
    this.intervalMillis = intervalMillis;
    this.limit = limit;
    this.rules = List.copyOf(rules);
    this.previous = new ArrayList<>();
    for (int i = 0; i < rules.size(); i++) {
      previous.add(new HashSet<>());
    }
  }

  static Group of(RuleFile.GroupSpec spec, String file, long defaultInterval) {
    List<Rule> rules = new ArrayList<>();
    for (RuleFile.RuleSpec r : spec.rules()) {
      rules.add(r.isAlert()
          ? new AlertingRule(r.alert(), r.expr(), r.forMillis(), r.keepFiringForMillis(), r.labels(), r.annotations())
          : new RecordingRule(r.record(), r.expr(), r.labels()));
    }
    return new Group(spec.name(), file, spec.intervalMillis() > 0 ? spec.intervalMillis() : defaultInterval,
        spec.limit(), rules);
  }

  public String name() {
    return name;
  }

  public String file() {
    return file;
  }

  public long intervalMillis() {
    return intervalMillis;
  }

  public int limit() {
    return limit;
  }

  public List<Rule> rules() {
    return rules;
  }

  /** Unix milliseconds of the last evaluation, 0 before the first. */
  public long lastEvaluation() {
    return lastEvaluation;
  }

  public double lastDurationSeconds() {
    return lastDurationSeconds;
  }

  /** Identifies a group across reloads. */
  String key() {
    return file + ";" + name;
  }

  /**
   * Prometheus's evaluation timestamps: multiples of the interval shifted by a hash of the group, so that groups of
   * the same interval do not all run at once.
   */
  long evalTimestamp(long now) {
    long offset = Math.floorMod((long) key().hashCode() * 0x9E3779B97F4A7C15L, intervalMillis);
    long adj = now - offset;
    return adj - Math.floorMod(adj, intervalMillis) + offset;
  }

  /** Evaluates every rule at {@code ts}, writing results through {@code storage}. */
  public void eval(long ts, Storage storage, Rule.QueryFunction query, Rule.RuleContext ctx, long resendDelay,
      AlertSender sender) {
    long start = System.nanoTime();
    for (int i = 0; i < rules.size(); i++) {
      Rule rule = rules.get(i);
      long rs = System.nanoTime();
      List<Value.Sample> vector;
      try {
        vector = rule.eval(ts, query, ctx.withLimit(limit));
      } catch (RuntimeException e) {
        String msg = e.getMessage() == null ? e.toString() : e.getMessage();
        record(rule, new Rule.Evaluation("err", msg, ts, (System.nanoTime() - rs) / 1e9));
        log.warn("evaluating rule {} of group {} failed: {}", rule.name(), name, msg);
        continue;
      }
      if (rule instanceof AlertingRule ar) {
        List<Alert> due = ar.takeAlertsToSend(ts, resendDelay, intervalMillis);
        if (!due.isEmpty()) {
          sender.send(rule.expr().toString(), due);
        }
      }
      Appender app = storage.appender();
      Set<Labels> returned = new HashSet<>(vector.size() * 2);
      for (Value.Sample s : vector) {
        app.append(s.labels(), ts, s.v());
        returned.add(s.labels());
      }
      for (Labels gone : previous.get(i)) {
        if (!returned.contains(gone)) {
          app.append(gone, ts, StaleNaN.VALUE);
        }
      }
      app.commit();
      previous.set(i, returned);
      record(rule, new Rule.Evaluation("ok", "", ts, (System.nanoTime() - rs) / 1e9));
    }
    lastEvaluation = ts;
    lastDurationSeconds = (System.nanoTime() - start) / 1e9;
  }

  private static void record(Rule rule, Rule.Evaluation e) {
    if (rule instanceof AlertingRule a) {
      a.recordEvaluation(e);
    } else if (rule instanceof RecordingRule r) {
      r.recordEvaluation(e);
    }
  }

  /** From now until {@link #restoreForState} runs, alerting rules write no ALERTS series (a restart). */
  void awaitRestore() {
    for (Rule r : rules) {
      if (r instanceof AlertingRule a) {
        a.setRestored(false);
      }
    }
  }

  /**
   * Gives alerts back the activation times they had before a restart, from {@code ALERTS_FOR_STATE} samples at most
   * {@code outageTolerance} old; see {@link AlertingRule#restoreForState}.
   */
  void restoreForState(long ts, Queryable storage, long outageTolerance,
      long gracePeriod) {
    try (Querier q = storage.querier(ts - outageTolerance, ts)) {
      for (Rule r : rules) {
        if (r instanceof AlertingRule a) {
          a.restoreForState(ts, q, gracePeriod);
        }
      }
    }
  }

  /** Writes stale markers for everything this group wrote: the group was removed on reload. */
  void markStale(long ts, Storage storage) {
    Appender app = storage.appender();
    for (Set<Labels> s : previous) {
      for (Labels l : s) {
        app.append(l, ts, StaleNaN.VALUE);
      }
    }
    app.commit();
  }

  /** Takes over the alerts and written series of the same-named rules of the group this one replaces. */
  void copyStateFrom(Group old) {
    Map<String, List<Integer>> oldByName = new HashMap<>();
    for (int i = 0; i < old.rules.size(); i++) {
      Rule r = old.rules.get(i);
      oldByName.computeIfAbsent(r.name() + "\0" + r.expr() + "\0" + r.labels(), k -> new ArrayList<>()).add(i);
    }
    for (int i = 0; i < rules.size(); i++) {
      Rule r = rules.get(i);
      List<Integer> match = oldByName.get(r.name() + "\0" + r.expr() + "\0" + r.labels());
      if (match == null || match.isEmpty()) {
        continue;
      }
      int j = match.remove(0);
      previous.set(i, old.previous.get(j));
      if (r instanceof AlertingRule ar && old.rules.get(j) instanceof AlertingRule oa) {
        ar.copyStateFrom(oa);
      }
    }
    lastEvaluation = old.lastEvaluation;
  }
}
