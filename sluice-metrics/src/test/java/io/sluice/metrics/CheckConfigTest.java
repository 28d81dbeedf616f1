package io.sluice.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link MetricsServer#checkConfig}: a prometheus.yml and its rule files checked without starting a server. */
class CheckConfigTest {

  @Test
  void aConfigurationWithItsRuleFilesRelativeToItIsAccepted(@TempDir Path dir) throws Exception {
    Files.createDirectories(dir.resolve("rules"));
    Files.writeString(dir.resolve("rules/cdc.rules.yml"), MetricsServer.bundledRules());
    Path config = Files.writeString(dir.resolve("prometheus.yml"), """
        global: {scrape_interval: 15s, evaluation_interval: 15s}
        rule_files: [rules/*.rules.yml]
        alerting:
          alertmanagers: [{static_configs: [{targets: ['127.0.0.1:9093']}]}]
        scrape_configs:
          - job_name: sluice
            static_configs: [{targets: ['127.0.0.1:5556']}]
        """);
    assertEquals(List.of(), MetricsServer.checkConfig(config));
  }

  @Test
  void everyBrokenRuleFileIsListedWithItsPath(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("bad.rules.yml"), """
        groups:
          - name: g
            rules:
              - alert: Broken
                expr: sum(rate(x[5m])
        """);
    Path config = Files.writeString(dir.resolve("prometheus.yml"), """
        rule_files: [bad.rules.yml, missing.rules.yml]
        """);
    List<String> problems = MetricsServer.checkConfig(config);
    assertEquals(2, problems.size(), problems.toString());
    assertTrue(problems.get(0).startsWith(dir.resolve("bad.rules.yml") + ": "), problems.toString());
    assertTrue(problems.get(1).startsWith(dir.resolve("missing.rules.yml") + ": cannot read"), problems.toString());
  }

  @Test
  void aBrokenConfigurationIsOneProblem(@TempDir Path dir) throws Exception {
    Path config = Files.writeString(dir.resolve("prometheus.yml"), """
        global: {scrape_interval: 10s, scrape_timeout: 20s}
        """);
    assertEquals(List.of("global scrape timeout greater than scrape interval"), MetricsServer.checkConfig(config));
    assertTrue(MetricsServer.checkConfig(dir.resolve("nope.yml")).get(0).startsWith("cannot read"));
  }
}
