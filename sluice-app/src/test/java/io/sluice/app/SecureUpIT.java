package io.sluice.app;

import static io.sluice.app.PackagedSluice.freePort;
import static io.sluice.app.PackagedSluice.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.connect.testing.Eventually;
import io.sluice.http.web.BasicAuth;
import io.sluice.kafka.testing.RequiredTool;
import io.sluice.testing.TestCertificate;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged {@code ./sluice up --web.config.file}: a web configuration in the Prometheus tools' format (TLS from PEM
 * files, bcrypt users, Sluice's roles) on the registry, the metrics server, the alert router and the exporter; each
 * asks for credentials in its own error shape, each role reaches what it may, and Sluice's own components still
 * reach each other (the metrics server scrapes the exporter over TLS with credentials of its own).
 */
class SecureUpIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir static Path dir;
  private static PackagedSluice.Up up;
  private static String registry;
  private static String metrics;
  private static String alerts;
  private static String exporter;
  private static int registryPort;
  private static String connect;
  private static String ui;
  private static int kafkaPort;
  private static HttpClient client;
  private static SSLContext ssl;

  @BeforeAll
  static void up() throws Exception {
    TestCertificate.write(dir);
    Path web = Files.writeString(dir.resolve("web.yml"), """
        tls_server_config:
          cert_file: tls.crt
          key_file: tls.key
        basic_auth_users:
          admin: %s
          reader: %s
          operator: %s
        """.formatted(BasicAuth.hash("admin-pw"), BasicAuth.hash("reader-pw"), BasicAuth.hash("operator-pw")));
    // The roles in a file of their own, so that the web configuration stays one Prometheus reads (checked below).
    Path roles = Files.writeString(dir.resolve("roles.yml"), """
        sluice_roles:
          reader: read
          operator: operate
        """);
    registryPort = freePort();
    int metricsPort = freePort();
    int alertsPort = freePort();
    int exporterPort = freePort();
    int connectPort = freePort();
    kafkaPort = freePort();
    // The embedded broker itself requires SASL (SCRAM-SHA-512) of every client, Sluice's own included.
    Files.writeString(dir.resolve("kafka.pw"), "embedded-kafka-pw\n");
    // The dashboard reads the metrics and alerts APIs as it would a Prometheus and an Alertmanager elsewhere: by URL,
    // with an http_config file each (a read-only user, the CA to trust).
    Files.writeString(dir.resolve("reader.pw"), "reader-pw\n");
    String readerHttpConfig = String.join("\n", "basic_auth:", "  username: reader", "  password_file: reader.pw",
        "tls_config:", "  ca_file: tls.crt", "");
    Files.writeString(dir.resolve("ui-metrics.yml"), readerHttpConfig);
    Files.writeString(dir.resolve("ui-alerts.yml"), readerHttpConfig);
    Path sluiceYaml = Files.writeString(dir.resolve("sluice.yaml"), String.join("\n", "kafka:", "  client:",
        "    security.protocol: SASL_PLAINTEXT", "    sasl.mechanism: SCRAM-SHA-512", "    sasl.username: sluice",
        "    sasl.password.file: " + dir.resolve("kafka.pw"),
        "ui.metrics.url: https://127.0.0.1:" + metricsPort, "ui.metrics.http.config.file: " + dir.resolve("ui-metrics.yml"),
        "ui.alerts.url: https://127.0.0.1:" + alertsPort, "ui.alerts.http.config.file: " + dir.resolve("ui-alerts.yml"),
        ""));
    up = PackagedSluice.up(dir, List.of("--config", sluiceYaml.toString(), "--data-dir", dir.resolve("data").toString(),
        "--kafka-port", "" + kafkaPort,
        "--connect-port", "" + connectPort, "--registry-port", "" + registryPort, "--metrics-port", "" + metricsPort,
        "--alerts-port", "" + alertsPort, "--exporter-port", "" + exporterPort, "--web.config.file", web.toString(),
        "--web.roles.file", roles.toString()));
    registry = "https://127.0.0.1:" + registryPort;
    metrics = "https://127.0.0.1:" + metricsPort;
    alerts = "https://127.0.0.1:" + alertsPort;
    exporter = "https://127.0.0.1:" + exporterPort;
    ui = java.util.Arrays.stream(up.readyLine().split(" ")).filter(p -> p.startsWith("ui=")).findFirst()
        .orElseThrow().substring(3);
    connect = "https://127.0.0.1:" + connectPort;
    ssl = SSLContext.getInstance("TLS");
    ssl.init(null, new X509TrustManager[] {new X509TrustManager() {
      public void checkClientTrusted(X509Certificate[] chain, String type) {}

      public void checkServerTrusted(X509Certificate[] chain, String type) {}

      public X509Certificate[] getAcceptedIssuers() {
        return new X509Certificate[0];
      }
    }}, null);
    client = HttpClient.newBuilder().sslContext(ssl).connectTimeout(Duration.ofSeconds(10)).build();
    sslContext = ssl;
  }

  private static javax.net.ssl.SSLContext sslContext;

  /**
   * A request past a limit, on a connection of its own: the server answers and closes it. A server that closes before
   * it has read what the client sends resets the connection, over TLS before the answer is read; that is a failure.
   */
  private static HttpResponse<String> sendOversized(String method, String url, byte[] body,
      Map<String, String> headers) throws Exception {
    HttpClient fresh = HttpClient.newBuilder().sslContext(sslContext).connectTimeout(Duration.ofSeconds(10)).build();
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60))
        .method(method, HttpRequest.BodyPublishers.ofByteArray(body))
        .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("admin:admin-pw".getBytes(
            StandardCharsets.UTF_8)));
    headers.forEach(b::header);
    try {
      return fresh.send(b.build(), HttpResponse.BodyHandlers.ofString());
    } catch (java.io.IOException e) {
      throw new java.io.IOException(method + " " + url + " (" + body.length + " bytes, headers " + headers.keySet()
          + "): " + e.getMessage(), e);
    }
  }

  @AfterAll
  static void down() throws Exception {
    if (up != null) {
      assertEquals(0, PackagedSluice.down(up), () -> "./sluice up exit on SIGTERM; stderr " + read(up.stderr()));
    }
  }

  private static HttpResponse<String> send(String method, String url, byte[] body, Map<String, String> headers)
      throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60))
        .method(method, HttpRequest.BodyPublishers.ofByteArray(body))
        .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("admin:admin-pw".getBytes(
            StandardCharsets.UTF_8)));
    headers.forEach(b::header);
    return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** A state-changing endpoint and how its API words an error. */
  private record Target(String method, String url, String contentType, Predicate<String> shape) {}

  private static boolean jsonWith(String body, String field) {
    try {
      return JSON.readTree(body).has(field);
    } catch (Exception e) {
      return false;
    }
  }

  /** Secured APIs given by URL are read with the http_config given for each, as Prometheus reads its targets. */
  @Test
  void theDashboardReadsSecuredApisWithTheHttpConfigGivenForEach() throws Exception {
    Path pw = Files.writeString(dir.resolve("ops-ui.pw"), "ops-dashboard-pw\n");
    PackagedSluice.Run added = PackagedSluice.run(dir, "ui", "user", "add", "ops", "--password-file", pw.toString(),
        "--data-dir", dir.resolve("data").toString());
    assertEquals(0, added.exit(), added::toString);
    HttpResponse<String> login = ConsoleLogin.login(client, ui, "ops", "ops-dashboard-pw");
    assertEquals(303, login.statusCode(), login.body());
    String session = ConsoleLogin.session(login);
    HttpResponse<String> query = client.send(HttpRequest.newBuilder(URI.create(ui + "/api/query?query=up"))
        .header("Cookie", session).build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, query.statusCode(), query.body());
    assertEquals("success", JSON.readTree(query.body()).path("status").asText(), query.body());
    HttpResponse<String> firing = client.send(HttpRequest.newBuilder(URI.create(ui + "/api/alerts"))
        .header("Cookie", session).build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, firing.statusCode(), firing.body());
  }

  /** The file this run's surfaces are guarded by is one Prometheus itself accepts (its parser is strict). */
  @Test
  void theWebConfigurationStaysOnePrometheusReads() throws Exception {
    Path promtool = RequiredTool.require("promtool", "Debian package prometheus");
    Process p = new ProcessBuilder(promtool.toString(), "check", "web-config", dir.resolve("web.yml").toString())
        .redirectErrorStream(true).start();
    String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor(), said);
  }

  /**
   * Bad input on every API of the platform: each answers a 4xx in that API's own error shape (never a 5xx), stores
   * nothing, and the platform keeps serving, a client that trickles its request bytes included.
   */
  @Test
  void badInputGetsA4xxInEachApisShapeAndChangesNothing() throws Exception {
    Predicate<String> confluent = b -> jsonWith(b, "error_code");
    Predicate<String> prometheus = b -> b.contains("\"status\":\"error\"") && jsonWith(b, "errorType");
    Predicate<String> alertmanager = b -> !b.isBlank();
    String json = "application/json";
    String form = "application/x-www-form-urlencoded";
    List<Target> targets = List.of(
        new Target("POST", registry + "/subjects/bad-value/versions", json, confluent),
        new Target("POST", registry + "/subjects/bad-value", json, confluent),
        new Target("POST", registry + "/compatibility/subjects/bad-value/versions/latest", json, confluent),
        new Target("PUT", registry + "/config/bad-value", json, confluent),
        new Target("PUT", registry + "/mode/bad-value", json, confluent),
        new Target("POST", connect + "/connectors", json, confluent),
        new Target("PUT", connect + "/connectors/bad/config", json, confluent),
        new Target("PATCH", connect + "/connectors/bad/config", json, confluent),
        new Target("PUT", connect + "/connector-plugins/io.debezium.connector.jdbc.JdbcSinkConnector/config/validate",
            json, confluent),
        new Target("POST", metrics + "/api/v1/query", form, prometheus),
        new Target("POST", metrics + "/api/v1/query_range", form, prometheus),
        new Target("POST", metrics + "/api/v1/query_exemplars", form, prometheus),
        new Target("POST", metrics + "/api/v1/series", form, prometheus),
        new Target("POST", alerts + "/api/v2/silences", json, alertmanager),
        new Target("POST", alerts + "/api/v2/alerts", json, alertmanager),
        new Target("POST", alerts + "/api/v1/alerts", json, alertmanager),
        new Target("POST", exporter + "/metrics", json, b -> true),
        // The dashboard's login form: without its token every body is refused before it is read further.
        new Target("POST", ui + "/login", form, b -> !b.isBlank()));
    byte[] deep = ("{\"schema\": " + "[".repeat(100_000) + "]".repeat(100_000) + "}").getBytes(StandardCharsets.UTF_8);
    Map<String, byte[]> bodies = new java.util.LinkedHashMap<>();
    bodies.put("malformed JSON", "{\"schema\": ".getBytes(StandardCharsets.UTF_8));
    bodies.put("an array", "[1, 2, 3]".getBytes(StandardCharsets.UTF_8));
    bodies.put("wrong types", ("{\"schema\": {\"a\": 1}, \"schemaType\": 7, \"name\": 7, \"config\": 7, "
        + "\"matchers\": 7, \"startsAt\": 7, \"endsAt\": [], \"labels\": 7, \"compatibility\": 7, \"mode\": 7, "
        + "\"query\": 7}").getBytes(StandardCharsets.UTF_8));
    bodies.put("unknown fields only", "{\"zzz\": 1, \"yyy\": {\"x\": null}}".getBytes(StandardCharsets.UTF_8));
    bodies.put("deep nesting", deep);
    bodies.put("invalid UTF-8", new byte[] {'{', '"', 's', 'c', 'h', 'e', 'm', 'a', '"', ':', '"', (byte) 0xC3, 0x28,
        (byte) 0xFF, '"', '}'});
    bodies.put("form nonsense", "query=%ZZ&start=x&end=&step=-1".getBytes(StandardCharsets.UTF_8));
    bodies.put("empty", new byte[0]);
    String subjectsBefore = call("GET", registry + "/subjects", "admin", null).body();
    String connectorsBefore = call("GET", connect + "/connectors", "admin", null).body();
    int silencesBefore = JSON.readTree(call("GET", alerts + "/api/v2/silences", "admin", null).body()).size();
    List<String> wrong = new java.util.ArrayList<>();
    int sent = 0;
    for (Target t : targets) {
      for (Map.Entry<String, byte[]> body : bodies.entrySet()) {
        HttpResponse<String> r = send(t.method(), t.url(), body.getValue(), Map.of("Content-Type", t.contentType()));
        sent++;
        if (r.statusCode() < 400 || r.statusCode() > 499 || !t.shape().test(r.body())) {
          wrong.add(t.method() + " " + t.url() + " with " + body.getKey() + ": " + r.statusCode() + " "
              + r.body().substring(0, Math.min(200, r.body().length())));
        }
      }
      // Past the body limit: 413 (Connect's limit is Sluice's addition; the router's is 4 MiB, the registry's 8).
      HttpResponse<String> big = sendOversized(t.method(), t.url(), new byte[12 << 20],
          Map.of("Content-Type", t.contentType()));
      sent++;
      if (big.statusCode() != 413) {
        wrong.add(t.method() + " " + t.url() + " with 12 MiB: " + big.statusCode());
      }
      HttpResponse<String> header = sendOversized(t.method(), t.url(), "{}".getBytes(StandardCharsets.UTF_8),
          Map.of("Content-Type", t.contentType(), "X-Padding", "x".repeat(64 << 10)));
      sent++;
      if (header.statusCode() != 431) {
        wrong.add(t.method() + " " + t.url() + " with a 64 KiB header: " + header.statusCode());
      }
    }
    assertEquals(List.of(), wrong, sent + " requests sent");

    // Nothing stored, and every API still answers.
    assertEquals(subjectsBefore, call("GET", registry + "/subjects", "admin", null).body());
    assertEquals(connectorsBefore, call("GET", connect + "/connectors", "admin", null).body());
    assertEquals(silencesBefore, JSON.readTree(call("GET", alerts + "/api/v2/silences", "admin", null).body()).size());

    // A client that trickles its request a byte at a time holds its own connection only.
    for (String base : List.of(registry, connect, metrics, alerts, ui)) {
      URI u = URI.create(base);
      try (javax.net.ssl.SSLSocket slow = (javax.net.ssl.SSLSocket) ssl.getSocketFactory()
          .createSocket(u.getHost(), u.getPort())) {
        java.io.OutputStream o = slow.getOutputStream();
        o.write(("POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic " + Base64.getEncoder()
            .encodeToString("admin:admin-pw".getBytes(StandardCharsets.UTF_8)) + "\r\nContent-Type: application/json"
            + "\r\nContent-Length: 1000\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        boolean open = true;
        for (int i = 0; i < 5; i++) {
          try {
            if (open) {
              o.write('{');
              o.flush();
            }
          } catch (java.io.IOException answeredEarly) {
            open = false; // a server may answer (404) before the body is complete; the others must still be served
          }
          Thread.sleep(100);
          String path = base.equals(ui) ? "/-/healthy" : base.equals(metrics) ? "/-/ready"
              : base.equals(alerts) ? "/api/v2/status" : base.equals(connect) ? "/connectors" : "/subjects";
          HttpResponse<String> other = call("GET", base + path, "admin", null);
          assertEquals(200, other.statusCode(), base + " while a client trickles");
        }
      }
    }
  }

  private static HttpResponse<String> call(String method, String url, String user, String body) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30))
        .header("Content-Type", "application/json")
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (user != null) {
      b.header("Authorization", "Basic " + Base64.getEncoder().encodeToString((user + ":" + user + "-pw")
          .getBytes(StandardCharsets.UTF_8)));
    }
    return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void everySurfaceAsksForCredentialsInItsOwnShapeAndEachRoleReachesWhatItMay() throws Exception {
    assertTrue(up.readyLine().contains(registry) && up.readyLine().contains(metrics), up.readyLine());

    // The registry: Confluent's codes.
    HttpResponse<String> anonymous = call("GET", registry + "/subjects", null, null);
    assertEquals(401, anonymous.statusCode());
    assertEquals(40101, JSON.readTree(anonymous.body()).path("error_code").asInt(), anonymous.body());
    assertTrue(anonymous.headers().firstValue("WWW-Authenticate").orElse("").startsWith("Basic"));
    assertEquals(200, call("GET", registry + "/subjects", "reader", null).statusCode());
    String schema = "{\"schema\": \"{\\\"type\\\": \\\"string\\\"}\"}";
    HttpResponse<String> denied = call("POST", registry + "/subjects/secured-value/versions", "reader", schema);
    assertEquals(403, denied.statusCode());
    assertEquals(40301, JSON.readTree(denied.body()).path("error_code").asInt(), denied.body());
    assertEquals(200, call("POST", registry + "/subjects/secured-value/versions", "admin", schema).statusCode());
    assertEquals(200, call("POST", registry + "/subjects/secured-value", "reader", schema).statusCode(),
        "a lookup only reads");

    // The metrics server: Prometheus' error shape; readiness stays open.
    HttpResponse<String> query = call("GET", metrics + "/api/v1/query?query=up", null, null);
    assertEquals(401, query.statusCode());
    JsonNode error = JSON.readTree(query.body());
    assertEquals("error", error.path("status").asText(), query.body());
    assertEquals("unauthorized", error.path("errorType").asText(), query.body());
    assertEquals(200, call("GET", metrics + "/-/ready", null, null).statusCode());
    assertEquals(403, call("POST", metrics + "/-/reload", "operator", null).statusCode());

    // The router: operators silence, readers read.
    assertEquals(200, call("GET", alerts + "/api/v2/status", "reader", null).statusCode());
    String silence = "{\"matchers\": [{\"name\": \"connector\", \"value\": \"x\", \"isRegex\": false}], "
        + "\"startsAt\": \"" + Instant.now() + "\", \"endsAt\": \"" + Instant.now().plusSeconds(600)
        + "\", \"createdBy\": \"operator\", \"comment\": \"maintenance\"}";
    assertEquals(403, call("POST", alerts + "/api/v2/silences", "reader", silence).statusCode());
    assertEquals(200, call("POST", alerts + "/api/v2/silences", "operator", silence).statusCode());

    // The embedded broker: SCRAM clients in, plain ones out.
    String kafka = "127.0.0.1:" + kafkaPort;
    try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(Map.of(
        "bootstrap.servers", kafka, "security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "SCRAM-SHA-512",
        "sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"sluice\" "
            + "password=\"embedded-kafka-pw\";"))) {
      assertTrue(admin.listTopics().names().get().contains("_schemas"));
    }
    try (org.apache.kafka.clients.admin.Admin plainClient = org.apache.kafka.clients.admin.Admin.create(Map.of(
        "bootstrap.servers", kafka, "default.api.timeout.ms", 3000, "request.timeout.ms", 2000))) {
      assertThrows(Exception.class, () -> plainClient.listTopics().names().get(), "a client without SASL is refused");
    }

    // Connect, through its REST extension: Connect's error shape; its health stays open.
    HttpResponse<String> connectors = call("GET", connect + "/connectors", null, null);
    assertEquals(401, connectors.statusCode(), connectors.body());
    assertEquals(401, JSON.readTree(connectors.body()).path("error_code").asInt(), connectors.body());
    assertTrue(connectors.headers().firstValue("WWW-Authenticate").orElse("").startsWith("Basic"));
    assertEquals(200, call("GET", connect + "/connectors", "reader", null).statusCode());
    String sink = "{\"name\": \"secured-sink\", \"config\": {\"connector.class\": "
        + "\"io.debezium.connector.jdbc.JdbcSinkConnector\", \"topics\": \"secured\", \"connection.url\": "
        + "\"jdbc:postgresql://127.0.0.1:1/none\", \"connection.username\": \"u\", \"connection.password\": "
        + "\"sink-db-pw\", \"tasks.max\": \"1\"}}";
    HttpResponse<String> readerCreates = call("POST", connect + "/connectors", "reader", sink);
    assertEquals(403, readerCreates.statusCode(), readerCreates.body());
    assertEquals(403, JSON.readTree(readerCreates.body()).path("error_code").asInt(), readerCreates.body());
    assertEquals(403, call("POST", connect + "/connectors", "operator", sink).statusCode());
    HttpResponse<String> created = call("POST", connect + "/connectors", "admin", sink);
    assertEquals(201, created.statusCode(), created.body());
    assertEquals(202, call("PUT", connect + "/connectors/secured-sink/pause", "operator", null).statusCode());
    assertEquals(403, call("PUT", connect + "/connectors/secured-sink/resume", "reader", null).statusCode());
    assertEquals(403, call("DELETE", connect + "/connectors/secured-sink", "operator", null).statusCode());
    // A delete goes through Sluice's addition, which stops the connector and backs up its offsets by calling this
    // worker's own API over TLS.
    HttpResponse<String> deleted = call("DELETE", connect + "/connectors/secured-sink", "admin", null);
    assertEquals(204, deleted.statusCode(), deleted.body());
    assertEquals(200, call("GET", connect + "/health", null, null).statusCode());

    // The exporter.
    assertEquals(401, call("GET", exporter + "/metrics", null, null).statusCode());
    assertEquals(200, call("GET", exporter + "/metrics", "reader", null).statusCode());

    // Sluice's own traffic still flows: the metrics server scrapes the exporter over TLS with its own credentials.
    String up = URLEncoder.encode("up{job=\"sluice\"}", StandardCharsets.UTF_8);
    Eventually.await("the exporter scraped", Duration.ofSeconds(90), () -> {
      try {
        return JSON.readTree(call("GET", metrics + "/api/v1/query?query=" + up, "reader", null).body())
            .path("data").path("result");
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }, r -> r.size() == 1 && r.get(0).path("value").get(1).asText().equals("1"));

    // The CLI: credentials from --user and --password-file (never a flag value), the server's CA from --cacert.
    Path avsc = Files.writeString(dir.resolve("s.avsc"), "{\"type\": \"string\"}");
    Path password = Files.writeString(dir.resolve("reader.pw"), "reader-pw\n");
    String[] check = {"schema", "check", "--subject", "secured-value", "--file", avsc.toString(), "--registry", registry,
        "--cacert", dir.resolve("tls.crt").toString()};
    PackagedSluice.Run refused = PackagedSluice.run(dir, check);
    assertEquals(3, refused.exit(), refused::toString);
    assertTrue(refused.err().contains("401"), refused::toString);
    String[] withUser = java.util.stream.Stream.concat(java.util.Arrays.stream(check),
        java.util.stream.Stream.of("--user", "reader", "--password-file", password.toString())).toArray(String[]::new);
    PackagedSluice.Run allowed = PackagedSluice.run(dir, withUser);
    assertEquals(0, allowed.exit(), allowed::toString);
    assertTrue(!allowed.out().contains("reader-pw") && !allowed.err().contains("reader-pw"), "no password printed");
    PackagedSluice.Run list = PackagedSluice.run(dir, "connectors", "list", "--connect-url", connect, "--cacert",
        dir.resolve("tls.crt").toString(), "--user", "reader", "--password-file", password.toString());
    assertEquals(0, list.exit(), list::toString);

    // Every state-changing request is one audit line, refused ones too; no password reaches the log.
    String log = read(SecureUpIT.up.stderr());
    assertTrue(log.contains("registry POST /subjects/secured-value/versions user=admin address=127.0.0.1 status=200"),
        log.lines().filter(l -> l.contains("audit")).toList().toString());
    assertTrue(log.contains("registry POST /subjects/secured-value/versions user=reader address=127.0.0.1 status=403"));
    assertTrue(log.contains("alerts POST /api/v2/silences user=operator address=127.0.0.1 status=200"));
    assertTrue(log.contains("connect POST /connectors user=reader address=127.0.0.1 status=403"),
        log.lines().filter(l -> l.contains("audit")).toList().toString());
    assertTrue(log.contains("connect DELETE /connectors/secured-sink user=admin address=127.0.0.1 status=204"));
    for (String secret : List.of("admin-pw", "reader-pw", "operator-pw", "sink-db-pw", "embedded-kafka-pw")) {
      assertTrue(!log.contains(secret), secret + " in the log");
    }

    // No plain HTTP on a TLS port.
    assertThrows(java.io.IOException.class, () -> HttpClient.newHttpClient().send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + registryPort + "/subjects")).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString()));
  }
}
