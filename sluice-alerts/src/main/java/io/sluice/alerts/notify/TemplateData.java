package io.sluice.alerts.notify;

import io.sluice.alerts.types.Alert;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
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

  /**
   * The SHA-256 of the group key in hex: how Alertmanager names a group to services that limit an identifier's
   * length (PagerDuty's dedup_key, Opsgenie's alias, VictorOps' entity_id).
   */
  String groupKeyHash() {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
          .digest(groupKey.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
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
