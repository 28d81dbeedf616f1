package io.sluice.alerts.api;

import io.sluice.alerts.config.Config;
import io.sluice.alerts.config.ConfigException;
import io.sluice.alerts.dispatch.Dispatcher;
import io.sluice.alerts.notify.NotifyMetrics;
import io.sluice.alerts.provider.AlertStore;
import io.sluice.alerts.silence.Silences;
import io.sluice.alerts.state.ClusterStatus;
import io.sluice.alerts.types.Marker;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;

/** What the HTTP API needs from the running router; the router implements it, the API never holds state. */
public interface Backend {
  Clock clock();

  Config config();

  Dispatcher dispatcher();

  AlertStore alerts();

  Silences silences();

  Marker marker();

  /** Re-evaluates inhibition and silences for an alert and records the result in the marker. */
  void refreshStatus(Map<String, String> labels);

  void reload() throws ConfigException;

  Instant startedAt();

  NotifyMetrics metrics();

  /** The router cluster this node belongs to, as {@code /api/v2/status} reports it. */
  default ClusterStatus cluster() {
    return ClusterStatus.DISABLED;
  }
}
