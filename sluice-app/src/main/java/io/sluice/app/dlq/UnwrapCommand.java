package io.sluice.app.dlq;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.app.cli.OutputFormat;
import io.sluice.ops.dlq.Unwrapped;
import java.io.IOException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code sluice dlq unwrap TOPIC}. */
@Command(name = "unwrap", mixinStandardHelpOptions = true,
    description = {"The original value of each record, one per line: from the first JSON path present of .original.value,"
        + " .record.value, .value, .payload.original.value, .payload.record.value, or the bytes as they are.",
        "Records written by Kafka Connect's DLQ hold the original unchanged and are taken as they are.",
        "Registry-framed values (magic byte 0 + schema id) are decoded through --registry: Avro and JSON Schema to "
            + "JSON; Protobuf is printed as base64 with its schema id.",
        "Values that are not text are printed as base64; notes go to stderr."})
final class UnwrapCommand extends DlqCommandBase {
  @Parameters(index = "0", paramLabel = "TOPIC", description = "the dead-letter topic")
  String topic;

  @Mixin ReadFlags read;

  @Override
  int execute() {
    if (!output.json()) {
      dlq().unwrap(topic, read.options(), u -> {
        out.println(u.text() == null ? "null" : u.text());
        if (u.note() != null) {
          err.println("note: partition " + u.partition() + " offset " + u.offset() + ": " + u.note());
        }
      });
      return 0;
    }
    OutputFormat.StreamedArray array = new OutputFormat.StreamedArray(out);
    dlq().unwrap(topic, read.options(), u -> array.add(json(u)));
    array.finish(json -> {});
    return 0;
  }

  private static ObjectNode json(Unwrapped u) {
    ObjectNode n = JsonNodeFactory.instance.objectNode();
    n.put("partition", u.partition()).put("offset", u.offset()).put("source", u.source()).put("path", u.path());
    n.put("schemaId", u.schemaId()).put("schemaType", u.schemaType()).put("encoding", u.encoding());
    if ("json".equals(u.encoding())) {
      n.set("value", parse(u.text()));
    } else {
      n.put("value", u.text());
    }
    n.put("note", u.note());
    return n;
  }

  private static JsonNode parse(String text) {
    try {
      return JSON.readTree(text);
    } catch (IOException e) {
      return JsonNodeFactory.instance.textNode(text);
    }
  }
}
