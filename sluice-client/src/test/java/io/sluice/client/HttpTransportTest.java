package io.sluice.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.sluice.client.testing.SecuredServer;
import io.sluice.testing.TestCertificate;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The transport every client uses, against a small server run by the test over loopback (plain and TLS). */
class HttpTransportTest {
  private static final ClientOptions FAST = ClientOptions.defaults().withAttempts(3, Duration.ofMillis(10));
  private HttpServer server;
  private final AtomicInteger calls = new AtomicInteger();
  private final List<String> authorizations = new CopyOnWriteArrayList<>();

  /** Answers the statuses in order, then 200 for ever. */
  private String serve(int... statuses) throws Exception {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    handle(statuses);
    server.start();
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  private void handle(int... statuses) {
    server.createContext("/", exchange -> {
      int n = calls.getAndIncrement();
      authorizations.add(String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")));
      int status = n < statuses.length ? statuses[n] : 200;
      byte[] body = ("{\"call\":" + n + "}").getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(status, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop(0);
    }
  }

  @Test
  void anIdempotentRequestIsTriedAgainAfterA5xx() throws Exception {
    HttpTransport t = new HttpTransport(serve(503, 500), FAST, "test server");
    HttpTransport.Reply r = t.send("GET", "/x", null, true);
    assertEquals(200, r.status());
    assertEquals("{\"call\":2}", r.body());
    assertEquals(3, calls.get());
  }

  @Test
  void warningHeadersArriveAsTheirText() throws Exception {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", exchange -> {
      exchange.getResponseHeaders().add("Warning", "299 sluice \"a \\\"quoted\\\" risk; do this\"");
      exchange.getResponseHeaders().add("Warning", "not the usual shape");
      exchange.sendResponseHeaders(200, -1);
      exchange.close();
    });
    server.start();
    HttpTransport t = new HttpTransport("http://127.0.0.1:" + server.getAddress().getPort(), FAST, "test server");
    assertEquals(List.of("a \"quoted\" risk; do this", "not the usual shape"), t.send("GET", "/x", null, true)
        .warnings());
  }

  @Test
  void aRequestThatIsNotSafeToRepeatIsSentOnce() throws Exception {
    HttpTransport t = new HttpTransport(serve(503), FAST, "test server");
    assertEquals(503, t.send("POST", "/x", "{}", false).status());
    assertEquals(1, calls.get());
  }

  @Test
  void aClientErrorIsReturnedAsItCameWithoutRetrying() throws Exception {
    HttpTransport t = new HttpTransport(serve(404), FAST, "test server");
    assertEquals(404, t.send("GET", "/x", null, true).status());
    assertEquals(1, calls.get());
  }

  @Test
  void busyAnswersAreAskedAgainPastTheAttemptsUntilTheServerTakesTheRequest() throws Exception {
    HttpTransport t = new HttpTransport(serve(409, 409, 409, 409, 409), FAST, "test server");
    assertEquals(200, t.send("PUT", "/x", "{}", true, r -> r.status() == 409).status());
    assertEquals(6, calls.get());
  }

  @Test
  void aBusyAnswerLetsARequestThatIsNotSafeToRepeatBeAskedAgain() throws Exception {
    HttpTransport t = new HttpTransport(serve(500, 500), FAST, "test server");
    assertEquals(200, t.send("POST", "/x", "{}", false, r -> r.status() == 500).status());
    assertEquals(3, calls.get());
  }

  @Test
  void aServerBusyPastTheRequestTimeoutGivesItsLastAnswer() throws Exception {
    int[] busy = new int[1_000];
    java.util.Arrays.fill(busy, 409);
    HttpTransport t = new HttpTransport(serve(busy), FAST.withRequestTimeout(Duration.ofMillis(400)), "test server");
    assertEquals(409, t.send("PUT", "/x", "{}", true, r -> r.status() == 409).status());
    assertTrue(calls.get() > 3 && calls.get() < 100, "asked " + calls.get() + " times");
  }

  @Test
  void theLastAnswerIsReturnedWhenEveryAttemptFailed() throws Exception {
    HttpTransport t = new HttpTransport(serve(502, 502, 503), FAST, "test server");
    assertEquals(503, t.send("GET", "/x", null, true).status());
    assertEquals(3, calls.get());
  }

  @Test
  void anUnreachableServerIsNamedWithEveryAttemptCounted() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    HttpTransport t = new HttpTransport("http://127.0.0.1:" + port, FAST, "test server");
    HttpTransport.UnreachableException e = assertThrows(HttpTransport.UnreachableException.class,
        () -> t.send("GET", "/x", null, true));
    assertTrue(e.getMessage().startsWith("cannot reach test server at http://127.0.0.1:" + port
        + ": unreachable after 3 attempts (GET /x): "), e.getMessage());
  }

  @Test
  void basicCredentialsAreSentAndThePasswordIsNeverPrinted() throws Exception {
    ClientOptions options = FAST.withBasicAuth("ops", new Secret.Supplied(() -> "s3cret-pw"));
    HttpTransport t = new HttpTransport(serve(), options, "test server");
    t.send("GET", "/x", null, true);
    // "ops:s3cret-pw" in base64.
    assertEquals(List.of("Basic b3BzOnMzY3JldC1wdw=="), authorizations);
    assertFalse(options.toString().contains("s3cret-pw"), options.toString());
    assertTrue(options.toString().contains("user=ops"), options.toString());
  }

  @Test
  void aServerWhoseCertificateTheCaFileHoldsIsTrustedAndNoOtherIs(@TempDir Path dir) throws Exception {
    TestCertificate certificate = TestCertificate.write(dir);
    Path cert = certificate.certFile();
    HttpsServer https = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    https.setHttpsConfigurator(new HttpsConfigurator(certificate.serverContext()));
    server = https;
    handle();
    server.start();
    String url = "https://127.0.0.1:" + server.getAddress().getPort();

    assertEquals(200, new HttpTransport(url, FAST.withCaFile(cert), "test server").send("GET", "/x", null, true)
        .status());
    // Without the CA the JDK's trusted authorities do not vouch for the server: refused, not retried into success.
    HttpTransport.UnreachableException e = assertThrows(HttpTransport.UnreachableException.class,
        () -> new HttpTransport(url, FAST, "test server").send("GET", "/x", null, true));
    assertTrue(e.getMessage().startsWith("cannot reach test server at " + url + ": TLS refused (GET /x): "),
        e.getMessage());
    assertEquals(1, calls.get(), "only the trusted client's request reached the handler");
  }

  @Test
  void aCaFileWithoutACertificateIsRefusedClearly(@TempDir Path dir) throws Exception {
    Path empty = Files.writeString(dir.resolve("empty.pem"), "");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new HttpTransport("https://127.0.0.1:1", FAST.withCaFile(empty), "test server"));
    assertTrue(e.getMessage().contains("empty.pem"), e.getMessage());
  }

  /**
   * Every setting of the options reaches the server through the transport: the CA it trusts, the client certificate it
   * shows, a bearer token read from its file at the request, and a header of the operator's.
   */
  @Test
  void aBearerTokenAHeaderAndAClientCertificateReachTheServer(@TempDir Path dir) throws Exception {
    try (SecuredServer https = SecuredServer.start(dir, "sluice-cli", "{}")) {
      ClientOptions options = FAST.withCaFile(dir.resolve("private-ca.crt"))
          .withClientCertificate(dir.resolve("sluice-cli.crt"), dir.resolve("sluice-cli.key"))
          .withBearerToken(new Secret.FromFile(dir.resolve("token")))
          .withHeader(SecuredServer.HEADER, SecuredServer.HEADER_VALUE);
      assertEquals(200, new HttpTransport(https.url(), options, "test server").send("GET", "/x", null, true).status());
      https.assertReached(https.seen().get(0), true);
      assertFalse(options.toString().contains(SecuredServer.TOKEN), options.toString());
    }
  }
}
