package io.sluice.app.schema;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code sluice schema}. */
@Command(name = "schema", mixinStandardHelpOptions = true,
    description = "Schema registry tools: check a new schema before registering it.",
    subcommands = {SchemaCheckCommand.class})
public final class SchemaCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }
}
