package io.sluice.app.connectors;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code sluice connectors}: Kafka Connect's REST API for people, against {@code sluice up} or any Connect cluster. */
@Command(name = "connectors", mixinStandardHelpOptions = true,
    description = "Kafka Connect connectors: list, describe, apply, pause, resume, restart, stop, delete, watch.",
    subcommands = {ListCommand.class, DescribeCommand.class, ApplyCommand.class, ControlCommands.Pause.class,
        ControlCommands.Resume.class, ControlCommands.Restart.class, ControlCommands.Stop.class,
        ControlCommands.Delete.class, WatchCommand.class})
public final class ConnectorsCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }
}
