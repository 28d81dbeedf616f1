package io.sluice.app;

import static io.sluice.app.PackagedSluice.freePort;
import static io.sluice.app.PackagedSluice.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.connect.testing.BinlogMariaDb;
import io.sluice.connect.testing.Pipeline;
import io.sluice.http.web.BasicAuth;
import io.sluice.kafka.EmbeddedKafka;
import io.sluice.testing.TestCertificate;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
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
 * A whole pipeline (PostgreSQL, Debezium, the JDBC sink) through the packaged {@code ./sluice up}, secured everywhere
 * a secret can go, each secret a known value: the Kafka cluster accepts clients only over SASL_SSL with SCRAM-SHA-512
 * ({@code kafka.client} in {@code sluice.yaml}, the password in a file), every HTTP surface asks for credentials (the
 * web configuration), the connectors carry database passwords, and the router's receivers carry a webhook password, an
 * SMTP password, a webhook URL and a PagerDuty key, inline and in {@code *_file}s. None of the secrets may appear in
 * any API response, any CLI output or the log of the whole run; and a wrong Kafka password stops the start with a
 * clear message.
 */
class SecuredPipelineIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String KAFKA_PASSWORD = "kafka-scram-pw-4711";
  private static final String WEB_PASSWORD = "web-admin-pw-0815";
  private static final String RECEIVER_PASSWORD = "receiver-basic-pw-1234";
  private static final String SMTP_PASSWORD = "smtp-auth-pw-5678";
  private static final String HOOK_TOKEN = "hook-url-token-9012";
  private static final String PAGERDUTY_KEY = "pagerduty-routing-key-3456";
  private static final List<String> SECRETS = List.of(KAFKA_PASSWORD, WEB_PASSWORD, RECEIVER_PASSWORD, SMTP_PASSWORD,
      HOOK_TOKEN, PAGERDUTY_KEY, Pipeline.CDC_PASSWORD);
  @TempDir static Path dir;
  private static EmbeddedKafka kafka;
  private static String plain;
  private static String secured;
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  /** Everything the run printed or answered, searched for the secrets at the end. */
  private static final List<String> seen = new ArrayList<>();

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
    Path web = Files.writeString(dir.resolve("web.yml"), "basic_auth_users:\n  admin: " + BasicAuth.hash(WEB_PASSWORD)
        + "\n");
    Files.writeString(dir.resolve("hook.url"), "http://127.0.0.1:" + freePort() + "/" + HOOK_TOKEN + "\n");
    Files.writeString(dir.resolve("pagerduty.key"), PAGERDUTY_KEY + "\n");
    Path alerts = Files.writeString(dir.resolve("alertmanager.yml"), """
        route:
          receiver: hook
          routes:
            - matchers: ['severity="mail"']
              receiver: mail
            - matchers: ['severity="page"']
              receiver: pager
        receivers:
          - name: hook
            webhook_configs:
              - url_file: hook.url
                http_config:
                  basic_auth:
                    username: alerts
                    password: %s
          - name: mail
            email_configs:
              - to: ops@example.test
                from: sluice@example.test
                smarthost: 127.0.0.1:25
                auth_username: sluice
                auth_password: %s
          - name: pager
            pagerduty_configs:
              - routing_key_file: pagerduty.key
        """.formatted(RECEIVER_PASSWORD, SMTP_PASSWORD));
    return Files.writeString(dir.resolve(name + ".yaml"), """
        web.config.file: %s
        alerts.config: %s
        kafka:
          bootstrap.servers: %s
          client:
            security.protocol: SASL_SSL
            sasl.mechanism: SCRAM-SHA-512
            sasl.username: sluice
            sasl.password.file: %s
            ssl.truststore.type: PEM
            ssl.truststore.location: %s
        """.formatted(web, alerts, secured, passwordFile, dir.resolve("tls.crt")));
  }

  private static List<String> ports(Path config) throws Exception {
    return List.of("--config", config.toString(), "--data-dir", dir.resolve("data-" + config.getFileName()).toString(),
        "--connect-port", "" + freePort(), "--registry-port", "" + freePort(), "--metrics-port", "" + freePort(),
        "--alerts-port", "" + freePort(), "--exporter-port", "" + freePort(), "--ui-port", "" + freePort());
  }

  private static HttpResponse<String> call(String method, String url, String body) throws Exception {
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60))
        .header("Content-Type", "application/json")
        .header("Authorization", "Basic " + Base64.getEncoder().encodeToString(("admin:" + WEB_PASSWORD)
            .getBytes(StandardCharsets.UTF_8)))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
        .build(), HttpResponse.BodyHandlers.ofString());
    seen.add(method + " " + url + " -> " + r.statusCode() + " " + r.body());
    return r;
  }

  private static PackagedSluice.Run cli(String... args) throws Exception {
    PackagedSluice.Run r = PackagedSluice.run(dir, args);
    seen.add("sluice " + String.join(" ", args) + " -> " + r);
    return r;
  }

  /**
   * A MariaDB source keeps its schema history in Kafka through a producer and consumer of its own, which Connect's
   * client settings do not reach. Given no {@code schema.history.*} settings at all, it reaches the SASL_SSL cluster as
   * the worker does: its config holds references to the worker's own settings, never the password.
   */
  private static void mariaDbSourceReachesTheSecuredClusterWithoutSchemaHistorySettings(String connect)
      throws Exception {
    try (BinlogMariaDb db = BinlogMariaDb.start(Files.createDirectories(dir.resolve("mariadb")), "secured source")) {
      db.execute("CREATE DATABASE shop", "CREATE TABLE shop.orders (id int PRIMARY KEY, item varchar(40) NOT NULL)",
          "INSERT INTO shop.orders VALUES (1, 'one'), (2, 'two')");
      Map<String, String> config = db.sourceConfig("securedmaria", "5402");
      HttpResponse<String> created = call("POST", connect + "/connectors", JSON.writeValueAsString(Map.of(
          "name", "secured-mariadb", "config", config)));
      assertEquals(201, created.statusCode(), created.body());
      try (Admin admin = Admin.create(Map.of("bootstrap.servers", plain))) {
        try {
          io.sluice.connect.testing.Eventually.await("the MariaDB snapshot in its topic", Duration.ofSeconds(120),
              // Both rows, and the commit marker of their transaction where it came after them.
              () -> endOffset(admin, "securedmaria.shop.orders"), n -> n >= 2);
        } catch (AssertionError e) {
          throw new AssertionError(e.getMessage() + "; status: "
              + call("GET", connect + "/connectors/secured-mariadb/status", null).body(), e);
        }
        assertTrue(admin.listTopics().names().get(30, TimeUnit.SECONDS).contains("securedmaria-schema-history"));
      }
      JsonNode stored = JSON.readTree(call("GET", connect + "/connectors/secured-mariadb/config", null).body());
      assertEquals("${sluice-kafka:sasl.jaas.config}",
          stored.path("schema.history.internal.producer.sasl.jaas.config").asText(), stored.toString());
      assertEquals("${sluice-kafka:bootstrap.servers}",
          stored.path("schema.history.internal.kafka.bootstrap.servers").asText(), stored.toString());
      assertEquals(200, call("GET", connect + "/connectors/secured-mariadb/tasks", null).statusCode());
      // The worker's credentials stand only for the Kafka settings of their name.
      Map<String, String> stealing = new java.util.LinkedHashMap<>(config);
      stealing.put("database.hostname", "${sluice-kafka:sasl.jaas.config}");
      HttpResponse<String> refused = call("PUT", connect + "/connectors/secured-mariadb-2/config",
          JSON.writeValueAsString(stealing));
      assertEquals(400, refused.statusCode(), refused.body());
      assertEquals(204, call("DELETE", connect + "/connectors/secured-mariadb", null).statusCode());
    }
  }

  private static long endOffset(Admin admin, String topic) {
    try {
      var tp = new org.apache.kafka.common.TopicPartition(topic, 0);
      return admin.listOffsets(Map.of(tp, org.apache.kafka.clients.admin.OffsetSpec.latest())).partitionResult(tp)
          .get(10, TimeUnit.SECONDS).offset();
    } catch (Exception notYet) {
      return -1;
    }
  }

  @Test
  void aSecuredPipelineRunsAndNoSecretShowsAnywhere() throws Exception {
    Path good = config("good", KAFKA_PASSWORD);
    Path webPassword = Files.writeString(dir.resolve("web.pw"), WEB_PASSWORD + "\n");
    PackagedSluice.Up up = PackagedSluice.up(dir, ports(good));
    Pipeline pipeline = new Pipeline("secured_" + ProcessHandle.current().pid());
    try {
      Map<String, String> urls = urls(up.readyLine());
      String connect = urls.get("connect");
      // The registry's log, over SASL_SSL.
      assertEquals(200, call("POST", urls.get("registry") + "/subjects/secured-value/versions",
          "{\"schema\": \"{\\\"type\\\": \\\"string\\\"}\"}").statusCode());
      // A pipeline whose connectors carry the database password.
      pipeline.insert(1, 20);
      HttpResponse<String> source = call("POST", connect + "/connectors", JSON.writeValueAsString(Map.of(
          "name", "secured-source", "config", pipeline.sourceConfig(pipeline.name + "_slot", Map.of()))));
      assertEquals(201, source.statusCode(), source.body());
      HttpResponse<String> sink = call("POST", connect + "/connectors", JSON.writeValueAsString(Map.of(
          "name", "secured-sink", "config", pipeline.sinkConfig())));
      assertEquals(201, sink.statusCode(), sink.body());
      pipeline.awaitSinkMatchesSource();
      pipeline.insert(21, 30);
      pipeline.awaitSinkMatchesSource();
      JsonNode stored = JSON.readTree(call("GET", connect + "/connectors/secured-source/config", null).body());
      assertTrue(stored.path("database.password").asText().startsWith("${sluice:"), stored.toString());
      mariaDbSourceReachesTheSecuredClusterWithoutSchemaHistorySettings(connect);
      // The alert state, over SASL_SSL, and the router's view of its own configuration.
      String silence = "{\"matchers\": [{\"name\": \"connector\", \"value\": \"x\", \"isRegex\": false}], "
          + "\"startsAt\": \"" + Instant.now() + "\", \"endsAt\": \"" + Instant.now().plusSeconds(600)
          + "\", \"createdBy\": \"t\", \"comment\": \"c\"}";
      assertEquals(200, call("POST", urls.get("alerts") + "/api/v2/silences", silence).statusCode());
      HttpResponse<String> status = call("GET", urls.get("alerts") + "/api/v2/status", null);
      assertTrue(status.body().contains("<secret>"), status.body());
      // Everything else a user reads.
      for (String path : List.of("/connectors?expand=status&expand=info", "/connectors/secured-source",
          "/connectors/secured-source/tasks", "/connectors/secured-sink/config", "/connectors/secured-source/offsets",
          "/connectors/secured-sink/status")) {
        assertEquals(200, call("GET", connect + path, null).statusCode(), path);
      }
      call("GET", urls.get("alerts") + "/api/v1/status", null);
      call("GET", urls.get("metrics") + "/api/v1/status/config", null);
      call("GET", urls.get("metrics") + "/api/v1/targets", null);
      call("GET", urls.get("registry") + "/subjects", null);
      call("GET", urls.get("exporter") + "/metrics", null);
      try (Admin admin = Admin.create(Map.of("bootstrap.servers", plain))) {
        Set<String> topics = admin.listTopics().names().get(30, TimeUnit.SECONDS);
        assertTrue(topics.containsAll(List.of("_schemas", "sluice-connect-secrets", "sluice-alerts-state",
            "sluice-task-counters", "connect-configs", "connect-offsets", "connect-status", pipeline.topic())),
            topics.toString());
        assertTrue(topics.contains("secured-sink.dlq"), "the sink's dead-letter topic, made by Connect over SASL_SSL");
      }
      try (KafkaProducer<String, String> p = new KafkaProducer<>(Map.of("bootstrap.servers", plain),
          new StringSerializer(), new StringSerializer())) {
        p.send(new ProducerRecord<>("secured-sink.dlq", "k", "v")).get(30, TimeUnit.SECONDS);
      }
      // The CLI, with the web password from a file and the Kafka settings from sluice.yaml.
      String[] auth = {"--config", good.toString(), "--connect-url", connect, "--alerts-url", urls.get("alerts"),
          "--registry", urls.get("registry"), "--metrics-url", urls.get("metrics"), "--user", "admin",
          "--password-file", webPassword.toString()};
      PackagedSluice.Run stats = cli(with(auth, "dlq", "stats", "secured-sink.dlq", "-o", "json"));
      assertEquals(0, stats.exit(), stats::toString);
      assertTrue(stats.out().contains("secured-sink.dlq"), stats::toString);
      for (String[] read : List.of(new String[] {"connectors", "list"},
          new String[] {"connectors", "describe", "secured-source", "-o", "json"},
          new String[] {"offsets", "show", "secured-source"})) {
        PackagedSluice.Run r = cli(with(auth, read));
        assertEquals(0, r.exit(), r::toString);
      }
      PackagedSluice.Run paused = cli(with(auth, "connectors", "pause", "secured-sink"));
      assertEquals(0, paused.exit(), paused::toString);
      assertEquals(0, cli("alerts", "check-config", dir.resolve("alertmanager.yml").toString()).exit());
    } finally {
      assertEquals(0, PackagedSluice.down(up), () -> read(up.stderr()));
    }
    seen.add(read(up.stderr()));
    seen.addAll(up.out());
    try (var files = Files.walk(dir.resolve("data-good.yaml"))) {
      for (Path f : files.filter(f -> f.getFileName().toString().endsWith(".log")).toList()) {
        seen.add(Files.readString(f));
      }
    }
    for (String secret : SECRETS) {
      for (String text : seen) {
        assertTrue(!text.contains(secret), () -> secret + " shows in: " + text.substring(0, Math.min(3000,
            text.length())));
      }
    }

    // A wrong Kafka password: the start ends, saying why, without the password.
    PackagedSluice.Run refused = PackagedSluice.run(dir, java.util.stream.Stream.concat(java.util.stream.Stream.of(
        "up"), ports(config("bad", "not-the-password")).stream()).toArray(String[]::new));
    assertNotEquals(0, refused.exit(), refused::toString);
    String said = refused.err().lines().filter(x -> x.startsWith("sluice: could not start")).findFirst()
        .orElseThrow(() -> new AssertionError(refused.toString()));
    assertTrue(said.contains("uthentication failed"), said);
    assertTrue(!refused.err().contains("not-the-password") && !refused.out().contains("not-the-password"));
  }

  private static String[] with(String[] flags, String... args) {
    return java.util.stream.Stream.concat(java.util.stream.Stream.of(args), java.util.stream.Stream.of(flags))
        .toArray(String[]::new);
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
}
