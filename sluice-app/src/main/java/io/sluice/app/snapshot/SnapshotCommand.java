package io.sluice.app.snapshot;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.app.cli.ClusterOptions;
import io.sluice.app.cli.ExitCode;
import io.sluice.app.cli.OutputFormat;
import io.sluice.app.cli.TextTable;
import io.sluice.connect.client.ConnectRestClient;
import io.sluice.gofmt.GoDuration;
import io.sluice.ops.progress.ProgressBar;
import io.sluice.ops.snapshot.AdHocSnapshot;
import io.sluice.ops.snapshot.SnapshotRequest;
import io.sluice.ops.snapshot.SnapshotStatus;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code sluice snapshot}: ad-hoc snapshots of a running Debezium source through its Kafka signal channel. Exit codes
 * are {@link ExitCode}'s: a refused snapshot (nothing sent or changed) is {@link ExitCode#REFUSED}, a {@code status
 * --wait} that ran out is {@link ExitCode#NO}.
 */
@Command(name = "snapshot", mixinStandardHelpOptions = true,
    description = "Re-read tables of a running source without a restart or an offset reset (Debezium's signals):"
        + " start, status, pause, resume, stop.",
    subcommands = {SnapshotCommand.Start.class, SnapshotCommand.Status.class, SnapshotCommand.Pause.class,
        SnapshotCommand.Resume.class, SnapshotCommand.Stop.class})
public final class SnapshotCommand implements Runnable {
  private static final ObjectMapper JSON = new ObjectMapper();

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }

  /** What every subcommand shares: where the platform is, the output format. */
  abstract static class Base implements Callable<Integer> {
    @Mixin ClusterOptions cluster;

    @Mixin OutputFormat output;

    @Option(names = "--secrets-topic", defaultValue = "sluice-connect-secrets",
        description = "where $${sluice:...} source passwords are kept, for --create-signal-table (default"
            + " ${DEFAULT-VALUE})")
    String secretsTopic;

    PrintStream out = System.out;
    PrintStream err = System.err;

    AdHocSnapshot snapshots() {
      return new AdHocSnapshot(new ConnectRestClient(cluster.connectUrl(), cluster.clientOptions()), cluster.cluster(),
          secretsTopic, Clock.systemUTC());
    }

    /** Errors go up to {@link io.sluice.app.cli.CommandErrors}, which gives every command the same exit codes. */
    @Override
    public final Integer call() throws InterruptedException {
      return execute();
    }

    abstract int execute() throws InterruptedException;

    void said(AdHocSnapshot.Sent sent, String what) {
      if (output.json()) {
        ObjectNode o = JSON.createObjectNode().put("connector", sent.connector()).put("signal", sent.type())
            .put("id", sent.id()).put("topic", sent.signalTopic()).put("at", sent.at().toString());
        o.set("data", sent.signal().path("data"));
        ArrayNode changes = o.putArray("changes");
        sent.changes().forEach(changes::add);
        OutputFormat.printJson(out, o);
      } else {
        sent.changes().forEach(c -> out.println(c));
        out.println(what + " (signal " + sent.type() + " " + sent.id() + " to topic " + sent.signalTopic() + ");"
            + " follow it with: sluice snapshot status " + sent.connector());
      }
    }
  }

  @Command(name = "start", mixinStandardHelpOptions = true,
      description = {"Ask a running source for a snapshot of some tables: incremental (default: read in chunks"
          + " between streamed changes, can be paused, resumed and stopped) or blocking (streaming waits while the"
          + " tables are read).",
          "An incremental snapshot needs watermarks: read.only=true (PostgreSQL 13+, MySQL with GTIDs; refused for"
              + " MariaDB, whose read-only watermarks can let a stale row overwrite a newer change) or a signal table"
              + " in the source database (signal.data.collection). Without either it is refused unless --read-only or"
              + " --create-signal-table says which to set up."})
  static final class Start extends Base {
    @Parameters(index = "0", paramLabel = "CONNECTOR", description = "the source connector")
    String connector;

    @Parameters(index = "1..*", arity = "1..*", paramLabel = "TABLE",
        description = "schema.table (PostgreSQL) or database.table (MySQL, MariaDB); a regular expression for Debezium")
    List<String> tables;

    @Option(names = "--type", paramLabel = "incremental|blocking", defaultValue = "incremental",
        description = "incremental (default) or blocking")
    String type;

    @Option(names = "--filter", paramLabel = "SQL", description = "read only the rows of this SQL condition, e.g."
        + " \"id > 1000\" (incremental only: see the docs)")
    String filter;

    @Option(names = "--read-only", description = "incremental: set read.only=true on the connector if it has no"
        + " signal table, so that nothing is written to the source (stops and resumes it once; not for MariaDB)")
    boolean readOnly;

    @Option(names = "--create-signal-table", description = "incremental: create a signal table in the source"
        + " database if the connector has none, and set signal.data.collection (stops and resumes it once)")
    boolean createSignalTable;

    @Option(names = "--signal-table", paramLabel = "NAME", description = "the signal table to create (default"
        + " debezium_signal beside the first table)")
    String signalTable;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    int execute() {
      if (readOnly && createSignalTable) {
        throw new CommandLine.ParameterException(spec.commandLine(), "--read-only and --create-signal-table are two"
            + " ways to the same end: choose one");
      }
      SnapshotRequest request;
      try {
        request = new SnapshotRequest(tables, SnapshotRequest.Type.parse(type), Optional.ofNullable(filter));
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
      }
      AdHocSnapshot.Sent sent = snapshots().start(connector, request,
          new AdHocSnapshot.Options(readOnly, createSignalTable, Optional.ofNullable(signalTable)));
      said(sent, request.type().lower() + " snapshot of " + String.join(", ", request.tables())
          + request.filter().map(f -> " where " + f).orElse("") + " requested from " + connector);
      return ExitCode.OK.code();
    }
  }

  @Command(name = "pause", mixinStandardHelpOptions = true,
      description = "Pause the source's incremental snapshot (streaming goes on).")
  static final class Pause extends Base {
    @Parameters(index = "0", paramLabel = "CONNECTOR")
    String connector;

    @Override
    int execute() {
      said(snapshots().pause(connector), "pause of the incremental snapshot of " + connector + " requested");
      return ExitCode.OK.code();
    }
  }

  @Command(name = "resume", mixinStandardHelpOptions = true,
      description = "Resume the source's paused incremental snapshot.")
  static final class Resume extends Base {
    @Parameters(index = "0", paramLabel = "CONNECTOR")
    String connector;

    @Override
    int execute() {
      said(snapshots().resume(connector), "resume of the incremental snapshot of " + connector + " requested");
      return ExitCode.OK.code();
    }
  }

  @Command(name = "stop", mixinStandardHelpOptions = true,
      description = "Stop the source's incremental snapshot, of the tables named or of all of it.")
  static final class Stop extends Base {
    @Parameters(index = "0", paramLabel = "CONNECTOR")
    String connector;

    @Parameters(index = "1..*", arity = "0..*", paramLabel = "TABLE", description = "only these tables")
    List<String> tables = List.of();

    @Override
    int execute() {
      said(snapshots().stop(connector, tables), "stop of the incremental snapshot of " + connector + " requested");
      return ExitCode.OK.code();
    }
  }

  @Command(name = "status", mixinStandardHelpOptions = true,
      description = {"Where the source's snapshot stands: the last one asked for (from its signal topic) and its"
          + " progress per table, rows read of the database's estimate, read now from the exporter serving"
          + " the source's task (which the metrics server names), else from the metrics server's last scrape.", "With --wait, until it has completed or stopped."})
  static final class Status extends Base {
    @Parameters(index = "0", paramLabel = "CONNECTOR")
    String connector;

    @Option(names = "--wait", description = "poll until the snapshot has completed or stopped, drawing its progress")
    boolean await;

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "30m",
        description = "how long --wait waits (default ${DEFAULT-VALUE})")
    String timeout;

    @Override
    int execute() throws InterruptedException {
      AdHocSnapshot snapshots = snapshots();
      SnapshotMetrics metrics = new SnapshotMetrics(cluster.metricsUrl(), cluster.clientOptions());
      long deadline = System.nanoTime() + GoDuration.parse(timeout).toNanos();
      boolean terminal = await && System.console() != null && !output.json();
      while (true) {
        Optional<SnapshotMetrics.Reading> reading = metrics.read(connector);
        SnapshotStatus status = SnapshotStatus.of(connector, SnapshotStatus.lastRequested(
            snapshots.history(connector)), reading.map(SnapshotMetrics.Reading::metrics));
        boolean over = Set.of("completed", "stopped", "idle").contains(status.state());
        if (!await || over || System.nanoTime() > deadline) {
          if (terminal) {
            err.print("\r\033[K");
          }
          print(status, reading);
          return (!await || over ? ExitCode.OK : ExitCode.NO).code();
        }
        if (terminal) {
          err.print("\r\033[K" + connector + " " + status.state() + " " + ProgressBar.bar(status.percent().orElse(0.0)
              / 100) + status.percent().map(p -> String.format(Locale.ROOT, " %5.1f%%", p)).orElse(""));
          err.flush();
        }
        Thread.sleep(2000);
      }
    }

    private void print(SnapshotStatus s, Optional<SnapshotMetrics.Reading> reading) {
      if (output.json()) {
        ObjectNode o = JSON.createObjectNode().put("connector", s.connector()).put("state", s.state());
        s.requested().ifPresentOrElse(r -> {
          ObjectNode q = o.putObject("requested").put("id", r.id()).put("type", r.request().type().lower())
              .put("at", r.at().toString());
          ArrayNode t = q.putArray("tables");
          r.request().tables().forEach(t::add);
          r.request().filter().ifPresent(f -> q.put("filter", f));
        }, () -> o.putNull("requested"));
        if (s.percent().isPresent()) {
          o.put("percent", round(s.percent().get()));
        } else {
          o.putNull("percent");
        }
        ArrayNode tables = o.putArray("tables");
        for (SnapshotStatus.Table t : s.tables()) {
          ObjectNode row = tables.addObject().put("table", t.table()).put("rows", t.rows());
          t.estimate().ifPresentOrElse(e -> row.put("estimate", e), () -> row.putNull("estimate"));
          t.percent().ifPresentOrElse(p -> row.put("percent", round(p)), () -> row.putNull("percent"));
        }
        o.put("tablesTotal", s.tablesTotal()).put("tablesRemaining", s.tablesRemaining())
            .put("durationSeconds", s.durationSeconds());
        s.seenAt().ifPresentOrElse(t -> o.put("metricsAt", t.toString()), () -> o.putNull("metricsAt"));
        reading.ifPresentOrElse(r -> o.put("metricsFrom", r.fresh() ? "exporter" : "metrics-server"),
            () -> o.putNull("metricsFrom"));
        OutputFormat.printJson(out, o);
        return;
      }
      out.println("connector " + s.connector() + ": snapshot " + s.state()
          + s.percent().map(p -> String.format(Locale.ROOT, ", %.1f%% of the estimated rows", p)).orElse(""));
      s.requested().ifPresent(r -> out.println("last asked: " + r.request().type().lower() + " snapshot of "
          + String.join(", ", r.request().tables()) + r.request().filter().map(f -> " where " + f).orElse("")
          + " at " + r.at() + " (signal " + r.id() + ")"));
      if (!s.tables().isEmpty()) {
        TextTable table = new TextTable("TABLE", "ROWS READ", "OF ABOUT", "PROGRESS");
        for (SnapshotStatus.Table t : s.tables()) {
          table.row(t.table(), String.format(Locale.ROOT, "%,d", t.rows()),
              t.estimate().map(e -> String.format(Locale.ROOT, "%,d", e)).orElse(null),
              t.percent().map(p -> ProgressBar.bar(p / 100) + String.format(Locale.ROOT, " %5.1f%%", p))
                  .orElse(null));
        }
        out.print(table.render());
      }
      out.println(reading.map(r -> r.describe(Instant.now()))
          .orElse("no snapshot metrics for " + s.connector() + " on " + cluster.metricsUrl()
              + " yet (its task not running, or not scraped yet)"));
    }

    private static double round(double p) {
      return Math.round(p * 10) / 10.0;
    }
  }
}
