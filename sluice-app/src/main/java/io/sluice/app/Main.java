package io.sluice.app;

import io.sluice.app.alerts.AlertsCommand;
import io.sluice.app.cli.CommandAudit;
import io.sluice.app.cluster.ClusterCommand;
import io.sluice.app.connectors.ConnectorsCommand;
import io.sluice.app.demo.DemoCommand;
import io.sluice.app.dlq.DlqCommand;
import io.sluice.app.export.ExportCommand;
import io.sluice.app.offsets.OffsetsCommand;
import io.sluice.app.reconcile.ReconcileCommand;
import io.sluice.app.schema.SchemaCommand;
import io.sluice.app.ui.UiCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code sluice} command. */
@Command(
    name = "sluice",
    mixinStandardHelpOptions = true,
    versionProvider = Versions.Provider.class,
    description = "CDC pipeline platform: Kafka, Kafka Connect with Debezium, and the tools around them.",
    subcommands = {
        UpCommand.class,
        VersionCommand.class,
        CheckConfigCommand.class,
        PlaneCommand.class,
        KafkaCommand.class,
        ConnectorsCommand.class,
        DemoCommand.class,
        OffsetsCommand.class,
        DlqCommand.class,
        ReconcileCommand.class,
        SchemaCommand.class,
        AlertsCommand.class,
        UiCommand.class,
        ExportCommand.class,
        ClusterCommand.class})
public final class Main implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(new CommandLine(new Main()).setExecutionStrategy(new CommandAudit()).execute(args));
  }

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }
}
