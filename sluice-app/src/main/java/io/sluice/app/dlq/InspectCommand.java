package io.sluice.app.dlq;

import io.sluice.app.cli.OutputFormat;
import io.sluice.app.cli.TextTable;
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
    return output.json() ? printRecordsJson() : printRecordsTable();
  }

  /** The records as they are read; the summary once the read has ended. */
  private int printRecordsTable() {
    TextTable.Streaming records = new TextTable("PARTITION", "OFFSET", "TIMESTAMP", "STAGE", "EXCEPTION", "ORIGIN",
        "CONNECTOR/TASK", "SCHEMA", "REPLAYED", "MESSAGE").streaming(out, TABLE_PAGE);
    Inspection inspection = dlq().inspect(topic, read.options(), (r, subjects) -> {
      ErrorContext e = r.error();
      String origin = e.topic() == null ? null : e.topic() + "[" + e.partition() + "]@" + e.offset();
      String connector = e.connector() == null ? null : e.connector() + "/" + e.taskId();
      Object replayed = r.replay() != null ? r.replay().time() : r.replayed() ? "damaged mark" : null;
      records.row(r.partition(), r.offset(), r.timestamp(), e.stage(), e.exceptionSimpleName(), origin, connector,
          schema(r.valueSchemaId(), subjects), replayed, TextTable.shorten(e.exceptionMessage(), 100));
      problems(r).forEach(p -> err.println("warning: record " + r.partition() + "/" + r.offset() + ": " + p));
    });
    records.finish();
    inspection.warnings().forEach(w -> err.println("warning: " + w));
    out.println();
    out.println("summary: " + inspection.count() + " record(s) in " + topic);
    TextTable summary = new TextTable("EXCEPTION", "STAGE", "COUNT", "REPLAYED");
    inspection.groups().forEach(g -> summary.row(g.exceptionClass(), g.stage(), g.count(), g.replayed()));
    summary.print(out);
    return 0;
  }

  /** Rows of the table held to size its columns; later rows are printed as they are read, in those widths. */
  static final int TABLE_PAGE = 1_000;

  private static List<String> problems(DlqRecord r) {
    List<String> problems = new ArrayList<>(r.error().problems());
    if (r.damagedMark() != null) {
      problems.add(r.damagedMark());
    }
    return problems;
  }

  private static String schema(Integer id, List<String> subjects) {
    if (id == null) {
      return null;
    }
    return subjects.isEmpty() ? String.valueOf(id) : id + " " + subjects.get(0);
  }

  /**
   * {@code {"topic", "records": [...], "warnings": [...], "summary": [...]}}, each record written as it is read; the
   * document begins with the first record (or at the end), so a topic that cannot be read prints nothing on stdout.
   */
  private int printRecordsJson() {
    OutputFormat.StreamedArray records = new OutputFormat.StreamedArray(out, json -> {
      json.writeStartObject();
      json.writeStringField("topic", topic);
      json.writeArrayFieldStart("records");
    });
    Inspection inspection = dlq().inspect(topic, read.options(), (r, subjects) -> records.add(json(r, subjects)));
    records.finish(json -> {
      if (!inspection.warnings().isEmpty()) {
        json.writeArrayFieldStart("warnings");
        for (String w : inspection.warnings()) {
          json.writeString(w);
        }
        json.writeEndArray();
      }
      json.writeArrayFieldStart("summary");
      for (Inspection.ErrorGroup g : inspection.groups()) {
        json.writeTree(JsonNodeFactory.instance.objectNode().put("exceptionClassName", g.exceptionClass())
            .put("stage", g.stage()).put("count", g.count()).put("replayed", g.replayed()));
      }
      json.writeEndArray();
      json.writeEndObject();
    });
    return 0;
  }

  static ObjectNode json(DlqRecord r, List<String> subjects) {
    ObjectNode n = JsonNodeFactory.instance.objectNode();
    n.put("partition", r.partition());
    n.put("offset", r.offset());
    n.put("timestamp", r.timestamp().toString());
    putBytes(n, "key", r.key());
    putBytes(n, "value", r.value());
    if (r.valueSchemaId() != null) {
      n.put("schemaId", r.valueSchemaId());
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
    return n;
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
