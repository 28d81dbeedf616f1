package io.sluice.metrics.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.kafka.testing.RequiredTool;
import io.sluice.metrics.MetricsServer;
import io.sluice.metrics.rules.unittest.RuleUnitTests;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bundled CDC rules and their promtool-format unit tests (each alert: silent one evaluation before its
 * {@code for} is over, firing exactly then with its labels and annotations, resolved after; a healthy pipeline fires
 * nothing) pass in our engine and in the real {@code promtool test rules} (Debian's {@code prometheus} package; where
 * it is absent, a failure under CI: {@link RequiredTool}). So does a second pair that exercises the rule semantics the
 * catalog does not use (recording rules, {@code keep_firing_for}, template functions).
 */
class BundledRulesTest {
  @TempDir
  Path dir;

  private Path bundled() throws IOException {
    Files.writeString(dir.resolve("cdc-alerts.rules.yml"), MetricsServer.bundledRules());
    Path tests = dir.resolve("cdc-alerts.test.yml");
    Files.writeString(tests, MetricsServer.bundledRuleTests());
    return tests;
  }

  private Path semantics() throws IOException {
    Files.writeString(dir.resolve("semantics.rules.yml"), resource("/rules/semantics.rules.yml"));
    Path tests = dir.resolve("semantics.test.yml");
    Files.writeString(tests, resource("/rules/semantics.test.yml"));
    return tests;
  }

  static String resource(String name) throws IOException {
    try (InputStream in = BundledRulesTest.class.getResourceAsStream(name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** The catalog's shape: the names the router's routing and inhibition expect, and each alert's class. */
  @Test
  void everyBundledAlertHasItsClassConnectorAndAnnotations() {
    RuleFile f = RuleFile.parse("cdc-alerts.rules.yml", MetricsServer.bundledRules());
    java.util.Set<String> names = new java.util.TreeSet<>();
    for (RuleFile.GroupSpec g : f.groups()) {
      for (RuleFile.RuleSpec r : g.rules()) {
        assertTrue(r.isAlert(), r.name());
        names.add(r.alert());
        String severity = r.labels().getOrDefault("severity", "");
        String slo = r.labels().getOrDefault("slo", "");
        assertTrue(severity.equals("critical") || severity.equals("warning") || !slo.isEmpty(), r.name());
        assertTrue(severity.isEmpty() || slo.isEmpty(), r.name() + " has both severity and slo");
        assertTrue(r.annotations().containsKey("summary") && r.annotations().containsKey("description"), r.name());
        assertTrue(r.annotations().get("summary").contains("$labels.connector"), r.name());
      }
    }
    assertEquals(new java.util.TreeSet<>(List.of("ConnectHighLag", "ConnectNoOffsetCommits", "ConnectDlqVolumeSpike",
        "ConnectConnectorDown", "ConnectHighErrorRate", "ConnectLowSourceLogRetention", "ConnectExcessiveRestarts",
        "ConnectTransactionsAborting", "ConnectTransactionOpenTooLong", "ConnectLowThroughput", "ConnectTaskSaturation", "ConnectSlowBatchProcessing", "CdcFreshnessSloBreach",
        "CdcAvailabilitySloBreach", "CdcCompletenessRisk")), names);
    RuleFile.RuleSpec lag = f.groups().get(0).rules().get(0);
    assertEquals("ConnectHighLag", lag.alert());
    assertEquals(300_000, lag.forMillis());
    assertTrue(lag.expr().toString().contains("svc_connect_source_connector_metrics_source_record_poll_total")
        && lag.expr().toString().contains("svc_connect_sink_connector_metrics_sink_record_send_total")
        && lag.expr().toString().endsWith("> 300000"), lag.expr().toString());
  }

  @Test
  void bundledRuleTestsPassInOurEngine() throws IOException {
    RuleUnitTests.Result r = RuleUnitTests.run(bundled());
    assertTrue(r.passed(), () -> String.join("\n", r.failures()));
    assertTrue(r.testGroups() >= 15, "test groups: " + r.testGroups());
  }

  @Test
  void bundledRuleTestsPassInRealPromtool() throws Exception {
    Path tests = bundled();
    String out = promtool(tests, 0);
    assertTrue(out.contains("SUCCESS"), out);
  }

  @Test
  void semanticsTestsPassInOurEngine() throws Exception {
    RuleUnitTests.Result r = RuleUnitTests.run(semantics());
    assertTrue(r.passed(), () -> String.join("\n", r.failures()));
  }

  @Test
  void semanticsTestsPassInRealPromtool() throws Exception {
    promtool(semantics(), 0);
  }

  /** A test that expects an alert one evaluation early fails, so the runner does not pass vacuously. */
  @Test
  void aWrongExpectationFailsInOurEngine() throws Exception {
    Path wrong = wrongExpectation();
    RuleUnitTests.Result r = RuleUnitTests.run(wrong);
    assertFalse(r.passed());
    assertEquals(1, r.failures().size(), String.join("\n", r.failures()));
    assertTrue(r.failures().get(0).contains("alertname: ConnectConnectorDown, time: 7m"), r.failures().get(0));
    // One minute later the same expectation holds.
    Files.writeString(wrong, Files.readString(wrong).replace("eval_time: 7m", "eval_time: 8m"));
    RuleUnitTests.Result ok = RuleUnitTests.run(wrong);
    assertTrue(ok.passed(), () -> String.join("\n", ok.failures()));
  }

  @Test
  void aWrongExpectationFailsInRealPromtool() throws Exception {
    Path wrong = wrongExpectation();
    promtool(wrong, 1);
    Files.writeString(wrong, Files.readString(wrong).replace("eval_time: 7m", "eval_time: 8m"));
    promtool(wrong, 0);
  }

  /** The ConnectConnectorDown test with its alert expected one evaluation (7m) before it fires (8m). */
  private Path wrongExpectation() throws IOException {
    bundled();
    Path wrong = dir.resolve("wrong.test.yml");
    Files.writeString(wrong, """
        rule_files: [cdc-alerts.rules.yml]
        evaluation_interval: 1m
        tests:
          - interval: 1m
            input_series:
              - series: 'svc_connect_connector_status{connector="pg-orders"}'
                values: '1x5 0x10'
            alert_rule_test:
              - eval_time: 7m
                alertname: ConnectConnectorDown
                exp_alerts:
                  - exp_labels: {severity: critical, connector: pg-orders}
                    exp_annotations:
                      summary: Connector pg-orders is not running
                      description: Connector pg-orders has not been RUNNING for more than 2 minutes.
        """);
    return wrong;
  }

  private static String promtool(Path tests, int expectedExit) throws Exception {
    Path promtool = RequiredTool.require("promtool", "Debian package prometheus");
    Process p = new ProcessBuilder(List.of(promtool.toString(), "test", "rules", tests.getFileName().toString()))
        .directory(tests.getParent().toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "promtool did not finish");
    assertEquals(expectedExit, p.exitValue(), out);
    return out;
  }
}
