package io.sluice.alerts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.alerts.config.ConfigException;
import io.sluice.alerts.state.KafkaStateStore;
import io.sluice.alerts.state.StateStore;
import io.sluice.alerts.types.Times;
import io.sluice.testing.TestClock;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The router end to end over loopback HTTP, with a hand-moved clock and in-test receivers. */
class AlertRouterTest {
  /** A Wednesday at noon UTC: inside the bundled config's business hours. */
  static final Instant T0 = Instant.parse("2026-11-18T12:00:00Z");

  @TempDir Path dir;
  final TestClock clock = new TestClock(T0);
  final Receivers receivers = new Receivers();
  final List<AlertRouter> routers = new ArrayList<>();

  @AfterEach
  void stop() {
    routers.forEach(AlertRouter::close);
    receivers.close();
  }

  AlertRouter start(String yaml) throws ConfigException {
    return start(yaml, dir.resolve("data"));
  }

  AlertRouter start(String yaml, Path dataDir) throws ConfigException {
    AlertRouter r = AlertRouter.builder().port(0).configYaml(yaml).dataDir(dataDir).clock(clock)
        .externalUrl("http://sluice.test:9093").manualTicks().retrySleeper(d -> {}).start();
    routers.add(r);
    return r;
  }

  String webhookConfig(String extraRoute) {
    return """
        route:
          receiver: hook
          group_by: [alertname]
          group_wait: 30s
          group_interval: 5m
          repeat_interval: 1h
        %s
        receivers:
          - name: hook
            webhook_configs: [{url: '%s'}]
        """.formatted(extraRoute, receivers.url("hook"));
  }

  static String alert(String alertname, String connector, Instant start, Instant end) {
    return "{\"labels\":{\"alertname\":\"" + alertname + "\",\"connector\":\"" + connector + "\"},"
        + "\"annotations\":{\"summary\":\"" + alertname + " on " + connector + "\"},"
        + "\"startsAt\":\"" + start + "\"" + (end == null ? "" : ",\"endsAt\":\"" + end + "\"")
        + ",\"generatorURL\":\"http://prom/graph\"}";
  }

  static void postAlerts(AlertRouter r, String... alerts) {
    var resp = Http.post(r.url() + "/api/v2/alerts", "[" + String.join(",", alerts) + "]");
    assertEquals(200, resp.statusCode(), resp.body());
  }

  void step(AlertRouter r, Duration d) {
    clock.advance(d);
    r.tick();
  }

  @Test
  void groupWaitGroupIntervalRepeatIntervalAndResolved() throws Exception {
    AlertRouter r = start(webhookConfig(""));
    Instant far = T0.plus(Duration.ofHours(3));
    postAlerts(r, alert("HighLag", "orders", T0, far));
    r.tick();
    step(r, Duration.ofSeconds(29));
    assertTrue(receivers.takeAll().isEmpty(), "nothing before group_wait");
    step(r, Duration.ofSeconds(1));
    List<Receivers.Received> first = receivers.take("hook");
    assertEquals(1, first.size());
    JsonNode p = first.get(0).body();
    assertEquals("4", p.get("version").asText());
    assertEquals("firing", p.get("status").asText());
    assertEquals("hook", p.get("receiver").asText());
    assertEquals("{}:{alertname=\"HighLag\"}", p.get("groupKey").asText());
    assertEquals(0, p.get("truncatedAlerts").asInt());
    assertEquals("HighLag", p.get("groupLabels").get("alertname").asText());
    assertEquals("orders", p.get("commonLabels").get("connector").asText());
    assertEquals("HighLag on orders", p.get("commonAnnotations").get("summary").asText());
    assertEquals("http://sluice.test:9093", p.get("externalURL").asText());
    JsonNode a = p.get("alerts").get(0);
    assertEquals("firing", a.get("status").asText());
    assertEquals(Times.ZERO, a.get("endsAt").asText());
    assertEquals(Times.format(T0), a.get("startsAt").asText());
    assertEquals("http://prom/graph", a.get("generatorURL").asText());
    assertEquals(16, a.get("fingerprint").asText().length());

    // A new alert joins the group: it is notified at the next group_interval, not before.
    postAlerts(r, alert("HighLag", "payments", clock.instant(), far));
    step(r, Duration.ofMinutes(4));
    assertTrue(receivers.takeAll().isEmpty(), "group_interval not yet over");
    step(r, Duration.ofMinutes(1));
    List<Receivers.Received> second = receivers.take("hook");
    assertEquals(1, second.size());
    assertEquals(2, second.get(0).body().get("alerts").size());
    assertFalse(second.get(0).body().get("commonLabels").has("connector"));

    // Unchanged: silent on every group_interval until repeat_interval has passed since the last notification. As in
    // Alertmanager, "passed" is strict, so the flush exactly one repeat_interval later stays silent too.
    for (int i = 0; i < 12; i++) {
      step(r, Duration.ofMinutes(5));
      assertTrue(receivers.takeAll().isEmpty(), "unchanged group notified again after " + (i + 1) * 5 + "m");
    }
    step(r, Duration.ofMinutes(5));
    assertEquals(1, receivers.take("hook").size(), "repeat_interval notification");

    // One alert resolves: the next flush reports it resolved, still firing overall.
    postAlerts(r, alert("HighLag", "orders", T0, clock.instant()));
    step(r, Duration.ofMinutes(5));
    JsonNode resolved = receivers.take("hook").get(0).body();
    assertEquals("firing", resolved.get("status").asText());
    JsonNode alerts = resolved.get("alerts");
    assertEquals(2, alerts.size());
    int resolvedCount = 0;
    for (JsonNode x : alerts) {
      if (x.get("status").asText().equals("resolved")) {
        resolvedCount++;
        assertEquals("orders", x.get("labels").get("connector").asText());
        assertFalse(x.get("endsAt").asText().startsWith("0001"));
      }
    }
    assertEquals(1, resolvedCount);
    // The resolved alert was dropped from the group after it was notified.
    step(r, Duration.ofMinutes(5));
    assertTrue(receivers.takeAll().isEmpty());
  }

  @Test
  void backgroundTickerDeliversWithTheRealClock() throws Exception {
    AlertRouter r = AlertRouter.builder().port(0).configYaml(webhookConfig("")).dataDir(dir.resolve("live")).start();
    routers.add(r);
    Instant now = Instant.now();
    // Older than group_wait: flushed on the ticker's next pass rather than after 30s.
    postAlerts(r, alert("Live", "orders", now.minus(Duration.ofMinutes(10)), now.plus(Duration.ofHours(1))));
    List<Receivers.Received> got = List.of();
    for (int i = 0; i < 200 && got.isEmpty(); i++) {
      Thread.sleep(50);
      got = receivers.take("hook");
    }
    assertEquals(1, got.size(), "the ticker flushed the group");
    assertEquals("Live", got.get(0).body().get("groupLabels").get("alertname").asText());
  }

  @Test
  void resolveTimeoutResolvesAlertsThatAreNotResent() throws Exception {
    AlertRouter r = start(webhookConfig(""));
    postAlerts(r, alert("NoCommits", "orders", T0, null));
    step(r, Duration.ofSeconds(30));
    JsonNode firing = receivers.take("hook").get(0).body();
    assertEquals(Times.ZERO, firing.get("alerts").get(0).get("endsAt").asText());
    // The alert is listed with endsAt = receipt + resolve_timeout (5m).
    JsonNode listed = Http.json(Http.get(r.url() + "/api/v2/alerts")).get(0);
    assertEquals(Times.format(T0.plus(Duration.ofMinutes(5))), listed.get("endsAt").asText());
    step(r, Duration.ofMinutes(5));
    JsonNode resolved = receivers.take("hook").get(0).body();
    assertEquals("resolved", resolved.get("status").asText());
    assertEquals(Times.format(T0.plus(Duration.ofMinutes(5))), resolved.get("alerts").get(0).get("endsAt").asText());
    assertEquals(0, Http.json(Http.get(r.url() + "/api/v2/alerts")).size(), "resolved alerts are not listed");
  }

  @Test
  void sendResolvedFalseSendsNoRecoveryButForgetsTheGroup() throws Exception {
    AlertRouter r = start(webhookConfig("").replace("webhook_configs: [{url:", "webhook_configs: [{send_resolved: false, url:"));
    postAlerts(r, alert("NoCommits", "orders", T0, T0.plus(Duration.ofMinutes(10))));
    step(r, Duration.ofSeconds(30));
    assertEquals(1, receivers.take("hook").size());
    step(r, Duration.ofMinutes(10));
    assertTrue(receivers.takeAll().isEmpty(), "no recovery notification without send_resolved");
    // It fires again: a fresh notification, since the log was cleared by the resolved flush.
    postAlerts(r, alert("NoCommits", "orders", clock.instant(), clock.instant().plus(Duration.ofHours(1))));
    step(r, Duration.ofSeconds(30));
    assertEquals(1, receivers.take("hook").size());
  }

  @Test
  void olderAlertsSkipGroupWaitAndMaxAlertsTruncates() throws Exception {
    AlertRouter r = start(webhookConfig("").replace("webhook_configs: [{url:", "webhook_configs: [{max_alerts: 2, url:"));
    Instant old = T0.minus(Duration.ofMinutes(10));
    postAlerts(r, alert("HighLag", "a", old, T0.plus(Duration.ofHours(1))),
        alert("HighLag", "b", old, T0.plus(Duration.ofHours(1))),
        alert("HighLag", "c", old, T0.plus(Duration.ofHours(1))));
    r.tick();
    JsonNode p = receivers.take("hook").get(0).body();
    assertEquals(2, p.get("alerts").size());
    assertEquals(1, p.get("truncatedAlerts").asInt());
  }

  /** The bundled config's routes and receivers, pointed at the in-test listener. */
  String bundledWithWebhooks() {
    String base = AlertRouter.defaultConfig();
    return base.substring(0, base.indexOf("\nreceivers:")) + """

        receivers:
          - name: paging
            webhook_configs: [{url: '%s'}]
          - name: chat-warnings
            webhook_configs: [{url: '%s'}]
          - name: chat-slo
            webhook_configs: [{url: '%s'}]
        """.formatted(receivers.url("paging"), receivers.url("warnings"), receivers.url("slo"));
  }

  static String cdc(String alertname, String severity, String connector, Instant start) {
    return "{\"labels\":{\"alertname\":\"" + alertname + "\",\"severity\":\"" + severity + "\",\"connector\":\""
        + connector + "\"},\"startsAt\":\"" + start + "\",\"endsAt\":\"" + start.plus(Duration.ofDays(3)) + "\"}";
  }

  @Test
  void bundledRoutingAndInhibitionRules() throws Exception {
    AlertRouter r = start(bundledWithWebhooks());
    postAlerts(r,
        cdc("ConnectConnectorDown", "critical", "orders", T0),
        cdc("ConnectHighLag", "critical", "orders", T0),
        cdc("ConnectHighLag", "critical", "payments", T0),
        cdc("ConnectHighErrorRate", "critical", "inventory", T0),
        cdc("ConnectDlqVolumeSpike", "critical", "inventory", T0),
        cdc("ConnectLowThroughput", "warning", "orders", T0),
        cdc("ConnectExcessiveRestarts", "warning", "billing", T0),
        "{\"labels\":{\"alertname\":\"SloFreshnessBreach\",\"slo\":\"freshness\",\"connector\":\"orders\"},"
            + "\"endsAt\":\"" + T0.plus(Duration.ofDays(3)) + "\"}");
    r.tick();
    step(r, Duration.ofSeconds(9));
    assertTrue(receivers.takeAll().isEmpty());
    step(r, Duration.ofSeconds(1));
    List<String> paged = new ArrayList<>();
    for (Receivers.Received x : receivers.take("paging")) {
      for (JsonNode a : x.body().get("alerts")) {
        paged.add(a.get("labels").get("alertname").asText() + "/" + a.get("labels").get("connector").asText());
      }
    }
    paged.sort(null);
    assertEquals(List.of("ConnectConnectorDown/orders", "ConnectHighErrorRate/inventory", "ConnectHighLag/payments"),
        paged);

    // The API shows why the others are quiet.
    JsonNode lag = Http.json(Http.get(r.url() + "/api/v2/alerts?filter=alertname%3D%22ConnectHighLag%22"
        + "&filter=connector%3D%22orders%22"));
    assertEquals(1, lag.size());
    assertEquals("suppressed", lag.get(0).get("status").get("state").asText());
    assertEquals(1, lag.get(0).get("status").get("inhibitedBy").size());
    assertEquals("paging", lag.get(0).get("receivers").get(0).get("name").asText());
    JsonNode notInhibited = Http.json(Http.get(r.url() + "/api/v2/alerts?inhibited=false"));
    assertEquals(5, notInhibited.size());

    step(r, Duration.ofMinutes(5));
    receivers.take("paging");
    List<Receivers.Received> warnings = receivers.take("warnings");
    assertEquals(1, warnings.size(), "only the billing warning: the orders warning is inhibited");
    assertEquals("billing", warnings.get(0).body().get("commonLabels").get("connector").asText());
    List<Receivers.Received> slo = receivers.take("slo");
    assertEquals(1, slo.size());
    assertEquals("{}/{slo=~\".+\"}:{alertname=\"SloFreshnessBreach\", connector=\"orders\"}",
        slo.get(0).body().get("groupKey").asText());

    // The connector comes back: its lag alert is no longer inhibited and pages.
    postAlerts(r, "{\"labels\":{\"alertname\":\"ConnectConnectorDown\",\"severity\":\"critical\",\"connector\":\"orders\"},"
        + "\"startsAt\":\"" + T0 + "\",\"endsAt\":\"" + clock.instant() + "\"}");
    step(r, Duration.ofMinutes(5));
    List<String> now = new ArrayList<>();
    for (Receivers.Received x : receivers.take("paging")) {
      now.add(x.body().get("groupLabels").get("alertname").asText() + ":" + x.body().get("status").asText());
    }
    now.sort(null);
    assertEquals(List.of("ConnectConnectorDown:resolved", "ConnectHighLag:firing"), now);
  }

  /** A sink down on a pipeline silences the lag and throughput alerts that name the pipeline's source. */
  @Test
  void aSinkDownInhibitsItsPipelinesLagAndThroughput() throws Exception {
    AlertRouter r = start(bundledWithWebhooks());
    postAlerts(r,
        onPipeline("ConnectConnectorDown", "critical", "orders-sink", "orders-src"),
        onPipeline("ConnectHighLag", "critical", "orders-src", "orders-src"),
        onPipeline("ConnectLowThroughput", "warning", "orders-src", "orders-src"),
        onPipeline("ConnectHighLag", "critical", "payments-src", "payments-src"));
    r.tick();
    step(r, Duration.ofSeconds(10));
    List<String> paged = new ArrayList<>();
    for (Receivers.Received x : receivers.take("paging")) {
      for (JsonNode a : x.body().get("alerts")) {
        paged.add(a.get("labels").get("alertname").asText() + "/" + a.get("labels").get("connector").asText());
      }
    }
    paged.sort(null);
    assertEquals(List.of("ConnectConnectorDown/orders-sink", "ConnectHighLag/payments-src"), paged);
    JsonNode suppressed = Http.json(Http.get(r.url() + "/api/v2/alerts?active=false&inhibited=true"));
    List<String> names = new ArrayList<>();
    suppressed.forEach(a -> names.add(a.get("labels").get("alertname").asText()));
    names.sort(null);
    assertEquals(List.of("ConnectHighLag", "ConnectLowThroughput"), names);
    step(r, Duration.ofMinutes(5));
    assertTrue(receivers.take("warnings").isEmpty(), "the pipeline's throughput warning is inhibited too");
  }

  private static String onPipeline(String alertname, String severity, String connector, String pipeline) {
    return "{\"labels\":{\"alertname\":\"" + alertname + "\",\"severity\":\"" + severity + "\",\"connector\":\""
        + connector + "\",\"pipeline\":\"" + pipeline + "\"},\"startsAt\":\"" + T0 + "\",\"endsAt\":\""
        + T0.plus(Duration.ofDays(3)) + "\"}";
  }

  @Test
  void muteTimeIntervalHoldsWarningsOutsideBusinessHours() throws Exception {
    clock.set(Instant.parse("2026-11-21T10:00:00Z")); // a Saturday
    AlertRouter r = start(bundledWithWebhooks());
    postAlerts(r, cdc("ConnectTaskSaturation", "warning", "orders", clock.instant()));
    for (int i = 0; i < 12; i++) {
      step(r, Duration.ofMinutes(5));
    }
    assertTrue(receivers.takeAll().isEmpty(), "muted on Saturday");
    clock.set(Instant.parse("2026-11-23T08:01:00Z")); // Monday, business hours
    r.tick();
    assertEquals(1, receivers.take("warnings").size());
  }

  @Test
  void silencesMuteUntilExpired() throws Exception {
    AlertRouter r = start(webhookConfig(""));
    String silence = """
        {"matchers":[{"name":"connector","value":"orders","isRegex":false,"isEqual":true}],
         "startsAt":"%s","endsAt":"%s","createdBy":"ops","comment":"maintenance"}
        """.formatted(T0, T0.plus(Duration.ofHours(2)));
    var created = Http.post(r.url() + "/api/v2/silences", silence);
    assertEquals(200, created.statusCode(), created.body());
    String id = Http.json(created).get("silenceID").asText();

    postAlerts(r, alert("HighLag", "orders", T0, T0.plus(Duration.ofHours(5))));
    step(r, Duration.ofSeconds(30));
    assertTrue(receivers.takeAll().isEmpty(), "silenced");
    JsonNode listed = Http.json(Http.get(r.url() + "/api/v2/alerts")).get(0);
    assertEquals("suppressed", listed.get("status").get("state").asText());
    assertEquals(id, listed.get("status").get("silencedBy").get(0).asText());
    assertEquals(0, Http.json(Http.get(r.url() + "/api/v2/alerts?silenced=false")).size());

    JsonNode got = Http.json(Http.get(r.url() + "/api/v2/silence/" + id));
    assertEquals("active", got.get("status").get("state").asText());
    assertEquals("maintenance", got.get("comment").asText());
    assertEquals("connector", got.get("matchers").get(0).get("name").asText());
    assertEquals(1, Http.json(Http.get(r.url() + "/api/v2/silences?filter=connector%3Dorders")).size());
    assertEquals(0, Http.json(Http.get(r.url() + "/api/v2/silences?filter=connector%3Dpayments")).size());

    assertEquals(200, Http.send("DELETE", r.url() + "/api/v2/silence/" + id, null).statusCode());
    assertEquals("expired", Http.json(Http.get(r.url() + "/api/v2/silence/" + id)).get("status").get("state").asText());
    step(r, Duration.ofMinutes(5));
    assertEquals(1, receivers.take("hook").size(), "notified once the silence expired");

    assertEquals(404, Http.get(r.url() + "/api/v2/silence/00000000-0000-0000-0000-000000000000").statusCode());
    assertEquals(404, Http.send("DELETE", r.url() + "/api/v2/silence/00000000-0000-0000-0000-000000000000", null)
        .statusCode());
    var notUuid = Http.send("DELETE", r.url() + "/api/v2/silence/nope", null);
    assertEquals(422, notUuid.statusCode());
    assertEquals(601, Http.json(notUuid).get("code").asInt());
    var bad = Http.post(r.url() + "/api/v2/silences", silence.replace("\"orders\"", "\"\""));
    assertEquals(400, bad.statusCode());
    assertEquals("silence invalid: at least one matcher must not match the empty string", Http.json(bad).asText());
    var missing = Http.post(r.url() + "/api/v2/silences", silence.replace("\"createdBy\":\"ops\",", ""));
    assertEquals(422, missing.statusCode());
    assertEquals("createdBy in body is required", Http.json(missing).get("message").asText());
    var past = Http.post(r.url() + "/api/v2/silences", """
        {"matchers":[{"name":"a","value":"b","isRegex":false}],"startsAt":"%s","endsAt":"%s",
         "createdBy":"x","comment":"y"}""".formatted(T0.minus(Duration.ofHours(2)), T0.minus(Duration.ofHours(1))));
    assertEquals(400, past.statusCode());
    assertEquals("Failed to create silence: end time can't be in the past", Http.json(past).asText());

    // A silence that expires by itself.
    clock.advance(Duration.ofHours(3));
    assertEquals("expired", Http.json(Http.get(r.url() + "/api/v2/silences")).get(0).get("status").get("state").asText());
  }

  @Test
  void restartDoesNotPageAgainAndKeepsSilences() throws Exception {
    Path data = dir.resolve("state");
    AlertRouter first = start(webhookConfig(""), data);
    String a = alert("HighLag", "orders", T0, T0.plus(Duration.ofHours(5)));
    postAlerts(first, a);
    step(first, Duration.ofSeconds(30));
    assertEquals(1, receivers.take("hook").size());
    String silence = """
        {"matchers":[{"name":"connector","value":"billing","isRegex":false}],
         "startsAt":"%s","endsAt":"%s","createdBy":"ops","comment":"keep me"}
        """.formatted(T0, T0.plus(Duration.ofHours(2)));
    String id = Http.json(Http.post(first.url() + "/api/v2/silences", silence)).get("silenceID").asText();
    first.close();
    routers.remove(first);

    clock.advance(Duration.ofMinutes(1));
    AlertRouter second = start(webhookConfig(""), data);
    postAlerts(second, a); // the rule evaluator re-sends what still fires
    second.tick();
    step(second, Duration.ofSeconds(30));
    assertTrue(receivers.takeAll().isEmpty(), "the restarted router must not page again");
    assertEquals("keep me", Http.json(Http.get(second.url() + "/api/v2/silence/" + id)).get("comment").asText());
    // ...but it still repeats after repeat_interval, counted from the notification before the restart.
    for (int i = 0; i < 13; i++) {
      step(second, Duration.ofMinutes(5));
    }
    assertEquals(1, receivers.take("hook").size());
  }

  @Test
  void nodesSharingAKafkaStateTopicShareSilencesAndDoNotRepageAfterRestart() throws Exception {
    String bootstrap = io.sluice.kafka.testing.SharedKafka.bootstrapServers();
    String topic = io.sluice.kafka.testing.SharedKafka.unique("alerts-state");
    Duration timeout = Duration.ofSeconds(60);
    try (KafkaStateStore stateA = KafkaStateStore.start(bootstrap, topic, timeout);
        KafkaStateStore stateB = KafkaStateStore.start(bootstrap, topic, timeout)) {
      AlertRouter a = startWithState(webhookConfig(""), stateA, Duration.ZERO);
      AlertRouter b = startWithState(webhookConfig(""), stateB, Duration.ZERO);
      stateA.advertise(java.net.URI.create(a.url()).getAuthority());
      stateB.advertise(java.net.URI.create(b.url()).getAuthority());
      // Both nodes see the cluster as Alertmanager's /api/v2/status shows it: ready, every peer with its address.
      long until = System.nanoTime() + timeout.toNanos();
      com.fasterxml.jackson.databind.JsonNode cluster = null;
      while (System.nanoTime() < until) {
        cluster = Http.json(Http.get(b.url() + "/api/v2/status")).get("cluster");
        if (cluster.get("peers").toString().contains(java.net.URI.create(a.url()).getAuthority())
            && cluster.get("peers").toString().contains(java.net.URI.create(b.url()).getAuthority())) {
          break;
        }
        Thread.sleep(100);
      }
      assertEquals("ready", cluster.get("status").asText(), cluster.toString());
      assertEquals(2, cluster.get("peers").size(), cluster.toString());
      assertTrue(cluster.get("name").asText().length() > 0, cluster.toString());
      assertEquals(List.of("address", "name"), iterable(cluster.get("peers").get(0).fieldNames()), cluster.toString());
      String silence = """
          {"matchers":[{"name":"connector","value":"billing","isRegex":false}],
           "startsAt":"%s","endsAt":"%s","createdBy":"ops","comment":"shared"}
          """.formatted(T0, T0.plus(Duration.ofHours(2)));
      String id = Http.json(Http.post(a.url() + "/api/v2/silences", silence)).get("silenceID").asText();
      awaitStatus(b, id, "active");
      assertEquals("shared", Http.json(Http.get(b.url() + "/api/v2/silence/" + id)).get("comment").asText());
      // Newest update wins, as in Alertmanager's merge: the expiry happens a moment after the creation.
      clock.advance(Duration.ofSeconds(1));
      assertEquals(200, Http.send("DELETE", b.url() + "/api/v2/silence/" + id, null).statusCode());
      awaitStatus(a, id, "expired");

      String lag = alert("HighLag", "orders", T0, T0.plus(Duration.ofHours(5)));
      postAlerts(a, lag);
      step(a, Duration.ofSeconds(30));
      assertEquals(1, receivers.take("hook").size());
      a.close();
      routers.remove(a);
      // Before its state store closes: b may have merged a's log by now and would save it on close.
      b.close();
      routers.remove(b);
    }
    // A node started later on the same topic knows what was sent and what is silenced.
    try (KafkaStateStore stateC = KafkaStateStore.start(bootstrap, topic, timeout)) {
      AlertRouter c = startWithState(webhookConfig(""), stateC, Duration.ZERO);
      postAlerts(c, alert("HighLag", "orders", T0, T0.plus(Duration.ofHours(5))));
      step(c, Duration.ofSeconds(30));
      assertTrue(receivers.takeAll().isEmpty(), "a node reading the shared notification log must not page again");
      assertEquals(1, Http.json(Http.get(c.url() + "/api/v2/silences")).size());
      c.close();
      routers.remove(c);
    }
  }

  @Test
  void theSecondNodeWaitsItsTurnAndFindsTheFirstNodesNotification() throws Exception {
    String bootstrap = io.sluice.kafka.testing.SharedKafka.bootstrapServers();
    String topic = io.sluice.kafka.testing.SharedKafka.unique("alerts-peers");
    Duration timeout = Duration.ofSeconds(60);
    try (KafkaStateStore stateA = KafkaStateStore.start(bootstrap, topic, timeout);
        KafkaStateStore stateB = KafkaStateStore.start(bootstrap, topic, timeout)) {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (stateA.peerPosition() + stateB.peerPosition() != 1 && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertEquals(1, stateA.peerPosition() + stateB.peerPosition(), "two live nodes take positions 0 and 1");
      boolean aFirst = stateA.peerPosition() == 0;
      AlertRouter first = startWithState(webhookConfig(""), aFirst ? stateA : stateB, Duration.ofSeconds(15));
      AlertRouter second = startWithState(webhookConfig(""), aFirst ? stateB : stateA, Duration.ofSeconds(15));
      String lag = alert("HighLag", "orders", T0, T0.plus(Duration.ofHours(5)));
      postAlerts(first, lag);
      postAlerts(second, lag);
      clock.advance(Duration.ofSeconds(30));
      first.tick();
      second.tick();
      assertEquals(1, receivers.take("hook").size(), "at group_wait only the first node notifies");
      assertTrue(receivers.takeAll().isEmpty());
      first.maintain();
      while (second.notificationLogSize() == 0 && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertEquals(1, second.notificationLogSize(), "the first node's log entry reached the second");
      step(second, Duration.ofSeconds(14));
      assertTrue(receivers.takeAll().isEmpty(), "still waiting its turn");
      step(second, Duration.ofSeconds(1));
      assertTrue(receivers.takeAll().isEmpty(), "after its 15 s the second node finds the entry and stays quiet");
      // A change after that is the group's next flush, notified by the first node only.
      postAlerts(first, alert("HighLag", "orders-2", clock.instant(), T0.plus(Duration.ofHours(5))));
      step(first, Duration.ofMinutes(5));
      assertEquals(1, receivers.take("hook").size());
      first.close();
      routers.remove(first);
      second.close();
      routers.remove(second);
    }
  }

  private AlertRouter startWithState(String yaml, StateStore state, Duration peerTimeout) throws ConfigException {
    AlertRouter r = AlertRouter.builder().port(0).configYaml(yaml).stateStore(state).clock(clock)
        .externalUrl("http://sluice.test:9093").manualTicks().retrySleeper(d -> {}).peerTimeout(peerTimeout).start();
    routers.add(r);
    return r;
  }

  private static void awaitStatus(AlertRouter r, String silenceId, String state) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    String seen = null;
    while (System.nanoTime() < deadline) {
      var resp = Http.get(r.url() + "/api/v2/silence/" + silenceId);
      seen = resp.statusCode() + " " + resp.body();
      if (resp.statusCode() == 200 && state.equals(Http.json(resp).get("status").get("state").asText())) {
        return;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("silence " + silenceId + " never became " + state + " on " + r.url() + ": " + seen);
  }

  @Test
  void retriesFailedSendsAndCountsThem() throws Exception {
    AlertRouter r = start(webhookConfig(""));
    receivers.failures.add(503);
    receivers.failures.add(500);
    postAlerts(r, alert("HighLag", "orders", T0, T0.plus(Duration.ofHours(5))));
    step(r, Duration.ofSeconds(30));
    assertEquals(3, receivers.take("hook").size(), "two failures then success");
    assertEquals(1, r.metrics().get("alertmanager_notifications_total", "integration", "webhook"));
    assertEquals(2, r.metrics().get("alertmanager_notification_requests_failed_total", "integration", "webhook"));
    assertEquals(0, r.metrics().get("alertmanager_notifications_failed_total", "integration", "webhook"));
    String metrics = Http.get(r.url() + "/metrics").body();
    assertTrue(metrics.contains("alertmanager_notification_requests_failed_total{integration=\"webhook\"} 2"), metrics);

    // A 4xx is not retried; the group is notified again at the next flush.
    receivers.failures.add(400);
    postAlerts(r, alert("HighLag", "payments", clock.instant(), T0.plus(Duration.ofHours(5))));
    step(r, Duration.ofMinutes(5));
    assertEquals(1, receivers.take("hook").size());
    assertEquals(1, r.metrics().get("alertmanager_notifications_failed_total", "integration", "webhook"));
    step(r, Duration.ofMinutes(5));
    assertEquals(2, receivers.take("hook").get(0).body().get("alerts").size());
  }

  @Test
  void reloadRefusesABrokenFileAndKeepsRunning() throws Exception {
    Path file = dir.resolve("alertmanager.yml");
    Files.writeString(file, webhookConfig(""));
    AlertRouter r = AlertRouter.builder().port(0).configFile(file).dataDir(dir.resolve("d")).clock(clock)
        .manualTicks().start();
    routers.add(r);
    Files.writeString(file, "route: {receiver: nobody}\nreceivers: [{name: hook}]\n");
    var refused = Http.post(r.url() + "/-/reload", "");
    assertEquals(500, refused.statusCode());
    assertTrue(refused.body().contains("undefined receiver \"nobody\""), refused.body());
    assertThrows(ConfigException.class, r::reload);
    assertEquals("hook", Http.json(Http.get(r.url() + "/api/v2/receivers")).get(0).get("name").asText());

    postAlerts(r, alert("HighLag", "orders", T0, T0.plus(Duration.ofHours(5))));
    Files.writeString(file, webhookConfig("").replace("- name: hook", "- name: other\n  - name: hook")
        .replace("receiver: hook", "receiver: other"));
    assertEquals(200, Http.post(r.url() + "/-/reload", "").statusCode());
    JsonNode names = Http.json(Http.get(r.url() + "/api/v2/receivers"));
    assertEquals(2, names.size());
    assertEquals("other", Http.json(Http.get(r.url() + "/api/v2/alerts")).get(0).get("receivers").get(0).get("name")
        .asText(), "alerts are re-routed through the new tree");
  }

  @Test
  void aReloadNamingAnUnsupportedReceiverIsRefusedAndTheOldReceiversKeepNotifying() throws Exception {
    Path file = dir.resolve("unsupported.yml");
    Files.writeString(file, webhookConfig(""));
    AlertRouter r = AlertRouter.builder().port(0).configFile(file).dataDir(dir.resolve("u")).clock(clock)
        .manualTicks().start();
    routers.add(r);
    Files.writeString(file, webhookConfig("") + "    sns_configs: [{topic_arn: 'arn:aws:sns:eu-west-1:1:x'}]\n");
    var refused = Http.post(r.url() + "/-/reload", "");
    assertEquals(500, refused.statusCode());
    assertTrue(refused.body().contains("receiver \"hook\": sns_configs is not supported by Sluice"), refused.body());
    postAlerts(r, alert("HighLag", "orders", clock.instant(), null));
    step(r, Duration.ofSeconds(31));
    assertEquals(1, receivers.take("hook").size(), "the running webhook receiver still notifies");
  }

  @Test
  void aBodyOverTheLimitIs413AndAnUndecodableQueryPairIsLeftOut() throws Exception {
    AlertRouter r = AlertRouter.builder().port(0).configYaml(webhookConfig("")).dataDir(dir.resolve("limit"))
        .clock(clock).manualTicks().maxRequestBytes(2048).start();
    routers.add(r);
    String many = "[" + String.join(",", java.util.Collections.nCopies(40,
        alert("HighLag", "orders", T0, null))) + "]";
    var big = Http.post(r.url() + "/api/v2/alerts", many);
    assertEquals(413, big.statusCode(), big.body());
    assertEquals(413, Http.json(big).get("code").asInt(), big.body());
    assertEquals(0, Http.json(Http.get(r.url() + "/api/v2/alerts")).size(), "nothing was taken in");
    postAlerts(r, alert("HighLag", "orders", T0, null));
    URI u = URI.create(r.url());
    try (java.net.Socket socket = new java.net.Socket(u.getHost(), u.getPort())) {
      socket.getOutputStream().write("GET /api/v2/alerts?filter=%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
          .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      String answer = new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      assertTrue(answer.startsWith("HTTP/1.1 200"), answer);
      assertTrue(answer.contains("\"alertname\":\"HighLag\""), answer);
    }
  }

  /** As in Alertmanager 0.27: of API v1, only the alerts endpoints remain (the README says so). */
  @Test
  void apiV1IsAlertsOnly() throws Exception {
    AlertRouter r = start(webhookConfig(""));
    assertEquals(200, Http.get(r.url() + "/api/v1/alerts").statusCode());
    for (String gone : List.of("/api/v1/silences", "/api/v1/status", "/api/v1/receivers", "/api/v1/alerts/groups")) {
      assertEquals(404, Http.get(r.url() + gone).statusCode(), gone);
    }
    assertEquals(200, Http.get(r.url() + "/api/v2/silences").statusCode());
  }

  @Test
  void sighupReloadsTheFile() throws Exception {
    // A JVM whose parent ignored SIGHUP (nohup) keeps ignoring it whatever handler is asked for: say so at once.
    String ignored = Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("SigIgn:"))
        .findFirst().orElseThrow().substring("SigIgn:".length()).trim();
    assertEquals(0, Long.parseLong(ignored, 16) & 1, "this test JVM ignores SIGHUP (run under nohup?), so no "
        + "handler can see it: run the build without nohup");
    Path file = dir.resolve("hup.yml");
    Files.writeString(file, webhookConfig(""));
    AlertRouter r = AlertRouter.builder().port(0).configFile(file).dataDir(dir.resolve("hup")).clock(clock)
        .manualTicks().reloadOnSighup().start();
    routers.add(r);
    Files.writeString(file, webhookConfig("").replace("- name: hook", "- name: other\n  - name: hook"));
    Process kill = new ProcessBuilder("kill", "-HUP", String.valueOf(ProcessHandle.current().pid())).start();
    assertEquals(0, kill.waitFor());
    int receiversSeen = 1;
    for (int i = 0; i < 200 && receiversSeen == 1; i++) {
      Thread.sleep(50);
      receiversSeen = Http.json(Http.get(r.url() + "/api/v2/receivers")).size();
    }
    assertEquals(2, receiversSeen, "SIGHUP reloaded the file");
  }

  @Test
  void apiValidationShapesAndLifecycle() throws Exception {
    AlertRouter r = start(webhookConfig("").replace("webhook_configs: [{url: '",
        "webhook_configs: [{http_config: {basic_auth: {username: u, password: hunter2}}, url: '"));
    var noLabels = Http.post(r.url() + "/api/v2/alerts", "[{\"labels\":{}}]");
    assertEquals(400, noLabels.statusCode());
    assertEquals("at least one label pair required", Http.json(noLabels).asText());
    var badName = Http.post(r.url() + "/api/v2/alerts", "[{\"labels\":{\"bad-name\":\"x\"}}]");
    assertEquals(400, badName.statusCode());
    assertTrue(Http.json(badName).asText().contains("invalid name \"bad-name\""));
    var notString = Http.post(r.url() + "/api/v2/alerts", "[{\"labels\":{\"a\":1,\"b\":\"c\"}}]");
    assertEquals(400, notString.statusCode());
    assertEquals("labels.a must be a string", Http.json(notString).asText());
    assertEquals(400, Http.post(r.url() + "/api/v2/alerts", "{\"labels\":{}}").statusCode());
    var order = Http.post(r.url() + "/api/v2/alerts", "[" + alert("X", "y", T0, T0.minusSeconds(1)) + "]");
    assertEquals("start time must be before end time", Http.json(order).asText());
    var mixed = Http.post(r.url() + "/api/v1/alerts",
        "[{\"labels\":{}}," + alert("Good", "orders", T0, T0.plus(Duration.ofHours(1))) + "]");
    assertEquals(400, mixed.statusCode());
    JsonNode v1err = Http.json(mixed);
    assertEquals("error", v1err.get("status").asText());
    assertEquals("bad_data", v1err.get("errorType").asText());
    var notJson = Http.post(r.url() + "/api/v2/alerts", "{not json");
    assertEquals(400, notJson.statusCode());
    assertTrue(Http.json(notJson).get("message").asText().startsWith("parsing alerts body"));

    JsonNode v1 = Http.json(Http.get(r.url() + "/api/v1/alerts"));
    assertEquals("success", v1.get("status").asText());
    assertEquals(1, v1.get("data").size(), "only the valid alert of the batch was stored");
    assertEquals("hook", v1.get("data").get(0).get("receivers").get(0).asText());
    assertEquals("success", Http.json(Http.post(r.url() + "/api/v1/alerts",
        "[" + alert("Other", "orders", T0, null) + "]")).get("status").asText());

    JsonNode groups = Http.json(Http.get(r.url() + "/api/v2/alerts/groups"));
    assertEquals(2, groups.size());
    assertEquals("hook", groups.get(0).get("receiver").get("name").asText());
    assertTrue(groups.get(0).get("labels").has("alertname"));

    JsonNode status = Http.json(Http.get(r.url() + "/api/v2/status"));
    assertEquals("disabled", status.get("cluster").get("status").asText());
    String original = status.get("config").get("original").asText();
    assertFalse(original.contains("hunter2"), original);
    assertFalse(original.contains(receivers.url("hook")), "webhook URLs are secrets: " + original);
    assertTrue(original.contains("<secret>"));
    assertEquals(Times.format(T0), status.get("uptime").asText());
    assertEquals(200, Http.get(r.url() + "/-/healthy").statusCode());
    assertEquals(200, Http.get(r.url() + "/-/ready").statusCode());
    var ui = Http.get(r.url() + "/");
    assertEquals(200, ui.statusCode());
    assertTrue(ui.body().contains("#/status"));

    step(r, Duration.ofSeconds(30));
    Receivers.Received got = receivers.take("hook").get(0);
    assertEquals("Basic " + java.util.Base64.getEncoder().encodeToString("u:hunter2".getBytes()),
        got.headers().get("authorization"));
  }

  private static List<String> iterable(java.util.Iterator<String> it) {
    List<String> out = new java.util.ArrayList<>();
    it.forEachRemaining(out::add);
    return out;
  }
}
