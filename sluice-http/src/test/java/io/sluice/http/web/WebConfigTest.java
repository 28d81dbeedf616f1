package io.sluice.http.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.http.HttpResponse;
import io.sluice.http.HttpServer;
import io.sluice.testing.TestCertificate;
import java.math.BigInteger;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLContext;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A server under the exporter toolkit's web configuration: TLS from PEM files, bcrypt users, roles, headers. */
class WebConfigTest {
  @TempDir Path dir;

  /** Trusts whatever the server shows, and remembers it: the test checks the serial, not a chain. */
  private static HttpClient client(AtomicReference<X509Certificate> seen) throws Exception {
    SSLContext ssl = SSLContext.getInstance("TLS");
    ssl.init(null, new X509TrustManager[] {new X509TrustManager() {
      public void checkClientTrusted(X509Certificate[] chain, String type) {}

      public void checkServerTrusted(X509Certificate[] chain, String type) {
        seen.set(chain[0]);
      }

      public X509Certificate[] getAcceptedIssuers() {
        return new X509Certificate[0];
      }
    }}, null);
    return HttpClient.newBuilder().sslContext(ssl).version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5)).build();
  }

  private static java.net.http.HttpResponse<String> send(HttpClient c, String method, String url, String user,
      String password) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).method(method,
        method.equals("GET") ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString("{}"));
    if (user != null) {
      b.header("Authorization", "Basic " + Base64.getEncoder().encodeToString((user + ":" + password)
          .getBytes(StandardCharsets.UTF_8)));
    }
    return c.send(b.build(), java.net.http.HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void tlsUsersRolesAndHeadersAsTheExporterToolkitReadsThem() throws Exception {
    Path cert = dir.resolve("server.crt");
    Path key = dir.resolve("server.key");
    TestCertificate.writeRsa(cert, key, 1);
    Path file = Files.writeString(dir.resolve("web.yml"), """
        tls_server_config:
          cert_file: server.crt
          key_file: server.key
        basic_auth_users:
          alice: %s
          bob: %s
        sluice_roles:
          bob: read
        http_server_config:
          headers:
            X-Frame-Options: deny
        """.formatted(BasicAuth.hash("alice-pw"), BasicAuth.hash("bob-pw")));
    WebConfig web = WebConfig.load(file);
    HttpServer server = HttpServer.builder("web-test").port(0).webConfig(web).maxRequestBytes(1 << 20)
        .refusal((status, message) -> HttpResponse.json(status, Map.of("error_code", status, "message", message)))
        .get("/things", req -> HttpResponse.json(200, Map.of("things", 1)))
        .post("/things", req -> HttpResponse.json(200, Map.of("created", true)))
        .get("/-/ready", req -> HttpResponse.text(200, "text/plain", "ready\n"))
        .start();
    try {
      assertEquals("https", server.scheme());
      String base = "https://127.0.0.1:" + server.port();
      AtomicReference<X509Certificate> seen = new AtomicReference<>();
      HttpClient c = client(seen);

      java.net.http.HttpResponse<String> anonymous = send(c, "GET", base + "/things", null, null);
      assertEquals(401, anonymous.statusCode());
      assertTrue(anonymous.headers().firstValue("WWW-Authenticate").orElse("").startsWith("Basic"));
      assertTrue(anonymous.body().contains("\"error_code\":401"), "the API's own error shape: " + anonymous.body());
      assertEquals(BigInteger.ONE, seen.get().getSerialNumber());
      assertEquals(401, send(c, "GET", base + "/things", "alice", "wrong").statusCode());
      assertEquals(401, send(c, "GET", base + "/things", "mallory", "alice-pw").statusCode());

      assertEquals(200, send(c, "GET", base + "/things", "bob", "bob-pw").statusCode());
      java.net.http.HttpResponse<String> readOnly = send(c, "POST", base + "/things", "bob", "bob-pw");
      assertEquals(403, readOnly.statusCode());
      assertTrue(readOnly.body().contains("needs the role admin"), readOnly.body());
      java.net.http.HttpResponse<String> admin = send(c, "POST", base + "/things", "alice", "alice-pw");
      assertEquals(200, admin.statusCode());
      assertEquals("deny", admin.headers().firstValue("X-Frame-Options").orElse(null));
      assertEquals(200, send(c, "GET", base + "/-/ready", null, null).statusCode(), "readiness stays open");
      // Past the limits over TLS: the answer arrives (the rest of the body is read and dropped first).
      String auth = "Basic " + Base64.getEncoder().encodeToString("alice:alice-pw".getBytes(StandardCharsets.UTF_8));
      java.net.http.HttpResponse<String> big = c.send(HttpRequest.newBuilder(URI.create(base + "/things"))
          .header("Authorization", auth).POST(HttpRequest.BodyPublishers.ofByteArray(new byte[12 << 20])).build(),
          java.net.http.HttpResponse.BodyHandlers.ofString());
      assertEquals(413, big.statusCode(), big.body());
      java.net.http.HttpResponse<String> header = c.send(HttpRequest.newBuilder(URI.create(base + "/things"))
          .header("Authorization", auth).header("X-Padding", "x".repeat(64 << 10))
          .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), java.net.http.HttpResponse.BodyHandlers.ofString());
      assertEquals(431, header.statusCode(), header.body());
      assertThrows(java.io.IOException.class, () -> HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + server.port() + "/-/ready")).build(),
          java.net.http.HttpResponse.BodyHandlers.ofString()), "no plain HTTP on a TLS port");

      // A renewed certificate is served without a restart.
      Thread.sleep(1_100); // a new modification time, whatever the file system's resolution
      TestCertificate.writeRsa(cert, key, 2);
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (System.nanoTime() < deadline && !seen.get().getSerialNumber().equals(BigInteger.TWO)) {
        Thread.sleep(500);
        client(seen).send(HttpRequest.newBuilder(URI.create(base + "/-/ready")).build(),
            java.net.http.HttpResponse.BodyHandlers.ofString());
      }
      assertEquals(BigInteger.TWO, seen.get().getSerialNumber(), "the renewed certificate");
    } finally {
      server.close();
    }
  }

  @Test
  void aBrokenFileIsRefusedWithItsReason() throws Exception {
    Path unknown = Files.writeString(dir.resolve("a.yml"), "basic_auth_user:\n  alice: x\n");
    assertTrue(assertThrows(IllegalArgumentException.class, () -> WebConfig.load(unknown)).getMessage()
        .contains("unknown field basic_auth_user"));
    Path plain = Files.writeString(dir.resolve("b.yml"), "basic_auth_users:\n  alice: hunter2\n");
    String why = assertThrows(IllegalArgumentException.class, () -> WebConfig.load(plain)).getMessage();
    assertTrue(why.contains("not a bcrypt hash") && !why.contains("hunter2"), why);
    Path role = Files.writeString(dir.resolve("c.yml"), "basic_auth_users:\n  alice: " + BasicAuth.hash("x")
        + "\nsluice_roles:\n  alice: owner\n");
    assertTrue(assertThrows(IllegalArgumentException.class, () -> WebConfig.load(role)).getMessage()
        .contains("unknown role 'owner'"));
    Path noKey = Files.writeString(dir.resolve("d.yml"), "tls_server_config:\n  cert_file: x.crt\n");
    assertTrue(assertThrows(IllegalArgumentException.class, () -> WebConfig.load(noKey)).getMessage()
        .contains("needs cert_file and key_file"));
    assertNotEquals(BasicAuth.hash("x"), BasicAuth.hash("x"), "salted");
  }

  /** Prometheus refuses a web configuration with a key it does not know, so roles can live in a file of their own. */
  @Test
  void rolesInAFileOfTheirOwnLeaveTheWebConfigurationAsPrometheusReadsIt() throws Exception {
    Path web = Files.writeString(dir.resolve("shared-web.yml"), """
        basic_auth_users:
          alice: %s
          bob: %s
          carol: %s
        sluice_roles:
          bob: admin
          carol: operate
        """.formatted(BasicAuth.hash("a"), BasicAuth.hash("b"), BasicAuth.hash("c")));
    Path roles = Files.writeString(dir.resolve("roles.yml"), "sluice_roles:\n  bob: read\n");
    WebConfig both = WebConfig.load(web, roles);
    assertEquals(Role.ADMIN, both.roleOf("alice"), "a user without a role is an admin");
    assertEquals(Role.READ, both.roleOf("bob"), "the roles file overrides the web configuration");
    assertEquals(Role.OPERATE, both.roleOf("carol"));
    assertEquals(roles, both.rolesSource());

    Path stranger = Files.writeString(dir.resolve("roles-stranger.yml"), "sluice_roles:\n  mallory: read\n");
    assertTrue(assertThrows(IllegalArgumentException.class, () -> WebConfig.load(web, stranger)).getMessage()
        .contains("mallory, who is not in basic_auth_users"));
    Path other = Files.writeString(dir.resolve("roles-other.yml"), "basic_auth_users:\n  bob: x\n");
    assertTrue(assertThrows(IllegalArgumentException.class, () -> WebConfig.load(web, other)).getMessage()
        .contains("unknown field basic_auth_users"));
    Path list = Files.writeString(dir.resolve("roles-list.yml"), "sluice_roles:\n  - bob\n");
    assertTrue(assertThrows(IllegalArgumentException.class, () -> WebConfig.load(web, list)).getMessage()
        .contains("maps user names to read, operate or admin"));
  }
}
