package io.sluice.alerts.notify;

import io.sluice.alerts.types.Alert;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The data a notification is rendered from: Alertmanager's template data. */
record TemplateData(
    String receiver,
    String status,
    List<Alert> alerts,
    Map<String, String> groupLabels,
    Map<String, String> commonLabels,
    Map<String, String> commonAnnotations,
    String externalURL,
    String groupKey,
    Instant now) {

  static TemplateData of(String receiver, String groupKey, Map<String, String> groupLabels, List<Alert> alerts,
      String externalURL, Instant now) {
    boolean firing = alerts.stream().anyMatch(a -> !a.resolvedAt(now));
    return new TemplateData(receiver, firing ? "firing" : "resolved", alerts, new TreeMap<>(groupLabels),
        common(alerts, true), common(alerts, false), externalURL, groupKey, now);
  }

  private static Map<String, String> common(List<Alert> alerts, boolean labels) {
    if (alerts.isEmpty()) {
      return Map.of();
    }
    Map<String, String> out = new TreeMap<>(labels ? alerts.get(0).labels() : alerts.get(0).annotations());
    for (Alert a : alerts.subList(1, alerts.size())) {
      Map<String, String> m = labels ? a.labels() : a.annotations();
      out.entrySet().removeIf(e -> !e.getValue().equals(m.get(e.getKey())));
    }
    return out;
  }

  List<Alert> firing() {
    return alerts.stream().filter(a -> !a.resolvedAt(now)).toList();
  }

  List<Alert> resolved() {
    return alerts.stream().filter(a -> a.resolvedAt(now)).toList();
  }

  String alertStatus(Alert a) {
    return a.resolvedAt(now) ? "resolved" : "firing";
  }

  Map<String, String> asFields() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("Receiver", receiver);
    m.put("Status", status);
    m.put("ExternalURL", externalURL);
    m.put("GroupKey", groupKey);
    return m;
  }
}
