package io.sluice.client.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.testing.TestCa;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A server secured as an operator secures one and an {@code http_config} file that reaches it with one setting of each
 * kind: a private CA, a client certificate the server requires, a bearer token read from its file and a header. A test
 * hands the file to the path it checks and then asks whether each setting reached the server.
 */
public final class SecuredServer implements AutoCloseable {
  public static final String TOKEN = "t0ken-of-the-test";
  public static final String HEADER = "X-Scope-OrgID";
  public static final String HEADER_VALUE = "cdc";

  private final RecordingServer server;
  private final Path httpConfig;
  private final String clientName;

  private SecuredServer(RecordingServer server, Path httpConfig, String clientName) {
    this.server = server;
    this.httpConfig = httpConfig;
    this.clientName = clientName;
  }

  /**
   * Writes the CA, the server's and the client's ({@code clientName}) certificates, the token and the
   * {@code http_config} file into {@code dir}, and starts the server, answering every request 200 with {@code body}.
   */
  public static SecuredServer start(Path dir, String clientName, String body) throws Exception {
    TestCa ca = TestCa.create(dir, "private-ca");
    TestCa.Issued serverCert = ca.server("secured-server");
    ca.client(clientName);
    Files.writeString(dir.resolve("token"), TOKEN + "\n");
    Path httpConfig = Files.writeString(dir.resolve(clientName + "-http-config.yml"), String.join("\n",
        "bearer_token_file: token", "http_headers:", "  " + HEADER + ": " + HEADER_VALUE, "tls_config:",
        "  ca_file: private-ca.crt", "  cert_file: " + clientName + ".crt", "  key_file: " + clientName + ".key", ""));
    return new SecuredServer(RecordingServer.https(serverCert.certFile(), serverCert.keyFile(), ca.certFile(), 200,
        body), httpConfig, clientName);
  }

  public String url() {
    return server.url();
  }

  /** The {@code http_config} file that reaches this server. */
  public Path httpConfig() {
    return httpConfig;
  }

  public List<RecordingServer.Seen> seen() {
    return server.seen();
  }

  /** The client certificate's subject, as {@link RecordingServer.Seen#clientCert()} gives it. */
  public String clientSubject() {
    return "CN=" + clientName;
  }

  /** {@code request} came with the file's header and client certificate, and with its token unless told otherwise. */
  public void assertReached(RecordingServer.Seen request, boolean withToken) {
    if (withToken) {
      assertEquals("Bearer " + TOKEN, request.header("Authorization").orElse(null), request.path());
    }
    assertEquals(HEADER_VALUE, request.header(HEADER).orElse(null), request.path());
    assertEquals(clientSubject(), request.clientCert().orElse(null), request.path());
  }

  @Override
  public void close() {
    server.close();
  }
}
