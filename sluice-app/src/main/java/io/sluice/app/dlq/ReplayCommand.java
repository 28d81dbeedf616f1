package io.sluice.app.dlq;

import io.sluice.app.cli.TextTable;
import io.sluice.ops.dlq.RecordFilter;
import io.sluice.ops.dlq.ReplayRequest;
import io.sluice.ops.dlq.ReplayResult;
import io.sluice.ops.dlq.ReplayTarget;
import io.sluice.ops.progress.Progress;
import io.sluice.ops.progress.ProgressBar;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code sluice dlq replay TOPIC}. */
@Command(name = "replay", mixinStandardHelpOptions = true,
    description = {"Produce the original of each dead-letter record back, to the topic and partition in its error "
        + "headers (or --to TOPIC), each marked with __sluice.replay.* headers (source DLQ, partition, offset, time, "
        + "group).",
        "Progress is committed in a consumer group after the records are acknowledged: run it again after an "
            + "interruption and it resumes without duplicates or gaps.",
        "A record that was replayed before and failed again is skipped unless --include-replayed.",
        "Another replay of the same group, anywhere on the cluster (another CLI, a console), refuses this one: it would "
            + "resume from the same offsets and produce the same records. A dry run is never refused.",
        "Exit 5 (busy) when another replay of the group is running: nothing was changed, try again later; a failure"
            + " keeps the progress up to it. Every exit code: sluice --help."})
final class ReplayCommand extends DlqCommandBase {

  @Parameters(index = "0", paramLabel = "TOPIC", description = "the dead-letter topic")
  String topic;

  @Option(names = "--to", paramLabel = "original|TOPIC", defaultValue = "original",
      description = "original (default): each record's original topic and partition; or one existing topic")
  String to;

  @Option(names = "--filter", paramLabel = "FIELD=VALUE",
      description = "exception=CLASS, stage=STAGE, connector=NAME or topic=ORIGINAL; repeatable, all must match")
  List<String> filters = new ArrayList<>();

  @Option(names = "--rate", paramLabel = "N[/s]", description = "at most N records a second (default: unlimited)")
  String rate;

  @Option(names = "--dry-run", description = "count what would be replayed; produce and commit nothing")
  boolean dryRun;

  @Option(names = "--include-replayed", description = "also replay records that failed again after a replay")
  boolean includeReplayed;

  @Option(names = "--group", paramLabel = "GROUP",
      description = "consumer group holding the progress (default sluice-dlq-replay.<TOPIC>, with --filter "
          + "sluice-dlq-replay.<TOPIC>.filter-<hash of the filter>)")
  String group;

  @Option(names = "--limit", paramLabel = "N", description = "stop after producing N records (a later run resumes)")
  Long limit;

  @Override
  int execute() {
    ReplayRequest request = new ReplayRequest(topic, ReplayTarget.parse(to), RecordFilter.parse(filters),
        parseRate(rate), dryRun, includeReplayed, group, limit);
    Progress progress = output.json() ? Progress.NONE
        : ProgressBar.onStderr(dryRun ? "replay (dry run)" : "replay");
    // Another replay of the group (ReplayRunning) ends as busy, apart from a failure, so that a script can tell "try
    // again later" from it.
    ReplayResult r = dlq().replay(request, progress);
    if (output.json()) {
      var n = JSON.valueToTree(r);
      printJson(n);
    } else {
      out.println((r.dryRun() ? "would replay " : "replayed ") + r.replayed() + " record(s) from " + r.topic()
          + " (group " + r.group() + ")" + (r.complete() ? "" : "; stopped at the limit, run again to continue"));
      TextTable targets = new TextTable("TARGET", "RECORDS");
      r.perTarget().forEach(targets::row);
      if (!r.perTarget().isEmpty()) {
        targets.print(out);
      }
      out.println("skipped: " + r.skippedReplayed() + " replayed before and failed again"
          + (r.skippedReplayed() > 0 ? " (--include-replayed takes them)" : "") + ", " + r.skippedFiltered()
          + " not matching the filter, " + r.alreadyDelivered() + " delivered by an interrupted run");
      TextTable offsets = new TextTable("PARTITION", "FROM", r.dryRun() ? "WOULD COMMIT" : "COMMITTED");
      r.resumedFrom().forEach((p, from) -> offsets.row(p, from, r.committed().get(p)));
      offsets.print(out);
      if (r.backup() != null) {
        out.println("offsets before this run saved to " + r.backup()
            + " (kafka-consumer-groups --reset-offsets --from-file takes it)");
      }
    }
    if (r.unroutable() > 0) {
      err.println("warning: " + r.unroutable() + " record(s) had no original topic in their headers, or it no longer "
          + "exists; they were passed over (use --to TOPIC to send them somewhere)");
    }
    return 0;
  }

  static double parseRate(String text) {
    if (text == null) {
      return 0;
    }
    String number = text.endsWith("/s") ? text.substring(0, text.length() - 2) : text;
    try {
      double rate = Double.parseDouble(number);
      if (rate <= 0) {
        throw new IllegalArgumentException("--rate must be positive, not " + text);
      }
      return rate;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--rate takes a number of records per second (e.g. 500 or 500/s), not "
          + text);
    }
  }
}
