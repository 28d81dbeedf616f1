package io.sluice.app.connectors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.app.cli.TextTable;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code sluice connectors describe N}: config (secrets masked), status, offsets and topics of one connector. */
@Command(name = "describe", mixinStandardHelpOptions = true,
    description = "Show one connector: config (secrets masked), status with tasks, offsets, topics.")
final class DescribeCommand extends ConnectorsBase {
  @Parameters(index = "0", paramLabel = "NAME", description = "the connector")
  String name;

  @Override
  int execute() {
    ObjectNode config = connect().config(name).orElseThrow(() -> new IllegalArgumentException(
        "no connector " + name + " on " + connect().baseUrl() + " (sluice connectors list shows them)"));
    JsonNode status = connect().status(name);
    Optional<JsonNode> offsets = connect().offsets(name);
    List<String> topics = connect().topics(name);
    ObjectNode masked = JSON.createObjectNode();
    TreeMap<String, String> sorted = new TreeMap<>();
    config.fields().forEachRemaining(e -> sorted.put(e.getKey(), e.getValue().asText()));
    sorted.forEach((k, v) -> masked.put(k, Secrets.shown(k, v)));

    if (output.json()) {
      ObjectNode o = JSON.createObjectNode();
      o.put("name", name);
      o.put("type", status.path("type").asText());
      o.set("config", masked);
      o.set("status", status);
      o.set("offsets", offsets.map(x -> x.path("offsets")).orElse(JSON.nullNode()));
      o.set("topics", JSON.valueToTree(topics));
      printJson(o);
      return ConnectorsCommand.OK;
    }
    JsonNode c = status.path("connector");
    out.println("Name:    " + name);
    out.println("Type:    " + status.path("type").asText());
    out.println("Class:   " + config.path("connector.class").asText());
    out.println("State:   " + c.path("state").asText() + " on " + c.path("worker_id").asText()
        + (c.has("trace") ? "\n         " + firstLine(c.path("trace").asText()) : ""));
    out.println("Topics:  " + (topics.isEmpty() ? "-" : String.join(", ", topics)));
    out.println();
    out.println("Tasks:");
    if (status.path("tasks").isEmpty()) {
      out.println("  (none)");
    } else {
      TextTable t = new TextTable("ID", "STATE", "WORKER", "ERROR").indent("  ");
      status.path("tasks").forEach(task -> t.row(task.path("id").asInt(), task.path("state").asText(),
          task.path("worker_id").asText(), task.has("trace") ? TextTable.shorten(firstLine(task.path("trace")
              .asText()), 100) : null));
      t.print(out);
    }
    out.println();
    out.println("Offsets:");
    JsonNode list = offsets.map(x -> x.path("offsets")).orElse(JSON.nullNode());
    if (list.isEmpty()) {
      out.println(offsets.isPresent() ? "  (none committed yet)" : "  (this Connect has no offsets API)");
    } else {
      TextTable t = new TextTable("PARTITION", "OFFSET").indent("  ");
      list.forEach(p -> t.row(p.path("partition").toString(), p.path("offset").toString()));
      t.print(out);
    }
    out.println();
    out.println("Config:");
    TextTable t = new TextTable("KEY", "VALUE").indent("  ");
    masked.fields().forEachRemaining(e -> t.row(e.getKey(), e.getValue().asText()));
    t.print(out);
    return ConnectorsCommand.OK;
  }

  private static String firstLine(String trace) {
    int nl = trace.indexOf('\n');
    return nl < 0 ? trace : trace.substring(0, nl);
  }
}
