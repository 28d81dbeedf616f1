package io.sluice.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.connect.offsets.OffsetBackup;
import io.sluice.connect.offsets.OffsetRecord;
import io.sluice.connect.offsets.OffsetsTopic;
import io.sluice.connect.testing.ConnectClient;
import io.sluice.connect.testing.Eventually;
import io.sluice.connect.testing.Pipeline;
import io.sluice.connect.testing.TestWorkers;
import io.sluice.kafka.testing.SharedKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * One pipeline, PostgreSQL → Debezium → Kafka → JDBC sink → PostgreSQL, taken through a connector's whole life.
 * The steps run in order on the same pipeline because each builds on the state the previous one left, as an
 * operator's session would; starting a fresh pipeline per step would cost a snapshot each.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConnectorLifecycleTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir static Path dataDir;
  private static String cluster;
  private static ConnectRuntime worker;
  private static ConnectClient rest;
  private static Pipeline pipeline;
  private static final String SOURCE = "orders-source";
  private static final String SINK = "orders-sink";

  @BeforeAll
  static void start() {
    cluster = SharedKafka.unique("lifecycle");
    worker = TestWorkers.worker(cluster, dataDir).start();
    rest = new ConnectClient(worker.restUrl());
    pipeline = new Pipeline(SharedKafka.unique("lc"));
  }

  @AfterAll
  static void stop() {
    if (worker != null) {
      worker.close();
    }
  }

  private static Map<String, String> source(String snapshotMode) {
    return pipeline.sourceConfig(pipeline.name + "_slot",
        snapshotMode == null ? Map.of() : Map.of("initial.snapshot.mode", snapshotMode));
  }

  @Test
  @Order(1)
  void snapshotThenInsertsUpdatesAndDeletesReachTheSink() {
    pipeline.insert(1, 3);
    // Exactly the keys of the system description: nothing more is needed for a running source.
    var created = rest.create(SOURCE, source(null));
    assertEquals(201, created.status(), created.body());
    assertEquals(SOURCE, created.json().path("name").asText());
    assertEquals(201, rest.create(SINK, pipeline.sinkConfig()).status());
    rest.awaitRunning(SOURCE);
    rest.awaitRunning(SINK);
    assertEquals(3, pipeline.awaitSinkMatchesSource().size());

    pipeline.insert(4, 5);
    pipeline.execute(pipeline.sourceDb, "UPDATE orders SET qty = 42 WHERE id = 2");
    pipeline.execute(pipeline.sourceDb, "DELETE FROM orders WHERE id = 1");
    Map<Integer, String> sink = pipeline.awaitSinkMatchesSource();
    assertEquals("item-2:42", sink.get(2));
    assertFalse(sink.containsKey(1));

    JsonNode list = rest.call("GET", "/connectors", null).json();
    assertTrue(list.isArray() && list.size() == 2, list.toString());
  }

  @Test
  @Order(2)
  void offsetsRecordsHaveTheDocumentedShape() throws Exception {
    OffsetsTopic topic = new OffsetsTopic(SharedKafka.bootstrapServers(), cluster + "-offsets");
    List<OffsetRecord> records = Eventually.await("offsets flushed", Duration.ofSeconds(30),
        () -> topic.latestFor(SOURCE, Duration.ofSeconds(10)), r -> !r.isEmpty());
    assertEquals(1, records.size());
    assertEquals("[\"" + SOURCE + "\",{\"server\":\"" + pipeline.topicPrefix + "\"}]", records.get(0).key());
    JsonNode value = JSON.readTree(records.get(0).value());
    assertTrue(value.path("lsn").isNumber(), value.toString());
    assertTrue(value.has("txId"), value.toString());
    assertTrue(value.path("ts_usec").isNumber(), value.toString());
  }

  @Test
  @Order(3)
  void passwordsNeverAppearInTheRestApi() {
    for (String path : List.of("/connectors/" + SOURCE + "/config", "/connectors/" + SOURCE + "/tasks",
        "/connectors/" + SINK + "/config", "/connectors/" + SINK + "/tasks", "/connectors/" + SOURCE)) {
      var reply = rest.call("GET", path, null);
      assertEquals(200, reply.status(), path);
      assertFalse(reply.body().contains(Pipeline.CDC_PASSWORD), path + " shows the password: " + reply.body());
    }
    String shown = rest.call("GET", "/connectors/" + SOURCE + "/config", null).json().path("database.password").asText();
    assertTrue(shown.startsWith("${sluice:"), shown);
  }

  @Test
  @Order(4)
  void whilePausedNothingArrivesAndAfterResumeEverythingDoes() throws Exception {
    assertEquals(202, rest.call("PUT", "/connectors/" + SOURCE + "/pause", null).status());
    rest.awaitState(SOURCE, "PAUSED");
    Map<Integer, String> before = pipeline.rows(pipeline.sinkDb);
    pipeline.insert(100, 149);
    // Long enough for several poll and flush cycles of a running connector.
    Thread.sleep(4000);
    assertEquals(before, pipeline.rows(pipeline.sinkDb), "rows arrived while the source was paused");
    assertEquals(202, rest.call("PUT", "/connectors/" + SOURCE + "/resume", null).status());
    rest.awaitState(SOURCE, "RUNNING");
    assertEquals(before.size() + 50, pipeline.awaitSinkMatchesSource().size());
  }

  @Test
  @Order(5)
  void restartKeepsGoing() {
    assertEquals(204, rest.call("POST", "/connectors/" + SOURCE + "/restart", null).status());
    assertEquals(202, rest.call("POST", "/connectors/" + SOURCE + "/restart?includeTasks=true", null).status());
    rest.awaitRunning(SOURCE);
    pipeline.insert(200, 209);
    pipeline.awaitSinkMatchesSource();
  }

  @Test
  @Order(6)
  void stoppedConnectorsOffsetsCanBeReadAndRewritten() {
    assertEquals(204, rest.call("PUT", "/connectors/" + SOURCE + "/stop", null).status());
    rest.awaitStatus(SOURCE, s -> "STOPPED".equals(s.path("connector").path("state").asText())
        && s.path("tasks").isEmpty(), Duration.ofSeconds(60));
    var offsets = rest.call("GET", "/connectors/" + SOURCE + "/offsets", null);
    assertEquals(200, offsets.status(), offsets.body());
    JsonNode first = offsets.json().path("offsets").get(0);
    assertEquals(pipeline.topicPrefix, first.path("partition").path("server").asText(), offsets.body());
    assertTrue(first.path("offset").path("lsn").isNumber(), offsets.body());

    // Writing back what was read changes nothing and is accepted.
    var patch = rest.call("PATCH", "/connectors/" + SOURCE + "/offsets", offsets.body());
    assertEquals(200, patch.status(), patch.body());
    var malformed = rest.call("PATCH", "/connectors/" + SOURCE + "/offsets", "{\"offsets\": [");
    assertEquals(400, malformed.status(), malformed.body());
    assertEquals(400, malformed.json().path("error_code").asInt());
    assertEquals(offsets.json(), rest.call("GET", "/connectors/" + SOURCE + "/offsets", null).json(),
        "a refused request changed the offsets");

    assertEquals(202, rest.call("PUT", "/connectors/" + SOURCE + "/resume", null).status());
    rest.awaitRunning(SOURCE);
    pipeline.insert(250, 254);
    pipeline.awaitSinkMatchesSource();
  }

  @Test
  @Order(7)
  void deleteBacksUpAndRemovesOffsetsSoRecreateWithInitialSnapshotsAgain() throws Exception {
    long end = pipeline.endOffset();
    assertEquals(204, rest.call("DELETE", "/connectors/" + SOURCE, null).status());
    assertEquals(404, rest.call("GET", "/connectors/" + SOURCE, null).status());

    OffsetsTopic topic = new OffsetsTopic(SharedKafka.bootstrapServers(), cluster + "-offsets");
    assertTrue(topic.latestFor(SOURCE, Duration.ofSeconds(10)).stream().allMatch(r -> r.value() == null),
        "offsets remain after delete");
    Path backupDir = dataDir.resolve("backups/offsets");
    List<Path> backups;
    try (Stream<Path> files = Files.list(backupDir)) {
      backups = files.filter(p -> p.getFileName().toString().startsWith(SOURCE + "-")
          && p.getFileName().toString().endsWith(".tsv")).toList();
    }
    assertEquals(1, backups.size());
    assertEquals(1, OffsetBackup.manifest(backups.get(0)).records(), "the manifest vouches for the one record");
    List<String> lines = Files.readAllLines(backups.get(0));
    assertEquals(1, lines.size());
    String[] kv = lines.get(0).split("\t");
    assertEquals("[\"" + SOURCE + "\",{\"server\":\"" + pipeline.topicPrefix + "\"}]", kv[0]);
    assertTrue(JSON.readTree(kv[1]).path("lsn").isNumber());

    int rows = pipeline.rows(pipeline.sourceDb).size();
    assertEquals(201, rest.create(SOURCE, source("initial")).status());
    rest.awaitRunning(SOURCE);
    Eventually.await("a new snapshot of all " + rows + " rows", Duration.ofSeconds(60),
        () -> Pipeline.count(pipeline.events(end), "r"), n -> n == rows);
    assertEquals("initial", rest.call("GET", "/connectors/" + SOURCE + "/config", null).json()
        .path("snapshot.mode").asText());
  }

  @Test
  @Order(8)
  void recreateWithNeverDoesNotSnapshotButStreams() {
    assertEquals(204, rest.call("DELETE", "/connectors/" + SOURCE, null).status());
    long end = pipeline.endOffset();
    assertEquals(201, rest.create(SOURCE, source("never")).status());
    rest.awaitRunning(SOURCE);
    assertEquals("no_data", rest.call("GET", "/connectors/" + SOURCE + "/config", null).json()
        .path("snapshot.mode").asText());
    pipeline.insert(300, 304);
    Eventually.await("5 streamed inserts", Duration.ofSeconds(60),
        () -> Pipeline.count(pipeline.events(end), "c"), n -> n >= 5);
    assertEquals(0, Pipeline.count(pipeline.events(end), "r"), "rows were snapshotted again");
    pipeline.awaitSinkMatchesSource();
  }

  @Test
  @Order(9)
  void stoppedWorkerResumesFromItsOffsetsWithoutSnapshot() {
    worker.close();
    pipeline.insert(400, 419);
    long end = pipeline.endOffset();
    worker = TestWorkers.worker(cluster, dataDir).start();
    rest = new ConnectClient(worker.restUrl());
    rest.awaitRunning(SOURCE);
    rest.awaitRunning(SINK);
    pipeline.awaitSinkMatchesSource();
    assertEquals(0, Pipeline.count(pipeline.events(end), "r"), "the restarted worker snapshotted again");
    assertTrue(Pipeline.count(pipeline.events(end), "c") >= 20);
  }

  @Test
  @Order(10)
  void unknownSnapshotModeIsRefusedAtCreationWithAllowedValues() {
    var reply = rest.create("bad-mode", source("sometimes"));
    assertEquals(400, reply.status());
    assertEquals(400, reply.json().path("error_code").asInt());
    String message = reply.json().path("message").asText();
    assertTrue(message.contains("initial") && message.contains("schema_only") && message.contains("never"), message);
    assertEquals(404, rest.call("GET", "/connectors/bad-mode", null).status());
  }

  @Test
  @Order(11)
  void invalidConfigGetsConnectsOwn400() {
    Map<String, String> config = new java.util.HashMap<>(source(null));
    config.remove("database.hostname");
    var reply = rest.create("bad-config", config);
    assertEquals(400, reply.status(), reply.body());
    assertEquals(400, reply.json().path("error_code").asInt());
    assertTrue(reply.json().path("message").asText().contains("Connector configuration is invalid"), reply.body());
    assertEquals(404, rest.call("GET", "/connectors/bad-config", null).status());

    var unknown = rest.call("GET", "/connectors/no-such-connector/status", null);
    assertEquals(404, unknown.status());
    assertEquals(404, unknown.json().path("error_code").asInt());
  }

  @Test
  @Order(12)
  void passwordsNeverAppearInTheLogs() throws Exception {
    // log4j2-test.xml writes everything at INFO and above, Connect's config dumps included, to this file.
    Path log = Path.of("target", "test-logs", "sluice-connect.log");
    String text = Files.readString(log);
    assertTrue(text.contains("orders-source"), "the log file captured the connector's lifecycle");
    assertFalse(text.contains(Pipeline.CDC_PASSWORD), "the password was logged");
  }
}
