package io.sluice.alerts.provider;

import io.sluice.alerts.types.Alert;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The in-memory set of alerts, keyed by fingerprint. New or changed alerts are handed to the subscribers (the
 * dispatcher) in the order they arrive. Resolved alerts are dropped after a retention, as Alertmanager's GC does.
 */
public final class AlertStore {
  private final Map<Long, Alert> alerts = new ConcurrentHashMap<>();
  private final List<Consumer<Alert>> subscribers = new CopyOnWriteArrayList<>();
  private final Clock clock;

  public AlertStore(Clock clock) {
    this.clock = clock;
  }

  public void subscribe(Consumer<Alert> subscriber) {
    subscribers.add(subscriber);
  }

  public void put(Alert alert) {
    Instant now = clock.instant();
    // Subscribers run inside compute so two updates of one alert reach them in the order they were merged.
    alerts.compute(alert.fingerprint(), (fp, old) -> {
      Alert merged = old == null ? alert : alert.mergeInto(old, now);
      for (Consumer<Alert> s : subscribers) {
        s.accept(merged);
      }
      return merged;
    });
  }

  public Alert get(long fingerprint) {
    return alerts.get(fingerprint);
  }

  public Collection<Alert> all() {
    return new ArrayList<>(alerts.values());
  }

  public int size() {
    return alerts.size();
  }

  /** Drops alerts resolved longer than {@code retention} ago; returns their fingerprints. */
  public List<Long> gc(Duration retention) {
    Instant cutoff = clock.instant().minus(retention);
    List<Long> removed = new ArrayList<>();
    alerts.values().removeIf(a -> {
      if (a.endsAt().isBefore(cutoff)) {
        removed.add(a.fingerprint());
        return true;
      }
      return false;
    });
    return removed;
  }
}
