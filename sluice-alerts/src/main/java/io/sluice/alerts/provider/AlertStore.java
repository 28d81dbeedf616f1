package io.sluice.alerts.provider;

import io.sluice.alerts.types.Alert;
import io.sluice.alerts.types.AlertTable;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The in-memory set of alerts, keyed by fingerprint. New or changed alerts are handed to the subscribers (the
 * dispatcher) in the order they arrive. Resolved alerts are dropped after a retention, as Alertmanager's GC does.
 * Alerts are spread over independently locked stripes, each a compact {@link AlertTable}, so concurrent posts rarely
 * wait for each other and an alert costs no boxed key or map node.
 */
public final class AlertStore {
  private static final int STRIPES = 64;

  private final AlertTable[] stripes = new AlertTable[STRIPES];
  private final List<Consumer<Alert>> subscribers = new CopyOnWriteArrayList<>();
  private final Clock clock;

  public AlertStore(Clock clock) {
    this.clock = clock;
    for (int i = 0; i < STRIPES; i++) {
      stripes[i] = new AlertTable(64);
    }
  }

  public void subscribe(Consumer<Alert> subscriber) {
    subscribers.add(subscriber);
  }

  private AlertTable stripe(long fingerprint) {
    // Fingerprints are FNV hashes; their top bits are as mixed as any.
    return stripes[(int) (fingerprint >>> 58)];
  }

  public void put(Alert alert) {
    Instant now = clock.instant();
    AlertTable t = stripe(alert.fingerprint());
    // Subscribers run under the stripe's lock so two updates of one alert reach them in the order they were merged.
    synchronized (t) {
      t.update(alert.fingerprint(), old -> {
        Alert merged = old == null ? alert : alert.mergeInto(old, now);
        for (Consumer<Alert> s : subscribers) {
          s.accept(merged);
        }
        return merged;
      });
    }
  }

  public Alert get(long fingerprint) {
    AlertTable t = stripe(fingerprint);
    synchronized (t) {
      return t.get(fingerprint);
    }
  }

  public Collection<Alert> all() {
    List<Alert> out = new ArrayList<>();
    for (AlertTable t : stripes) {
      synchronized (t) {
        t.forEach(out::add);
      }
    }
    return out;
  }

  public int size() {
    int n = 0;
    for (AlertTable t : stripes) {
      synchronized (t) {
        n += t.size();
      }
    }
    return n;
  }

  /** Drops alerts resolved longer than {@code retention} ago; returns their fingerprints. */
  public List<Long> gc(Duration retention) {
    Instant cutoff = clock.instant().minus(retention);
    List<Long> removed = new ArrayList<>();
    for (AlertTable t : stripes) {
      synchronized (t) {
        t.removeIf(a -> {
          if (a.endsAt().isBefore(cutoff)) {
            removed.add(a.fingerprint());
            return true;
          }
          return false;
        });
      }
    }
    return removed;
  }
}
