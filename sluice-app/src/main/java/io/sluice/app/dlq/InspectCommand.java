package io.sluice.app.dlq;

import io.sluice.app.cli.TextTable;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.ops.dlq.DlqRecord;
import io.sluice.ops.dlq.ErrorContext;
import io.sluice.ops.dlq.Inspection;
import io.sluice.ops.dlq.ReplayMark;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.apache.kafka.common.header.Header;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code sluice dlq inspect TOPIC}. */
@Command(name = "inspect", mixinStandardHelpOptions = true,
    description = {"Each record with Kafka Connect's error headers decoded, then counts per exception class and stage.",
        "Exit 0 on success, 1 when the topic cannot be read."})
final class InspectCommand extends DlqCommandBase {
  @Parameters(index = "0", paramLabel = "TOPIC", description = "the dead-letter topic")
  String topic;

  @Mixin ReadFlags read;

  @Override
  int execute() {
    Inspection inspection = dlq().inspect(topic, read.options());
    if (output.json()) {
      printJson(json(inspection));
      return 0;
    }
    TextTable records = new TextTable("PARTITION", "OFFSET", "TIMESTAMP", "STAGE", "EXCEPTION", "ORIGIN",
        "CONNECTOR/TASK", "SCHEMA", "REPLAYED", "MESSAGE");
    for (DlqRecord r : inspection.records()) {
      ErrorContext e = r.error();
      String origin = e.topic() == null ? null : e.topic() + "[" + e.partition() + "]@" + e.offset();
      String connector = e.connector() == null ? null : e.connector() + "/" + e.taskId();
      Object replayed = r.replay() != null ? r.replay().time() : r.replayed() ? "damaged mark" : null;
      records.row(r.partition(), r.offset(), r.timestamp(), e.stage(), e.exceptionSimpleName(), origin, connector,
          schema(inspection, r.valueSchemaId()), replayed, TextTable.shorten(e.exceptionMessage(), 100));
    }
    records.print(out);
    for (DlqRecord r : inspection.records()) {
      List<String> problems = new ArrayList<>(r.error().problems());
      if (r.damagedMark() != null) {
        problems.add(r.damagedMark());
      }
      problems.forEach(p -> err.println("warning: record " + r.partition() + "/" + r.offset() + ": " + p));
    }
    inspection.warnings().forEach(w -> err.println("warning: " + w));
    out.println();
    out.println("summary: " + inspection.records().size() + " record(s) in " + topic);
    TextTable summary = new TextTable("EXCEPTION", "STAGE", "COUNT", "REPLAYED");
    inspection.groups().forEach(g -> summary.row(g.exceptionClass(), g.stage(), g.count(), g.replayed()));
    summary.print(out);
    return 0;
  }

  private static String schema(Inspection inspection, Integer id) {
    if (id == null) {
      return null;
    }
    List<String> subjects = inspection.subjects().getOrDefault(id, List.of());
    return subjects.isEmpty() ? String.valueOf(id) : id + " " + subjects.get(0);
  }

  static ObjectNode json(Inspection inspection) {
    ObjectNode root = JsonNodeFactory.instance.objectNode();
    root.put("topic", inspection.topic());
    if (!inspection.warnings().isEmpty()) {
      inspection.warnings().forEach(root.putArray("warnings")::add);
    }
    ArrayNode records = root.putArray("records");
    for (DlqRecord r : inspection.records()) {
      ObjectNode n = records.addObject();
      n.put("partition", r.partition());
      n.put("offset", r.offset());
      n.put("timestamp", r.timestamp().toString());
      putBytes(n, "key", r.key());
      putBytes(n, "value", r.value());
      if (r.valueSchemaId() != null) {
        n.put("schemaId", r.valueSchemaId());
        List<String> subjects = inspection.subjects().getOrDefault(r.valueSchemaId(), List.of());
        if (!subjects.isEmpty()) {
          n.put("subject", subjects.get(0));
        }
      }
      ErrorContext e = r.error();
      ObjectNode error = n.putObject("error");
      error.put("topic", e.topic());
      error.put("partition", e.partition());
      error.put("offset", e.offset());
      error.put("connector", e.connector());
      error.put("taskId", e.taskId());
      error.put("stage", e.stage());
      error.put("className", e.executingClass());
      error.put("exceptionClassName", e.exceptionClass());
      error.put("exceptionMessage", e.exceptionMessage());
      error.put("exceptionStacktrace", e.stacktrace());
      if (!e.problems().isEmpty()) {
        e.problems().forEach(error.putArray("problems")::add);
      }
      if (r.damagedMark() != null) {
        n.putObject("replay").put("damaged", r.damagedMark());
      } else if (r.replay() != null) {
        ReplayMark m = r.replay();
        ObjectNode replay = n.putObject("replay");
        replay.put("topic", m.topic());
        replay.put("partition", m.partition());
        replay.put("offset", m.offset());
        replay.put("time", m.time() == null ? null : m.time().toString());
        replay.put("group", m.group());
      } else {
        n.putNull("replay");
      }
      ObjectNode headers = n.putObject("headers");
      for (Header h : r.headers()) {
        if (!h.key().startsWith(ErrorContext.PREFIX) && !h.key().startsWith(ReplayMark.PREFIX)) {
          putBytes(headers, h.key(), h.value());
        }
      }
    }
    ArrayNode summary = root.putArray("summary");
    inspection.groups().forEach(g -> summary.addObject().put("exceptionClassName", g.exceptionClass())
        .put("stage", g.stage()).put("count", g.count()).put("replayed", g.replayed()));
    return root;
  }

  /** UTF-8 text as a string; anything else as {@code {"base64": "..."}}. */
  static void putBytes(ObjectNode node, String field, byte[] bytes) {
    if (bytes == null) {
      node.putNull(field);
      return;
    }
    try {
      node.put(field, StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString());
    } catch (CharacterCodingException e) {
      node.putObject(field).put("base64", Base64.getEncoder().encodeToString(bytes));
    }
  }
}
