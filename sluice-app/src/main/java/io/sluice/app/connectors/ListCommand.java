package io.sluice.app.connectors;

import io.sluice.app.cli.ExitCode;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.app.cli.TextTable;
import io.sluice.connect.defaults.ExactlyOnce;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;

/** {@code sluice connectors list}: every connector with its type, state, tasks, worker and delivery guarantee. */
@Command(name = "list", mixinStandardHelpOptions = true,
    description = "List the connectors: name, type, state, running tasks, worker, delivery guarantee.")
final class ListCommand extends ConnectorsBase {
  /** One connector as {@code list} shows it; {@code delivery} is {@code exactly once} or {@code at least once}. */
  record Row(String name, String type, String state, int running, int tasks, String worker, String delivery) {}

  static List<Row> rows(JsonNode expanded) {
    List<Row> rows = new ArrayList<>();
    expanded.fields().forEachRemaining(e -> {
      JsonNode status = e.getValue().path("status");
      JsonNode info = e.getValue().path("info");
      int running = 0;
      for (JsonNode t : status.path("tasks")) {
        running += "RUNNING".equals(t.path("state").asText()) ? 1 : 0;
      }
      String type = info.path("type").asText(status.path("type").asText("unknown"));
      Map<String, String> config = new HashMap<>();
      info.path("config").fields().forEachRemaining(c -> config.put(c.getKey(), c.getValue().asText()));
      rows.add(new Row(e.getKey(), type, status.path("connector").path("state").asText("UNASSIGNED"), running,
          status.path("tasks").size(), status.path("connector").path("worker_id").asText(""),
          ExactlyOnce.guarantee(config).text()));
    });
    rows.sort((a, b) -> a.name().compareTo(b.name()));
    return rows;
  }

  @Override
  int execute() {
    List<Row> rows = rows(connect().connectorsExpanded());
    if (output.json()) {
      ArrayNode a = JSON.createArrayNode();
      for (Row r : rows) {
        ObjectNode o = a.addObject().put("name", r.name()).put("type", r.type()).put("state", r.state())
            .put("worker", r.worker()).put("delivery", r.delivery());
        o.putObject("tasks").put("running", r.running()).put("total", r.tasks());
      }
      printJson(a);
      return ExitCode.OK.code();
    }
    if (rows.isEmpty()) {
      out.println("no connectors on " + connect().baseUrl());
      return ExitCode.OK.code();
    }
    TextTable t = new TextTable("NAME", "TYPE", "STATE", "TASKS", "WORKER", "DELIVERY");
    rows.forEach(r -> t.row(r.name(), r.type(), r.state(), r.running() + "/" + r.tasks(), r.worker(), r.delivery()));
    t.print(out);
    return ExitCode.OK.code();
  }
}
