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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
            discord_configs: [{webhook_url: 'http://127.0.0.1:9/discord-token'}]
            opsgenie_configs: [{api_key: og-token, api_url: 'http://127.0.0.1:9/og/'}]
            telegram_configs: [{bot_token: 'tg-token', chat_id: 1, api_url: 'http://127.0.0.1:9'}]
            webex_configs: [{room_id: r, api_url: 'http://127.0.0.1:9/wx', http_config: {authorization: {credentials: wx-token}}}]
            pushover_configs: [{user_key: po-user-token, token: po-app-token}]
            victorops_configs: [{api_key: vo-token, routing_key: cdc, api_url: 'http://127.0.0.1:9/vo/'}]
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
    // amtool parses the configuration the status API shows: masked secrets of every kind still parse, and the plain
    // URLs Alertmanager does not mask are shown.
    String shown = run("config", "show");
    assertTrue(shown.contains("<secret>"), shown);
    assertTrue(!shown.contains("-token") && !shown.contains("pw\n"), shown);
    assertTrue(shown.contains("http://127.0.0.1:9/og/") && shown.contains("routing_key: cdc"), shown);
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

  /**
   * The chat and paging receivers Debian's amtool (0.25) knows: both accept a file using them, and both refuse each
   * broken variant. Teams' two kinds came with Alertmanager 0.26 and 0.28, too late for this amtool to judge them.
   */
  @Test
  void checkConfigAgreesWithAmtoolOnChatAndPagingReceivers(@TempDir Path dir) throws Exception {
    Map<String, String> files = new LinkedHashMap<>();
    files.put("good", """
        global:
          opsgenie_api_key: og
          victorops_api_key_file: vo-key
          telegram_api_url: 'https://tg.example'
          webex_api_url: 'https://webex.example/v1/messages'
        route: {receiver: r}
        receivers:
          - name: r
            discord_configs: [{webhook_url: 'https://discord.com/api/webhooks/1/x', title: '{{ .Status }}'}]
            opsgenie_configs:
              - api_url: 'https://api.eu.opsgenie.com/'
                responders: [{name: dba, type: team}, {username: x@example.com, type: User}, {id: x, type: '{{ .Status }}'}]
                details: {pipeline: cdc}
                tags: cdc,lag
                update_alerts: true
            telegram_configs: [{bot_token: '1:x', chat_id: -100, parse_mode: MarkdownV2, disable_notifications: true}]
            webex_configs: [{room_id: r, http_config: {authorization: {credentials: t}}}]
            pushover_configs: [{user_key: u, token: t, priority: '1', retry: 30s, expire: 2h, html: true}]
            victorops_configs: [{routing_key: cdc, message_type: WARNING, custom_fields: {team: cdc}}]
        """);
    Map<String, String> broken = new LinkedHashMap<>();
    broken.put("telegram-no-chat", "telegram_configs: [{bot_token: '1:x'}]");
    broken.put("telegram-no-token", "telegram_configs: [{chat_id: 1}]");
    broken.put("telegram-parse-mode", "telegram_configs: [{bot_token: '1:x', chat_id: 1, parse_mode: Textile}]");
    broken.put("webex-no-authorization", "webex_configs: [{room_id: r}]");
    broken.put("webex-no-room", "webex_configs: [{http_config: {authorization: {credentials: t}}}]");
    broken.put("pushover-no-token", "pushover_configs: [{user_key: u}]");
    broken.put("pushover-no-user", "pushover_configs: [{token: t}]");
    broken.put("victorops-no-routing-key", "victorops_configs: [{api_key: k}]");
    broken.put("victorops-no-key", "victorops_configs: [{routing_key: r}]");
    broken.put("victorops-reserved", "victorops_configs: [{api_key: k, routing_key: r, custom_fields: {entity_id: x}}]");
    broken.put("opsgenie-no-key", "opsgenie_configs: [{}]");
    broken.put("opsgenie-type", "opsgenie_configs: [{api_key: k, responders: [{name: x, type: squad}]}]");
    broken.put("opsgenie-type-template", "opsgenie_configs: [{api_key: k, responders: [{name: x, type: '{{ .Status'}]}]");
    broken.put("opsgenie-nobody", "opsgenie_configs: [{api_key: k, responders: [{type: team}]}]");
    broken.put("opsgenie-bad-url", "opsgenie_configs: [{api_key: k, api_url: 'ftp://og'}]");
    broken.put("discord-no-url", "discord_configs: [{title: x}]");
    broken.put("discord-unknown-key", "discord_configs: [{webhook_url: 'https://d/x', colour: red}]");
    broken.forEach((name, receiver) -> files.put(name, "route: {receiver: r}\nreceivers:\n  - name: r\n    "
        + receiver + "\n"));

    List<String> args = new ArrayList<>(List.of(amtool.toString(), "check-config"));
    for (Map.Entry<String, String> f : files.entrySet()) {
      Path file = Files.writeString(dir.resolve(f.getKey() + ".yml"), f.getValue());
      args.add(file.toString());
      List<String> ours = AlertRouter.checkConfig(file);
      assertEquals(f.getKey().equals("good"), ours.isEmpty(), f.getKey() + ": " + ours);
    }
    Process p = new ProcessBuilder(args).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    for (String name : files.keySet()) {
      String verdict = name.equals("good") ? "SUCCESS" : "FAILED";
      assertTrue(out.contains(dir.resolve(name + ".yml") + "'  " + verdict), name + " " + verdict + " in " + out);
    }
  }
}
