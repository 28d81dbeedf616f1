package io.sluice.app.connectors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.app.cli.TextTable;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;

/** {@code sluice connectors list}: every connector with its type, state, tasks and worker. */
@Command(name = "list", mixinStandardHelpOptions = true,
    description = "List the connectors: name, type, state, running tasks, worker.")
final class ListCommand extends ConnectorsBase {
  /** One connector as {@code list} shows it. */
  record Row(String name, String type, String state, int running, int tasks, String worker) {}

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
      rows.add(new Row(e.getKey(), type, status.path("connector").path("state").asText("UNASSIGNED"), running,
          status.path("tasks").size(), status.path("connector").path("worker_id").asText("")));
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
            .put("worker", r.worker());
        o.putObject("tasks").put("running", r.running()).put("total", r.tasks());
      }
      printJson(a);
      return ConnectorsCommand.OK;
    }
    if (rows.isEmpty()) {
      out.println("no connectors on " + connect().baseUrl());
      return ConnectorsCommand.OK;
    }
    TextTable t = new TextTable("NAME", "TYPE", "STATE", "TASKS", "WORKER");
    rows.forEach(r -> t.row(r.name(), r.type(), r.state(), r.running() + "/" + r.tasks(), r.worker()));
    t.print(out);
    return ConnectorsCommand.OK;
  }
}
