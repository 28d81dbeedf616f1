package io.sluice.app;

import static io.sluice.app.PackagedSluice.freePort;
import static io.sluice.app.PackagedSluice.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.app.PackagedSluice.Run;
import io.sluice.connect.client.ConnectRestClient;
import io.sluice.connect.testing.Eventually;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fault rehearsed on the demo, from the fault to a notification: the packaged {@code ./sluice up} with the bundled
 * alert rules (their {@code for:} shortened to 5 s and every group evaluated every 2 s in this test's copy, never in
 * the bundled file) routed to a webhook this test runs, {@code ./sluice demo}, then {@code ./sluice demo fault
 * sink-down}: the sink's database stops, its task fails, ConnectConnectorDown fires for the sink and reaches the
 * webhook; {@code fault recover} brings the pipeline back. {@code fault lag} pauses the sink: ConnectConnectorDown
 * reaches the webhook while its pipeline's ConnectLowThroughput is held back by the bundled inhibition rules; {@code
 * fault poison} puts a record the sink cannot read on its topic: it lands in the sink's dead letter queue and
 * CdcCompletenessRisk fires, the sink running on; {@code fault poison --no-dlq} makes a change the copy's SQL refuses:
 * the sink fails, {@code connectors describe} says on which record, and {@code ./sluice offsets skip … --to-dlq} moves
 * it past that record and keeps the record in its dead letter queue. Then nothing was lost ({@code demo --check}).
 */
class DemoFaultIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration WAIT = Duration.ofMinutes(4);

  @TempDir static Path dir;
  private static PackagedSluice.Up up;
  private static Webhook hook;
  private static List<JsonNode> notifications;
  private static String connectUrl;
  private static String alertsUrl;
  private static String[] cluster;

  @BeforeAll
  static void up() throws Exception {
    hook = Webhook.start();
    notifications = hook.notifications();
    int kafka = freePort();
    int connect = freePort();
    int registry = freePort();
    int metrics = freePort();
    int alerts = freePort();
    int exporter = freePort();
    // The test's copy: every for: 5 s, the 10-minute throughput window 20 s, so a paused sink is slow at once, and the
    // SLO group evaluated at the global 2 s rather than its own minute (CdcCompletenessRisk took 72-103 s to fire: an
    // evaluation to go pending, the next to fire).
    Path rules = AlertRehearsal.rules(dir, "[20s]");
    assertTrue(!Files.readString(rules).contains("interval:"), "every group of the copy at the global interval");
    String routing = Files.readString(PackagedSluice.root().resolve(
        "sluice-alerts/src/main/resources/io/sluice/alerts/default-alertmanager.yml"));
    String bundledInhibitions = routing.substring(routing.indexOf("inhibit_rules:"),
        routing.indexOf("\ntime_intervals:"));
    Path prometheus = AlertRehearsal.prometheusConfig(dir, rules, exporter, alerts);
    Path alertmanager = Files.writeString(dir.resolve("alertmanager.yml"), """
        route:
          receiver: hook
          group_by: [alertname, connector]
          group_wait: 1s
          group_interval: 2s
          repeat_interval: 1h
        receivers:
          - name: hook
            webhook_configs: [{url: 'http://127.0.0.1:%d/hook', send_resolved: true}]
        %s
        """.formatted(hook.port(), bundledInhibitions));
    connectUrl = "http://127.0.0.1:" + connect;
    alertsUrl = "http://127.0.0.1:" + alerts;
    Path data = dir.resolve("data");
    up = PackagedSluice.up(dir, List.of("--data-dir", data.toString(), "--kafka-port", "" + kafka, "--connect-port",
        "" + connect, "--registry-port", "" + registry, "--metrics-port", "" + metrics, "--alerts-port", "" + alerts,
        "--exporter-port", "" + exporter, "--metrics-config", prometheus.toString(), "--alerts-config",
        alertmanager.toString()));
    cluster = new String[] {"--data-dir", data.toString(), "--bootstrap", "127.0.0.1:" + kafka, "--connect-url",
        connectUrl, "--alerts-url",
        "http://127.0.0.1:" + alerts, "--registry", "http://127.0.0.1:" + registry, "--metrics-url",
        "http://127.0.0.1:" + metrics};
  }

  @AfterAll
  static void down() throws Exception {
    if (up != null) {
      assertEquals(0, PackagedSluice.down(up), () -> "./sluice up exit; stderr " + read(up.stderr()));
    }
    if (hook != null) {
      hook.close();
    }
  }

  private static String[] with(String... args) {
    return Stream.concat(Stream.of(args), Stream.of(cluster)).toArray(String[]::new);
  }

  private static boolean notified(String alertname, String connector, String status) {
    return notifiedSince(0, alertname, connector, status);
  }

  private static boolean notifiedSince(int from, String alertname, String connector, String status) {
    for (JsonNode n : notifications.subList(from, notifications.size())) {
      for (JsonNode a : n.path("alerts")) {
        if (a.path("labels").path("alertname").asText().equals(alertname)
            && a.path("labels").path("connector").asText().equals(connector)
            && a.path("status").asText().equals(status)) {
          return true;
        }
      }
    }
    return false;
  }

  /** The router's alerts named {@code alertname}, inhibited and silenced ones included (Alertmanager's v2 API). */
  private static JsonNode routerAlerts(String alertname) {
    try {
      java.net.http.HttpResponse<String> r = java.net.http.HttpClient.newHttpClient().send(
          java.net.http.HttpRequest.newBuilder(java.net.URI.create(alertsUrl + "/api/v2/alerts?filter="
              + java.net.URLEncoder.encode("alertname=\"" + alertname + "\"", java.nio.charset.StandardCharsets.UTF_8)))
              .build(), java.net.http.HttpResponse.BodyHandlers.ofString());
      return JSON.readTree(r.body());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Four faults in turn on one demo: each waits for alerts to fire and resolve, so past the default 5 minutes. */
  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES)
  void sinkDownReachesTheWebhookAndRecovers() throws Exception {
    ConnectRestClient connect = new ConnectRestClient(connectUrl);
    List<String> demoArgs = new ArrayList<>(List.of(with("demo", "--rate", "50", "--source-port", "" + freePort(),
        "--sink-port", "" + freePort())));
    Process demo = PackagedSluice.start(dir, dir.resolve("demo.out"), demoArgs);
    try {
      Eventually.await("both demo connectors running", WAIT, () -> {
        try {
          return List.of(connect.state("demo-shop-source"), connect.state("demo-shop-sink"));
        } catch (RuntimeException notYet) {
          return List.of();
        }
      }, states -> states.equals(List.of("RUNNING", "RUNNING")));

      Run fault = PackagedSluice.run(dir, with("demo", "fault", "sink-down"));
      assertEquals(0, fault.exit(), fault::toString);
      assertTrue(fault.out().contains("ConnectConnectorDown") && fault.out().contains("demo fault recover"),
          fault::toString);
      Eventually.await("ConnectConnectorDown for the sink at the webhook", WAIT,
          () -> notified("ConnectConnectorDown", "demo-shop-sink", "firing"), Boolean::booleanValue);
      assertTrue(connect.status("demo-shop-sink").path("tasks").get(0).path("state").asText().equals("FAILED"),
          "the sink's task failed with its database gone");

      Run recover = PackagedSluice.run(dir, with("demo", "fault", "recover"));
      assertEquals(0, recover.exit(), recover::toString);
      Eventually.await("the sink's task running again", WAIT,
          () -> connect.status("demo-shop-sink").path("tasks").path(0).path("state").asText(), "RUNNING"::equals);
      Eventually.await("ConnectConnectorDown resolved at the webhook", WAIT,
          () -> notified("ConnectConnectorDown", "demo-shop-sink", "resolved"), Boolean::booleanValue);
      // A paused sink: ConnectConnectorDown (PAUSED) reaches the webhook; its pipeline's ConnectLowThroughput fires
      // too, and the bundled inhibition keeps it from the webhook.
      // The sink-down episode may have left its own ConnectLowThroughput (fired once ConnectConnectorDown resolved,
      // while the rate window still saw the outage): let it resolve and its notifications go out before counting.
      Eventually.await("no ConnectLowThroughput left from the sink-down episode", WAIT,
          () -> routerAlerts("ConnectLowThroughput"), a -> a.size() == 0);
      Thread.sleep(5_000);
      int mark = notifications.size();
      Run lag = PackagedSluice.run(dir, with("demo", "fault", "lag"));
      assertEquals(0, lag.exit(), lag::toString);
      Eventually.await("ConnectConnectorDown for the paused sink at the webhook", WAIT,
          () -> notifiedSince(mark, "ConnectConnectorDown", "demo-shop-sink", "firing"), Boolean::booleanValue);
      JsonNode lowThroughput = Eventually.await("ConnectLowThroughput at the router, inhibited", WAIT,
          () -> routerAlerts("ConnectLowThroughput"), a -> a.size() > 0
              && a.get(0).path("status").path("inhibitedBy").size() > 0);
      assertEquals("suppressed", lowThroughput.get(0).path("status").path("state").asText(), lowThroughput.toString());
      assertEquals("demo-shop-source", lowThroughput.get(0).path("labels").path("pipeline").asText());
      Thread.sleep(5_000); // a group_interval and more: had it been let through, it would have been sent by now
      assertTrue(!notifiedSince(mark, "ConnectLowThroughput", "demo-shop-source", "firing"),
          "an inhibited alert reached the webhook: " + notifications);
      assertEquals(0, PackagedSluice.run(dir, with("demo", "fault", "recover")).exit());
      Eventually.await("the sink running again", WAIT, () -> connect.state("demo-shop-sink"), "RUNNING"::equals);

      // A record the sink cannot read: kept in its dead letter queue, the sink goes on, the DLQ alert fires.
      int beforePoison = notifications.size();
      Run poison = PackagedSluice.run(dir, with("demo", "fault", "poison"));
      assertEquals(0, poison.exit(), poison::toString);
      assertTrue(poison.out().contains("demo-shop-sink.dlq"), poison::toString);
      JsonNode dead = Eventually.await("the poison record in demo-shop-sink.dlq", WAIT, () -> {
        try {
          Run r = PackagedSluice.run(dir, with("dlq", "inspect", "demo-shop-sink.dlq", "--from-beginning", "-o",
              "json"));
          return r.exit() == 0 ? r.json().path("records") : JSON.createArrayNode();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }, r -> r.size() > 0);
      assertEquals("org.apache.kafka.connect.errors.DataException",
          dead.get(0).path("error").path("exceptionClassName").asText(), dead.toString());
      Eventually.await("CdcCompletenessRisk for the sink at the webhook", WAIT,
          () -> notifiedSince(beforePoison, "CdcCompletenessRisk", "demo-shop-sink", "firing"), Boolean::booleanValue);
      assertEquals("RUNNING", connect.status("demo-shop-sink").path("tasks").path(0).path("state").asText());

      // A change the copy's own SQL refuses: no dead letter queue catches it, so the sink fails and stays failed
      // until the operator skips that one record. describe says where; the skip keeps it in the DLQ.
      Run refused = PackagedSluice.run(dir, with("demo", "fault", "poison", "--no-dlq"));
      assertEquals(0, refused.exit(), refused::toString);
      assertEquals("FAILED", connect.status("demo-shop-sink").path("tasks").path(0).path("state").asText());
      Run described = PackagedSluice.run(dir, with("connectors", "describe", "demo-shop-sink", "-o", "json"));
      assertEquals(0, described.exit(), described::toString);
      JsonNode failure = described.json().path("failures").path(0);
      assertTrue(failure.path("root_cause").asText().contains("orders_known_status"), described::toString);
      JsonNode record = failure.path("record");
      assertEquals("demo.public.orders", record.path("topic").asText(), described::toString);
      long offset = record.path("offset").asLong();
      assertTrue(refused.out().contains("--partition 0 --offset " + offset + " --to-dlq"), refused::toString);
      Run skip = PackagedSluice.run(dir, with("offsets", "skip", "demo-shop-sink", "--topic", "demo.public.orders",
          "--partition", "0", "--offset", String.valueOf(offset), "--to-dlq"));
      assertEquals(0, skip.exit(), skip::toString);
      assertTrue(skip.out().contains("kept in:   demo-shop-sink.dlq"), skip::toString);
      Eventually.await("the sink's task running again after the skip", WAIT,
          () -> connect.status("demo-shop-sink").path("tasks").path(0).path("state").asText(), "RUNNING"::equals);
      JsonNode kept = PackagedSluice.run(dir, with("dlq", "inspect", "demo-shop-sink.dlq", "--from-beginning", "-o",
          "json")).json().path("records");
      boolean skippedKept = false;
      for (JsonNode r : kept) {
        skippedKept |= r.path("error").path("offset").asLong() == offset
            && r.path("error").path("exceptionMessage").asText().startsWith("Skipped by an operator");
      }
      assertTrue(skippedKept, kept::toString);
      assertTrue(Files.readString(dir.resolve("data").resolve("audit.log")).contains(" cli offsets skip demo-shop-sink "
          + "user="), "the skip is audited");

      // Nothing from the shop was lost to either poison: the change after the skipped one set the row as the shop has it.
      Run check = PackagedSluice.run(dir, with("demo", "--check", "--timeout", "150"));
      assertEquals(0, check.exit(), check::toString);

      // The demo's source has watermarks: a snapshot of one of its tables starts as the README's reader tries it, and
      // its status comes from the exporter serving the source's task, as it is now, not from the last scrape.
      Run snapshot = PackagedSluice.run(dir, with("snapshot", "start", "demo-shop-source", "public.orders"));
      assertEquals(0, snapshot.exit(), snapshot::toString);
      // The snapshot reads the shop's tables while the demo's load goes on: on a busy machine it may run for minutes.
      // Whether it runs or has completed, the figures come from the exporter.
      JsonNode snapshotSeen = Eventually.await("the demo source's snapshot running or completed", WAIT, () -> {
        try {
          return PackagedSluice.run(dir, with("snapshot", "status", "demo-shop-source", "-o", "json")).json();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }, j -> Set.of("running", "completed").contains(j.path("state").asText()));
      assertEquals("exporter", snapshotSeen.path("metricsFrom").asText(), snapshotSeen::toString);
      Run snapshotText = PackagedSluice.run(dir, with("snapshot", "status", "demo-shop-source"));
      assertTrue(snapshotText.out().contains("metrics read from the exporter at http://127.0.0.1:"),
          snapshotText::toString);

      Run bad = PackagedSluice.run(dir, with("demo", "fault", "meteor"));
      assertEquals(2, bad.exit(), bad::toString);
      Run stop = PackagedSluice.run(dir, with("demo", "stop"));
      assertEquals(0, stop.exit(), stop::toString);
      assertTrue(demo.waitFor(60, TimeUnit.SECONDS));
    } finally {
      demo.destroy();
      demo.waitFor(60, TimeUnit.SECONDS);
      System.out.println("demo output:\n" + read(dir.resolve("demo.out")));
    }
  }
}
