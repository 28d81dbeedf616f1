package io.sluice.app.reconcile;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code sluice reconcile}. */
@Command(name = "reconcile", mixinStandardHelpOptions = true,
    description = "Prove that a source table and its sink table agree.")
public final class ReconcileCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }
}
