package io.sluice.alerts.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {
  @TempDir Path dir;

  private static Config parse(String yaml) throws ConfigException {
    return ConfigLoader.parse(yaml, null, Map.of());
  }

  private static List<String> errors(String yaml) {
    return assertThrows(ConfigException.class, () -> parse(yaml)).errors();
  }

  @Test
  void defaultsAndInheritanceFollowAlertmanager() throws Exception {
    Config c = parse("""
        route:
          receiver: a
          group_by: [alertname]
          routes:
            - matchers: ['severity="critical"']
              receiver: b
              group_wait: 10s
            - match: {team: db}
              match_re: {env: 'prod|stage'}
        receivers: [{name: a}, {name: b}]
        """);
    assertEquals(Duration.ofMinutes(5), c.global().resolveTimeout());
    assertEquals(Duration.ofSeconds(30), c.route().groupWait());
    assertEquals(Duration.ofMinutes(5), c.route().groupInterval());
    assertEquals(Duration.ofHours(4), c.route().repeatInterval());
    Config.Route crit = c.route().routes().get(0);
    assertEquals("b", crit.receiver());
    assertEquals(List.of("alertname"), crit.groupBy());
    assertEquals(Duration.ofSeconds(10), crit.groupWait());
    Config.Route db = c.route().routes().get(1);
    assertEquals("a", db.receiver());
    assertEquals(2, db.matchers().size());
    assertTrue(c.global().smtpRequireTls());
  }

  @Test
  void aReceiverSluiceCannotSendToIsRefusedNamingTheSupportedOnes() throws Exception {
    List<String> e = errors("""
        route: {receiver: team-x}
        receivers:
          - name: team-x
            webhook_configs: [{url: 'http://127.0.0.1:9/hook'}]
            opsgenie_configs: [{api_key: k}]
          - name: chat
            msteams_configs: [{webhook_url: 'http://127.0.0.1:9/teams'}]
            telegram_configs: [{bot_token: t, chat_id: 1}]
        """);
    assertTrue(e.contains("receiver \"team-x\": opsgenie_configs is not supported by Sluice (supported: "
        + "email_configs, pagerduty_configs, slack_configs, webhook_configs)"), e.toString());
    assertTrue(e.stream().anyMatch(x -> x.startsWith("receiver \"chat\": msteams_configs is not supported")),
        e.toString());
    assertTrue(e.stream().anyMatch(x -> x.startsWith("receiver \"chat\": telegram_configs is not supported")),
        e.toString());
    // An empty list names no integration: nothing would be dropped, so nothing is refused.
    assertEquals("a", parse("route: {receiver: a}\nreceivers: [{name: a, discord_configs: []}]").receivers().get(0)
        .name());
  }

  @Test
  void collectsEveryErrorWithAlertmanagersWording() {
    List<String> e = errors("""
        route:
          receiver: missing
          group_by: ['...', alertname]
          group_interval: 5x
          routes:
            - receiver: a
              mute_time_intervals: [nope]
        receivers: [{name: a}, {name: a}]
        bogus: 1
        """);
    assertTrue(e.contains("field bogus not found in type config"), e.toString());
    assertTrue(e.contains("undefined receiver \"missing\" used in route"), e.toString());
    assertTrue(e.contains("notification config name \"a\" is not unique"), e.toString());
    assertTrue(e.stream().anyMatch(x -> x.contains("wildcard group_by")), e.toString());
    assertTrue(e.stream().anyMatch(x -> x.contains("not a valid duration string")), e.toString());
    assertTrue(e.contains("undefined time interval \"nope\" used in route"), e.toString());
    assertTrue(errors("receivers: [{name: a}]").contains("no routes provided"));
    assertTrue(errors("route: {receiver: a, matchers: ['a=b']}\nreceivers: [{name: a}]")
        .contains("root route must not have any matchers"));
  }

  @Test
  void receiverRequirements() {
    List<String> e = errors("""
        route: {receiver: r}
        receivers:
          - name: r
            webhook_configs: [{send_resolved: true}]
            slack_configs: [{channel: '#x'}]
            pagerduty_configs: [{severity: critical}]
            email_configs: [{to: ops@example.com}]
        """);
    assertTrue(e.contains("one of url or url_file must be configured"), e.toString());
    assertTrue(e.contains("no global Slack API URL set"), e.toString());
    assertTrue(e.contains("missing service or routing key in PagerDuty config"), e.toString());
    assertTrue(e.contains("no global SMTP smarthost set"), e.toString());
    assertTrue(e.contains("no global mail from address set"), e.toString());
  }

  @Test
  void secretsFromFilesAndEnvironmentAreNeverShown() throws Exception {
    Files.writeString(dir.resolve("key"), "pd-secret-key\n");
    Files.writeString(dir.resolve("alertmanager.yml"), """
        global:
          slack_api_url: https://hooks.example.com/services/T/B/slack-secret
          smtp_smarthost: mail:25
          smtp_from: am@example.com
          smtp_auth_username: am
          smtp_auth_password: smtp-secret
        route: {receiver: r}
        receivers:
          - name: r
            webhook_configs:
              - url: http://hook.example.com/abc-secret
                http_config:
                  authorization: {credentials: bearer-secret}
            slack_configs: [{channel: '#x'}]
            pagerduty_configs: [{routing_key_file: key}]
            email_configs: [{to: ops@example.com}]
          - name: env
            webhook_configs: [{url: '${HOOK_URL}'}]
        """);
    Config c = ConfigLoader.parse(Files.readString(dir.resolve("alertmanager.yml")), dir,
        Map.of("HOOK_URL", "http://env.example.com/env-secret"));
    for (String secret : List.of("slack-secret", "smtp-secret", "abc-secret", "bearer-secret", "pd-secret-key")) {
      assertFalse(c.maskedYaml().contains(secret), c.maskedYaml());
      assertFalse(c.toString().contains(secret), secret);
    }
    assertTrue(c.maskedYaml().contains("<secret>"));
    Config.Receiver r = c.receiver("r").orElseThrow();
    assertEquals("pd-secret-key", ((Config.PagerDuty) r.integrations().get(2)).routingKey().reveal());
    Config.Webhook env = (Config.Webhook) c.receiver("env").orElseThrow().integrations().get(0);
    assertEquals("http://env.example.com/env-secret", env.url().reveal());
    assertInstanceOf(Config.Email.class, r.integrations().get(3));
    assertEquals("smtp-secret", ((Config.Email) r.integrations().get(3)).authPassword().reveal());
  }

  @Test
  void timeIntervalsParseAndMatch() throws Exception {
    Config c = parse("""
        route:
          receiver: r
          routes: [{receiver: r, mute_time_intervals: [offhours]}]
        receivers: [{name: r}]
        time_intervals:
          - name: offhours
            time_intervals:
              - weekdays: [saturday, sunday]
              - weekdays: ['monday:friday']
                times: [{start_time: '18:00', end_time: '24:00'}]
                months: ['january:march', '12']
                days_of_month: ['1:-2']
                years: ['2026:2027']
                location: Europe/Berlin
        """);
    List<TimeInterval> ti = c.timeIntervals().get("offhours");
    assertTrue(TimeInterval.anyContains(ti, Instant.parse("2026-11-21T12:00:00Z"))); // a Saturday
    assertFalse(TimeInterval.anyContains(ti, Instant.parse("2026-12-01T12:00:00Z"))); // Tuesday noon
    assertTrue(TimeInterval.anyContains(ti, Instant.parse("2026-12-01T17:30:00Z"))); // 18:30 in Berlin
    assertFalse(TimeInterval.anyContains(ti, Instant.parse("2026-12-31T17:30:00Z"))); // last day excluded by -2
    assertFalse(TimeInterval.anyContains(ti, Instant.parse("2026-11-03T17:30:00Z"))); // November not listed
    List<String> e = errors("""
        route: {receiver: r}
        receivers: [{name: r}]
        time_intervals:
          - name: bad
            time_intervals: [{times: [{start_time: '10:00', end_time: '09:00'}], weekdays: [funday]}]
        """);
    assertEquals(2, e.size(), e.toString());
  }

  @Test
  void bundledDefaultLoads() throws Exception {
    Config c = ConfigLoader.parse(io.sluice.alerts.AlertRouter.defaultConfig(), dir, Map.of());
    assertEquals(4, c.inhibitRules().size(), "down explains lag (by connector and by pipeline), errors the DLQ, critical warnings");
    assertEquals(List.of("alertname", "severity", "connector"), c.route().groupBy());
    Config.Route paging = c.route().routes().get(1);
    assertEquals("paging", paging.receiver());
    assertEquals(Duration.ofSeconds(10), paging.groupWait());
    assertEquals(Duration.ofHours(1), paging.repeatInterval());
    Config.Route warn = c.route().routes().get(2);
    assertEquals(Duration.ofHours(12), warn.repeatInterval());
    assertEquals(Duration.ofHours(6), c.route().routes().get(0).repeatInterval());
  }

  @Test
  void checkConfigReportsErrors() throws Exception {
    Path f = dir.resolve("broken.yml");
    Files.writeString(f, "route: {receiver: nobody}\nreceivers: []\n");
    assertEquals(List.of("undefined receiver \"nobody\" used in route"), io.sluice.alerts.AlertRouter.checkConfig(f));
    Files.writeString(f, "route: [");
    assertTrue(io.sluice.alerts.AlertRouter.checkConfig(f).get(0).startsWith("yaml:"));
  }
}
