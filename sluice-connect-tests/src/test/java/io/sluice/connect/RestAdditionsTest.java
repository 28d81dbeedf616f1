package io.sluice.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.connect.testing.ConnectClient;
import io.sluice.connect.testing.Eventually;
import io.sluice.connect.testing.Pipeline;
import io.sluice.connect.testing.TestWorkers;
import io.sluice.kafka.testing.SharedKafka;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sluice's additions to Connect's REST API on every path that writes a connector config, on a two-worker cluster
 * (so requests are also forwarded between workers), with a client trying to skip them with Connect's own
 * {@code forward} parameter, and with bodies that are malformed or too large.
 */
class RestAdditionsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final String SECRET = "Patched-s3cret-pw";
  private static final int LIMIT = 16 * 1024;
  @TempDir static Path dirA;
  @TempDir static Path dirB;
  private static ConnectRuntime a;
  private static ConnectRuntime b;
  private static ConnectClient restA;
  private static ConnectClient restB;
  private static Pipeline pipeline;
  private static String cluster;

  @BeforeAll
  static void start() {
    cluster = SharedKafka.unique("additions");
    a = TestWorkers.worker(cluster, dirA).workerProperty("sluice.rest.max.request.bytes", "" + LIMIT).start();
    b = TestWorkers.worker(cluster, dirB).workerProperty("sluice.rest.max.request.bytes", "" + LIMIT).start();
    restA = new ConnectClient(a.restUrl());
    restB = new ConnectClient(b.restUrl());
    pipeline = new Pipeline(SharedKafka.unique("add"));
  }

  @AfterAll
  static void stop() {
    for (ConnectRuntime w : new ConnectRuntime[] {b, a}) {
      if (w != null) {
        w.close();
      }
    }
  }

  /** Both workers' views of a connector's config, once both know it. */
  private static List<JsonNode> configs(String name) {
    return Stream.of(restA, restB).map(r -> Eventually.await(name + " known", Duration.ofSeconds(60),
        () -> r.call("GET", "/connectors/" + name + "/config", null), x -> x.status() == 200).json()).toList();
  }

  private static void assertNoPlainSecret(String name) {
    for (JsonNode config : configs(name)) {
      assertTrue(config.path("connection.password").asText().startsWith("${sluice:"), config.toString());
      assertFalse(config.toString().contains(SECRET), config.toString());
    }
    for (ConnectClient r : List.of(restA, restB)) {
      String expanded = r.call("GET", "/connectors?expand=info", null).body();
      assertFalse(expanded.contains(SECRET), expanded);
    }
  }

  private static Map<String, String> sink(String password) {
    Map<String, String> c = new LinkedHashMap<>(pipeline.sinkConfig());
    c.put("connection.password", password);
    c.remove("batch.size");
    return c;
  }

  @Test
  void everyPathThatWritesAConfigHidesSecretsEvenWhenTheClientSaysForward() {
    // Create, through either worker, claiming to be a forwarded request.
    String name = pipeline.name + "-sink";
    ConnectClient.Reply created = restB.call("POST", "/connectors?forward=true",
        Map.of("name", name, "config", sink(SECRET)));
    assertEquals(201, created.status(), created.body());
    assertFalse(created.body().contains(SECRET), created.body());
    assertNoPlainSecret(name);
    assertEquals("2000", configs(name).get(0).path("batch.size").asText(), "throughput default filled in");

    // Replace.
    ConnectClient.Reply put = restA.call("PUT", "/connectors/" + name + "/config?forward=false", sink(SECRET));
    assertTrue(put.status() == 200 || put.status() == 201, put.body());
    assertNoPlainSecret(name);

    // Patch: only the keys given change, and a patched password is hidden like any other.
    ConnectClient.Reply patched = restB.call("PATCH", "/connectors/" + name + "/config",
        Map.of("connection.password", SECRET + "-2", "batch.size", "7"));
    assertEquals(200, patched.status(), patched.body());
    for (JsonNode config : configs(name)) {
      assertTrue(config.path("connection.password").asText().startsWith("${sluice:"), config.toString());
      assertFalse(config.toString().contains(SECRET), config.toString());
      assertEquals("7", config.path("batch.size").asText(), config.toString());
      assertEquals(pipeline.topic(), config.path("topics").asText(), "untouched keys stay: " + config);
    }
    // A null removes a key, as in Connect; Sluice's default comes back for a default key.
    Map<String, Object> removal = new LinkedHashMap<>();
    removal.put("batch.size", null);
    removal.put("delete.enabled", null);
    assertEquals(200, restA.call("PATCH", "/connectors/" + name + "/config?forward=false", removal).status());
    JsonNode afterRemoval = configs(name).get(1);
    assertFalse(afterRemoval.has("delete.enabled"), afterRemoval.toString());
    assertEquals("2000", afterRemoval.path("batch.size").asText(), afterRemoval.toString());

    // Validation translates the mode too, and refuses a bad one in Connect's shape.
    Map<String, String> badMode = new LinkedHashMap<>(pipeline.sourceConfig("x", Map.of("initial.snapshot.mode",
        "sometimes")));
    ConnectClient.Reply invalid = restB.call("PUT",
        "/connector-plugins/io.debezium.connector.postgresql.PostgresConnector/config/validate?forward=true", badMode);
    assertEquals(400, invalid.status(), invalid.body());
    assertTrue(invalid.json().path("message").asText().contains("initial.snapshot.mode"), invalid.body());
    assertEquals(400, invalid.json().path("error_code").asInt());
    assertEquals(204, restA.call("DELETE", "/connectors/" + name, null).status());
  }

  @Test
  void aRefusedConfigLeavesNoSecretAndOnlyItsOwnReferencePasses() {
    String name = pipeline.name + "-refused";
    Map<String, String> bad = sink(SECRET + "-refused");
    bad.put("tasks.max", "0");
    ConnectClient.Reply refused = restA.call("POST", "/connectors", Map.of("name", name, "config", bad));
    assertEquals(400, refused.status(), refused.body());
    assertTrue(refused.json().path("message").asText().startsWith("Connector configuration is invalid"),
        refused.body());
    assertEquals(400, refused.json().path("error_code").asInt());
    assertFalse(refused.body().contains(SECRET), refused.body());
    io.sluice.connect.secrets.SecretStore store = io.sluice.connect.secrets.SecretStore.of(
        SharedKafka.bootstrapServers(), cluster + "-secrets");
    assertTrue(store.get(name, "connection.password").isEmpty(), "a refused config left its secret behind");
    assertEquals(404, restB.call("GET", "/connectors/" + name, null).status());

    // A password that only looks like a reference is a password.
    String looksLike = "${not-a-reference-" + SECRET;
    ConnectClient.Reply created = restB.call("POST", "/connectors", Map.of("name", name, "config", sink(looksLike)));
    assertEquals(201, created.status(), created.body());
    for (JsonNode config : configs(name)) {
      assertEquals("${sluice:" + name + ":connection.password}", config.path("connection.password").asText());
    }
    assertEquals(java.util.Optional.of(looksLike), store.get(name, "connection.password"));

    // Another connector's secret is not this one's to name.
    ConnectClient.Reply borrowed = restA.call("POST", "/connectors", Map.of("name", name + "-2", "config",
        sink("${sluice:" + name + ":connection.password}")));
    assertEquals(400, borrowed.status(), borrowed.body());
    assertTrue(borrowed.json().path("message").asText().contains("not this connector's"), borrowed.body());
    assertEquals(204, restA.call("DELETE", "/connectors/" + name, null).status());
  }

  /** The worker's own Kafka settings are referenced, never copied, and only under the key of their own name. */
  @Test
  void aReferenceToTheWorkersKafkaSettingsStaysOneAndStandsOnlyForItsOwnSetting() {
    String name = pipeline.name + "-kafka-ref";
    Map<String, String> config = sink(SECRET);
    config.put("consumer.override.sasl.jaas.config", "${sluice-kafka:sasl.jaas.config}");
    ConnectClient.Reply created = restA.call("PUT", "/connectors/" + name + "/config", config);
    assertEquals(201, created.status(), created.body());
    for (JsonNode stored : configs(name)) {
      assertEquals("${sluice-kafka:sasl.jaas.config}", stored.path("consumer.override.sasl.jaas.config").asText());
    }
    assertEquals(204, restA.call("DELETE", "/connectors/" + name, null).status());
    Map<String, String> elsewhere = sink(SECRET);
    elsewhere.put("connection.url", "${sluice-kafka:sasl.jaas.config}");
    ConnectClient.Reply refused = restB.call("PUT", "/connectors/" + name + "-2/config", elsewhere);
    assertEquals(400, refused.status(), refused.body());
    assertTrue(refused.json().path("message").asText().contains("only for the Kafka client setting of its name"),
        refused.body());
  }

  @Test
  void aPatchedSnapshotModeIsTranslatedAgainstTheMergedConfig() {
    String name = pipeline.name + "-modes";
    Map<String, String> source = pipeline.sourceConfig(pipeline.name + "_modes", Map.of("initial.snapshot.mode",
        "initial"));
    assertEquals(201, restA.create(name, source).status());
    assertEquals("initial", configs(name).get(0).path("snapshot.mode").asText());
    ConnectClient.Reply patched = restB.call("PATCH", "/connectors/" + name + "/config",
        Map.of("initial.snapshot.mode", "never"));
    assertEquals(200, patched.status(), patched.body());
    for (JsonNode config : configs(name)) {
      assertEquals("no_data", config.path("snapshot.mode").asText(), config.toString());
      assertEquals("4096", config.path("max.batch.size").asText(), "defaults kept: " + config);
      assertTrue(config.path("database.password").asText().startsWith("${sluice:"), config.toString());
      // The Kafka signal channel sluice snapshot uses, on the worker's cluster.
      assertEquals("source,kafka", config.path("signal.enabled.channels").asText(), config.toString());
      assertEquals(pipeline.topicPrefix + "-signal", config.path("signal.kafka.topic").asText(), config.toString());
      assertEquals("${sluice-kafka:bootstrap.servers}", config.path("signal.kafka.bootstrap.servers").asText());
    }
    ConnectClient.Reply refused = restA.call("PATCH", "/connectors/" + name + "/config",
        Map.of("initial.snapshot.mode", "sometimes"));
    assertEquals(400, refused.status(), refused.body());
    assertEquals("no_data", configs(name).get(0).path("snapshot.mode").asText(), "a refused patch changes nothing");
    assertEquals(204, restB.call("DELETE", "/connectors/" + name, null).status());
  }

  @Test
  void aDeleteClaimingToBeForwardedStillBacksUpTheOffsets() throws Exception {
    String name = pipeline.name + "-src";
    pipeline.insert(1, 5);
    assertEquals(201, restA.create(name, pipeline.sourceConfig(pipeline.name + "_src", Map.of())).status());
    restA.awaitRunning(name);
    Eventually.await("offsets committed", Duration.ofSeconds(90),
        () -> restA.call("GET", "/connectors/" + name + "/offsets", null).json(),
        o -> o.path("offsets").size() > 0);
    ConnectClient.Reply deleted = restB.call("DELETE", "/connectors/" + name + "?forward=false", null);
    assertEquals(204, deleted.status(), deleted.body());
    Path backups = Stream.of(dirA, dirB).map(d -> d.resolve("backups/offsets")).filter(Files::isDirectory)
        .findFirst().orElseThrow(() -> new AssertionError("no offsets backup written"));
    try (Stream<Path> files = Files.list(backups)) {
      assertTrue(files.anyMatch(f -> f.getFileName().toString().startsWith(name + "-")), "backup of " + name);
    }
  }

  @Test
  void malformedBodiesAre400InConnectsShapeAndChangeNothing() {
    String name = pipeline.name + "-kept";
    assertEquals(201, restA.create(name, sink("pw")).status());
    JsonNode before = configs(name).get(0);
    List<String[]> requests = List.of(
        new String[] {"POST", "/connectors"},
        new String[] {"PUT", "/connectors/" + name + "/config"},
        new String[] {"PATCH", "/connectors/" + name + "/config"},
        new String[] {"PUT", "/connector-plugins/io.debezium.connector.jdbc.JdbcSinkConnector/config/validate"},
        new String[] {"PATCH", "/connectors/" + name + "/offsets"});
    for (String[] r : requests) {
      for (ConnectClient rest : List.of(restA, restB)) {
        ConnectClient.Reply reply = rest.call(r[0], r[1], "{\"name\": \"x\", \"config\": {");
        assertEquals(400, reply.status(), r[0] + " " + r[1] + ": " + reply.body());
        assertEquals(400, reply.json().path("error_code").asInt(), reply.body());
        assertTrue(reply.json().path("message").asText().contains("not valid JSON"), reply.body());
      }
    }
    assertEquals(400, restB.call("PUT", "/connectors/" + name + "/config", "[1, 2]").status());
    // A config without a class is Connect's to refuse (400), not an error of Sluice's additions.
    for (String[] r : List.of(new String[] {"PUT", "/connectors/" + name + "-classless/config"},
        new String[] {"PUT", "/connector-plugins/io.debezium.connector.jdbc.JdbcSinkConnector/config/validate"})) {
      ConnectClient.Reply classless = restA.call(r[0], r[1], "{\"unknown.only\": \"x\", \"tasks.max\": 1}");
      assertTrue(classless.status() >= 400 && classless.status() < 500, r[1] + ": " + classless.body());
    }
    assertEquals(before, configs(name).get(1));
    assertEquals(List.of(name), JSON.convertValue(restA.call("GET", "/connectors", null).json(), List.class).stream()
        .filter(n -> n.toString().startsWith(pipeline.name)).toList());
    assertEquals(204, restA.call("DELETE", "/connectors/" + name, null).status());
  }

  @Test
  void aBodyOverTheLimitIs413BeforeItIsRead() throws Exception {
    String padding = "x".repeat(LIMIT);
    String big = JSON.writeValueAsString(Map.of("name", pipeline.name + "-big", "config", Map.of(
        "connector.class", "io.debezium.connector.jdbc.JdbcSinkConnector", "padding", padding)));
    for (ConnectRuntime w : List.of(a, b)) {
      HttpResponse<String> sized = HTTP.send(HttpRequest.newBuilder(URI.create(w.restUrl() + "/connectors"))
          .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(big)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertEquals(413, sized.statusCode(), sized.body());
      assertEquals(413, JSON.readTree(sized.body()).path("error_code").asInt(), sized.body());
      assertTrue(JSON.readTree(sized.body()).path("message").asText().contains("sluice.rest.max.request.bytes"),
          sized.body());
      // Without a length (chunked), the body is counted as it arrives.
      HttpResponse<String> chunked = HTTP.send(HttpRequest.newBuilder(URI.create(w.restUrl() + "/connectors"))
          .header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(big.getBytes()))).build(),
          HttpResponse.BodyHandlers.ofString());
      assertEquals(413, chunked.statusCode(), chunked.body());
    }
    assertFalse(restA.call("GET", "/connectors", null).body().contains(pipeline.name + "-big"));
  }

  @Test
  void headersPastEightKibAre431InConnectsShapeAfterTheBodyIsRead() throws Exception {
    byte[] body = new byte[LIMIT / 2];
    java.util.Arrays.fill(body, (byte) ' ');
    for (ConnectRuntime w : List.of(a, b)) {
      HttpResponse<String> small = HTTP.send(HttpRequest.newBuilder(URI.create(w.restUrl() + "/connectors"))
          .header("X-Padding", "x".repeat(7 << 10)).GET().build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(200, small.statusCode(), small.body());
      for (int kib : List.of(9, 64, 200)) {
        // Jetty alone would close with the headers and body unread; the client must still get the answer.
        HttpResponse<String> large = HTTP.send(HttpRequest.newBuilder(URI.create(w.restUrl() + "/connectors"))
            .header("Content-Type", "application/json").header("X-Padding", "x".repeat(kib << 10))
            .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(431, large.statusCode(), kib + " KiB: " + large.body());
        assertEquals(431, JSON.readTree(large.body()).path("error_code").asInt(), large.body());
      }
    }
    assertEquals(200, restA.call("GET", "/connectors", null).status());
  }
}
