package io.sluice.metrics.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.sluice.client.testing.HttpConfigRefusals;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The metrics server's two {@code http_config} paths, a scrape config and an alertmanager config, refuse what every
 * other client in Sluice refuses, with the same words (the alert router's receivers go through the same table).
 */
class HttpConfigPathsTest {
  @TempDir Path dir;

  @Test
  void scrapeAndAlertmanagerConfigsRefuseAsEveryOtherClient() {
    for (Map.Entry<String, String> c : HttpConfigRefusals.CASES.entrySet()) {
      // The keys of an http_config stand among a scrape config's own, as in Prometheus.
      String keys = c.getKey().substring(1, c.getKey().length() - 1);
      Config.ConfigException scrape = assertThrows(Config.ConfigException.class, () -> Config.parse(
          "scrape_configs: [{job_name: j, static_configs: [{targets: ['127.0.0.1:9']}], " + keys + "}]", dir));
      assertEquals("scrape config with job name \"j\": " + c.getValue(), scrape.getMessage(), c.getKey());
      Config.ConfigException alerting = assertThrows(Config.ConfigException.class, () -> Config.parse(
          "alerting: {alertmanagers: [{static_configs: [{targets: ['127.0.0.1:9']}], " + keys + "}]}", dir));
      assertEquals("alertmanager config: " + c.getValue(), alerting.getMessage(), c.getKey());
    }
  }
}
