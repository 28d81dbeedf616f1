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
  private static HttpClient client;

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
        sluice_roles:
          reader: read
          operator: operate
        """.formatted(BasicAuth.hash("admin-pw"), BasicAuth.hash("reader-pw"), BasicAuth.hash("operator-pw")));
    registryPort = freePort();
    int metricsPort = freePort();
    int alertsPort = freePort();
    int exporterPort = freePort();
    int connectPort = freePort();
    up = PackagedSluice.up(dir, List.of("--data-dir", dir.resolve("data").toString(), "--kafka-port", "" + freePort(),
        "--connect-port", "" + connectPort, "--registry-port", "" + registryPort, "--metrics-port", "" + metricsPort,
        "--alerts-port", "" + alertsPort, "--exporter-port", "" + exporterPort, "--web.config.file", web.toString()));
    registry = "https://127.0.0.1:" + registryPort;
    metrics = "https://127.0.0.1:" + metricsPort;
    alerts = "https://127.0.0.1:" + alertsPort;
    exporter = "https://127.0.0.1:" + exporterPort;
    connect = "https://127.0.0.1:" + connectPort;
    SSLContext ssl = SSLContext.getInstance("TLS");
    ssl.init(null, new X509TrustManager[] {new X509TrustManager() {
      public void checkClientTrusted(X509Certificate[] chain, String type) {}

      public void checkServerTrusted(X509Certificate[] chain, String type) {}

      public X509Certificate[] getAcceptedIssuers() {
        return new X509Certificate[0];
      }
    }}, null);
    client = HttpClient.newBuilder().sslContext(ssl).connectTimeout(Duration.ofSeconds(10)).build();
  }

  @AfterAll
  static void down() throws Exception {
    if (up != null) {
      assertEquals(0, PackagedSluice.down(up), () -> "./sluice up exit on SIGTERM; stderr " + read(up.stderr()));
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
    assertEquals(2, refused.exit(), refused::toString);
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
    for (String secret : List.of("admin-pw", "reader-pw", "operator-pw", "sink-db-pw")) {
      assertTrue(!log.contains(secret), secret + " in the log");
    }

    // No plain HTTP on a TLS port.
    assertThrows(java.io.IOException.class, () -> HttpClient.newHttpClient().send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + registryPort + "/subjects")).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString()));
  }
}
