package io.sluice.alerts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.http.Json;
import io.sluice.kafka.testing.RequiredTool;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Alertmanager's own client against Sluice (where amtool is not installed: a failure under CI, a skip elsewhere). */
class AmtoolTest {
  static AlertRouter router;
  static Path amtool;

  @BeforeAll
  static void start(@TempDir Path dir) throws Exception {
    amtool = RequiredTool.require("amtool", "Debian package prometheus-alertmanager");
    router = AlertRouter.builder().port(0).dataDir(dir).configYaml("""
        route:
          receiver: chat
          group_by: [alertname]
          routes: [{matchers: ['severity="critical"'], receiver: paging}]
        receivers:
          - name: chat
          - name: paging
            webhook_configs: [{url: 'http://127.0.0.1:9/secret-token', http_config: {basic_auth: {username: u, password: pw}}}]
        """).start();
  }

  @AfterAll
  static void stop() {
    if (router != null) {
      router.close();
    }
  }

  static String run(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(amtool.toString(), "--alertmanager.url=" + router.url()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), String.join(" ", args) + " -> " + out);
    return out;
  }

  @Test
  void alertAddQueryAndSilenceLifecycle() throws Exception {
    run("alert", "add", "alertname=ConnectHighLag", "connector=orders", "severity=critical",
        "--annotation=summary=lag is high");
    JsonNode alerts = Json.read(run("alert", "query", "-o", "json", "alertname=ConnectHighLag").getBytes());
    assertEquals(1, alerts.size());
    assertEquals("orders", alerts.get(0).get("labels").get("connector").asText());
    assertEquals("lag is high", alerts.get(0).get("annotations").get("summary").asText());
    assertTrue(run("alert", "query").contains("ConnectHighLag"));

    String id = run("silence", "add", "connector=orders", "--comment=maintenance", "--author=ops", "--duration=1h");
    assertEquals(36, id.length(), id);
    JsonNode silences = Json.read(run("silence", "query", "-o", "json").getBytes());
    assertEquals(1, silences.size());
    assertEquals(id, silences.get(0).get("id").asText());
    assertEquals("active", silences.get(0).get("status").get("state").asText());
    assertEquals(id, run("silence", "query", "-q", "connector=orders"));
    JsonNode silenced = Json.read(run("alert", "query", "-o", "json", "--silenced").getBytes());
    assertEquals(1, silenced.size());
    assertEquals("suppressed", silenced.get(0).get("status").get("state").asText());

    run("silence", "expire", id);
    assertEquals("", run("silence", "query", "-q"));
    assertEquals(id, run("silence", "query", "-q", "--expired"));
  }

  @Test
  void amtoolReadsTheRunningConfigThroughTheStatusApi() throws Exception {
    assertEquals("paging", run("config", "routes", "test", "severity=critical"));
    assertEquals("chat", run("config", "routes", "test", "severity=warning"));
    String shown = run("config", "show");
    assertTrue(shown.contains("<secret>"), shown);
    assertTrue(!shown.contains("secret-token") && !shown.contains("pw\n"), shown);
  }

  @Test
  void checkConfigAgreesWithAmtoolOnTheBundledFile(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("alertmanager.yml");
    Files.writeString(f, AlertRouter.defaultConfig());
    assertEquals(List.of(), AlertRouter.checkConfig(f));
    Process p = new ProcessBuilder(amtool.toString(), "check-config", f.toString()).redirectErrorStream(true).start();
    p.getInputStream().readAllBytes();
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue());
  }
}
