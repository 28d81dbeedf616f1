package io.sluice.console.web;

import static io.sluice.console.web.ConsoleReply.error;
import static io.sluice.console.web.ConsoleReply.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.console.dlq.ReplayChoice;
import io.sluice.console.dlq.ReplayJobs;
import io.sluice.console.topics.BrowsePosition;
import io.sluice.http.HttpRequest;
import io.sluice.http.HttpResponse;
import io.sluice.http.web.Role;
import io.sluice.ops.dlq.DeadLetterQueue;
import io.sluice.ops.dlq.DlqRecord;
import io.sluice.ops.dlq.DlqStats;
import io.sluice.ops.dlq.ErrorContext;
import io.sluice.ops.dlq.Inspection;
import io.sluice.ops.dlq.ReadOptions;
import io.sluice.ops.dlq.RecordFilter;
import io.sluice.ops.dlq.ReplayClaim;
import io.sluice.ops.dlq.Unwrapped;
import io.sluice.serde.view.PayloadDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.header.Header;

/**
 * The console's dead-letter queues, over Sluice's one DLQ library ({@link DeadLetterQueue}, as {@code sluice dlq}
 * uses it): each sink's dead-letter topic with its size, growth and the sinks' lag; one topic's records counted by
 * exception class and stage; its records a page at a time, headers shown, the original unwrapped and decoded, the
 * schema id; and replays of an error group or of picked records ({@link ReplayChoice}), run beside the request with
 * their progress ({@link ReplayJobs}). Every read streams: a page holds its records, the counts their groups.
 */
final class DlqConsole implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  static final int PAGE = 25;
  static final int MAX_PAGE = 200;
  /** How much of one header or value a page shows: a stack trace of a hundred frames is not read in a table. */
  static final int SHOWN_CHARS = 16 << 10;

  private final DeadLetterQueue dlq;
  private final PayloadDecoder decoder;
  private final ReplayJobs jobs;

  /** {@code dlq} null: the console has no Kafka cluster, and these endpoints say so. */
  DlqConsole(DeadLetterQueue dlq, PayloadDecoder decoder, Clock clock) {
    this.dlq = dlq;
    this.decoder = decoder;
    this.jobs = new ReplayJobs(clock);
  }

  /** The role an action needs, or null for no such action. */
  static Role roleFor(String action) {
    return action.equals("replay") ? Role.OPERATE : null;
  }

  /** Every dead-letter topic of the Connect cluster's sinks, with what {@code sluice dlq stats} says of each. */
  HttpResponse list(Role role) {
    if (dlq == null) {
      return error(503, "this console has no Kafka cluster configured");
    }
    return kafka(() -> {
      ObjectNode out = JSON.createObjectNode();
      ArrayNode topics = out.putArray("topics");
      for (DlqStats s : dlq.stats()) {
        ObjectNode t = topics.addObject().put("topic", s.topic()).put("records", s.records())
            .put("lastHour", s.lastHour()).put("perHourLastDay", s.perHourLastDay());
        t.put("newest", s.newest() == null ? null : s.newest().toString());
        ArrayNode sinks = t.putArray("sinks");
        for (DlqStats.SinkLag l : s.sinks()) {
          ObjectNode sink = sinks.addObject().put("connector", l.connector()).put("group", l.group())
              .put("state", l.state());
          if (l.lag() == null) {
            sink.putNull("lag");
          } else {
            sink.put("lag", l.lag());
          }
        }
        if (s.warning() != null) {
          t.put("warning", s.warning());
        }
      }
      out.putObject("may").put("operate", role.allows(Role.OPERATE));
      return out;
    });
  }

  /** One topic: its records counted by exception class and stage (the whole topic streamed), and its replays. */
  HttpResponse topic(HttpRequest r, Role role) {
    if (dlq == null) {
      return error(503, "this console has no Kafka cluster configured");
    }
    String topic = r.param("topic").orElse("");
    return kafka(() -> {
      Inspection counted = dlq.inspect(topic, ReadOptions.all(), (record, subjects) -> { });
      ObjectNode out = JSON.createObjectNode().put("topic", topic).put("count", counted.count());
      ArrayNode groups = out.putArray("groups");
      for (Inspection.ErrorGroup g : counted.groups()) {
        String exception = g.exceptionClass();
        groups.addObject().put("exceptionClass", exception)
            .put("exception", exception == null ? null : exception.substring(exception.lastIndexOf('.') + 1))
            .put("stage", g.stage()).put("count", g.count()).put("replayed", g.replayed());
      }
      ObjectNode subjects = out.putObject("subjects");
      counted.subjects().forEach((id, names) -> {
        ArrayNode list = subjects.putArray(String.valueOf(id));
        names.forEach(list::add);
      });
      ArrayNode warnings = out.putArray("warnings");
      counted.warnings().forEach(warnings::add);
      ArrayNode replays = out.putArray("replays");
      jobs.of(topic).forEach(j -> replays.add(status(j)));
      out.putObject("may").put("operate", role.allows(Role.OPERATE));
      return out;
    });
  }

  /**
   * A page of a topic's records, of one error group when {@code exception} (and {@code stage}) are given, from the
   * position {@code at} ({@code partition:offset,…}, where the last page ended) or the start.
   */
  HttpResponse records(HttpRequest r) {
    if (dlq == null) {
      return error(503, "this console has no Kafka cluster configured");
    }
    String topic = r.param("topic").orElse("");
    Map<Integer, Long> from;
    int limit;
    RecordFilter filter;
    try {
      String at = r.param("at").orElse("");
      from = at.isBlank() ? Map.of() : BrowsePosition.parse("at", null, null, null, at, null).positions();
      limit = r.param("limit").map(t -> DataConsole.limit(t, MAX_PAGE)).orElse(PAGE);
      List<String> conditions = new ArrayList<>();
      r.param("exception").filter(s -> !s.isBlank()).ifPresent(e -> conditions.add("exception=" + e));
      r.param("stage").filter(s -> !s.isBlank()).ifPresent(s -> conditions.add("stage=" + s));
      filter = RecordFilter.parse(conditions);
    } catch (IllegalArgumentException e) {
      return error(400, e.getMessage());
    }
    return kafka(() -> {
      Map<Integer, Long> next = new TreeMap<>(from);
      ObjectNode out = JSON.createObjectNode().put("topic", topic);
      ArrayNode list = out.putArray("records");
      dlq.inspect(topic, new ReadOptions(limit, null, true, null, filter, from), (record, subjects) -> {
        list.add(record(record, subjects));
        next.put(record.partition(), record.offset() + 1);
      });
      boolean more = list.size() == limit;
      out.put("more", more);
      if (more) {
        out.put("at", BrowsePosition.format(next));
      }
      return out;
    });
  }

  private ObjectNode record(DlqRecord r, List<String> subjects) {
    ErrorContext e = r.error();
    ObjectNode o = JSON.createObjectNode().put("partition", r.partition()).put("offset", r.offset())
        .put("timestamp", r.timestamp().toEpochMilli());
    ObjectNode error = o.putObject("error").put("stage", e.stage()).put("exceptionClass", e.exceptionClass())
        .put("exception", e.exceptionSimpleName()).put("message", e.exceptionMessage())
        .put("connector", e.connector()).put("task", e.taskId()).put("topic", e.topic())
        .put("partition", e.partition()).put("offset", e.offset());
    ArrayNode problems = error.putArray("problems");
    e.problems().forEach(problems::add);
    if (r.replay() != null) {
      o.putObject("replay").put("time", r.replay().time() == null ? null : r.replay().time().toString())
          .put("group", r.replay().group()).put("topic", r.replay().topic());
    } else if (r.replayed()) {
      o.putObject("replay").put("damaged", r.damagedMark());
    }
    ArrayNode headers = o.putArray("headers");
    for (Header h : r.headers()) {
      headers.addObject().put("key", h.key()).put("value", h.value() == null ? null
          : shown(new String(h.value(), StandardCharsets.UTF_8)));
    }
    // The key as the message browser decodes it, in the topic the record failed in (its subject's name).
    String origin = e.topic() == null ? r.topic() : e.topic();
    o.set("key", DataConsole.decoded(decoder.decode(r.key(), origin, true)));
    Unwrapped u = dlq.unwrap(r);
    ObjectNode original = o.putObject("original").put("source", u.source()).put("path", u.path())
        .put("encoding", u.encoding()).put("text", u.text() == null ? null : shown(u.text())).put("note", u.note())
        .put("schemaType", u.schemaType());
    Integer id = u.schemaId() != null ? u.schemaId() : r.valueSchemaId();
    if (id != null) {
      original.put("schemaId", id);
      ArrayNode names = original.putArray("subjects");
      subjects.forEach(names::add);
    }
    return o;
  }

  private static String shown(String text) {
    return text.length() <= SHOWN_CHARS ? text : text.substring(0, SHOWN_CHARS) + "\n… (cut at "
        + (SHOWN_CHARS >> 10) + " KiB of " + text.length() + " characters)";
  }


  /** A replay's progress and, once it ended, its result. */
  HttpResponse replayStatus(HttpRequest r) {
    String id = r.param("id").orElse("");
    return jobs.get(id).map(s -> json(200, status(s))).orElseGet(() -> error(404, "no replay " + id));
  }

  /**
   * Starts a replay of {@code body.name} (the dead-letter topic): its error group {@code exception} (with
   * {@code stage}), or the picked {@code records} ({@code ["0:12", …]}); 202 with the replay's status to follow.
   */
  HttpResponse act(String action, JsonNode body, String user) {
    if (dlq == null) {
      return error(503, "this console has no Kafka cluster configured");
    }
    String topic = body.path("name").asText("");
    if (topic.isBlank()) {
      return error(400, "a dead-letter topic is required");
    }
    ReplayChoice choice;
    try {
      if (body.has("records")) {
        List<String> picked = new ArrayList<>();
        body.path("records").forEach(p -> picked.add(p.asText()));
        choice = ReplayChoice.records(topic, picked);
      } else {
        choice = ReplayChoice.group(topic, body.path("exception").asText(""), body.path("stage").asText(""));
      }
    } catch (IllegalArgumentException e) {
      return error(400, e.getMessage());
    }
    try {
      ReplayJobs.Status s = jobs.start(topic, choice.request().group(), choice.what(), user, () -> {
        ReplayClaim claim = dlq.claim(choice.request());
        return claim::replay;
      });
      return json(202, status(s));
    } catch (ReplayJobs.Busy e) {
      return error(409, e.getMessage());
    }
  }

  static ObjectNode status(ReplayJobs.Status s) {
    ObjectNode o = JSON.createObjectNode().put("id", s.id()).put("topic", s.topic()).put("group", s.group())
        .put("what", s.what()).put("user", s.user()).put("started", s.started().toString())
        .put("state", s.state().name().toLowerCase(java.util.Locale.ROOT)).put("done", s.done())
        .put("total", s.total()).put("percent", s.percent());
    if (s.error() != null) {
      o.put("error", s.error());
    }
    if (s.result() != null) {
      o.set("result", JSON.valueToTree(s.result()));
    }
    return o;
  }

  @FunctionalInterface
  private interface KafkaCall {
    Object call();
  }

  private static HttpResponse kafka(KafkaCall call) {
    try {
      return json(200, call.call());
    } catch (IllegalArgumentException e) {
      return error(404, e.getMessage());
    } catch (org.apache.kafka.common.KafkaException | IllegalStateException e) {
      return error(502, e.getMessage());
    }
  }

  @Override
  public void close() {
    jobs.close();
  }
}
