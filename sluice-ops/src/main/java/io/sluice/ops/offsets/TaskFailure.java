package io.sluice.ops.offsets;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the trace of a failed task says, as an operator needs it: the exception at the root of it (the outermost one,
 * Connect's "Exiting WorkerSinkTask due to unrecoverable exception", says nothing of why), and the record it failed
 * on where the trace names one.
 *
 * <p>Kafka Connect and sink connectors name a record in a few shapes, each recognised here: Connect's processing
 * context ({@code {topic='t', partition=0, offset=5, ...}}), a {@code ConsumerRecord} ({@code topic = t,
 * partition = 0, leaderEpoch = 0, offset = 5}), a {@code SinkRecord} ({@code originalTopic=t,
 * originalKafkaPartition=0, originalKafkaOffset=5}) and the plain {@code topic=t, partition=0, offset=5} of many
 * connectors' messages. The Debezium JDBC sink (3.6) names none: its trace ends in the database's refusal
 * ({@code BatchUpdateException}, {@code PSQLException}: the constraint and the failing row's values), so for it the
 * record stays null and the sink's committed position, where the task starts again, is what points at it. Which of a
 * sink's partitions that is, the trace says by the table it names ("Failed to flush records for table 'orders'",
 * PostgreSQL's {@code relation "orders"}): {@link #amongCommitted}.
 *
 * @param task the task's id
 * @param rootCause the deepest {@code Caused by:} line of the trace (the first line when there is none)
 * @param rootCauseClass the exception class that line names, or null
 * @param record the record the trace names (the innermost mention), or null
 * @param trace the whole trace
 */
public record TaskFailure(int task, String rootCause, String rootCauseClass, TopicOffset record, String trace) {
  private static final Pattern RECORD = Pattern.compile(
      "\\b(?:original)?topic\\s*[=:]\\s*['\"]?([A-Za-z0-9._-]+)['\"]?\\s*,\\s*"
          + "(?:original)?(?:kafka)?partition\\s*[=:]\\s*(\\d+)\\s*,\\s*"
          + "(?:leaderEpoch\\s*=\\s*[^,]*,\\s*)?"
          + "(?:original)?(?:kafka)?offset\\s*[=:]\\s*(\\d+)",
      Pattern.CASE_INSENSITIVE);
  private static final Pattern CLASS_NAME = Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*(\\.[A-Za-z_$][A-Za-z0-9_$]*)+");
  private static final String CAUSED_BY = "Caused by: ";
  /** The table Debezium's JDBC sink failed to write, or the relation PostgreSQL refused a row of. */
  private static final Pattern TABLE = Pattern.compile(
      "records for table '([^']+)'|new row for relation \"([^\"]+)\"|relation \"([^\"]+)\" violates");

  /** Reads one task's trace. */
  public static TaskFailure of(int task, String trace) {
    String text = trace == null ? "" : trace;
    String root = null;
    for (String line : text.lines().toList()) {
      String l = line.strip();
      if (l.startsWith(CAUSED_BY)) {
        root = l.substring(CAUSED_BY.length());
      }
    }
    if (root == null) {
      root = text.lines().findFirst().orElse("").strip();
    }
    int colon = root.indexOf(':');
    String head = colon < 0 ? root : root.substring(0, colon);
    String cls = CLASS_NAME.matcher(head.strip()).matches() ? head.strip() : null;
    TopicOffset record = null;
    Matcher m = RECORD.matcher(text);
    while (m.find()) {
      try {
        record = new TopicOffset(m.group(1), Integer.parseInt(m.group(2)), Long.parseLong(m.group(3)));
      } catch (IllegalArgumentException outOfRange) {
        // A number no partition or offset can be is not a record's address; an earlier mention stands.
      }
    }
    return new TaskFailure(task, root, cls, record, text);
  }

  /** The failed tasks of a {@code GET /connectors/{name}/status} answer, in task order. */
  public static List<TaskFailure> fromStatus(JsonNode status) {
    List<TaskFailure> out = new ArrayList<>();
    for (JsonNode t : status.path("tasks")) {
      if ("FAILED".equals(t.path("state").asText()) && t.hasNonNull("trace")) {
        out.add(of(t.path("id").asInt(), t.path("trace").asText()));
      }
    }
    return out;
  }

  /** The table the trace names as the one the sink could not write to, or null. */
  public String table() {
    Matcher m = TABLE.matcher(trace);
    if (!m.find()) {
      return null;
    }
    for (int g = 1; g <= m.groupCount(); g++) {
      if (m.group(g) != null) {
        return m.group(g);
      }
    }
    return null;
  }

  /**
   * The record a failed sink task stopped at, among its committed positions (one per partition), when the trace names
   * none: the one position there is, or the one whose topic is the table the trace names (the topic itself, its last
   * dotted part, or its name with dots and dashes as underscores, as sinks name tables after topics). Null when that
   * does not single out one partition. It is the record the task failed on, or the first of the batch that held it.
   */
  public TopicOffset amongCommitted(List<TopicOffset> committed) {
    if (record != null) {
      return record;
    }
    if (committed.size() == 1) {
      return committed.get(0);
    }
    String table = table();
    if (table == null) {
      return null;
    }
    String bare = table.substring(table.lastIndexOf('.') + 1);
    List<TopicOffset> matching = committed.stream().filter(o -> o.topic().equals(table)
        || o.topic().endsWith("." + bare) || o.topic().replaceAll("[.-]", "_").equals(table.replace('.', '_'))).toList();
    return matching.size() == 1 ? matching.get(0) : null;
  }

  /** The root cause's message without its exception class. */
  public String rootCauseMessage() {
    if (rootCauseClass == null) {
      return rootCause;
    }
    String rest = rootCause.substring(rootCauseClass.length());
    return rest.startsWith(":") ? rest.substring(1).strip() : rest.strip();
  }
}
