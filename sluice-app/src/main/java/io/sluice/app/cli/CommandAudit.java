package io.sluice.app.cli;

import io.sluice.http.Audit;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/**
 * One audit line per state-changing command, as Sluice's servers write one per state-changing request: time, user,
 * host, the command with its operands (never an option's value, so no secret), and how it ended. The line goes to
 * {@code audit.log} in the command's data directory, beside the backups the same commands take.
 */
public final class CommandAudit implements CommandLine.IExecutionStrategy {
  /** The commands that change something: connectors, snapshots, offsets, dead-letter records. */
  static final Set<String> CHANGES = Set.of("connectors apply", "connectors pause", "connectors resume",
      "connectors restart", "connectors stop", "connectors delete", "snapshot start", "snapshot pause",
      "snapshot resume", "snapshot stop", "offsets set", "offsets skip", "offsets restore", "offsets reset",
      "dlq replay", "console user add", "console user passwd");

  private final CommandLine.IExecutionStrategy inner = new CommandLine.RunLast();

  @Override
  public int execute(ParseResult parsed) {
    List<CommandLine> chain = parsed.asCommandLineList();
    String command = chain.stream().skip(1).map(CommandLine::getCommandName).collect(Collectors.joining(" "));
    ParseResult last = parsed;
    while (last.hasSubcommand()) {
      last = last.subcommand();
    }
    if (!CHANGES.contains(command) || last.isUsageHelpRequested() || last.isVersionHelpRequested()) {
      return inner.execute(parsed);
    }
    String operands = last.matchedPositionals().stream().flatMap(p -> p.stringValues().stream())
        .collect(Collectors.joining(" "));
    ClusterOptions cluster = chain.get(chain.size() - 1).getCommandSpec().mixins().values().stream()
        .map(m -> m.userObject()).filter(ClusterOptions.class::isInstance).map(ClusterOptions.class::cast)
        .findFirst().orElse(null);
    String status = "failed";
    Path dir = cluster != null ? null : Path.of(String.valueOf(last.matchedOptionValue("--data-dir", "data")));
    try {
      int exit = inner.execute(parsed);
      status = "exit " + exit;
      return exit;
    } catch (CommandLine.ExecutionException e) {
      status = "exit " + CommandErrors.classify(e.getCause()).code();
      throw e;
    } catch (CommandLine.ParameterException e) {
      status = "exit " + ExitCode.USAGE.code();
      throw e;
    } finally {
      write(cluster, dir, command + (operands.isEmpty() ? "" : " " + operands), status);
    }
  }

  private static void write(ClusterOptions cluster, Path dataDir, String command, String status) {
    String user = cluster != null && cluster.user != null ? cluster.user : System.getProperty("user.name", "-");
    Path dir = cluster != null ? cluster.platformConfig().dataDir() : dataDir;
    try {
      Audit.append(dir, "cli", command, user, host(), status);
    } catch (IOException e) {
      System.err.println("sluice: cannot write the audit line to " + dir.resolve(Audit.FILE) + ": " + e.getMessage());
    }
  }

  private static String host() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      return "localhost";
    }
  }
}
