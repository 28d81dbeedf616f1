package io.sluice.app.dlq;

import io.sluice.app.cli.TextTable;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.ops.dlq.DeadLetterQueue;
import io.sluice.ops.dlq.DlqStats;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code sluice dlq stats [TOPIC]}. */
@Command(name = "stats", mixinStandardHelpOptions = true,
    description = {"Latest offsets per partition, records per hour, and the lag of the sink connectors' consumer "
        + "groups (a stuck sink shows here).",
        "Without TOPIC: every dead-letter topic configured on the Connect cluster (--connect-url)."})
final class StatsCommand extends DlqCommandBase {
  @Parameters(index = "0", arity = "0..1", paramLabel = "TOPIC", description = "the dead-letter topic")
  String topic;

  @Override
  int execute() {
    DeadLetterQueue dlq = dlq();
    List<DlqStats> all = topic == null ? dlq.stats() : List.of(dlq.stats(topic));
    if (output.json()) {
      ArrayNode array = JsonNodeFactory.instance.arrayNode();
      all.forEach(s -> array.add(json(s)));
      printJson(topic == null ? array : array.get(0));
      return 0;
    }
    if (all.isEmpty()) {
      out.println("no connector on " + cluster.connectUrl() + " has errors.deadletterqueue.topic.name set");
    }
    for (DlqStats s : all) {
      if (s.warning() != null) {
        err.println("warning: " + s.warning());
      }
      out.printf(Locale.ROOT, "%s: %,d record(s), %,d in the last hour, %.1f/h over the last 24 h, newest %s%n",
          s.topic(), s.records(), s.lastHour(), s.perHourLastDay(), s.newest() == null ? "-" : s.newest());
      TextTable partitions = new TextTable("PARTITION", "EARLIEST", "LATEST");
      s.partitions().forEach(p -> partitions.row(p.partition(), p.earliest(), p.latest()));
      partitions.print(out);
      for (DlqStats.SinkLag sink : s.sinks()) {
        out.println("sink " + sink.connector() + " (group " + sink.group()
            + (sink.state() == null ? "" : ", " + sink.state()) + "): lag "
            + (sink.lag() == null ? "unknown (the group has no committed offsets)" : sink.lag()));
        if (!sink.partitions().isEmpty()) {
          TextTable lag = new TextTable("  TOPIC", "PARTITION", "COMMITTED", "LATEST", "LAG");
          sink.partitions().forEach(p -> lag.row("  " + p.topic(), p.partition(), p.committed(), p.latest(), p.lag()));
          lag.print(out);
        }
      }
      if (s.sinks().isEmpty()) {
        out.println("no sink connector found writing to " + s.topic());
      }
      out.println();
    }
    return 0;
  }

  static ObjectNode json(DlqStats s) {
    ObjectNode n = JsonNodeFactory.instance.objectNode();
    n.put("topic", s.topic());
    n.put("records", s.records());
    n.put("lastHour", s.lastHour());
    n.put("perHourLastDay", s.perHourLastDay());
    n.put("newest", s.newest() == null ? null : s.newest().toString());
    n.put("at", s.at().toString());
    n.put("warning", s.warning());
    n.set("partitions", JSON.valueToTree(s.partitions()));
    n.set("sinks", JSON.valueToTree(s.sinks()));
    return n;
  }
}
