package io.sluice.app;

import io.sluice.app.alerts.AlertsCommand;
import io.sluice.app.checkconfig.CheckConfigCommand;
import io.sluice.app.cli.CommandAudit;
import io.sluice.app.cli.CommandErrors;
import io.sluice.app.cli.KafkaClientLogs;
import io.sluice.app.cluster.ClusterCommand;
import io.sluice.app.connectors.ConnectorsCommand;
import io.sluice.app.console.ConsoleCommand;
import io.sluice.app.demo.DemoCommand;
import io.sluice.app.dlq.DlqCommand;
import io.sluice.app.export.ExportCommand;
import io.sluice.app.kafka.KafkaCommand;
import io.sluice.app.offsets.OffsetsCommand;
import io.sluice.app.reconcile.ReconcileCommand;
import io.sluice.app.schema.SchemaCommand;
import io.sluice.app.snapshot.SnapshotCommand;
import io.sluice.app.up.PlaneCommand;
import io.sluice.app.up.UpCommand;
import io.sluice.app.version.VersionCommand;
import io.sluice.app.version.Versions;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/** The {@code sluice} command. */
@Command(
    name = "sluice",
    mixinStandardHelpOptions = true,
    versionProvider = Versions.Provider.class,
    description = "CDC pipeline platform: Kafka, Kafka Connect with Debezium, and the tools around them.")
public final class Main implements Runnable {
  /** Every subcommand, in the order the usage lists them. */
  static final List<Class<?>> SUBCOMMANDS = List.of(
      UpCommand.class,
      VersionCommand.class,
      CheckConfigCommand.class,
      PlaneCommand.class,
      KafkaCommand.class,
      ConnectorsCommand.class,
      DemoCommand.class,
      OffsetsCommand.class,
      SnapshotCommand.class,
      DlqCommand.class,
      ReconcileCommand.class,
      SchemaCommand.class,
      AlertsCommand.class,
      ConsoleCommand.class,
      ExportCommand.class,
      ClusterCommand.class);

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /**
   * On every command, before or after its name: the Kafka clients' warnings, quiet otherwise (in {@code sluice up},
   * the control plane's). Set while the command line is parsed, before the command makes its first logger.
   */
  @Option(names = "--verbose", scope = ScopeType.INHERIT, description = "also print the Kafka clients' warnings "
      + "(reconcile: and the checksum of every segment)")
  void verbose(boolean on) {
    if (on) {
      KafkaClientLogs.show();
    }
  }

  public static void main(String[] args) {
    if (args.length == 2 && args[0].equals("plane")) {
      // sluice up starts each plane with exactly these two words. Picocli is compiled for Java 5, and the JVM's
      // class-data archives take no class that old, so going through it costs each plane about 0.3 s of CPU
      // (loading and verifying its classes) at the moment both planes and the supervisor share two cores.
      System.exit(PlaneCommand.run(args[1]));
    }
    System.exit(commandLine(args).setExecutionStrategy(new CommandAudit()).execute(args));
  }

  /**
   * The command line that runs {@code args}, with the one error contract of every command ({@link CommandErrors}: an
   * error's type decides its exit code, and {@code sluice --help} lists the codes).
   * Picocli builds a subcommand's model by reflection over every option of it
   * and of its own subcommands, which for all of them is a noticeable part of each start of {@code sluice up} and of
   * each of its planes; a command line that names a subcommand gets that one only. Anything else (no subcommand, help,
   * a misspelt name) gets them all, for the usage and the suggestions.
   */
  public static CommandLine commandLine(String... args) {
    CommandLine line = new CommandLine(new Main());
    List<Class<?>> named = args.length == 0 ? List.of()
        : SUBCOMMANDS.stream().filter(c -> names(c).contains(args[0])).toList();
    // Each made a command line of its own first: picocli applies a command's model transformer (sluice up's flags of
    // sluice.yaml keys, ConfigFlags) only to a command line made so, not to one a parent makes of a class.
    (named.isEmpty() ? SUBCOMMANDS : named).forEach(c -> line.addSubcommand(new CommandLine(c)));
    return CommandErrors.install(line);
  }

  private static List<String> names(Class<?> subcommand) {
    Command command = subcommand.getAnnotation(Command.class);
    List<String> names = new ArrayList<>(List.of(command.aliases()));
    names.add(command.name());
    return names;
  }

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }
}
