package io.sluice.app.checkconfig;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.alerts.AlertRouter;
import io.sluice.http.web.BasicAuth;
import io.sluice.metrics.MetricsServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code sluice check-config}: a whole sluice.yaml and the files it names, checked without starting anything. */
class CheckConfigCommandTest {

  @Test
  void theShippedFileAndAFullyConfiguredOneAreAccepted(@TempDir Path dir) throws Exception {
    assertEquals(List.of(), CheckConfigCommand.problems(Path.of("src/dist/conf/sluice.yaml")));

    Files.writeString(dir.resolve("web.yml"), "basic_auth_users:\n  admin: " + BasicAuth.hash("pw") + "\n");
    Files.writeString(dir.resolve("roles.yml"), "sluice_roles:\n  admin: admin\n");
    Files.writeString(dir.resolve("cdc.rules.yml"), MetricsServer.bundledRules());
    Files.writeString(dir.resolve("prometheus.yml"), """
        rule_files: [cdc.rules.yml]
        scrape_configs:
          - job_name: sluice
            static_configs: [{targets: ['127.0.0.1:5556']}]
        """);
    Files.writeString(dir.resolve("alertmanager.yml"), AlertRouter.defaultConfig());
    Path file = Files.writeString(dir.resolve("sluice.yaml"), """
        data.dir: %1$s/data
        kafka:
          bootstrap.servers: kafka-1:9092
          port: 8083              # unused with an outside cluster: no clash with Connect's
        connect.port: 8083
        registry.port: 0          # any free port, chosen at start: 0 may repeat
        metrics:
          port: 0
          config: %1$s/prometheus.yml
        alerts.config: %1$s/alertmanager.yml
        web:
          config.file: %1$s/web.yml
          roles.file: %1$s/roles.yml
        connect.worker.producer.linger.ms: 5
        kafka.broker.num.partitions: 3
        ui.web.config.file: %1$s/web.yml     # the console's, under its older name
        dataplane.heap: 2g
        """.formatted(dir));
    assertEquals(List.of(), CheckConfigCommand.problems(file));
  }

  @Test
  void everyProblemIsListedEachByWhatReadsIt(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("bad.rules.yml"), """
        groups:
          - name: g
            rules:
              - alert: X
                expr: rate(x[5m]
        """);
    Files.writeString(dir.resolve("prometheus.yml"), "rule_files: [bad.rules.yml]\n");
    Files.writeString(dir.resolve("alertmanager.yml"), "route: {receiver: nobody}\nreceivers: [{name: a}]\n");
    Files.writeString(dir.resolve("roles.yml"), "sluice_roles:\n  admin: admin\n");
    Files.writeString(dir.resolve("web.yml"), "basic_auth_users:\n  admin: not-a-bcrypt-hash\n");
    Path file = Files.writeString(dir.resolve("sluice.yaml"), """
        kafka:
          prot: 9092
        connect.port: 8081
        registry.port: 8081
        exporter.port: 70000
        dataplane.heap: lots
        controlplane.heap: 512m
        alerts.max.request.bytes: much
        metrics.query.max.samples: 5M
        dataplane.nice: 20
        metrics.retention: forever
        metrics.config: %1$s/prometheus.yml
        alerts.config: %1$s/alertmanager.yml
        web.roles.file: %1$s/roles.yml
        registry.web.config.file: %1$s/web.yml
        """.formatted(dir));
    List<String> problems = CheckConfigCommand.problems(file);
    List<String> expected = List.of(
        "kafka.prot: not a setting of Sluice's, so it would be ignored (did you mean kafka.port?)",
        // Each value by its entry in the table, in the table's order, as sluice up refuses them.
        "metrics.retention must be a duration such as 15s, 1m30s or 15d, not 'forever'",
        "metrics.query.max.samples must be a whole number of at least 1, not '5M'",
        "alerts.max.request.bytes must be a size such as 4MiB or 1048576, not 'much'",
        "exporter.port must be a port number (0-65535), not '70000'",
        "dataplane.heap must be a heap size such as 512m or 1g, not 'lots'",
        "dataplane.nice must be a nice value from 0 to 19, not '20'",
        // Then what one value cannot say alone.
        "connect.port and registry.port are both 8081",
        "web configuration of the connect, metrics, alerts, exporter, console: a roles file (" + dir.resolve("roles.yml")
            + ") needs a web configuration with its users",
        "web configuration of the registry: ",
        "metrics.config " + dir.resolve("prometheus.yml") + ": " + dir.resolve("bad.rules.yml")
            + ": group \"g\", rule 1, \"X\": could not parse expression",
        "alerts.config " + dir.resolve("alertmanager.yml") + ": undefined receiver \"nobody\" used in route");
    assertEquals(expected.size(), problems.size(), String.join("\n", problems));
    for (int i = 0; i < expected.size(); i++) {
      assertTrue(problems.get(i).startsWith(expected.get(i)), "expected " + expected.get(i) + "\n   got " + problems.get(i));
    }
  }

  @Test
  void aFileThatIsNoConfigurationIsOneProblem(@TempDir Path dir) throws Exception {
    assertEquals(List.of("config file " + dir.resolve("none.yaml") + " does not exist"),
        CheckConfigCommand.problems(dir.resolve("none.yaml")));
    Path list = Files.writeString(dir.resolve("list.yaml"), "- a\n- b\n");
    assertEquals(List.of(list + ": expected a mapping of keys to values at the top level"),
        CheckConfigCommand.problems(list));
  }

  @Test
  void theEmbeddedBrokerAskedForSaslNeedsItsLoginAndAnOutsideOneDoesNot(@TempDir Path dir) throws Exception {
    Path embedded = Files.writeString(dir.resolve("embedded.yaml"), "kafka.client.security.protocol: SASL_SSL\n");
    List<String> problems = CheckConfigCommand.problems(embedded);
    assertEquals(1, problems.size(), problems.toString());
    assertTrue(problems.get(0).startsWith("the embedded broker requires SASL"), problems.toString());
    Path outside = Files.writeString(dir.resolve("outside.yaml"),
        "kafka.client.security.protocol: SASL_SSL\nkafka.bootstrap.servers: kafka-1:9093\n");
    assertEquals(List.of(), CheckConfigCommand.problems(outside));
  }
}
