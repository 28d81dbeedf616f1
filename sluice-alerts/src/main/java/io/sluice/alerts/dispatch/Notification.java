package io.sluice.alerts.dispatch;

import io.sluice.alerts.types.Alert;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** What an aggregation group hands to the notification pipeline at each flush. */
public record Notification(
    String groupKey,
    Map<String, String> groupLabels,
    Route route,
    List<Alert> alerts,
    Instant now) {

  public String receiver() {
    return route.receiver();
  }
}
