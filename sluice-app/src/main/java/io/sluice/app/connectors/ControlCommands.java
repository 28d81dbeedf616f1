package io.sluice.app.connectors;

import io.sluice.app.cli.ExitCode;
import io.sluice.connect.client.ConnectorSilencer;
import io.sluice.gofmt.GoDuration;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The commands that change one connector's state: pause, resume, restart, stop, delete. */
final class ControlCommands {
  private ControlCommands() {}

  /** How long a state change may take to show in the connector's status. */
  static final Duration SETTLE = Duration.ofSeconds(60);

  abstract static class OnOne extends ConnectorsBase {
    @Parameters(index = "0", paramLabel = "NAME", description = "the connector")
    String name;

    void said(String what) {
      if (output.json()) {
        printJson(JSON.createObjectNode().put("name", name).put("action", what));
      } else {
        out.println("connector " + name + " " + what);
      }
    }
  }

  @Command(name = "pause", mixinStandardHelpOptions = true,
      description = "Pause a connector (its tasks stop processing, keep their resources); optionally silence its alerts.")
  static final class Pause extends OnOne {
    @Option(names = "--silence", paramLabel = "DURATION",
        description = "also silence the connector's alerts on the router for this long (e.g. 1h, 30m)")
    String silence;

    @Option(names = "--author", paramLabel = "NAME", description = "who is named on the silence, as amtool's --author "
        + "(default: the --user you sign in with, else your login)")
    String author;

    @Option(names = "--comment", paramLabel = "TEXT", description = "why, for whoever sees the silence")
    String comment;

    @Override
    int execute() {
      Duration d = null;
      if (silence != null) {
        try {
          d = GoDuration.parse(silence);
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("--silence " + silence + ": " + e.getMessage() + " (e.g. 1h, 30m)");
        }
      }
      connect().pause(name, SETTLE);
      said("paused");
      if (d != null) {
        String who = author != null ? author : cluster.user().orElse(System.getProperty("user.name", "sluice"));
        String id = new ConnectorSilencer(cluster.alertsUrl(), cluster.clientOptions()).silence(name, d, who,
            comment != null ? comment : "paused with sluice connectors pause " + name);
        if (!output.json()) {
          out.println("alerts of connector " + name + " silenced for " + GoDuration.format(d) + " (silence " + id
              + " on " + cluster.alertsUrl() + ")");
        }
      }
      return ExitCode.OK.code();
    }
  }

  @Command(name = "resume", mixinStandardHelpOptions = true, description = "Resume a paused or stopped connector.")
  static final class Resume extends OnOne {
    @Override
    int execute() {
      connect().resume(name);
      connect().awaitStatus(name, s -> "RUNNING".equals(s.path("connector").path("state").asText()), SETTLE,
          "RUNNING");
      said("resumed");
      return ExitCode.OK.code();
    }
  }

  @Command(name = "restart", mixinStandardHelpOptions = true, description = "Restart a connector, and its tasks with --include-tasks.")
  static final class Restart extends OnOne {
    @Option(names = "--include-tasks", description = "restart the tasks too")
    boolean includeTasks;

    @Override
    int execute() {
      connect().restart(name, includeTasks);
      said(includeTasks ? "restarted with its tasks" : "restarted");
      return ExitCode.OK.code();
    }
  }

  @Command(name = "stop", mixinStandardHelpOptions = true,
      description = "Stop a connector: its tasks shut down and release their resources; its offsets stay.")
  static final class Stop extends OnOne {
    @Override
    int execute() {
      if (!connect().stop(name, SETTLE)) {
        throw new IllegalStateException("Kafka Connect at " + connect().baseUrl() + " has no stop (Kafka 3.5 or newer)");
      }
      said("stopped");
      return ExitCode.OK.code();
    }
  }

  @Command(name = "delete", mixinStandardHelpOptions = true, description = "Delete a connector.")
  static final class Delete extends OnOne {
    @Override
    int execute() {
      connect().delete(name);
      said("deleted");
      return ExitCode.OK.code();
    }
  }
}
