package io.sluice.app.alerts;

import io.sluice.app.cli.ExitCode;
import io.sluice.alerts.AlertRouter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code sluice alerts}: tools for the alert router's configuration. */
@Command(name = "alerts", mixinStandardHelpOptions = true,
    description = "Alert router tools.",
    subcommands = {AlertsCommand.CheckConfig.class})
public final class AlertsCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }

  /** Validates files as {@code amtool check-config} does: same wording, exit 1 when any file is broken. */
  @Command(name = "check-config", mixinStandardHelpOptions = true,
      description = "Check alertmanager.yml files the way amtool check-config does.")
  static final class CheckConfig implements Callable<Integer> {
    @Parameters(arity = "1..*", paramLabel = "FILE", description = "alertmanager.yml files")
    List<Path> files;

    @Override
    public Integer call() {
      boolean failed = false;
      for (Path file : files) {
        System.out.println("Checking '" + file + "'");
        List<String> errors = Files.isRegularFile(file) ? AlertRouter.checkConfig(file)
            : List.of("open " + file + ": no such file or directory");
        if (errors.isEmpty()) {
          System.out.println("  SUCCESS");
        } else {
          failed = true;
          System.out.println("  FAILED: " + String.join("; ", errors));
        }
        System.out.println();
      }
      return (failed ? ExitCode.NO : ExitCode.OK).code();
    }
  }
}
