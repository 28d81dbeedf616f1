package io.sluice.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.sun.net.httpserver.HttpServer;
import io.sluice.client.testing.HttpConfigRefusals;
import io.sluice.client.testing.RecordingServer;
import io.sluice.testing.TestCa;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An http_config in a file of its own, as the console reads one for a secured Prometheus or Alertmanager. */
class HttpConfigTest {
  @TempDir Path dir;

  @Test
  void aFileOfItsOwnResolvesItsPathsAgainstItsFolderAndReadsThePasswordWhenUsed() throws Exception {
    Files.writeString(dir.resolve("reader.pw"), "first-pw\n");
    Path file = Files.writeString(dir.resolve("ui-metrics.yml"),
        "basic_auth:\n  username: reader\n  password_file: reader.pw\ntls_config:\n  ca_file: ca.crt\n");
    ClientOptions c = HttpConfig.load(file);
    assertEquals(dir.resolve("ca.crt").toAbsolutePath(), c.tls().caFile().toAbsolutePath());
    assertEquals("Basic " + Base64.getEncoder().encodeToString("reader:first-pw".getBytes(StandardCharsets.UTF_8)),
        c.authorization().orElseThrow());
    Files.writeString(dir.resolve("reader.pw"), "rotated-pw\n");
    assertTrue(c.authorization().orElseThrow().endsWith(Base64.getEncoder().encodeToString(
        "reader:rotated-pw".getBytes(StandardCharsets.UTF_8))), "a rotated password file is read at its next use");
    assertTrue(HttpConfig.load(Files.writeString(dir.resolve("empty.yml"), "")).authorization().isEmpty());
  }

  @Test
  void aBrokenFileIsRefusedWithoutQuotingAValue() throws Exception {
    Path unknown = Files.writeString(dir.resolve("a.yml"), "basic_auth:\n  username: u\n  password: hunter2\n"
        + "scheme: https\n");
    String why = assertThrows(IllegalArgumentException.class, () -> HttpConfig.load(unknown)).getMessage();
    assertTrue(why.contains("field scheme not found in type http_config"), why);
    assertFalse(why.contains("hunter2"), why);
    Path list = Files.writeString(dir.resolve("b.yml"), "- basic_auth\n");
    assertTrue(assertThrows(IllegalArgumentException.class, () -> HttpConfig.load(list)).getMessage()
        .contains("an http_config is a mapping"));
    Path halfTls = Files.writeString(dir.resolve("c.yml"), "tls_config:\n  cert_file: client.crt\n");
    assertTrue(assertThrows(IllegalArgumentException.class, () -> HttpConfig.load(halfTls)).getMessage()
        .contains("exactly one of key or key_file must be configured when a client certificate is configured"));
  }

  /** What Prometheus refuses is refused with its words, and what Sluice cannot honour is refused, never ignored. */
  @Test
  void refusesWhatPrometheusRefusesAndWhatSluiceCannotHonour() throws Exception {
    for (Map.Entry<String, String> c : HttpConfigRefusals.CASES.entrySet()) {
      JsonNode n = YAML.readTree(c.getKey());
      IllegalArgumentException section = assertThrows(IllegalArgumentException.class,
          () -> HttpConfig.section(n, dir, null), c.getKey());
      assertEquals(c.getValue(), section.getMessage(), c.getKey());
      IllegalArgumentException inline = assertThrows(IllegalArgumentException.class,
          () -> HttpConfig.parse(n, dir), c.getKey());
      assertEquals(c.getValue(), inline.getMessage(), c.getKey());
    }
    IllegalArgumentException typo = assertThrows(IllegalArgumentException.class,
        () -> HttpConfig.section(YAML.readTree("{tls_config: {ca_flie: ca.crt}}"), dir, null));
    assertEquals("field ca_flie not found in type tls_config", typo.getMessage());
  }

  /**
   * A server with a private CA that requires a client certificate: reached with {@code ca_file} and the client's
   * {@code cert_file}/{@code key_file}, refused without either, as Prometheus' client is.
   */
  @Test
  void tlsConfigTrustsItsCaAndShowsItsClientCertificate() throws Exception {
    TestCa ca = TestCa.create(dir, "private-ca");
    TestCa.Issued server = ca.server("server");
    ca.client("client");
    try (RecordingServer https = RecordingServer.https(server.certFile(), server.keyFile(), ca.certFile(), 200, "{}")) {
      String url = https.url() + "/ok";
      ClientOptions full = HttpConfig.section(YAML.readTree("{tls_config: {ca_file: private-ca.crt, "
          + "cert_file: client.crt, key_file: client.key}}"), dir, null);
      assertEquals(200, get(full, url));
      assertEquals("CN=client", https.seen().get(0).clientCert().orElseThrow());
      ClientOptions noClientCert = HttpConfig.section(YAML.readTree("{tls_config: {ca_file: private-ca.crt}}"),
          dir, null);
      assertThrows(IOException.class, () -> get(noClientCert, url), "the server requires a client certificate");
      ClientOptions noCa = HttpConfig.section(YAML.readTree("{tls_config: {cert_file: client.crt, "
          + "key_file: client.key}}"), dir, null);
      assertThrows(SSLHandshakeException.class, () -> get(noCa, url), "the JVM does not trust a private CA");
      assertEquals(1, https.seen().size(), "only the client that showed its certificate was answered");
    }
  }

  /** {@code follow_redirects} (true unless set false), and {@code http_headers} with their values, secrets, files. */
  @Test
  void followsRedirectsUnlessToldNotToAndSendsItsHeaders() throws Exception {
    Files.writeString(dir.resolve("team"), "cdc\n");
    HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    http.createContext("/", exchange -> {
      boolean old = exchange.getRequestURI().getPath().equals("/old");
      byte[] body = (old ? "moved" : exchange.getRequestHeaders().getFirst("x-team") + " "
          + exchange.getRequestHeaders().getFirst("x-token")).getBytes(StandardCharsets.UTF_8);
      if (old) {
        exchange.getResponseHeaders().set("Location", "/new");
      }
      exchange.sendResponseHeaders(old ? 307 : 200, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    http.start();
    try {
      String url = "http://127.0.0.1:" + http.getAddress().getPort() + "/old";
      ClientOptions follow = HttpConfig.section(YAML.readTree(
          "{http_headers: {X-Team: {files: [team]}, X-Token: {secrets: [s3]}}}"), dir, null);
      HttpResponse<String> r = send(follow, url);
      assertEquals(200, r.statusCode());
      assertEquals("cdc s3", r.body());
      assertEquals(307, get(HttpConfig.section(YAML.readTree("{follow_redirects: false}"), dir, null), url));
    } finally {
      http.stop(0);
    }
  }

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private static int get(ClientOptions options, String url) throws Exception {
    return send(options, url).statusCode();
  }

  private static HttpResponse<String> send(ClientOptions options, String url) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10));
    return options.clientBuilder().connectTimeout(Duration.ofSeconds(5)).build().send(options.apply(request).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
