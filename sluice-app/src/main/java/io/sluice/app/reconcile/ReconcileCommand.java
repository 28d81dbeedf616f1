package io.sluice.app.reconcile;

import io.sluice.gofmt.GoDuration;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.app.cli.ClusterOptions;
import io.sluice.app.cli.CommandError;
import io.sluice.app.cli.CommandErrors;
import io.sluice.app.cli.ExitCode;
import io.sluice.ops.progress.ProgressBar;
import io.sluice.connect.client.ConnectRestClient;
import io.sluice.ops.offsets.SourceDatabase;
import io.sluice.ops.reconcile.PipelineTables;
import io.sluice.ops.reconcile.ReconcileException;
import io.sluice.ops.reconcile.ReconcileReport;
import io.sluice.ops.reconcile.Reconciler;
import io.sluice.ops.reconcile.Repair;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code sluice reconcile}: exit 0 when every table agrees, 1 when any differs; a table that cannot be compared ends it
 * with its error's code of {@link ExitCode} (4 a database out of reach, 3 a table refused), after the others.
 */
@Command(name = "reconcile", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Prove that a source table and its sink table agree, or say exactly how they differ.",
        "Both databases compute row counts and checksums per key segment; only differing segments are read.",
        "PostgreSQL, MySQL and MariaDB on either side. Needs only read access.",
        "Exit 0 when every table agrees (after --repair --apply: agrees now), 1 when some table differs; every exit "
            + "code: sluice --help."})
public final class ReconcileCommand implements Callable<Integer> {
  static final int EQUAL = ExitCode.OK.code();
  static final int DIFFERENT = ExitCode.NO.code();

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;
  @Mixin ClusterOptions cluster;

  /** {@code sluice --verbose} (inherited by every command): here it also shows the checksum of every segment. */
  private boolean verbose() {
    CommandLine.Model.OptionSpec o = spec.findOption("--verbose");
    return o != null && Boolean.TRUE.equals(o.getValue());
  }

  @Option(names = "--source", paramLabel = "JDBC_URL", description = "source database, e.g. jdbc:postgresql://host/db?user=u&password=p")
  String source;

  @Option(names = "--sink", paramLabel = "JDBC_URL", description = "sink database, e.g. jdbc:mariadb://host/db?user=u&password=p")
  String sink;

  @Option(names = "--source-user", paramLabel = "USER") String sourceUser;
  @Option(names = "--source-password", paramLabel = "PASSWORD", description = "or the SLUICE_SOURCE_PASSWORD environment variable")
  String sourcePassword;
  @Option(names = "--sink-user", paramLabel = "USER") String sinkUser;
  @Option(names = "--sink-password", paramLabel = "PASSWORD", description = "or the SLUICE_SINK_PASSWORD environment variable")
  String sinkPassword;

  @Option(names = "--pipeline", paramLabel = "SOURCE_CONNECTOR", description = "every table of a pipeline (named "
      + "after its source connector): connections from the connectors' configs on Connect, passwords from Sluice's "
      + "secret topic; instead of --source, --sink, --table and --file")
  String pipeline;

  @Option(names = "--secrets-topic", defaultValue = "sluice-connect-secrets", paramLabel = "TOPIC",
      description = "with --pipeline: the topic of the connectors' secrets (default ${DEFAULT-VALUE})")
  String secretsTopic;

  @Option(names = "--table", paramLabel = "SRC_TABLE[:SINK_TABLE]", description = "table to compare (repeatable)")
  List<String> tables = new ArrayList<>();

  @Option(names = {"-f", "--file"}, paramLabel = "YAML", description = "YAML file listing many tables (see docs/pipelines.md)")
  Path file;

  @Option(names = "--key", split = ",", paramLabel = "COLS", description = "key columns (default: the source's primary key)")
  List<String> key = new ArrayList<>();

  @Option(names = "--columns", split = ",", paramLabel = "COLS", description = "compare only these columns")
  List<String> columns = new ArrayList<>();

  @Option(names = "--exclude", split = ",", paramLabel = "COLS", description = "leave these columns out")
  List<String> exclude = new ArrayList<>();

  @Option(names = "--where", paramLabel = "SQL", description = "condition applied on both sides")
  String where;

  @Option(names = "--limit-rows", paramLabel = "N", description = "examples shown per kind of difference (default ${DEFAULT-VALUE})")
  Integer limitRows;

  @Option(names = "--lag-window", paramLabel = "DURATION", description = "re-check differing rows after this long (e.g. 30s, 2m) before reporting them")
  String lagWindow;

  @Option(names = {"-o", "--output"}, paramLabel = "table|json", description = "output format (default ${DEFAULT-VALUE})", defaultValue = "table")
  String output;

  @Option(names = "--explain", description = "print the plain SQL of each check instead of running it")
  boolean explain;

  @Option(names = "--repair", description = "print the SQL that makes each sink table equal its source (a dry run; "
      + "the source is only read)")
  boolean repair;

  @Option(names = "--apply", description = "with --repair: back the affected sink rows up, then run the changes in "
      + "batches, one transaction each, and reconcile again")
  boolean apply;

  @Option(names = "--yes", description = "with --apply: do not ask for confirmation")
  boolean yes;

  @Option(names = "--backup", paramLabel = "FILE", description = "with --apply: where the affected sink rows are "
      + "backed up (default <data-dir>/reconcile-backups/<table>-<time>.jsonl)")
  Path backup;

  @Option(names = "--batch-size", paramLabel = "N", defaultValue = "500",
      description = "with --apply: changes per transaction (default ${DEFAULT-VALUE})")
  int batchSize;

  @Option(names = "--restore", paramLabel = "FILE", description = "put back the sink rows a --repair --apply backed "
      + "up in FILE (needs --sink)")
  Path restore;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (restore != null) {
      return restore(out, err);
    }
    if (apply && !repair) {
      throw CommandError.usage("--apply goes with --repair");
    }
    if (repair && explain) {
      throw CommandError.usage("--repair and --explain do not go together");
    }
    List<Reconciler.Builder> jobs;
    try {
      jobs = jobs();
    } catch (IOException | IllegalArgumentException e) {
      throw CommandError.usage(e.getMessage());
    }
    if (!"table".equals(output) && !"json".equals(output)) {
      throw CommandError.usage("-o must be table or json, not " + output);
    }
    int exit = EQUAL;
    ExitCode error = null;
    ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    ArrayNode results = json.createArrayNode();
    for (Reconciler.Builder job : jobs) {
      Reconciler reconciler = job.build();
      try {
        if (explain) {
          List<Reconciler.Explained> steps = reconciler.explain();
          if ("json".equals(output)) {
            results.add(json.valueToTree(steps));
          } else {
            steps.forEach(s -> out.println("-- " + s.title() + "\n" + s.sql() + "\n"));
          }
          continue;
        }
        if (repair) {
          exit = Math.max(exit, repair(job, reconciler.run(), out, err));
          continue;
        }
        ReconcileReport report = reconciler.run();
        if (!report.equal()) {
          exit = Math.max(exit, DIFFERENT);
        }
        if ("json".equals(output)) {
          ObjectNode node = json.valueToTree(report);
          node.put("status", report.equal() ? "equal" : "different");
          results.add(node);
        } else {
          ReportTable.print(report, verbose(), out);
        }
      } catch (ReconcileException | CommandError e) {
        // The other tables are still compared; the first error decides the exit code.
        error = error != null ? error : CommandErrors.classify(e);
        err.println((e instanceof CommandError c && c.code() == ExitCode.PARTIAL ? "failed: " : "error: ")
            + e.getMessage());
        if ("json".equals(output)) {
          results.add(json.createObjectNode().put("status", "error").put("error", e.getMessage()));
        }
      }
    }
    if ("json".equals(output)) {
      ObjectNode root = json.createObjectNode();
      if (!explain) {
        root.put("status", error != null ? "error" : exit == EQUAL ? "equal" : "different");
      }
      root.set(explain ? "explain" : "tables", results);
      try {
        out.println(json.writeValueAsString(root));
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
    out.flush();
    return error != null ? error.code() : exit;
  }

  /**
   * The repair of one table: the SQL (a dry run), or with {@code --apply} the backup, the batches and a second
   * reconcile that proves the result.
   */
  private int repair(Reconciler.Builder job, ReconcileReport report, PrintWriter out, PrintWriter err) {
    if (report.equal()) {
      out.println(report.sinkTable() + ": equal to " + report.sourceTable() + "; nothing to repair");
      return EQUAL;
    }
    Repair plan = Repair.of(report);
    String sourceUrl = job.sourceUrl();
    String sinkUrl = job.sinkUrl();
    if (!apply) {
      out.println("-- " + plan.changes().size() + " change(s) make " + report.sinkTable() + " equal "
          + report.sourceTable() + " (" + report.missing() + " missing, " + report.changed() + " differing, "
          + report.extra() + " extra); a dry run: --apply runs them");
      plan.sql(sourceUrl, job.sourceProperties(), sinkUrl).forEach(sql -> out.println(sql + ";"));
      return DIFFERENT;
    }
    if (!yes) {
      java.io.Console console = System.console();
      if (console == null) {
        throw CommandError.usage(plan.changes().size() + " change(s) to " + report.sinkTable()
            + " need confirmation: run at a terminal, or add --yes");
      }
      String answer = console.readLine("Apply %d change(s) to %s? [y/N] ", plan.changes().size(), report.sinkTable());
      if (answer == null || !answer.trim().toLowerCase(Locale.ROOT).startsWith("y")) {
        out.println("not applied");
        return DIFFERENT;
      }
    }
    Path file = backup != null ? backup : cluster.dataDir().resolve("reconcile-backups").resolve(
        report.sinkTable().replaceAll("[^A-Za-z0-9_.-]", "_") + "-" + java.time.Instant.now().toString()
            .replace(":", "") + ".jsonl");
    Repair.Applied done;
    try {
      done = plan.apply(sourceUrl, job.sourceProperties(), sinkUrl, job.sinkProperties(), file,
          Math.max(1, batchSize), ProgressBar.onStderr("repair " + report.sinkTable()));
    } catch (ReconcileException e) {
      // The batches before the failing one are committed: the backup puts them back.
      throw CommandError.partial(e.getMessage() + " (backup of the sink rows: " + file
          + "; sluice reconcile --restore puts it back)", e);
    }
    out.println("repaired " + report.sinkTable() + ": " + done.inserted() + " inserted, " + done.updated()
        + " updated, " + done.deleted() + " deleted in " + done.batches() + " batch(es); backup " + file
        + " (sluice reconcile --restore " + file + " --sink … puts it back)");
    ReconcileReport after = job.limitRows(limitRows != null ? limitRows : 100).build().run();
    out.println("reconcile after the repair: " + (after.equal() ? "equal" : "still different"));
    if (!after.equal()) {
      ReportTable.print(after, verbose(), out);
      return DIFFERENT;
    }
    return EQUAL;
  }

  private int restore(PrintWriter out, PrintWriter err) {
    if (sink == null) {
      throw CommandError.usage("--restore needs --sink");
    }
    int n = Repair.restore(restore, sink, credentials(sinkUser, sinkPassword, "SLUICE_SINK_PASSWORD"));
    out.println("restored " + n + " row(s) from " + restore);
    return EQUAL;
  }

  /** One configured reconciler per table, from the flags and the YAML file. */
  private List<Reconciler.Builder> jobs() throws IOException {
    if (pipeline != null) {
      return pipelineJobs();
    }
    TablesFile fromFile = file == null ? null : TablesFile.read(file);
    String sourceUrl = source != null ? source : fromFile == null ? null : fromFile.source();
    String sinkUrl = sink != null ? sink : fromFile == null ? null : fromFile.sink();
    if (sourceUrl == null || sinkUrl == null) {
      throw new IllegalArgumentException("--source and --sink are required (or source: and sink: in --file)");
    }
    String lag = lagWindow != null ? lagWindow : fromFile == null ? null : fromFile.lagWindow();
    Duration window = lag == null ? Duration.ZERO : duration(lag);
    int limit = repair ? Integer.MAX_VALUE
        : limitRows != null ? limitRows : fromFile != null && fromFile.limitRows() != null ? fromFile.limitRows() : 100;
    List<TablesFile.Entry> entries = new ArrayList<>();
    for (String t : tables) {
      int colon = t.indexOf(':');
      entries.add(new TablesFile.Entry(colon < 0 ? t : t.substring(0, colon), colon < 0 ? null : t.substring(colon + 1),
          null, null, null, null));
    }
    if (fromFile != null) {
      entries.addAll(fromFile.tables());
    }
    if (entries.isEmpty()) {
      throw new IllegalArgumentException("no table given: --table SRC_TABLE[:SINK_TABLE] or --file");
    }
    List<Reconciler.Builder> jobs = new ArrayList<>();
    for (TablesFile.Entry e : entries) {
      String sinkTable = e.sinkTable() == null ? e.table() : e.sinkTable();
      Reconciler.Builder b = Reconciler.builder()
          .source(sourceUrl, credentials(sourceUser, sourcePassword, "SLUICE_SOURCE_PASSWORD"))
          .sink(sinkUrl, credentials(sinkUser, sinkPassword, "SLUICE_SINK_PASSWORD"))
          .table(e.table(), sinkTable)
          .key(e.key() != null ? e.key() : key)
          .columns(e.columns() != null ? e.columns() : columns)
          .exclude(e.exclude() != null ? e.exclude() : exclude)
          .where(e.where() != null ? e.where() : where)
          .limitRows(limit)
          .lagWindow(window)
          .verbose(verbose())
          .progress(ProgressBar.onStderr("reconcile " + e.table() + " rows"));
      jobs.add(b);
    }
    return jobs;
  }

  /**
   * One reconciler per table of {@code --pipeline}, as the console's pipeline page builds them: pairs and connections
   * from Connect ({@link PipelineTables}), the options that apply to every table from the flags.
   */
  private List<Reconciler.Builder> pipelineJobs() {
    if (source != null || sink != null || !tables.isEmpty() || file != null) {
      throw new IllegalArgumentException("--pipeline takes the tables and connections from the connectors: not with "
          + "--source, --sink, --table or --file");
    }
    ConnectRestClient connect = new ConnectRestClient(cluster.connectUrl(), cluster.clientOptions());
    PipelineTables.Secrets secrets = (value, what) -> value == null ? null : SourceDatabase.resolve(value,
        cluster.cluster(), secretsTopic, what, "reconcile with --source and --sink instead");
    Duration window = lagWindow == null ? Duration.ZERO : duration(lagWindow);
    int limit = repair ? Integer.MAX_VALUE : limitRows != null ? limitRows : 100;
    List<Reconciler.Builder> jobs = new ArrayList<>();
    for (PipelineTables.Pair p : PipelineTables.ofPipeline(connect, pipeline, secrets)) {
      jobs.add(p.reconciler().key(key).columns(columns).exclude(exclude).where(where).limitRows(limit)
          .lagWindow(window).verbose(verbose()).progress(ProgressBar.onStderr("reconcile " + p.sourceTable() + " rows")));
    }
    return jobs;
  }

  private static Properties credentials(String user, String password, String passwordVariable) {
    Properties p = new Properties();
    if (user != null) {
      p.setProperty("user", user);
    }
    String pw = password != null ? password : System.getenv(passwordVariable);
    if (pw != null) {
      p.setProperty("password", pw);
    }
    return p;
  }

  /** {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h30m} (as Prometheus writes durations), or ISO-8601 ({@code PT30S}). */
  static Duration duration(String text) {
    try {
      return GoDuration.parse(text.trim().toLowerCase(Locale.ROOT));
    } catch (IllegalArgumentException notPrometheus) {
      // ISO-8601, below
    }
    try {
      return Duration.parse(text.trim().toUpperCase(Locale.ROOT));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("not a duration: '" + text + "' (e.g. 30s, 2m, 500ms)");
    }
  }
}
