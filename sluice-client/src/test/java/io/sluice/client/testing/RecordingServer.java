package io.sluice.client.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsExchange;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import io.sluice.client.Pem;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.TrustManagerFactory;

/**
 * A server of the test's own on loopback that answers every request with one status and body and keeps what each
 * request showed: its method, path, headers (names in lower case) and, over TLS, the subject of the client certificate.
 * It stands for any server a Sluice client reaches (an Alertmanager of the operator's, a secured registry), so a test
 * can see that a setting reached it, not only that a client was built with it.
 */
public final class RecordingServer implements AutoCloseable {
  /** What one request showed. */
  public record Seen(String method, String path, Map<String, List<String>> headers, Optional<String> clientCert) {
    public Optional<String> header(String name) {
      return Optional.ofNullable(headers.get(name.toLowerCase(java.util.Locale.ROOT))).map(v -> v.get(0));
    }
  }

  private final HttpServer server;
  private final String url;
  private final List<Seen> seen = new CopyOnWriteArrayList<>();

  private RecordingServer(HttpServer server, String scheme, int status, String body) {
    this.server = server;
    server.createContext("/", exchange -> answer(exchange, status, body));
    server.start();
    this.url = scheme + "://127.0.0.1:" + server.getAddress().getPort();
  }

  /** Plain HTTP, answering {@code status} with the JSON {@code body}. */
  public static RecordingServer http(int status, String body) throws IOException {
    return new RecordingServer(HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0), "http", status, body);
  }

  /**
   * HTTPS with the certificate and key of {@code serverCert}/{@code serverKey} (PEM), requiring a client certificate
   * issued by {@code clientCa}.
   */
  public static RecordingServer https(Path serverCert, Path serverKey, Path clientCa, int status, String body)
      throws Exception {
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(Pem.keyStore(serverCert, serverKey), Pem.NO_PASSWORD);
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(Pem.trustStore(clientCa));
    SSLContext ssl = SSLContext.getInstance("TLS");
    ssl.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
    HttpsServer https = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    https.setHttpsConfigurator(new HttpsConfigurator(ssl) {
      @Override
      public void configure(HttpsParameters params) {
        // Parameters set as a whole override the single setters: the client certificate is asked for in them.
        javax.net.ssl.SSLParameters p = ssl.getDefaultSSLParameters();
        p.setNeedClientAuth(true);
        params.setSSLParameters(p);
      }
    });
    return new RecordingServer(https, "https", status, body);
  }

  private void answer(HttpExchange exchange, int status, String body) throws IOException {
    Map<String, List<String>> headers = new TreeMap<>();
    exchange.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(java.util.Locale.ROOT), List.copyOf(v)));
    seen.add(new Seen(exchange.getRequestMethod(), exchange.getRequestURI().toString(), Map.copyOf(headers),
        clientCert(exchange)));
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
    if (bytes.length > 0) {
      exchange.getResponseBody().write(bytes);
    }
    exchange.close();
  }

  private static Optional<String> clientCert(HttpExchange exchange) {
    if (!(exchange instanceof HttpsExchange https)) {
      return Optional.empty();
    }
    try {
      Certificate[] chain = https.getSSLSession().getPeerCertificates();
      return Optional.of(((X509Certificate) chain[0]).getSubjectX500Principal().getName());
    } catch (SSLPeerUnverifiedException e) {
      return Optional.empty();
    }
  }

  public String url() {
    return url;
  }

  /** Every request so far, in order. */
  public List<Seen> seen() {
    return List.copyOf(seen);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
