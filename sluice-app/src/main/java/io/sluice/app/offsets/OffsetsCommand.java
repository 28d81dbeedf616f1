package io.sluice.app.offsets;

import io.sluice.ops.offsets.TopicOffset;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code sluice offsets}: the operator's side of {@link io.sluice.ops.offsets.OffsetSurgery}. Exit codes are
 * {@link io.sluice.app.cli.ExitCode}'s: 3 refused (nothing was changed), 6 failed part way (the message says what state
 * was left and which backup to restore).
 */
@Command(name = "offsets", mixinStandardHelpOptions = true,
    description = "Offset surgery: a source's positions in connect-offsets, a sink's consumer group offsets (skip,"
        + " restore): backup, show, set, skip, restore, reset.",
    subcommands = {
        OffsetsCommand.Backup.class,
        OffsetsCommand.Show.class,
        OffsetsCommand.Set.class,
        OffsetsCommand.Skip.class,
        OffsetsCommand.Restore.class,
        OffsetsCommand.Reset.class})
public final class OffsetsCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }

  @Command(name = "backup", mixinStandardHelpOptions = true,
      description = "Write the latest record of every key of connect-offsets (or one connector's) to a key<TAB>value"
          + " file with a manifest. Default location: <data-dir>/backups/offsets/.")
  static final class Backup extends SurgeryCommand {
    @CommandLine.Option(names = "--connector", paramLabel = "NAME", description = "only this connector's keys")
    String connector;

    @CommandLine.Option(names = "--out", paramLabel = "FILE", description = "file to write (a .manifest.json goes next to it)")
    java.nio.file.Path out;

    @CommandLine.Option(names = "--timeout-ms", defaultValue = "10000", description = "read timeout (default ${DEFAULT-VALUE})")
    long timeoutMs;

    @Override
    int execute() {
      var report = surgery().backup(connector, out, java.time.Duration.ofMillis(timeoutMs));
      output.print(report, () -> Printing.backup(report));
      return 0;
    }
  }

  @Command(name = "show", mixinStandardHelpOptions = true,
      description = "A connector's stored positions, decoded by connector type (PostgreSQL, MySQL, SQL Server).")
  static final class Show extends SurgeryCommand {
    @CommandLine.Parameters(index = "0", paramLabel = "CONNECTOR")
    String connector;

    @Override
    int execute() {
      var positions = surgery().show(connector);
      output.print(positions, () -> Printing.positions(positions));
      return 0;
    }
  }

  @Command(name = "set", mixinStandardHelpOptions = true,
      description = "Move a connector to a position: backup, check the source retains it, stop, write, read back,"
          + " resume. A read-back that differs restores the backup.")
  static final class Set extends SurgeryCommand {
    @CommandLine.Parameters(index = "0", paramLabel = "CONNECTOR")
    String connector;

    @CommandLine.Option(names = "--lsn", paramLabel = "LSN", description = "PostgreSQL: X/Y (hex) or decimal")
    String lsn;

    @CommandLine.Option(names = "--file", paramLabel = "BINLOG", description = "MySQL: binlog file, e.g. mysql-bin.000003")
    String file;

    @CommandLine.Option(names = "--pos", paramLabel = "POS", description = "MySQL: binlog position")
    String pos;

    @CommandLine.Option(names = "--gtids", paramLabel = "GTIDS", description = "MySQL: GTID set (MariaDB: read from the server when left out)")
    String gtids;

    @CommandLine.Option(names = "--change-lsn", paramLabel = "LSN", description = "SQL Server: change LSN xxxxxxxx:xxxxxxxx:xxxx")
    String changeLsn;

    @CommandLine.Option(names = "--commit-lsn", paramLabel = "LSN", description = "SQL Server: commit LSN")
    String commitLsn;

    @CommandLine.Mixin ChangeFlags flags;

    @Override
    int execute() {
      var target = Targets.parse(lsn, file, pos, gtids, changeLsn, commitLsn);
      var change = surgery().set(connector, target, flags.options());
      output.print(change, () -> Printing.change(change));
      return 0;
    }
  }

  @Command(name = "skip", mixinStandardHelpOptions = true,
      description = {"Advance past one poison record.",
          "A source: the next change after its stored position.",
          "A sink: the record at --topic/--partition/--offset, which must be where it stopped (its committed"
              + " position); its consumer group is moved past it through Connect's offsets API, after a backup, and"
              + " read back. --to-dlq first copies the record, with Connect's error headers, to the sink's dead"
              + " letter queue."})
  static final class Skip extends SurgeryCommand {
    @CommandLine.Parameters(index = "0", paramLabel = "CONNECTOR")
    String connector;

    @CommandLine.ArgGroup(exclusive = false)
    SinkRecord record;

    @CommandLine.Option(names = "--to-dlq", description = "sink: keep the record in the sink's dead letter queue"
        + " (errors.deadletterqueue.topic.name, else <connector>.dlq) before moving past it")
    boolean toDlq;

    @CommandLine.Mixin ChangeFlags flags;

    /** The record a sink is blocked on: all three flags or none. */
    static final class SinkRecord {
      @CommandLine.Option(names = "--topic", required = true, paramLabel = "TOPIC", description = "sink: the record's topic")
      String topic;

      @CommandLine.Option(names = "--partition", required = true, paramLabel = "P", description = "sink: its partition")
      int partition;

      @CommandLine.Option(names = "--offset", required = true, paramLabel = "O", description = "sink: its offset")
      long offset;
    }

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    int execute() {
      if (record == null) {
        if (toDlq) {
          throw new CommandLine.ParameterException(spec.commandLine(), "--to-dlq is for a sink: name the record with"
              + " --topic, --partition and --offset");
        }
        var change = surgery().skip(connector, flags.options());
        output.print(change, () -> Printing.change(change));
        return 0;
      }
      TopicOffset at;
      try {
        at = new TopicOffset(record.topic, record.partition, record.offset);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
      }
      var skip = surgery().skip(connector, at, flags.options(), toDlq);
      output.print(skip, () -> Printing.recordSkip(skip));
      return 0;
    }
  }

  @Command(name = "restore", mixinStandardHelpOptions = true,
      description = "Write a backup's records back (stop, write, verify by reading the topic, resume).")
  static final class Restore extends SurgeryCommand {
    @CommandLine.Parameters(index = "0", paramLabel = "FILE")
    java.nio.file.Path file;

    @CommandLine.Option(names = "--connector", paramLabel = "NAME", description = "only this connector's records")
    String connector;

    @CommandLine.Option(names = "--force", description = "restore a backup taken from another Kafka cluster")
    boolean force;

    @Override
    int execute() {
      var report = surgery().restore(file, connector, force);
      output.print(report, () -> Printing.restore(report));
      return 0;
    }
  }

  @Command(name = "reset", mixinStandardHelpOptions = true,
      description = "Delete a connector's positions and set its snapshot mode, so it starts over as that mode says."
          + " Refused without --snapshot.")
  static final class Reset extends SurgeryCommand {
    @CommandLine.Parameters(index = "0", paramLabel = "CONNECTOR")
    String connector;

    @CommandLine.Option(names = "--snapshot", paramLabel = "MODE", description = "initial, schema_only or never")
    String snapshot;

    @CommandLine.Option(names = "--dry-run", description = "check and show, change nothing")
    boolean dryRun;

    @Override
    int execute() {
      var choice = snapshot == null ? null : io.sluice.ops.offsets.OffsetSurgery.SnapshotChoice.parse(snapshot);
      var report = surgery().reset(connector, choice, new io.sluice.ops.offsets.OffsetSurgery.Options(dryRun, false));
      output.print(report, () -> Printing.reset(report));
      return 0;
    }
  }
}
