package io.sluice.alerts.types;

import io.sluice.alerts.labels.LabelMap;
import io.sluice.alerts.labels.Matchers;
import java.time.Instant;
import java.util.Map;

/**
 * An alert as the router keeps it. Identity is the label set ({@link #fingerprint()}). {@code timeout} marks an alert
 * whose client gave no {@code endsAt}, so the router set it to now + resolve_timeout; Alertmanager reports such an
 * alert's {@code endsAt} in notifications as the zero time while it fires.
 */
public record Alert(
    Map<String, String> labels,
    Map<String, String> annotations,
    Instant startsAt,
    Instant endsAt,
    String generatorURL,
    Instant updatedAt,
    boolean timeout,
    long fingerprint) {

  public Alert {
    labels = LabelMap.of(labels);
    annotations = LabelMap.of(annotations);
    generatorURL = generatorURL == null ? "" : generatorURL;
  }

  public static Alert of(Map<String, String> labels, Map<String, String> annotations, Instant startsAt,
      Instant endsAt, String generatorURL, Instant updatedAt, boolean timeout) {
    LabelMap sorted = LabelMap.of(labels);
    return new Alert(sorted, annotations, startsAt, endsAt, generatorURL, updatedAt, timeout,
        Matchers.fingerprint(sorted));
  }

  public boolean resolvedAt(Instant now) {
    return endsAt != null && !endsAt.isAfter(now);
  }

  public String fingerprintHex() {
    return Matchers.fingerprintHex(fingerprint);
  }

  /**
   * Alertmanager's rule for a re-sent alert: merged into the stored one only when their activity ranges overlap,
   * otherwise the new one replaces it (an alert that fires again after it resolved starts anew).
   */
  public Alert mergeInto(Alert old, Instant now) {
    boolean overlap = (endsAt.isAfter(old.startsAt) && endsAt.isBefore(old.endsAt))
        || (startsAt.isAfter(old.startsAt) && startsAt.isBefore(old.endsAt));
    return overlap ? merge(old, this, now) : this;
  }

  private static Alert merge(Alert a, Alert o, Instant now) {
    if (o.updatedAt.isBefore(a.updatedAt)) {
      return merge(o, a, now);
    }
    Instant start = a.startsAt.isBefore(o.startsAt) ? a.startsAt : o.startsAt;
    Instant end = o.endsAt;
    if (o.resolvedAt(now)) {
      if (a.resolvedAt(now) && a.endsAt.isAfter(o.endsAt)) {
        end = a.endsAt;
      }
    } else if (a.endsAt.isAfter(o.endsAt) && !a.timeout) {
      end = a.endsAt;
    }
    return new Alert(o.labels, o.annotations, start, end, o.generatorURL, o.updatedAt, o.timeout, o.fingerprint);
  }
}
