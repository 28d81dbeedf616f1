package io.sluice.console.web;

import static io.sluice.console.web.ConsoleReply.error;
import static io.sluice.console.web.ConsoleReply.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.client.HttpTransport;
import io.sluice.connect.client.ConnectApiException;
import io.sluice.connect.client.ConnectRestClient;
import io.sluice.http.HttpResponse;
import io.sluice.http.web.Role;
import io.sluice.ops.offsets.SourceDatabase;
import io.sluice.ops.progress.Progress;
import io.sluice.ops.reconcile.PipelineTables;
import io.sluice.ops.reconcile.ReconcileException;
import io.sluice.ops.reconcile.ReconcileReport;
import io.sluice.topics.KafkaCluster;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code sluice reconcile} for a pipeline, from its page: the table pairs and both connections come from the
 * pipeline's connectors ({@link PipelineTables}), passwords from Sluice's secret topic as the worker resolves them;
 * each pair is compared by the same engine as the CLI's, with its bounds (segment checksums in the databases, at most
 * one segment's rows in memory, up to {@link #EXAMPLES} example keys of each kind). A run goes in the background, one
 * per pipeline at a time, at most {@link #PARALLEL} pipelines at once; its percentage and then its report (the CLI's
 * {@code -o json}) are what {@link #state} answers, the last report kept until the next run ends.
 */
final class ReconcileConsole implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ReconcileConsole.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Example keys of each kind of difference a report keeps: the CLI's default {@code --limit-rows}. */
  static final int EXAMPLES = 100;
  /** Pipelines reconciled at once; more wait their turn (each run holds two database connections). */
  static final int PARALLEL = 2;

  /** What a run says when it ends: the pipeline, the user, the outcome (equal, different, error). */
  record Outcome(String pipeline, String user, String address, String status) {}

  private final ConnectRestClient connect;
  private final KafkaCluster kafka;
  private final String secretsTopic;
  private final Consumer<Outcome> ended;
  private final ExecutorService runs = Executors.newFixedThreadPool(PARALLEL, r -> {
    Thread t = new Thread(r, "sluice-console-reconcile");
    t.setDaemon(true);
    return t;
  });
  /** The run going on per pipeline (absent: none). */
  private final Map<String, Run> running = new ConcurrentHashMap<>();
  /** The last finished report per pipeline: one per pipeline, each holding at most the examples above. */
  private final Map<String, ObjectNode> last = new ConcurrentHashMap<>();

  /** {@code kafka} null: no secret topic to resolve passwords from (a plain password in a config still works). */
  ReconcileConsole(ConnectRestClient connect, KafkaCluster kafka, String secretsTopic, Consumer<Outcome> ended) {
    this.connect = connect;
    this.kafka = kafka;
    this.secretsTopic = secretsTopic;
    this.ended = ended;
  }

  /** The one action, {@code run}, needs {@code operate}; anything else is no action. */
  static Role roleFor(String action) {
    return action.equals("run") ? Role.OPERATE : null;
  }

  /** A run in progress: which table of how many, and how far that table is. */
  private static final class Run implements Progress {
    final String user;
    final Instant started = Instant.now();
    volatile int tables;
    volatile int table;
    volatile String current = "";
    volatile double fraction;

    Run(String user) {
      this.user = user;
    }

    @Override
    public void update(long done, long total) {
      fraction = total > 0 ? Math.min(1.0, (double) done / total) : fraction;
    }

    double percent() {
      return tables == 0 ? 0 : Math.min(100.0, (table + fraction) * 100.0 / tables);
    }
  }

  /** The pipeline's reconcile: a run in progress with its percentage, the last report, what the role may do. */
  HttpResponse state(String pipeline, Role role) {
    ObjectNode out = JSON.createObjectNode().put("pipeline", pipeline);
    Run run = running.get(pipeline);
    out.put("running", run != null);
    if (run != null) {
      out.put("percent", Math.round(run.percent() * 10) / 10.0).put("table", run.current)
          .put("tables", run.tables).put("startedAt", run.started.toString()).put("user", run.user);
    }
    ObjectNode report = last.get(pipeline);
    out.set("last", report == null ? JSON.nullNode() : report);
    out.putObject("may").put("operate", role.allows(Role.OPERATE));
    return json(200, out);
  }

  /** Starts a run of {@code body.name}: 202, or 409 while one runs, 400/404 when the pipeline cannot be compared. */
  HttpResponse act(String action, JsonNode body, String user, String address) {
    String pipeline = body.path("name").asText("").trim();
    if (pipeline.isEmpty()) {
      return error(400, "a pipeline name is required");
    }
    List<PipelineTables.Pair> pairs;
    try {
      pairs = pairs(pipeline);
    } catch (ConnectApiException e) {
      return error(e.status() >= 400 && e.status() < 500 ? e.status() : 502, e.connectMessage());
    } catch (HttpTransport.UnreachableException e) {
      return error(502, e.getMessage());
    } catch (PipelineTables.UnknownPipeline e) {
      return error(404, e.getMessage());
    } catch (IllegalArgumentException e) {
      return error(400, e.getMessage());
    } catch (IllegalStateException e) {
      return error(502, e.getMessage());
    }
    Run run = new Run(user);
    run.tables = pairs.size();
    if (running.putIfAbsent(pipeline, run) != null) {
      return error(409, "a reconcile of pipeline " + pipeline + " is running; wait for its report");
    }
    runs.execute(() -> run(pipeline, pairs, run, address));
    return json(202, JSON.createObjectNode().put("name", pipeline).put("result", "started")
        .put("tables", pairs.size()));
  }

  private void run(String pipeline, List<PipelineTables.Pair> pairs, Run run, String address) {
    String status = "equal";
    ObjectNode out = JSON.createObjectNode();
    ArrayNode tables = JSON.createArrayNode();
    try {
      for (int i = 0; i < pairs.size(); i++) {
        PipelineTables.Pair p = pairs.get(i);
        run.table = i;
        run.fraction = 0;
        run.current = p.sourceTable();
        try {
          ReconcileReport report = p.reconciler().limitRows(EXAMPLES).progress(run).build().run();
          ObjectNode node = JSON.valueToTree(report);
          node.put("status", report.equal() ? "equal" : "different").put("topic", p.topic());
          tables.add(node);
          if (!report.equal() && status.equals("equal")) {
            status = "different";
          }
        } catch (ReconcileException | IllegalArgumentException e) {
          status = "error";
          tables.add(JSON.createObjectNode().put("status", "error").put("sourceTable", p.sourceTable())
              .put("sinkTable", p.sinkTable()).put("topic", p.topic()).put("error", e.getMessage()));
        }
      }
    } catch (RuntimeException e) {
      log.warn("reconcile of pipeline {} failed", pipeline, e);
      status = "error";
      tables.add(JSON.createObjectNode().put("status", "error").put("error", e.toString()));
    } finally {
      out.put("status", status).put("user", run.user).put("startedAt", run.started.toString())
          .put("finishedAt", Instant.now().toString());
      out.set("tables", tables);
      last.put(pipeline, out);
      running.remove(pipeline);
      ended.accept(new Outcome(pipeline, run.user, address, status));
    }
  }

  /** The pipeline's table pairs, from Connect's configs, passwords from the secret topic. */
  List<PipelineTables.Pair> pairs(String pipeline) {
    PipelineTables.Secrets secrets = (value, what) -> kafka == null || value == null ? value
        : SourceDatabase.resolve(value, kafka, secretsTopic, what, "put the password in the connector's config");
    return PipelineTables.ofPipeline(connect, pipeline, secrets);
  }

  @Override
  public void close() {
    runs.shutdownNow();
  }
}
