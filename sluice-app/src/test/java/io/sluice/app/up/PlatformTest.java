package io.sluice.app.up;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.app.config.ConfigDefinitions;
import io.sluice.app.config.SluiceConfig;
import io.sluice.connect.testing.ConnectClient;
import io.sluice.connect.testing.Pipeline;
import io.sluice.connect.testing.TestWorkers;
import io.sluice.kafka.testing.SharedKafka;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PlatformTest {

  private static Path plugins() {
    return Path.of(System.getProperty("sluice.plugin.path"));
  }

  private static SluiceConfig config(Path dataDir, int kafkaPort, int connectPort, Map<String, String> extra) {
    Map<String, String> flags = new java.util.HashMap<>(extra);
    flags.put(ConfigDefinitions.DATA_DIR.name(), dataDir.toString());
    flags.put(ConfigDefinitions.KAFKA_PORT.name(), String.valueOf(kafkaPort));
    flags.put(ConfigDefinitions.CONNECT_PORT.name(), String.valueOf(connectPort));
    flags.put(ConfigDefinitions.REGISTRY_PORT.name(), String.valueOf(TestWorkers.freePort()));
    flags.put(ConfigDefinitions.ALERTS_PORT.name(), String.valueOf(TestWorkers.freePort()));
    flags.put(ConfigDefinitions.METRICS_PORT.name(), String.valueOf(TestWorkers.freePort()));
    flags.put(ConfigDefinitions.EXPORTER_PORT.name(), String.valueOf(TestWorkers.freePort()));
    flags.put(ConfigDefinitions.CONSOLE_PORT.name(), String.valueOf(TestWorkers.freePort()));
    return SluiceConfig.load(Optional.empty(), flags);
  }

  /**
   * The whole stack stopped and started again on the same data directory: connectors, configs and offsets are still
   * there, rows written while it was down arrive, and the source resumes from its offset instead of snapshotting.
   */
  @Test
  void aRestartOnTheSameDataDirLosesNothing(@TempDir Path dataDir) {
    SluiceConfig config = config(dataDir, TestWorkers.freePort(), TestWorkers.freePort(), Map.of());
    Pipeline pipeline;
    Platform first = Platform.start(config, plugins());
    try {
      assertTrue(first.readyLine().startsWith("sluice ready "), first.readyLine());
      assertTrue(first.readyLine().contains(" registry=http://127.0.0.1:"), first.readyLine());
      var alerts = new ConnectClient(first.urls().get("alerts")).call("GET", "/api/v2/status", null);
      assertEquals(200, alerts.status(), alerts.body());
      assertTrue(alerts.json().path("config").path("original").asText().contains("route:"), alerts.body());
      var silence = new ConnectClient(first.urls().get("alerts")).call("POST", "/api/v2/silences", """
          {"matchers":[{"name":"connector","value":"src","isRegex":false}],"startsAt":"%s","endsAt":"%s",
           "createdBy":"ops","comment":"maintenance window"}""".formatted(java.time.Instant.now(),
          java.time.Instant.now().plus(java.time.Duration.ofHours(1))));
      assertEquals(200, silence.status(), silence.body());
      var metrics = new ConnectClient(first.urls().get("metrics")).call("GET", "/api/v1/query?query=vector(1)", null);
      assertEquals(200, metrics.status(), metrics.body());
      assertEquals("success", metrics.json().path("status").asText(), metrics.body());
      // The pipeline's topic lives on this platform's own broker, so events are read from there below.
      pipeline = new Pipeline(SharedKafka.unique("restart"));
      ConnectClient rest = new ConnectClient(first.connect().restUrl());
      pipeline.insert(1, 10);
      assertEquals(201, rest.create("src", pipeline.sourceConfig(pipeline.name + "_slot",
          Map.of("initial.snapshot.mode", "initial"))).status());
      var sink = new java.util.HashMap<>(pipeline.sinkConfig());
      assertEquals(201, rest.create("sink", sink).status());
      rest.awaitRunning("src");
      rest.awaitRunning("sink");
      pipeline.awaitSinkMatchesSource();
      var exported = new ConnectClient(first.urls().get("exporter")).call("GET", "/metrics", null);
      assertEquals(200, exported.status(), exported.body());
      assertTrue(exported.body().contains("svc_connect_connector_status{connector=\"src\",pipeline=\"src\"} 1.0"), exported.body());
    } finally {
      first.close();
    }

    pipeline.insert(11, 30);
    pipeline.execute(pipeline.sourceDb, "UPDATE orders SET qty = 7 WHERE id = 3");

    Platform second = Platform.start(config, plugins());
    try {
      var silences = new ConnectClient(second.urls().get("alerts")).call("GET", "/api/v2/silences", null);
      assertTrue(silences.body().contains("maintenance window"), "silences survive a restart: " + silences.body());
      ConnectClient rest = new ConnectClient(second.connect().restUrl());
      rest.awaitRunning("src");
      rest.awaitRunning("sink");
      Map<Integer, String> rows = pipeline.awaitSinkMatchesSource();
      assertEquals(30, rows.size());
      assertEquals("item-3:7", rows.get(3));
      long snapshotReads = Pipeline.count(pipeline.events(0, second.bootstrapServers()), "r");
      assertEquals(10, snapshotReads, "only the first start may snapshot");
    } finally {
      second.close();
    }
  }

  @Test
  void joiningAnExistingClusterRunsNoBrokerOfItsOwn(@TempDir Path dataDir) {
    int kafkaPort = TestWorkers.freePort();
    SluiceConfig config = config(dataDir, kafkaPort, TestWorkers.freePort(), Map.of(
        ConfigDefinitions.KAFKA_BOOTSTRAP.name(), SharedKafka.bootstrapServers(),
        ConfigDefinitions.CONNECT_GROUP.name(), SharedKafka.unique("joined"),
        ConfigDefinitions.ALERTS_STATE_TOPIC.name(), SharedKafka.unique("alerts-state")));
    try (Platform platform = Platform.start(config, plugins())) {
      assertEquals(SharedKafka.bootstrapServers(), platform.urls().get("kafka"));
      // The registry, too, keeps its state in the joined cluster.
      var registry = new ConnectClient(platform.urls().get("registry")).call("GET", "/subjects", null);
      assertEquals(200, registry.status(), registry.body());
      assertEquals(200, new ConnectClient(platform.connect().restUrl()).call("GET", "/connectors", null).status());
      // ...and so does the alert router: a silence is in the cluster's state topic.
      var silence = new ConnectClient(platform.urls().get("alerts")).call("POST", "/api/v2/silences", """
          {"matchers":[{"name":"connector","value":"joined","isRegex":false}],"startsAt":"%s","endsAt":"%s",
           "createdBy":"ops","comment":"held in kafka"}""".formatted(java.time.Instant.now(),
          java.time.Instant.now().plus(java.time.Duration.ofHours(1))));
      assertEquals(200, silence.status(), silence.body());
      try (var state = io.sluice.alerts.state.KafkaStateStore.start(SharedKafka.bootstrapServers(),
          config.get(ConfigDefinitions.ALERTS_STATE_TOPIC), java.time.Duration.ofSeconds(60))) {
        String snapshot = new String(state.load("silences").orElseThrow(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(snapshot.contains("held in kafka"), snapshot);
      }
      assertTrue(java.nio.file.Files.notExists(dataDir.resolve("kafka")), "an embedded broker was started");
      try (java.net.Socket s = new java.net.Socket()) {
        s.connect(new java.net.InetSocketAddress("127.0.0.1", kafkaPort), 500);
        throw new AssertionError("something listens on the embedded broker's port " + kafkaPort);
      } catch (java.io.IOException expected) {
        // Nothing listens there: no broker of its own.
      }
    }
  }
}
