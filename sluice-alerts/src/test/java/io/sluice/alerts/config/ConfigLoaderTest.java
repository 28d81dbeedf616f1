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
            sns_configs: [{topic_arn: 'arn:aws:sns:eu-west-1:1:x'}]
          - name: chat
            wechat_configs: [{corp_id: c, api_secret: s}]
            jira_configs: [{project: P, issue_type: Bug}]
            rocketchat_configs: [{channel: '#x'}]
        """);
    assertTrue(e.contains("receiver \"team-x\": sns_configs is not supported by Sluice (supported: "
        + "discord_configs, email_configs, msteams_configs, msteamsv2_configs, opsgenie_configs, pagerduty_configs, "
        + "pushover_configs, slack_configs, telegram_configs, victorops_configs, webex_configs, webhook_configs)"),
        e.toString());
    for (String kind : List.of("wechat_configs", "jira_configs", "rocketchat_configs")) {
      assertTrue(e.stream().anyMatch(x -> x.startsWith("receiver \"chat\": " + kind + " is not supported")),
          e.toString());
    }
    // An empty list names no integration: nothing would be dropped, so nothing is refused.
    assertEquals("a", parse("route: {receiver: a}\nreceivers: [{name: a, sns_configs: []}]").receivers().get(0)
        .name());
  }

  /** The chat and paging kinds, each as small as Alertmanager accepts it, take Alertmanager's defaults. */
  @Test
  void chatAndPagingReceiversTakeAlertmanagersDefaults() throws Exception {
    Config c = parse("""
        global:
          opsgenie_api_key: og-key
          victorops_api_key: vo-key
        route: {receiver: r}
        receivers:
          - name: r
            discord_configs: [{webhook_url: 'https://discord.com/api/webhooks/1/x'}]
            msteams_configs: [{webhook_url: 'https://example.webhook.office.com/x'}]
            msteamsv2_configs: [{webhook_url: 'https://prod.westeurope.logic.azure.com/x'}]
            opsgenie_configs: [{}, {api_url: 'https://api.eu.opsgenie.com', api_key: own}]
            telegram_configs: [{bot_token: 'bot:tok', chat_id: -1001234}]
            webex_configs: [{room_id: r1, http_config: {authorization: {credentials: wx}}}]
            pushover_configs: [{user_key: u, token: t}]
            victorops_configs: [{routing_key: cdc}]
        """);
    List<Config.Integration> i = c.receiver("r").orElseThrow().integrations();
    assertEquals(List.of("discord", "msteams", "msteamsv2", "opsgenie", "opsgenie", "telegram", "webex", "pushover",
        "victorops"), i.stream().map(Config.Integration::kind).toList());
    assertTrue(i.stream().allMatch(Config.Integration::sendResolved), "every one of them sends resolved by default");
    Config.Discord discord = (Config.Discord) i.get(0);
    assertEquals("{{ template \"discord.default.title\" . }}", discord.title());
    assertEquals("{{ template \"discord.default.message\" . }}", discord.message());
    assertEquals("", discord.content());
    assertEquals("{{ template \"msteams.default.text\" . }}", ((Config.MsTeams) i.get(1)).text());
    assertEquals("{{ template \"msteamsv2.default.title\" . }}", ((Config.MsTeamsV2) i.get(2)).title());
    Config.OpsGenie og = (Config.OpsGenie) i.get(3);
    assertEquals("https://api.opsgenie.com/", og.apiUrl());
    assertEquals("og-key", og.apiKey().reveal(), "the global key");
    assertEquals("{{ template \"opsgenie.default.description\" . }}", og.description());
    Config.OpsGenie eu = (Config.OpsGenie) i.get(4);
    assertEquals("https://api.eu.opsgenie.com/", eu.apiUrl(), "a slash ends the API URL");
    assertEquals("own", eu.apiKey().reveal());
    Config.Telegram tg = (Config.Telegram) i.get(5);
    assertEquals("https://api.telegram.org", tg.apiUrl());
    assertEquals("HTML", tg.parseMode());
    assertEquals(-1001234, tg.chatId());
    assertEquals("{{ template \"telegram.default.message\" . }}", tg.message());
    Config.Webex wx = (Config.Webex) i.get(6);
    assertEquals("https://webexapis.com/v1/messages", wx.apiUrl());
    assertEquals("Bearer wx", wx.http().authorization().orElseThrow());
    Config.Pushover po = (Config.Pushover) i.get(7);
    assertEquals("{{ if eq .Status \"firing\" }}2{{ else }}0{{ end }}", po.priority());
    assertEquals(Duration.ofMinutes(1), po.retry());
    assertEquals(Duration.ofHours(1), po.expire());
    assertEquals(Duration.ZERO, po.ttl());
    assertEquals("https://api.pushover.net/1/messages.json", po.apiUrl());
    Config.VictorOps vo = (Config.VictorOps) i.get(8);
    assertEquals("https://alert.victorops.com/integrations/generic/20131114/alert/", vo.apiUrl());
    assertEquals("vo-key", vo.apiKey().reveal());
    assertEquals("CRITICAL", vo.messageType());

    Config g = parse("""
        global:
          opsgenie_api_url: 'http://og.internal:8080/opsgenie'
          opsgenie_api_key: k
          victorops_api_url: 'http://vo.internal/alert'
          victorops_api_key: k
          telegram_api_url: 'http://tg.internal'
          webex_api_url: 'http://wx.internal/v1/messages'
        route: {receiver: r}
        receivers:
          - name: r
            opsgenie_configs: [{}]
            victorops_configs: [{routing_key: x}]
            telegram_configs: [{bot_token: t, chat_id: 1, parse_mode: ''}]
            webex_configs: [{room_id: r, http_config: {bearer_token: b}}]
        """);
    // Integrations come in a fixed order of kinds, whatever the file's order.
    List<Config.Integration> gi = g.receiver("r").orElseThrow().integrations();
    assertEquals("http://og.internal:8080/opsgenie/", ((Config.OpsGenie) gi.get(0)).apiUrl());
    assertEquals("http://tg.internal", ((Config.Telegram) gi.get(1)).apiUrl());
    assertEquals("", ((Config.Telegram) gi.get(1)).parseMode(), "an empty parse_mode sends plain text");
    assertEquals("http://wx.internal/v1/messages", ((Config.Webex) gi.get(2)).apiUrl());
    assertEquals("http://vo.internal/alert/", ((Config.VictorOps) gi.get(3)).apiUrl());
  }

  @Test
  void chatAndPagingReceiverRequirementsInAlertmanagersWords() {
    List<String> e = errors("""
        route: {receiver: r}
        receivers:
          - name: r
            discord_configs: [{title: x}, {webhook_url: 'https://d/x', webhook_url_file: f}]
            msteams_configs: [{webhook_url: 'ftp://teams/x'}]
            msteamsv2_configs: [{text: x}]
            opsgenie_configs: [{responders: [{type: team}, {name: ops, type: squad}]}]
            telegram_configs: [{chat_id: 1, parse_mode: Textile}, {bot_token: t}]
            webex_configs: [{message: x}]
            pushover_configs: [{user_key: u, user_key_file: f}]
            victorops_configs: [{api_key: k, custom_fields: {entity_id: x}}]
        """);
    for (String expected : List.of("one of webhook_url or webhook_url_file must be configured",
        "at most one of webhook_url & webhook_url_file must be configured",
        "webhook_url: unsupported scheme \"ftp\" for URL",
        "no global OpsGenie API Key set either inline or in a file",
        "opsgenie responder Responder[id=, name=, username=, type=team] has to have at least one of id, username or "
            + "name specified",
        "opsgenie responder type \"squad\" does not match valid options ^(team|teams|user|escalation|schedule)$",
        "missing bot_token or bot_token_file on telegram_config",
        "unknown parse_mode on telegram_config, must be Markdown, MarkdownV2, HTML or empty string",
        "missing chat_id on telegram_config",
        "missing room_id on webex_config",
        "missing webex_configs.http_config.authorization",
        "at most one of user_key & user_key_file must be configured",
        "one of token or token_file must be configured",
        "missing Routing key in VictorOps config",
        "victorOps config contains custom field entity_id which cannot be used as it conflicts with the fixed/static "
            + "fields")) {
      assertTrue(e.contains(expected), expected + " in " + e);
    }
    assertTrue(errors("""
        route: {receiver: r}
        receivers: [{name: r, victorops_configs: [{routing_key: x}]}]
        """).contains("no global VictorOps API Key set"));
    assertTrue(errors("""
        global: {opsgenie_api_key: a, opsgenie_api_key_file: f, opsgenie_api_url: 'mailto:x'}
        route: {receiver: r}
        receivers: [{name: r}]
        """).containsAll(List.of("at most one of opsgenie_api_key & opsgenie_api_key_file must be configured",
        "opsgenie_api_url: unsupported scheme \"mailto\" for URL")));
  }

  /** As Alertmanager parses each section strictly, a key it does not know is refused, not ignored. */
  @Test
  void anUnknownKeyOfAChatOrPagingReceiverIsRefused() {
    List<String> e = errors("""
        route: {receiver: r}
        receivers:
          - name: r
            discord_configs: [{webhook_url: 'https://d/x', colour: red}]
            pushover_configs: [{user_key: u, token: t, monospace: true}]
            opsgenie_configs: [{api_key: k, responders: [{name: ops, type: team, rank: 1}]}]
        """);
    assertEquals(List.of("field colour not found in type discord_config",
        "field monospace not found in type pushover_config", "field rank not found in type opsgenie responder"),
        e.stream().sorted().toList());
  }

  /**
   * The four oldest kinds refuse a key they do not have as every other kind does, as Alertmanager's strict YAML does:
   * a misspelt {@code chanel} is an error, not a Slack message to the webhook's default channel.
   */
  @Test
  void anUnknownKeyOfAWebhookSlackPagerDutyOrEmailReceiverIsRefused() {
    List<String> e = errors("""
        route: {receiver: r}
        receivers:
          - name: r
            webhook_configs: [{url: 'https://hook.example.com/x', max_alert: 2}]
            slack_configs: [{api_url: 'https://hooks.slack.com/x', chanel: '#cdc'}]
            pagerduty_configs: [{routing_key: k, severty: critical}]
            email_configs: [{to: ops@example.com, from: am@example.com, smarthost: 'mail:25', subject: x}]
        """);
    assertEquals(List.of("field chanel not found in type slack_config",
        "field max_alert not found in type webhook_config", "field severty not found in type pagerduty_config",
        "field subject not found in type email_config"), e.stream().sorted().toList());
    // Mail has no http_config, in Alertmanager either.
    assertEquals(List.of("field http_config not found in type email_config"), errors("""
        route: {receiver: r}
        receivers:
          - name: r
            email_configs: [{to: ops@example.com, from: a@example.com, smarthost: 'mail:25', http_config: {}}]
        """));
  }

  /** Every key a webhook, Slack, PagerDuty or email section has in Sluice still loads, into its record. */
  @Test
  void everyKeyOfAWebhookSlackPagerDutyOrEmailReceiverLoads() throws Exception {
    Files.writeString(dir.resolve("key"), "pd-key\n");
    Config c = ConfigLoader.parse("""
        route: {receiver: r}
        receivers:
          - name: r
            webhook_configs:
              - {url: 'https://hook.example.com/x', max_alerts: 2, send_resolved: false,
                 http_config: {follow_redirects: false}}
            slack_configs:
              - {api_url: 'https://hooks.slack.com/x', channel: '#cdc', username: u, color: c, title: t,
                 title_link: tl, pretext: p, text: x, fallback: f, icon_emoji: ':e:', icon_url: 'https://i/x',
                 send_resolved: true, http_config: {}}
            pagerduty_configs:
              - {routing_key_file: key, url: 'https://pd.example.com/v2', client: c, client_url: cu,
                 description: d, details: {team: cdc}, severity: critical, class: cl, component: co, group: g,
                 send_resolved: false, http_config: {}}
            email_configs:
              - {to: ops@example.com, from: am@example.com, hello: h, smarthost: 'mail:25', auth_username: u,
                 auth_password: pw, auth_identity: i, require_tls: false, headers: {subject: s}, html: hm,
                 text: tx, send_resolved: true}
        """, dir, Map.of());
    List<Config.Integration> i = c.receiver("r").orElseThrow().integrations();
    Config.Webhook w = (Config.Webhook) i.get(0);
    assertEquals(2, w.maxAlerts());
    assertFalse(w.sendResolved());
    Config.Slack s = (Config.Slack) i.get(1);
    assertEquals(List.of("#cdc", "u", "c", "t", "tl", "p", "x", "f", ":e:", "https://i/x"), List.of(s.channel(),
        s.username(), s.color(), s.title(), s.titleLink(), s.pretext(), s.text(), s.fallback(), s.iconEmoji(),
        s.iconUrl()));
    Config.PagerDuty p = (Config.PagerDuty) i.get(2);
    assertEquals("pd-key", p.routingKey().reveal());
    assertEquals(List.of("https://pd.example.com/v2", "c", "cu", "d", "critical", "cl", "co", "g", "cdc"),
        List.of(p.url(), p.client(), p.clientUrl(), p.description(), p.severity(), p.eventClass(), p.component(),
            p.group(), p.details().get("team")));
    Config.Email m = (Config.Email) i.get(3);
    assertEquals(List.of("ops@example.com", "am@example.com", "h", "mail:25", "u", "pw", "i", "s", "hm", "tx"),
        List.of(m.to(), m.from(), m.hello(), m.smarthost(), m.authUsername(), m.authPassword().reveal(),
            m.authIdentity(), m.headers().get("Subject"), m.html(), m.text()));
    assertFalse(m.requireTls());
  }

  /** The receiver table has one entry for every integration record, so no kind is parsed outside it. */
  @Test
  void everyIntegrationRecordHasOneKind() {
    List<Class<?>> records = new java.util.ArrayList<>();
    for (Class<?> c : Config.Integration.class.getPermittedSubclasses()) {
      if (c.isInterface()) {
        records.addAll(List.of(c.getPermittedSubclasses()));
      } else {
        records.add(c);
      }
    }
    List<Class<?>> inTable = ConfigLoader.KINDS.stream().<Class<?>>map(ConfigLoader.Kind::record).toList();
    assertEquals(records.stream().map(Class::getSimpleName).sorted().toList(),
        inTable.stream().map(Class::getSimpleName).sorted().toList());
    assertEquals(inTable.size(), new java.util.HashSet<>(inTable).size());
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

  /**
   * Exactly Alertmanager's Secret and SecretURL fields are masked, so the status page hides every credential and the
   * plain URLs still parse where amtool reads the configuration back.
   */
  @Test
  void chatAndPagingSecretsAreMaskedAndTheirPlainUrlsShown() throws Exception {
    Config c = parse("""
        global: {opsgenie_api_key: og-global-secret, victorops_api_key: vo-global-secret}
        route: {receiver: r}
        receivers:
          - name: r
            discord_configs: [{webhook_url: 'https://discord.com/api/webhooks/1/discord-secret'}]
            msteams_configs: [{webhook_url: 'https://example.webhook.office.com/teams-secret'}]
            msteamsv2_configs: [{webhook_url: 'https://logic.azure.com/teams2-secret'}]
            opsgenie_configs: [{api_key: og-secret, api_url: 'https://api.eu.opsgenie.com/'}]
            telegram_configs: [{bot_token: 'bot:telegram-secret', chat_id: 7}]
            webex_configs: [{room_id: room, http_config: {authorization: {credentials: webex-secret}}}]
            pushover_configs: [{user_key: user-secret, token: token-secret, url: 'https://runbooks/cdc'}]
            victorops_configs: [{api_key: vo-secret, routing_key: cdc-team}]
        """);
    for (String secret : List.of("og-global-secret", "vo-global-secret", "discord-secret", "teams-secret",
        "teams2-secret", "og-secret", "telegram-secret", "webex-secret", "user-secret", "token-secret", "vo-secret")) {
      assertFalse(c.maskedYaml().contains(secret), secret + " in " + c.maskedYaml());
      assertFalse(c.toString().contains(secret), secret);
    }
    for (String shown : List.of("api_url: https://api.eu.opsgenie.com/", "routing_key: cdc-team",
        "url: https://runbooks/cdc")) {
      assertTrue(c.maskedYaml().contains(shown), shown + " in " + c.maskedYaml());
    }
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
