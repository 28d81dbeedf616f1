package io.sluice.app.dlq;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code sluice dlq}. */
@Command(name = "dlq", mixinStandardHelpOptions = true,
    description = "Dead-letter queues: inspect, unwrap, replay, stats.",
    subcommands = {InspectCommand.class, UnwrapCommand.class, ReplayCommand.class, StatsCommand.class})
public final class DlqCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }
}
