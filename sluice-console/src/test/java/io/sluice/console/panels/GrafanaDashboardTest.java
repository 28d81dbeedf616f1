package io.sluice.console.panels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The exported dashboard against the fields of Grafana's dashboard schema that an import reads. */
class GrafanaDashboardTest {
  private final JsonNode d = read();

  private static JsonNode read() {
    try {
      return new ObjectMapper().readTree(GrafanaDashboard.json());
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void topLevelAndTemplating() {
    assertTrue(d.path("schemaVersion").asInt() >= 36, "Grafana 10/11 schema");
    assertFalse(d.path("uid").asText().isEmpty());
    assertFalse(d.path("title").asText().isEmpty());
    JsonNode vars = d.path("templating").path("list");
    assertEquals("datasource", vars.get(0).path("type").asText());
    assertEquals("prometheus", vars.get(0).path("query").asText());
    JsonNode connector = vars.get(2);
    assertEquals("connector", connector.path("name").asText());
    assertEquals("query", connector.path("type").asText());
    assertTrue(connector.path("definition").asText().startsWith("label_values("), connector.toString());
    assertTrue(connector.path("multi").asBoolean());
    assertEquals("${datasource}", connector.path("datasource").path("uid").asText());
  }

  @Test
  void theEightPanelsEachWithPrometheusTargets() {
    JsonNode panels = d.path("panels");
    assertEquals(8, panels.size());
    Set<Integer> ids = new HashSet<>();
    Set<String> types = Set.of("gauge", "timeseries", "state-timeline", "stat");
    for (JsonNode p : panels) {
      assertTrue(ids.add(p.path("id").asInt()), "unique ids");
      assertTrue(types.contains(p.path("type").asText()), p.path("type").asText());
      for (String g : List.of("h", "w", "x", "y")) {
        assertTrue(p.path("gridPos").path(g).isInt(), "gridPos." + g);
      }
      assertTrue(p.path("gridPos").path("x").asInt() + p.path("gridPos").path("w").asInt() <= 24, "within 24 columns");
      assertEquals("prometheus", p.path("datasource").path("type").asText());
      assertTrue(p.path("targets").size() >= 1);
      Set<String> refs = new HashSet<>();
      for (JsonNode t : p.path("targets")) {
        assertTrue(refs.add(t.path("refId").asText()));
        String expr = t.path("expr").asText();
        assertTrue(expr.contains("svc_"), expr);
        assertFalse(expr.contains("$connectors"), "Grafana's variable is $connector: " + expr);
      }
    }
  }
}
