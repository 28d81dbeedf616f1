package io.sluice.app;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The bundled alert rules as a test runs them: the same expressions, every {@code for:} 5 s and every group at the
 * global 2 s, so that a test sees an alert fire in seconds rather than the minutes the bundled file waits.
 */
final class AlertRehearsal {
  private AlertRehearsal() {}

  /** The test's copy of the bundled rules in {@code dir}. */
  static Path rules(Path dir) throws IOException {
    return rules(dir, "[10m]");
  }

  /** As {@link #rules(Path)}, with the bundled 10-minute windows ({@code [10m]}) made {@code window}. */
  static Path rules(Path dir, String window) throws IOException {
    String bundled = Files.readString(PackagedSluice.root().resolve(
        "sluice-metrics/src/main/resources/io/sluice/metrics/rules/cdc-alerts.rules.yml"));
    return Files.writeString(dir.resolve("rules.yml"), bundled.replaceAll("for: \\S+", "for: 5s")
        .replace("[10m]", window).replaceAll("\n    interval: \\S+\n", "\n"));
  }

  /**
   * A metrics server configuration ({@code --metrics-config}) that scrapes the exporter on {@code exporterPort} every
   * 2 s, evaluates {@link #rules} every 2 s and sends what fires to the alert router on {@code alertsPort}.
   */
  static Path prometheusConfig(Path dir, int exporterPort, int alertsPort) throws IOException {
    return prometheusConfig(dir, rules(dir), exporterPort, alertsPort);
  }

  /** As {@link #prometheusConfig(Path, int, int)}, evaluating {@code rules}. */
  static Path prometheusConfig(Path dir, Path rules, int exporterPort, int alertsPort) throws IOException {
    return Files.writeString(dir.resolve("prometheus.yml"), """
        global: {scrape_interval: 2s, scrape_timeout: 2s, evaluation_interval: 2s}
        rule_files: ['%s']
        alerting:
          alertmanagers: [{static_configs: [{targets: ['127.0.0.1:%d']}]}]
        scrape_configs:
          - job_name: sluice
            static_configs: [{targets: ['127.0.0.1:%d']}]
        """.formatted(rules, alertsPort, exporterPort));
  }
}
