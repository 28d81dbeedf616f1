package io.sluice.console.web;

import static io.sluice.console.reads.ParallelReads.join;
import static io.sluice.console.web.ConsoleReply.error;
import static io.sluice.console.web.ConsoleReply.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.client.HttpTransport;
import io.sluice.connect.client.ConnectApiException;
import io.sluice.connect.client.ConnectRestClient;
import io.sluice.connect.client.ConnectorSilencer;
import io.sluice.connect.defaults.ExactlyOnce;
import io.sluice.connect.secrets.SecretMask;
import io.sluice.gofmt.GoDuration;
import io.sluice.http.HttpResponse;
import io.sluice.http.web.Role;
import io.sluice.ops.connectors.ConfigChange;
import io.sluice.ops.connectors.ConfigDiff;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * The console's connector page and its actions, over Kafka Connect's REST API through Sluice's one Connect client: a
 * connector's config (secrets masked), tasks with their workers and the first lines of a failure's trace, committed
 * offsets and topics; pause (with a silence of its alerts, as {@code sluice connectors pause --silence}), resume,
 * restart, stop, delete (Sluice's worker backs a source's offsets up first), and a config checked by Connect and shown as a
 * diff before it is written ({@link ConfigChange}, as {@code sluice connectors apply}). Who may do what is the caller's
 * business ({@link #roleFor}); each call here does one thing and answers in the console's JSON.
 */
final class ConnectorConsole implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** How long a pause, resume or stop may take to show in the connector's status (as the CLI waits). */
  private static final Duration SETTLE = Duration.ofSeconds(60);
  /** Lines of a trace shown: the exception and where it was thrown, not the hundred frames of Connect under it. */
  static final int TRACE_LINES = 6;

  private final ConnectRestClient connect;
  private final ConnectorSilencer silencer;
  /** The page reads config, status, offsets and topics side by side: four short calls, not one after another. */
  private final ExecutorService reads = Executors.newFixedThreadPool(8, r -> {
    Thread t = new Thread(r, "sluice-console-connect");
    t.setDaemon(true);
    return t;
  });

  /** {@code silencer} null when the console has no alert router to silence on. */
  ConnectorConsole(ConnectRestClient connect, ConnectorSilencer silencer) {
    this.connect = connect;
    this.silencer = silencer;
  }

  /** The role an action needs, or null for no such action. */
  static Role roleFor(String action) {
    return switch (action) {
      case "pause", "resume", "restart", "stop" -> Role.OPERATE;
      case "delete", "validate", "apply" -> Role.ADMIN;
      default -> null;
    };
  }

  /** How the audit names an action: as the CLI's command that does the same ({@code connectors apply} for a config). */
  static String auditName(String action) {
    return "connectors " + (action.equals("validate") ? "apply" : action);
  }

  // ---- the page

  /** Everything the connector's page shows, read side by side; 404 for a connector Connect does not know. */
  HttpResponse describe(String name, Role role) {
    CompletableFuture<Optional<ObjectNode>> config = read(() -> connect.config(name));
    CompletableFuture<JsonNode> status = read(() -> connect.status(name));
    CompletableFuture<Optional<JsonNode>> offsets = read(() -> connect.offsets(name));
    CompletableFuture<List<String>> topics = read(() -> connect.topics(name));
    try {
      Optional<ObjectNode> c = join(config);
      if (c.isEmpty()) {
        return error(404, "no connector " + name + " on Kafka Connect at " + connect.baseUrl());
      }
      JsonNode s = join(status);
      ObjectNode out = JSON.createObjectNode().put("name", name).put("type", s.path("type").asText())
          .put("class", c.get().path("connector.class").asText())
          .put("state", s.path("connector").path("state").asText())
          .put("worker", s.path("connector").path("worker_id").asText());
      if (s.path("connector").has("trace")) {
        out.put("trace", firstLines(s.path("connector").path("trace").asText()));
      }
      out.set("config", masked(c.get()));
      out.set("delivery", delivery(c.get(), s.path("type").asText()));
      ArrayNode tasks = out.putArray("tasks");
      for (JsonNode t : s.path("tasks")) {
        ObjectNode task = tasks.addObject().put("id", t.path("id").asInt()).put("state", t.path("state").asText())
            .put("worker", t.path("worker_id").asText());
        if (t.has("trace")) {
          task.put("trace", firstLines(t.path("trace").asText()));
        }
      }
      Optional<JsonNode> o = join(offsets);
      out.set("offsets", o.map(x -> x.path("offsets")).orElse(JSON.nullNode()));
      ArrayNode ts = out.putArray("topics");
      try {
        join(topics).forEach(ts::add);
      } catch (ConnectApiException e) {
        // topic.tracking.enable=false: Connect refuses the endpoint; the page says so instead of failing.
        out.put("topicsError", e.connectMessage());
      }
      out.putObject("may").put("operate", role.allows(Role.OPERATE)).put("admin", role.allows(Role.ADMIN))
          .put("silence", silencer != null);
      return json(200, out);
    } catch (ConnectApiException e) {
      return error(e.status() >= 400 && e.status() < 500 ? e.status() : 502, e.connectMessage());
    } catch (HttpTransport.UnreachableException e) {
      return error(502, e.getMessage());
    }
  }

  /**
   * The connector's delivery guarantee into Kafka, as {@code sluice connectors describe} says it, and for an exactly-once
   * source its transaction boundary; the page reads the transactions' figures from the metrics server itself.
   */
  static ObjectNode delivery(ObjectNode config, String type) {
    Map<String, String> flat = new TreeMap<>();
    config.fields().forEachRemaining(e -> flat.put(e.getKey(), e.getValue().asText()));
    ExactlyOnce.Guarantee g = ExactlyOnce.guarantee(flat);
    // The shape of `sluice connectors describe -o json`'s delivery, less the figures the page asks the metrics for.
    return JSON.createObjectNode().put("guarantee", g.text()).put("why", ExactlyOnce.whyAtLeastOnce(type, flat))
        .put("transaction_boundary", g == ExactlyOnce.Guarantee.EXACTLY_ONCE
            ? flat.getOrDefault(ExactlyOnce.BOUNDARY, "poll") : null);
  }

  /** The config as it may be shown: sorted by key, what looks like a credential masked. */
  static ObjectNode masked(ObjectNode config) {
    TreeMap<String, String> sorted = new TreeMap<>();
    config.fields().forEachRemaining(e -> sorted.put(e.getKey(), e.getValue().asText()));
    ObjectNode out = JSON.createObjectNode();
    sorted.forEach((k, v) -> out.put(k, SecretMask.shown(k, v)));
    return out;
  }

  static String firstLines(String trace) {
    List<String> lines = trace.lines().limit(TRACE_LINES + 1L).toList();
    return String.join("\n", lines.subList(0, Math.min(TRACE_LINES, lines.size())))
        + (lines.size() > TRACE_LINES ? "\n\t…" : "");
  }

  // ---- actions

  /** Does {@code action} to the connector {@code body.name}, on behalf of {@code user}. */
  HttpResponse act(String action, JsonNode body, String user) {
    String name = body.path("name").asText("");
    if (name.isBlank()) {
      return error(400, "a connector name is required");
    }
    try {
      return switch (action) {
        case "pause" -> pause(name, body, user);
        case "resume" -> {
          connect.resume(name);
          connect.awaitStatus(name, s -> "RUNNING".equals(s.path("connector").path("state").asText()), SETTLE,
              "RUNNING");
          yield done(name, "resumed");
        }
        case "restart" -> {
          boolean onlyFailed = body.path("onlyFailed").asBoolean(false);
          connect.restart(name, true, onlyFailed);
          yield done(name, onlyFailed ? "restarted its failed instances" : "restarted with its tasks");
        }
        case "stop" -> {
          if (!connect.stop(name, SETTLE)) {
            yield error(501, "Kafka Connect at " + connect.baseUrl() + " has no stop (Kafka 3.5 or newer)");
          }
          yield done(name, "stopped");
        }
        case "delete" -> {
          connect.delete(name);
          yield done(name, "deleted");
        }
        case "validate" -> config(name, body, false);
        case "apply" -> config(name, body, true);
        default -> error(404, "no action " + action);
      };
    } catch (ConnectApiException e) {
      return error(e.status() >= 400 && e.status() < 500 ? e.status() : 502, e.connectMessage());
    } catch (HttpTransport.UnreachableException e) {
      return error(502, e.getMessage());
    } catch (IllegalArgumentException e) {
      return error(400, e.getMessage());
    } catch (IllegalStateException e) {
      return error(502, e.getMessage());
    }
  }

  private HttpResponse pause(String name, JsonNode body, String user) {
    String silence = body.path("silence").asText("").trim();
    Duration d = null;
    if (!silence.isEmpty()) {
      if (silencer == null) {
        return error(400, "this console has no alert router to silence on");
      }
      try {
        d = GoDuration.parse(silence);
      } catch (IllegalArgumentException e) {
        return error(400, "silence " + silence + ": " + e.getMessage() + " (e.g. 1h, 30m)");
      }
      if (d.isNegative() || d.isZero()) {
        return error(400, "silence " + silence + ": must be longer than 0");
      }
    }
    connect.pause(name, SETTLE);
    ObjectNode out = JSON.createObjectNode().put("name", name).put("result", "paused");
    if (d != null) {
      String comment = body.path("comment").asText("").isBlank() ? "paused from the Sluice console"
          : body.path("comment").asText();
      String id = silencer.silence(name, d, user, comment);
      out.put("silence", id).put("result", "paused; its alerts silenced for " + GoDuration.format(d));
    }
    return json(200, out);
  }

  /**
   * Checks a config with Connect and shows what it changes; with {@code write}, writes it when Connect took it. A
   * masked value sent back unchanged keeps the connector's current value: the page never had it.
   */
  private HttpResponse config(String name, JsonNode body, boolean write) {
    JsonNode given = body.path("config");
    if (!given.isObject()) {
      return error(400, "config must be an object of keys and values");
    }
    boolean create = body.path("create").asBoolean(false);
    Optional<ObjectNode> current = connect.config(name);
    if (create && current.isPresent()) {
      return error(409, "connector " + name + " exists; edit it instead");
    }
    if (!create && current.isEmpty()) {
      return error(404, "no connector " + name);
    }
    Map<String, String> wanted = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = given.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String key = e.getKey().trim();
      if (key.isEmpty()) {
        continue;
      }
      if (e.getValue().isContainerNode()) {
        return error(400, key + " must be a single value, not a list or object");
      }
      String value = e.getValue().isNull() ? "" : e.getValue().asText();
      if (value.equals(SecretMask.MASK) && current.isPresent() && current.get().has(key)) {
        value = current.get().path(key).asText();
      }
      wanted.put(key, value);
    }
    if (!wanted.containsKey("connector.class")) {
      return json(400, verdict(name, List.of(new ConfigChange.Problem("connector.class",
          "connector.class is missing")), List.of(), List.of(), "refused"));
    }
    wanted.put("name", name);
    ConfigChange change = ConfigChange.plan(connect, name, wanted);
    if (change.refused()) {
      return json(write ? 400 : 200, verdict(name, change.problems(), List.of(), change.warnings(), "refused"));
    }
    ConfigChange.Action action = change.action(false);
    List<ConfigDiff.Line> lines = action == ConfigChange.Action.UNCHANGED ? List.of() : change.diff().lines();
    if (write) {
      change.apply(connect, false);
    }
    return json(200, verdict(name, List.of(), lines, change.warnings(), action.name().toLowerCase(Locale.ROOT))
        .put("applied", write));
  }

  /**
   * The editor's answer: Connect's errors by key, the change, and what a Sluice worker warns about without refusing
   * it (as {@code sluice connectors apply} prints it), so the page shows the warning before the change is applied.
   */
  static ObjectNode verdict(String name, List<ConfigChange.Problem> problems, List<ConfigDiff.Line> lines,
      List<String> warnings, String action) {
    ObjectNode out = JSON.createObjectNode().put("name", name).put("action", action);
    ArrayNode warned = out.putArray("warnings");
    warnings.forEach(warned::add);
    ObjectNode errors = out.putObject("errors");
    for (ConfigChange.Problem p : problems) {
      ArrayNode list = errors.has(p.key()) ? (ArrayNode) errors.get(p.key()) : errors.putArray(p.key());
      list.add(p.error());
    }
    ArrayNode diff = out.putArray("diff");
    for (ConfigDiff.Line l : lines) {
      diff.addObject().put("kind", l.kind().name().toLowerCase(Locale.ROOT)).put("key", l.key())
          .put("before", SecretMask.shown(l.key(), l.before())).put("after", SecretMask.shown(l.key(), l.after()));
    }
    return out;
  }

  // ---- helpers

  /** The threads that read upstream APIs side by side, lent to the overview for its queries. */
  java.util.concurrent.Executor pool() {
    return reads;
  }

  private <T> CompletableFuture<T> read(Supplier<T> call) {
    return CompletableFuture.supplyAsync(call, reads);
  }


  private static HttpResponse done(String name, String result) {
    return json(200, JSON.createObjectNode().put("name", name).put("result", result));
  }

  @Override
  public void close() {
    reads.shutdownNow();
  }
}
