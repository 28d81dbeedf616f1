package io.sluice.metrics.rules;

import io.sluice.metrics.model.Labels;
import java.util.Locale;
import java.util.Map;

/**
 * One alert of an alerting rule, as the API shows it. Times are Unix milliseconds; {@link #UNSET} when not reached
 * (Go's zero time).
 */
public record Alert(Labels labels, Map<String, String> annotations, State state, double value, long activeAt,
    long firedAt, long resolvedAt, long lastSentAt, long validUntil, long keepFiringSince) {
  public static final long UNSET = Long.MIN_VALUE / 4;

  /** Prometheus's alert states; a resolved alert is inactive with a {@code resolvedAt}. */
  public enum State {
    INACTIVE, PENDING, FIRING;

    public String apiName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  public boolean isResolved() {
    return resolvedAt != UNSET;
  }
}
