package io.sluice.app;

import static io.sluice.app.PackagedSluice.freePort;
import static io.sluice.app.PackagedSluice.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.sluice.app.PackagedSluice.Run;
import io.sluice.connect.client.ConnectRestClient;
import io.sluice.connect.testing.Eventually;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fault rehearsed on the demo, from the fault to a notification: the packaged {@code ./sluice up} with the bundled
 * alert rules (their {@code for:} shortened to 5 s in this test's copy, never in the bundled file) routed to a webhook
 * this test runs, {@code ./sluice demo}, then {@code ./sluice demo fault sink-down}: the sink's database stops, its task
 * fails, ConnectConnectorDown fires for the sink and reaches the webhook; {@code fault recover} brings the pipeline
 * back with nothing lost ({@code demo --check}).
 */
class DemoFaultIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration WAIT = Duration.ofMinutes(4);

  @TempDir static Path dir;
  private static PackagedSluice.Up up;
  private static HttpServer hook;
  private static final List<JsonNode> notifications = new CopyOnWriteArrayList<>();
  private static String connectUrl;
  private static String[] cluster;

  @BeforeAll
  static void up() throws Exception {
    hook = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    hook.createContext("/hook", exchange -> {
      notifications.add(JSON.readTree(exchange.getRequestBody().readAllBytes()));
      exchange.sendResponseHeaders(200, -1);
      exchange.close();
    });
    hook.start();
    int kafka = freePort();
    int connect = freePort();
    int registry = freePort();
    int metrics = freePort();
    int alerts = freePort();
    int exporter = freePort();
    String bundled = Files.readString(PackagedSluice.root().resolve(
        "sluice-metrics/src/main/resources/io/sluice/metrics/rules/cdc-alerts.rules.yml"));
    Path rules = Files.writeString(dir.resolve("rules.yml"), bundled.replaceAll("for: \\S+", "for: 5s"));
    Path prometheus = Files.writeString(dir.resolve("prometheus.yml"), """
        global: {scrape_interval: 2s, scrape_timeout: 2s, evaluation_interval: 2s}
        rule_files: ['%s']
        alerting:
          alertmanagers: [{static_configs: [{targets: ['127.0.0.1:%d']}]}]
        scrape_configs:
          - job_name: sluice
            static_configs: [{targets: ['127.0.0.1:%d']}]
        """.formatted(rules, alerts, exporter));
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
        """.formatted(hook.getAddress().getPort()));
    connectUrl = "http://127.0.0.1:" + connect;
    Path data = dir.resolve("data");
    up = PackagedSluice.up(dir, List.of("--data-dir", data.toString(), "--kafka-port", "" + kafka, "--connect-port",
        "" + connect, "--registry-port", "" + registry, "--metrics-port", "" + metrics, "--alerts-port", "" + alerts,
        "--exporter-port", "" + exporter, "--metrics-config", prometheus.toString(), "--alerts-config",
        alertmanager.toString()));
    cluster = new String[] {"--data-dir", data.toString(), "--connect-url", connectUrl, "--alerts-url",
        "http://127.0.0.1:" + alerts, "--registry", "http://127.0.0.1:" + registry, "--metrics-url",
        "http://127.0.0.1:" + metrics};
  }

  @AfterAll
  static void down() throws Exception {
    if (up != null) {
      assertEquals(0, PackagedSluice.down(up), () -> "./sluice up exit; stderr " + read(up.stderr()));
    }
    if (hook != null) {
      hook.stop(0);
    }
  }

  private static String[] with(String... args) {
    return Stream.concat(Stream.of(args), Stream.of(cluster)).toArray(String[]::new);
  }

  private static boolean notified(String alertname, String connector, String status) {
    for (JsonNode n : notifications) {
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

  @Test
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
      Run check = PackagedSluice.run(dir, with("demo", "--check", "--timeout", "150"));
      assertEquals(0, check.exit(), check::toString);

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

  /** With no sluice up running, the demo starts one in its own process and stops it with itself. */
  @Test
  void withoutASluiceUpTheDemoStartsOneAndStopsIt() throws Exception {
    Path own = java.nio.file.Files.createDirectories(dir.resolve("standalone"));
    int connect = freePort();
    int registry = freePort();
    Path config = Files.writeString(own.resolve("sluice.yaml"), """
        kafka.port: %d
        connect.port: %d
        registry.port: %d
        metrics.port: %d
        alerts.port: %d
        exporter.port: %d
        """.formatted(freePort(), connect, registry, freePort(), freePort(), freePort()));
    String[] flags = {"--config", config.toString(), "--data-dir", own.resolve("data").toString()};
    List<String> args = new ArrayList<>(List.of("demo", "--rate", "50", "--source-port", "" + freePort(),
        "--sink-port", "" + freePort(), "--format", "avro"));
    args.addAll(List.of(flags));
    Path log = own.resolve("demo.out");
    Process demo = PackagedSluice.start(own, log, args);
    try {
      Eventually.await("the demo with its own sluice up says where to look", WAIT, () -> read(log),
          out -> out.contains("sluice demo: a shop under load"));
      String out = read(log);
      assertTrue(out.contains("no sluice up at http://127.0.0.1:" + connect + ": starting one in this process"), out);
      assertTrue(out.contains("sluice ready"), out);
      assertTrue(out.contains("(avro)"), out);
      Run check = PackagedSluice.run(own, Stream.concat(Stream.of("demo", "--check", "--timeout", "150"),
          Stream.of(flags)).toArray(String[]::new));
      assertEquals(0, check.exit(), check::toString);
      // --format avro: the change events' schemas live in the registry, the sink read them through it.
      List<String> subjects = new io.sluice.serde.client.SchemaRegistryClient("http://127.0.0.1:" + registry)
          .subjects();
      assertTrue(subjects.containsAll(List.of("demo.public.orders-key", "demo.public.orders-value",
          "demo.public.order_lines-value")), subjects.toString());
      Run stop = PackagedSluice.run(own, Stream.concat(Stream.of("demo", "stop"), Stream.of(flags))
          .toArray(String[]::new));
      assertEquals(0, stop.exit(), stop::toString);
      assertTrue(demo.waitFor(120, TimeUnit.SECONDS), "the demo ends, with the sluice up it started");
      assertTrue(read(log).contains("stopping the sluice up the demo started"), read(log));
      assertTrue(isClosed(connect), "its Connect no longer listens");
    } finally {
      demo.destroy();
      demo.waitFor(60, TimeUnit.SECONDS);
    }
  }

  private static boolean isClosed(int port) {
    try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
      return false;
    } catch (java.io.IOException refused) {
      return true;
    }
  }
}
