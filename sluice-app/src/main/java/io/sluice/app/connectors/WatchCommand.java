package io.sluice.app.connectors;

import io.sluice.app.cli.ExitCode;
import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.connect.client.ConnectApiException;
import io.sluice.gofmt.GoDuration;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sluice connectors watch N}: one line each time the connector or one of its tasks changes state, as it
 * happens, until Ctrl-C, or until {@code --until STATE} is reached.
 */
@Command(name = "watch", mixinStandardHelpOptions = true,
    description = "Print a connector's state changes (connector and tasks) as they happen.")
final class WatchCommand extends ControlCommands.OnOne {
  @Option(names = "--until", paramLabel = "STATE",
      description = "exit 0 once the connector is in this state (RUNNING, PAUSED, STOPPED, FAILED, UNASSIGNED)")
  String until;

  @Option(names = "--timeout", paramLabel = "DURATION", description = "with --until: give up after this long (exit 1)")
  String timeout;

  @Option(names = "--interval", paramLabel = "DURATION", defaultValue = "1s", description = "how often to look (default 1s)")
  String interval;

  Clock clock = Clock.systemUTC();

  @Override
  int execute() throws InterruptedException {
    String wanted = until == null ? null : until.toUpperCase(Locale.ROOT);
    Duration every = GoDuration.parse(interval);
    Instant deadline = timeout == null ? Instant.MAX : clock.instant().plus(GoDuration.parse(timeout));
    Map<String, String> last = new LinkedHashMap<>();
    while (true) {
      JsonNode status;
      try {
        status = connect().status(name);
      } catch (ConnectApiException e) {
        if (e.status() == 404 && !last.isEmpty()) {
          line("connector", "DELETED", "");
          return ExitCode.NO.code();
        }
        throw e;
      }
      Map<String, String> now = new LinkedHashMap<>();
      JsonNode c = status.path("connector");
      now.put("connector", c.path("state").asText() + "\u0000" + c.path("worker_id").asText());
      status.path("tasks").forEach(t -> now.put("task " + t.path("id").asInt(),
          t.path("state").asText() + "\u0000" + t.path("worker_id").asText()));
      for (Map.Entry<String, String> e : now.entrySet()) {
        if (!e.getValue().equals(last.get(e.getKey()))) {
          String[] stateWorker = e.getValue().split("\u0000", -1);
          line(e.getKey(), stateWorker[0], stateWorker[1]);
        }
      }
      for (String gone : last.keySet()) {
        if (!now.containsKey(gone)) {
          line(gone, "REMOVED", "");
        }
      }
      last = now;
      if (wanted != null && wanted.equals(c.path("state").asText())) {
        return ExitCode.OK.code();
      }
      if (clock.instant().isAfter(deadline)) {
        err.println("error: connector " + name + " was not " + wanted + " within " + timeout);
        return ExitCode.NO.code();
      }
      Thread.sleep(every.toMillis());
    }
  }

  private void line(String what, String state, String worker) {
    String at = clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
    if (output.json()) {
      out.println(JSON.createObjectNode().put("time", at).put("connector", name).put("of", what).put("state", state)
          .put("worker", worker).toString());
    } else {
      out.println(at + "  " + name + "  " + what + "  " + state + (worker.isEmpty() ? "" : "  on " + worker));
    }
    out.flush();
  }
}
