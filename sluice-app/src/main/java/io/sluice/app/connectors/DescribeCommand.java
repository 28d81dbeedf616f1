package io.sluice.app.connectors;

import io.sluice.app.cli.ExitCode;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.app.cli.TextTable;
import io.sluice.connect.secrets.SecretMask;
import io.sluice.connect.defaults.ExactlyOnce;
import io.sluice.ops.offsets.TaskFailure;
import io.sluice.ops.offsets.TopicOffset;
import java.util.ArrayList;
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
    List<TaskFailure> failures = TaskFailure.fromStatus(status);
    JsonNode list = offsets.map(x -> x.path("offsets")).orElse(JSON.nullNode());
    ObjectNode masked = JSON.createObjectNode();
    TreeMap<String, String> sorted = new TreeMap<>();
    config.fields().forEachRemaining(e -> sorted.put(e.getKey(), e.getValue().asText()));
    sorted.forEach((k, v) -> masked.put(k, SecretMask.shown(k, v)));
    String type = status.path("type").asText();
    ExactlyOnce.Guarantee delivery = ExactlyOnce.guarantee(sorted);
    String why = ExactlyOnce.whyAtLeastOnce(type, sorted);
    Transactions transactions = delivery == ExactlyOnce.Guarantee.EXACTLY_ONCE
        ? Transactions.read(cluster.metricsUrl(), cluster.clientOptions(), name) : null;

    if (output.json()) {
      ObjectNode o = JSON.createObjectNode();
      o.put("name", name);
      o.put("type", type);
      ObjectNode d = o.putObject("delivery").put("guarantee", delivery.text()).put("why", why)
          .put("transaction_boundary", delivery == ExactlyOnce.Guarantee.EXACTLY_ONCE
              ? sorted.getOrDefault(ExactlyOnce.BOUNDARY, "poll") : null);
      if (transactions instanceof Transactions.Figures f) {
        d.set("transactions", f.json());
      } else {
        d.putNull("transactions");
        if (transactions instanceof Transactions.Unread u) {
          d.put("transactions_unread", u.why());
        }
      }
      o.set("config", masked);
      o.set("status", status);
      o.set("offsets", offsets.map(x -> x.path("offsets")).orElse(JSON.nullNode()));
      o.set("topics", JSON.valueToTree(topics));
      o.set("failures", JSON.valueToTree(failures.stream().map(f -> failureJson(f, status, list)).toList()));
      printJson(o);
      return ExitCode.OK.code();
    }
    JsonNode c = status.path("connector");
    out.println("Name:    " + name);
    out.println("Type:    " + status.path("type").asText());
    out.println("Class:   " + config.path("connector.class").asText());
    out.println("State:   " + c.path("state").asText() + " on " + c.path("worker_id").asText()
        + (c.has("trace") ? "\n         " + firstLine(c.path("trace").asText()) : ""));
    out.println("Topics:  " + (topics.isEmpty() ? "-" : String.join(", ", topics)));
    out.println("Delivery: " + delivery.text() + (why != null ? " (" + why + ")"
        : " (a transaction per " + switch (sorted.getOrDefault(ExactlyOnce.BOUNDARY, "poll")) {
          case "interval" -> "interval of " + sorted.getOrDefault(ExactlyOnce.BOUNDARY_INTERVAL,
              "offset.flush.interval.ms") + (sorted.containsKey(ExactlyOnce.BOUNDARY_INTERVAL) ? " ms" : "");
          case "connector" -> "boundary the connector defines";
          default -> "poll batch";
        } + ")"));
    if (transactions != null) {
      out.println("Transactions: " + (transactions instanceof Transactions.Figures f ? f.line()
          : "not read (" + ((Transactions.Unread) transactions).why() + ")"));
    }
    out.println();
    out.println("Tasks:");
    if (status.path("tasks").isEmpty()) {
      out.println("  (none)");
    } else {
      TextTable t = new TextTable("ID", "STATE", "WORKER", "ERROR").indent("  ");
      // The root cause: the outermost exception of a failed sink task only says the task is being killed.
      status.path("tasks").forEach(task -> t.row(task.path("id").asInt(), task.path("state").asText(),
          task.path("worker_id").asText(), task.has("trace") ? TextTable.shorten(TaskFailure.of(task.path("id")
              .asInt(), task.path("trace").asText()).rootCause(), 100) : null));
      t.print(out);
    }
    for (TaskFailure f : failures) {
      out.println();
      out.println("Task " + f.task() + " failed: " + f.rootCause());
      failingRecord(f, status, list);
    }
    out.println();
    out.println("Offsets:");
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
    return ExitCode.OK.code();
  }

  /**
   * Where the failed task's record is: as its trace names it, or for a sink whose trace names none (Debezium's JDBC
   * sink among them), its committed position, where the task starts again: the record it failed on, or the first
   * of the batch that held it; of several partitions, the one whose topic is the table the trace names.
   */
  private void failingRecord(TaskFailure f, JsonNode status, JsonNode offsets) {
    if (f.record() != null) {
      out.println("  on the record at " + f.record() + " (as its trace says)");
    }
    if (!isSink(status)) {
      return;
    }
    TopicOffset at = f.amongCommitted(committed(offsets));
    if (f.record() == null && !offsets.isEmpty()) {
      out.println("  its trace names no record; the sink starts again at its committed position (the record it failed"
          + " on, or the first of the batch that held it)" + (at == null ? ", one of:" : ":"));
      if (at == null) {
        committed(offsets).forEach(o -> out.println("    " + o));
      } else {
        out.println("    " + at + (f.table() == null ? "" : "   (table " + f.table() + ")"));
      }
    }
    if (at != null) {
      out.println("  skip it: sluice offsets skip " + name + " --topic " + at.topic() + " --partition "
          + at.partition() + " --offset " + at.offset() + " [--to-dlq]");
    }
  }

  private static ObjectNode failureJson(TaskFailure f, JsonNode status, JsonNode offsets) {
    ObjectNode o = JSON.createObjectNode();
    o.put("task", f.task());
    o.put("root_cause", f.rootCause());
    o.put("root_cause_class", f.rootCauseClass());
    o.put("table", f.table());
    TopicOffset at = isSink(status) ? f.amongCommitted(committed(offsets)) : f.record();
    o.set("record", at == null ? JSON.nullNode() : JSON.valueToTree(at));
    o.put("record_from", at == null ? null : f.record() != null ? "trace" : "committed position");
    return o;
  }

  /** A sink's committed offsets, as {@code GET /connectors/{name}/offsets} gives them. */
  private static List<TopicOffset> committed(JsonNode offsets) {
    List<TopicOffset> out = new ArrayList<>();
    offsets.forEach(p -> out.add(new TopicOffset(p.path("partition").path("kafka_topic").asText(),
        p.path("partition").path("kafka_partition").asInt(), p.path("offset").path("kafka_offset").asLong())));
    return out;
  }

  private static boolean isSink(JsonNode status) {
    return "sink".equals(status.path("type").asText());
  }

  private static String firstLine(String trace) {
    int nl = trace.indexOf('\n');
    return nl < 0 ? trace : trace.substring(0, nl);
  }
}
