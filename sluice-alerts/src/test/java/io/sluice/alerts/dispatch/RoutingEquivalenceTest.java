package io.sluice.alerts.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.alerts.AlertRouter;
import io.sluice.alerts.config.ConfigLoader;
import io.sluice.kafka.testing.RequiredTool;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Our route tree against Alertmanager's own: for generated label sets, the receivers we pick must be exactly those
 * {@code amtool config routes test} picks (Debian's prometheus-alertmanager provides amtool; without it this test fails
 * under CI and is skipped elsewhere, saying so).
 */
class RoutingEquivalenceTest {
  static final String NESTED = """
      route:
        receiver: default
        group_by: [alertname]
        routes:
          - matchers: ['team="db"']
            receiver: db
            continue: true
          - matchers: ['severity=~"crit.*"']
            receiver: pager
            routes:
              - matchers: ['env="prod"']
                receiver: pager-prod
                continue: true
              - matchers: ['connector=~"orders|payments"']
                receiver: pager-orders
              - match_re: {alertname: 'Connect.*Lag'}
                receiver: pager-lag
          - match: {severity: warning}
            receiver: chat
            continue: true
          - matchers: ['env!="prod"', 'team!~"db|infra"']
            receiver: nonprod
      receivers: [{name: default}, {name: db}, {name: pager}, {name: pager-prod}, {name: pager-orders},
                  {name: pager-lag}, {name: chat}, {name: nonprod}]
      """;
  static final String CONTINUE = """
      route:
        receiver: root
        routes:
          - matchers: ['connector=~"orders.*"']
            receiver: orders
            continue: true
            routes:
              - matchers: ['severity="critical"']
                receiver: orders-crit
                continue: true
              - matchers: ['slo!=""']
                receiver: orders-slo
          - matchers: ['slo=~".+"']
            receiver: slo
            continue: true
          - matchers: ['alertname!~"Connect(HighLag|LowThroughput)"', 'severity!="info"']
            receiver: catchall
            routes:
              - matchers: ['env=~"prod|stage"']
                receiver: catchall-env
      receivers: [{name: root}, {name: orders}, {name: orders-crit}, {name: orders-slo}, {name: slo},
                  {name: catchall}, {name: catchall-env}]
      """;

  private static final String[][] VALUES = {
      {"alertname", "ConnectHighLag", "ConnectConnectorDown", "ConnectLowThroughput", "ConnectHighErrorRate",
          "SloFreshnessBreach", "Other"},
      {"severity", "critical", "warning", "info", "crit-ish"},
      {"connector", "orders", "payments", "orders-sink", "inventory"},
      {"slo", "freshness", "availability"},
      {"team", "db", "infra", "app"},
      {"env", "prod", "stage", "dev"},
  };

  @TempDir Path dir;

  @Test
  void ourRoutesPickExactlyWhatAmtoolPicks() throws Exception {
    Path amtool = RequiredTool.require("amtool", "Debian package prometheus-alertmanager");
    Random rnd = new Random(8);
    int checked = 0;
    Map<String, String> configs = new LinkedHashMap<>();
    configs.put("bundled", AlertRouter.defaultConfig());
    configs.put("nested", NESTED);
    configs.put("continue", CONTINUE);
    int[] perConfig = {200, 170, 170};
    int ci = 0;
    for (Map.Entry<String, String> c : configs.entrySet()) {
      Path file = dir.resolve(c.getKey() + ".yml");
      Files.writeString(file, c.getValue());
      Route tree = Route.tree(ConfigLoader.parse(c.getValue(), dir, Map.of()).route());
      for (int i = 0; i < perConfig[ci]; i++) {
        Map<String, String> labels = new LinkedHashMap<>();
        for (String[] v : VALUES) {
          // Leave labels out often, so missing labels and empty matches are exercised.
          if (rnd.nextInt(3) != 0) {
            labels.put(v[0], v[1 + rnd.nextInt(v.length - 1)]);
          }
        }
        if (labels.isEmpty()) {
          labels.put("alertname", "Other");
        }
        List<String> ours = tree.match(labels).stream().map(Route::receiver).toList();
        assertEquals(amtool(amtool, file, labels), String.join(",", ours), c.getKey() + " " + labels);
        checked++;
      }
      ci++;
    }
    assertEquals(540, checked);
  }

  private static String amtool(Path amtool, Path config, Map<String, String> labels) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(amtool.toString(), "config", "routes", "test",
        "--config.file=" + config));
    labels.forEach((k, v) -> cmd.add(k + "=" + v));
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new AssertionError("amtool failed for " + labels + ": " + out);
    }
    return out;
  }
}
