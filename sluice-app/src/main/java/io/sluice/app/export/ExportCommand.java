package io.sluice.app.export;

import io.sluice.alerts.AlertRouter;
import io.sluice.console.panels.GrafanaDashboard;
import io.sluice.metrics.MetricsServer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/**
 * {@code sluice export grafana-dashboard|prometheus-rules|alertmanager-config}: what Sluice bundles, in the formats of
 * the tools it stands in for, so a user can move to a real Grafana, Prometheus and Alertmanager without rewriting
 * anything.
 */
@Command(name = "export", mixinStandardHelpOptions = true,
    description = "Write Sluice's dashboard, alert rules or alert routing for Grafana, Prometheus or Alertmanager.",
    subcommands = {ExportCommand.Grafana.class, ExportCommand.Rules.class, ExportCommand.Routing.class})
public final class ExportCommand {

  @Command(name = "grafana-dashboard", mixinStandardHelpOptions = true,
      description = "The pipeline dashboard as Grafana dashboard JSON (Grafana 10/11; import it as it is).")
  static final class Grafana implements Callable<Integer> {
    @Override
    public Integer call() {
      System.out.println(GrafanaDashboard.json());
      return 0;
    }
  }

  @Command(name = "prometheus-rules", mixinStandardHelpOptions = true,
      description = "The bundled CDC alert rules as a Prometheus rule file (promtool check rules accepts it).")
  static final class Rules implements Callable<Integer> {
    @Override
    public Integer call() throws IOException {
      System.out.print(resource(MetricsServer.BUNDLED_RULES));
      return 0;
    }
  }

  @Command(name = "alertmanager-config", mixinStandardHelpOptions = true,
      description = "The bundled alert routing as an alertmanager.yml (amtool check-config accepts it).")
  static final class Routing implements Callable<Integer> {
    @Override
    public Integer call() throws IOException {
      System.out.print(resource(AlertRouter.BUNDLED_CONFIG));
      return 0;
    }
  }

  private static String resource(String path) throws IOException {
    try (InputStream in = ExportCommand.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new IOException("the distribution lacks " + path);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
