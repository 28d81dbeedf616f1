package io.sluice.console.panels;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * The pipeline panels as a Grafana dashboard (the JSON model of Grafana 10 and 11, importable unchanged): a
 * {@code datasource} variable of type prometheus, a {@code pipeline} variable and a multi-valued {@code connector}
 * variable from {@code label_values}, and the same eight panels with the same PromQL as Sluice's own page.
 */
public final class GrafanaDashboard {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Grafana 10.4 and 11 write this schema version; both import it. */
  static final int SCHEMA_VERSION = 39;
  static final String UID = "sluice-pipeline";

  private GrafanaDashboard() {}

  public static String json() {
    try {
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(model());
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  static ObjectNode model() {
    ObjectNode d = JSON.createObjectNode();
    d.put("uid", UID).put("title", "Sluice · CDC pipeline").put("schemaVersion", SCHEMA_VERSION).put("version", 1)
        .put("editable", true).put("graphTooltip", 1).put("refresh", "15s").put("timezone", "browser");
    d.putArray("tags").add("sluice").add("cdc");
    d.putObject("time").put("from", "now-1h").put("to", "now");
    d.putObject("timepicker").putArray("refresh_intervals").add("15s").add("30s").add("1m").add("5m");
    ArrayNode vars = d.putObject("templating").putArray("list");
    ObjectNode ds = vars.addObject().put("name", "datasource").put("label", "Data source").put("type", "datasource")
        .put("query", "prometheus").put("refresh", 1).put("hide", 0);
    ds.putObject("current");
    vars.add(queryVariable("pipeline", "Pipeline",
        "label_values(svc_connect_connector_status_info, pipeline)", false));
    vars.add(queryVariable("connector", "Connector",
        "label_values(svc_connect_connector_status_info{pipeline=\"$pipeline\"}, connector)", true));
    d.putArray("annotations");
    ArrayNode panels = d.putArray("panels");
    int id = 1;
    int i = 0;
    for (Panel p : PipelinePanels.ALL) {
      panels.add(panel(p, id++, (i % 2) * 12, (i / 2) * 8));
      i++;
    }
    return d;
  }

  private static ObjectNode queryVariable(String name, String label, String query, boolean multi) {
    ObjectNode v = JSON.createObjectNode().put("name", name).put("label", label).put("type", "query")
        .put("definition", query).put("refresh", 2).put("sort", 1).put("multi", multi).put("includeAll", multi)
        .put("hide", 0);
    if (multi) {
      v.put("allValue", ".*");
    }
    v.set("datasource", datasource());
    v.putObject("query").put("query", query).put("refId", "PrometheusVariableQueryEditor-VariableQuery")
        .put("qryType", 1);
    v.putObject("current");
    v.putArray("options");
    return v;
  }

  private static ObjectNode datasource() {
    return JSON.createObjectNode().put("type", "prometheus").put("uid", "${datasource}");
  }

  private static ObjectNode panel(Panel p, int id, int x, int y) {
    String type = switch (p.kind()) {
      case GAUGE -> "gauge";
      case TIMESERIES -> "timeseries";
      case STATUS -> "state-timeline";
      case STAT -> "stat";
    };
    ObjectNode o = JSON.createObjectNode().put("id", id).put("type", type).put("title", p.title())
        .put("description", p.description());
    o.set("datasource", datasource());
    o.putObject("gridPos").put("h", 8).put("w", 12).put("x", x).put("y", y);
    ArrayNode targets = o.putArray("targets");
    char ref = 'A';
    List<Panel.Query> queries = p.kind() == Panel.Kind.GAUGE ? p.queries().subList(0, 1) : p.queries();
    for (Panel.Query q : queries) {
      ObjectNode t = targets.addObject().put("refId", String.valueOf(ref++))
          .put("expr", q.expr().replace("$connectors", "$connector"))
          .put("legendFormat", q.legend()).put("range", p.kind() != Panel.Kind.STAT && p.kind() != Panel.Kind.GAUGE)
          .put("instant", p.kind() == Panel.Kind.STAT || p.kind() == Panel.Kind.GAUGE);
      t.set("datasource", datasource());
    }
    ObjectNode defaults = o.putObject("fieldConfig").putObject("defaults");
    defaults.put("unit", switch (p.unit()) {
      case "s" -> "s";
      case "records/s" -> "reqps";
      case "errors/s" -> "short";
      case "ratio" -> "percentunit";
      default -> "short";
    });
    ObjectNode thresholds = defaults.putObject("thresholds").put("mode", "absolute");
    ArrayNode steps = thresholds.putArray("steps");
    steps.addObject().put("color", "green").putNull("value");
    if (p.thresholds().size() == 2) {
      steps.addObject().put("color", "yellow").put("value", p.thresholds().get(0));
      steps.addObject().put("color", "red").put("value", p.thresholds().get(1));
      defaults.put("min", 0).put("max", p.thresholds().get(1) * 2);
    }
    o.putArray("links");
    o.putObject("options").putObject("reduceOptions").put("fields", "").put("values", false)
        .putArray("calcs").add("lastNotNull");
    return o;
  }
}
