package io.sluice.app;

import static io.sluice.app.PackagedSluice.freePort;
import static io.sluice.app.PackagedSluice.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.kafka.EmbeddedKafka;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged {@code ./sluice up} joining a Kafka cluster that accepts clients only over SASL_SSL with SCRAM-SHA-512:
 * every Kafka client of Sluice (the Connect worker and its internal topics, the secrets topic, the registry's log,
 * the alert state, the exporter, the CLI) takes its security from {@code sluice.yaml}'s {@code kafka.client}
 * section, and a wrong password stops the start with a clear message that does not contain the password.
 */
class KafkaSecurityIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String KAFKA_PASSWORD = "kafka-scram-pw-4711";
  @TempDir static Path dir;
  private static EmbeddedKafka kafka;
  private static String plain;
  private static String secured;

  @BeforeAll
  static void cluster() throws Exception {
    TestCertificate cert = TestCertificate.write(dir);
    int securedPort = freePort();
    String l = "listener.name.sasl_ssl.";
    kafka = EmbeddedKafka.builder().dataDir(dir.resolve("broker")).port(0)
        .listener("SASL_SSL", "SASL_SSL", securedPort)
        .brokerProperty("sasl.enabled.mechanisms", "SCRAM-SHA-512")
        .brokerProperty(l + "scram-sha-512.sasl.jaas.config",
            "org.apache.kafka.common.security.scram.ScramLoginModule required;")
        .brokerProperty(l + "ssl.keystore.type", "PEM")
        .brokerProperty(l + "ssl.keystore.certificate.chain", cert.certPem())
        .brokerProperty(l + "ssl.keystore.key", cert.keyPem())
        .start();
    plain = kafka.bootstrapServers();
    secured = "127.0.0.1:" + securedPort;
    // The test, as the cluster's operator, creates Sluice's user over the plain listener.
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", plain))) {
      admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion("sluice",
          new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), KAFKA_PASSWORD))).all()
          .get(30, TimeUnit.SECONDS);
    }
  }

  @AfterAll
  static void stop() {
    if (kafka != null) {
      kafka.close();
    }
  }

  private static Path config(String name, String password) throws Exception {
    Path passwordFile = Files.writeString(dir.resolve(name + ".pw"), password + "\n");
    return Files.writeString(dir.resolve(name + ".yaml"), """
        kafka:
          bootstrap.servers: %s
          client:
            security.protocol: SASL_SSL
            sasl.mechanism: SCRAM-SHA-512
            sasl.username: sluice
            sasl.password.file: %s
            ssl.truststore.type: PEM
            ssl.truststore.location: %s
        """.formatted(secured, passwordFile, dir.resolve("tls.crt")));
  }

  private static List<String> ports(Path config) throws Exception {
    return List.of("--config", config.toString(), "--data-dir", dir.resolve("data-" + config.getFileName()).toString(),
        "--connect-port", "" + freePort(), "--registry-port", "" + freePort(), "--metrics-port", "" + freePort(),
        "--alerts-port", "" + freePort(), "--exporter-port", "" + freePort());
  }

  @Test
  void everyClientReachesASaslSslClusterAndAWrongPasswordIsRefusedClearly() throws Exception {
    Path good = config("good", KAFKA_PASSWORD);
    PackagedSluice.Up up = PackagedSluice.up(dir, ports(good));
    try {
      Map<String, String> urls = urls(up.readyLine());
      HttpClient http = HttpClient.newHttpClient();
      // The registry's log.
      HttpResponse<String> registered = send(http, "POST", urls.get("registry") + "/subjects/sasl-value/versions",
          "{\"schema\": \"{\\\"type\\\": \\\"string\\\"}\"}");
      assertEquals(200, registered.statusCode(), registered.body());
      // Connect's internal topics and the secrets topic: a connector with a password.
      String sink = "{\"name\": \"sasl-sink\", \"config\": {\"connector.class\": "
          + "\"io.debezium.connector.jdbc.JdbcSinkConnector\", \"topics\": \"sasl\", \"connection.url\": "
          + "\"jdbc:postgresql://127.0.0.1:1/none\", \"connection.username\": \"u\", \"connection.password\": "
          + "\"sink-db-pw\", \"tasks.max\": \"1\"}}";
      HttpResponse<String> created = send(http, "POST", urls.get("connect") + "/connectors", sink);
      assertEquals(201, created.statusCode(), created.body());
      JsonNode stored = JSON.readTree(send(http, "GET", urls.get("connect") + "/connectors/sasl-sink/config", null)
          .body());
      assertTrue(stored.path("connection.password").asText().startsWith("${sluice:"), stored.toString());
      // The alert state: a silence.
      String silence = "{\"matchers\": [{\"name\": \"connector\", \"value\": \"sasl-sink\", \"isRegex\": false}], "
          + "\"startsAt\": \"" + java.time.Instant.now() + "\", \"endsAt\": \""
          + java.time.Instant.now().plusSeconds(600) + "\", \"createdBy\": \"t\", \"comment\": \"c\"}";
      assertEquals(200, send(http, "POST", urls.get("alerts") + "/api/v2/silences", silence).statusCode());
      // The exporter reads the status topic.
      HttpResponse<String> metrics = send(http, "GET", urls.get("exporter") + "/metrics", null);
      assertEquals(200, metrics.statusCode());
      try (Admin admin = Admin.create(Map.of("bootstrap.servers", plain))) {
        Set<String> topics = admin.listTopics().names().get(30, TimeUnit.SECONDS);
        assertTrue(topics.containsAll(List.of("_schemas", "sluice-connect-secrets", "sluice-alerts-state",
            "connect-configs", "connect-offsets", "connect-status")), topics.toString());
        admin.createTopics(List.of(new NewTopic("sasl-sink.dlq", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
      }
      try (KafkaProducer<String, String> p = new KafkaProducer<>(Map.of("bootstrap.servers", plain),
          new StringSerializer(), new StringSerializer())) {
        p.send(new ProducerRecord<>("sasl-sink.dlq", "k", "v")).get(30, TimeUnit.SECONDS);
      }
      // The CLI's Kafka clients read the same section.
      PackagedSluice.Run stats = PackagedSluice.run(dir, "dlq", "stats", "sasl-sink.dlq", "--config", good.toString(),
          "--connect-url", urls.get("connect"), "-o", "json");
      assertEquals(0, stats.exit(), stats::toString);
      assertTrue(stats.out().contains("sasl-sink.dlq"), stats::toString);
    } finally {
      assertEquals(0, PackagedSluice.down(up), () -> read(up.stderr()));
    }
    String log = read(up.stderr());
    assertTrue(!log.contains(KAFKA_PASSWORD) && !log.contains("sink-db-pw"), "a password in the log");

    // A wrong password: the start ends, saying why, without the password.
    PackagedSluice.Run refused = PackagedSluice.run(dir, java.util.stream.Stream.concat(java.util.stream.Stream.of(
        "up"), ports(config("bad", "not-the-password")).stream()).toArray(String[]::new));
    assertNotEquals(0, refused.exit(), refused::toString);
    String said = refused.err().lines().filter(x -> x.startsWith("sluice: could not start")).findFirst()
        .orElseThrow(() -> new AssertionError(refused.toString()));
    assertTrue(said.contains("uthentication failed"), said);
    assertTrue(!refused.err().contains("not-the-password") && !refused.out().contains("not-the-password"));
  }

  private static Map<String, String> urls(String readyLine) {
    Map<String, String> urls = new java.util.HashMap<>();
    for (String part : readyLine.split("\\s+")) {
      int eq = part.indexOf('=');
      if (eq > 0) {
        urls.put(part.substring(0, eq), part.substring(eq + 1));
      }
    }
    return urls;
  }

  private static HttpResponse<String> send(HttpClient http, String method, String url, String body) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60))
        .header("Content-Type", "application/json")
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
        .build(), HttpResponse.BodyHandlers.ofString());
  }
}
