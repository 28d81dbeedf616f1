package io.sluice.app.offsets;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code sluice offsets}. */
@Command(name = "offsets", mixinStandardHelpOptions = true,
    description = "Offset surgery on connect-offsets: backup, show, set, skip, restore, reset.")
public final class OffsetsCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }
}
