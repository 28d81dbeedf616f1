package io.sluice.alerts.inhibit;

import io.sluice.alerts.config.Config;
import io.sluice.alerts.labels.Matchers;
import io.sluice.alerts.types.Alert;
import io.sluice.alerts.types.AlertTable;
import io.sluice.alerts.types.Marker;
import io.sluice.alerts.types.Muter;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Alertmanager's inhibition: a target alert is muted while a firing source alert of the same rule has equal values
 * for the rule's {@code equal} labels (a label missing on both sides counts as equal). An alert never inhibits
 * itself, and when the target also matches the source side, sources that match the target side do not count.
 * Source alerts are indexed by their equal-label values, so a check costs a lookup, not a scan.
 */
public final class Inhibitor implements Muter {
  private final List<Rule> rules;
  private final Clock clock;
  private final Marker marker;

  public Inhibitor(List<Config.InhibitRule> rules, Clock clock, Marker marker) {
    this.rules = rules.stream().map(Rule::new).toList();
    this.clock = clock;
    this.marker = marker;
  }

  /** Feeds every alert the store receives; the inhibitor keeps those that can act as sources. */
  public void observe(Alert alert) {
    for (Rule r : rules) {
      if (Matchers.matchesAll(r.conf.sourceMatchers(), alert.labels())) {
        AlertTable t = r.sources.computeIfAbsent(r.equalKey(alert.labels()), k -> new AlertTable());
        synchronized (t) {
          t.put(alert);
        }
      }
    }
  }

  public void forget(long fingerprint) {
    for (Rule r : rules) {
      for (AlertTable t : r.sources.values()) {
        synchronized (t) {
          t.remove(fingerprint);
        }
      }
    }
  }

  @Override
  public boolean mutes(Map<String, String> labels) {
    long fp = Matchers.fingerprint(labels);
    Instant now = clock.instant();
    for (Rule r : rules) {
      if (!Matchers.matchesAll(r.conf.targetMatchers(), labels)) {
        continue;
      }
      boolean targetIsSource = Matchers.matchesAll(r.conf.sourceMatchers(), labels);
      AlertTable candidates = r.sources.get(r.equalKey(labels));
      if (candidates == null) {
        continue;
      }
      Alert source;
      synchronized (candidates) {
        source = candidates.first(s -> s.fingerprint() != fp && !s.resolvedAt(now)
            && !(targetIsSource && Matchers.matchesAll(r.conf.targetMatchers(), s.labels())));
      }
      if (source != null) {
        marker.setInhibited(fp, List.of(source.fingerprintHex()));
        return true;
      }
    }
    marker.setInhibited(fp, List.of());
    return false;
  }

  private static final class Rule {
    final Config.InhibitRule conf;
    /** Source alerts by their values of the equal labels; each table is locked by its users. */
    final Map<String, AlertTable> sources = new ConcurrentHashMap<>();

    Rule(Config.InhibitRule conf) {
      this.conf = conf;
    }

    String equalKey(Map<String, String> labels) {
      List<String> parts = new ArrayList<>(conf.equal().size());
      for (String l : conf.equal()) {
        parts.add(labels.getOrDefault(l, ""));
      }
      return String.join("\u0000", parts);
    }
  }
}
