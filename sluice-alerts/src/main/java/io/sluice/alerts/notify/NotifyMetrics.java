package io.sluice.alerts.notify;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.Map;

/**
 * The router's own counters, named and described as Alertmanager's, kept by the official Prometheus client (which
 * also writes them on {@code /metrics}, escaping label values).
 */
public final class NotifyMetrics {
  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final Map<String, Counter> counters = Map.of(
      "alertmanager_alerts_received_total", counter("alertmanager_alerts_received_total",
          "The total number of received alerts.", "status"),
      "alertmanager_alerts_invalid_total", counter("alertmanager_alerts_invalid_total",
          "The total number of received alerts that were invalid.", "version"),
      "alertmanager_notifications_total", counter("alertmanager_notifications_total",
          "The total number of attempted notifications.", "integration"),
      "alertmanager_notifications_failed_total", counter("alertmanager_notifications_failed_total",
          "The total number of failed notifications.", "integration"),
      "alertmanager_notification_requests_total", counter("alertmanager_notification_requests_total",
          "The total number of attempted notification requests.", "integration"),
      "alertmanager_notification_requests_failed_total", counter("alertmanager_notification_requests_failed_total",
          "The total number of failed notification requests.", "integration"));

  private Counter counter(String name, String help, String label) {
    return Counter.builder().name(name).help(help).labelNames(label).register(registry);
  }

  public void inc(String name, String labelName, String labelValue) {
    add(name, labelName, labelValue, 1);
  }

  public void add(String name, String labelName, String labelValue, long n) {
    counter(name).labelValues(labelValue).inc(n);
  }

  public long get(String name, String labelName, String labelValue) {
    return (long) counter(name).labelValues(labelValue).get();
  }

  public PrometheusRegistry registry() {
    return registry;
  }

  private Counter counter(String name) {
    Counter c = counters.get(name);
    if (c == null) {
      throw new IllegalArgumentException("the router keeps no counter " + name);
    }
    return c;
  }
}
