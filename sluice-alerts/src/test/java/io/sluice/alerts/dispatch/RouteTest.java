package io.sluice.alerts.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.alerts.config.ConfigLoader;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RouteTest {
  @Test
  void keysAndGroupLabelsFollowAlertmanager() throws Exception {
    Route root = Route.tree(ConfigLoader.parse("""
        route:
          receiver: a
          group_by: ['...']
          routes:
            - matchers: ['severity="critical"', 'env=~"prod|stage"']
              receiver: b
              group_by: [alertname, connector]
              routes:
                - match: {team: db}
                  receiver: c
        receivers: [{name: a}, {name: b}, {name: c}]
        """, null, Map.of()).route());
    Map<String, String> labels = Map.of("alertname", "X", "severity", "critical", "env", "prod", "team", "db");
    List<Route> m = root.match(labels);
    assertEquals(1, m.size());
    Route c = m.get(0);
    assertEquals("c", c.receiver());
    assertEquals("{}/{env=~\"prod|stage\",severity=\"critical\"}/{team=\"db\"}", c.key());
    // The child inherits group_by from its parent; a label the alert lacks is left out.
    assertEquals(Map.of("alertname", "X"), c.groupLabels(labels));
    assertEquals(labels, root.groupLabels(labels));
    assertEquals("a", root.match(Map.of("severity", "warning")).get(0).receiver());
    // The group key a real Alertmanager 0.25 put into its webhook payload for this file and alert.
    Map<String, String> withConnector = new java.util.HashMap<>(labels);
    withConnector.put("connector", "orders");
    assertEquals("{}/{env=~\"prod|stage\",severity=\"critical\"}/{team=\"db\"}:{alertname=\"X\", connector=\"orders\"}",
        c.key() + ":" + io.sluice.alerts.labels.Matchers.labelSetString(c.groupLabels(withConnector)));
  }
}
