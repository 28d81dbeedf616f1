package io.sluice.http.client;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.http.tls.Pem;
import java.io.IOException;
import java.net.Socket;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.Optional;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * How Prometheus and Alertmanager reach an HTTP endpoint (their common {@code http_config}: {@code basic_auth},
 * {@code authorization}, {@code bearer_token}, {@code tls_config}, {@code follow_redirects}), for Sluice's scrapes and
 * its alert notifications to the router: an endpoint secured by a web configuration is reached as those tools reach
 * it. Secrets given as {@code *_file} are read at each request, so a rotated file is used at once.
 *
 * @param authorizationType the scheme of an {@code Authorization} header (Bearer, or {@code authorization.type})
 * @param credentials its credentials
 * @param username {@code basic_auth.username}
 * @param password {@code basic_auth.password} or {@code password_file}
 * @param tls the {@code tls_config}, or null for the JVM's defaults
 */
public record HttpClientConfig(Optional<String> authorizationType, Optional<Credential> credentials,
    Optional<String> username, Optional<Credential> password, Tls tls, boolean followRedirects) {

  /** A secret inline or in a file (read when used). */
  public sealed interface Credential {
    String value();

    record Inline(String value) implements Credential {}

    record FromFile(Path file) implements Credential {
      @Override
      public String value() {
        try {
          return Files.readString(file, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
          throw new IllegalStateException("cannot read " + file + ": " + e.getMessage(), e);
        }
      }
    }
  }

  /**
   * A {@code tls_config}: CA to trust, a client certificate to show, or no verification at all.
   *
   * @param insecureSkipVerify trust any server certificate for any host, as Go's option of that name
   */
  public record Tls(Path caFile, Path certFile, Path keyFile, boolean insecureSkipVerify) {}

  public static HttpClientConfig none() {
    return new HttpClientConfig(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), null, true);
  }

  /** The keys of an {@code http_config} that a file of its own may hold. */
  private static final java.util.Set<String> KEYS = java.util.Set.of("basic_auth", "authorization", "bearer_token",
      "bearer_token_file", "tls_config", "follow_redirects");

  /**
   * An {@code http_config} in a file of its own (YAML); relative paths in it resolve against its folder. An unknown
   * key is refused, as Prometheus refuses one, and the message never quotes a value.
   */
  public static HttpClientConfig load(Path file) {
    JsonNode root;
    try {
      root = new com.fasterxml.jackson.databind.ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory())
          .readTree(Files.readString(file, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read the http_config " + file + ": " + e.getClass().getSimpleName(),
          e);
    }
    if (root == null || root.isMissingNode() || root.isNull()) {
      return none();
    }
    if (!root.isObject()) {
      throw new IllegalArgumentException(file + ": an http_config is a mapping");
    }
    root.fieldNames().forEachRemaining(k -> {
      if (!KEYS.contains(k)) {
        throw new IllegalArgumentException(file + ": unknown field " + k + " (an http_config has " + KEYS + ")");
      }
    });
    try {
      return parse(root, file.toAbsolutePath().getParent());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
    }
  }

  /** Parses an {@code http_config} (or the same keys inline in a scrape or alertmanager config). */
  public static HttpClientConfig parse(JsonNode n, Path baseDir) {
    Optional<String> type = Optional.empty();
    Optional<Credential> creds = Optional.empty();
    JsonNode a = n.path("authorization");
    if (a.isObject()) {
      type = Optional.of(a.path("type").asText("Bearer"));
      creds = credential(a, "credentials", baseDir);
    }
    if (n.has("bearer_token") || n.has("bearer_token_file")) {
      if (type.isPresent()) {
        throw new IllegalArgumentException("at most one of bearer_token, bearer_token_file & authorization may be "
            + "configured");
      }
      type = Optional.of("Bearer");
      creds = credential(n, "bearer_token", baseDir);
    }
    Optional<String> user = Optional.empty();
    Optional<Credential> pass = Optional.empty();
    JsonNode b = n.path("basic_auth");
    if (b.isObject()) {
      if (type.isPresent()) {
        throw new IllegalArgumentException("at most one of basic_auth, bearer_token & authorization must be "
            + "configured");
      }
      user = Optional.of(b.path("username").asText(""));
      pass = credential(b, "password", baseDir);
    }
    Tls tls = null;
    JsonNode t = n.path("tls_config");
    if (t.isObject()) {
      tls = new Tls(path(t, "ca_file", baseDir), path(t, "cert_file", baseDir), path(t, "key_file", baseDir),
          t.path("insecure_skip_verify").asBoolean(false));
      if ((tls.certFile() == null) != (tls.keyFile() == null)) {
        throw new IllegalArgumentException("tls_config needs both cert_file and key_file, or neither");
      }
    }
    return new HttpClientConfig(type, creds, user, pass, tls, n.path("follow_redirects").asBoolean(true));
  }

  private static Optional<Credential> credential(JsonNode n, String key, Path baseDir) {
    if (n.hasNonNull(key)) {
      return Optional.of(new Credential.Inline(n.get(key).asText()));
    }
    Path file = path(n, key + "_file", baseDir);
    return file == null ? Optional.empty() : Optional.of(new Credential.FromFile(file));
  }

  private static Path path(JsonNode n, String key, Path baseDir) {
    if (!n.hasNonNull(key)) {
      return null;
    }
    Path p = Path.of(n.get(key).asText());
    return p.isAbsolute() || baseDir == null ? p : baseDir.resolve(p);
  }

  /** The {@code Authorization} header to send, if any; files are read now. */
  public Optional<String> authorization() {
    if (username.isPresent()) {
      String pw = password.map(Credential::value).orElse("");
      return Optional.of("Basic " + Base64.getEncoder().encodeToString((username.get() + ":" + pw)
          .getBytes(StandardCharsets.UTF_8)));
    }
    return authorizationType.map(t -> t + " " + credentials.map(Credential::value).orElse(""));
  }

  /** A client builder with this config's TLS and redirect policy. */
  public HttpClient.Builder builder() {
    HttpClient.Builder b = HttpClient.newBuilder()
        .followRedirects(followRedirects ? HttpClient.Redirect.NORMAL : HttpClient.Redirect.NEVER);
    if (tls != null) {
      b.sslContext(sslContext());
    }
    return b;
  }

  private SSLContext sslContext() {
    try {
      SSLContext ssl = SSLContext.getInstance("TLS");
      javax.net.ssl.KeyManager[] keys = null;
      if (tls.certFile() != null) {
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(Pem.keyStore(tls.certFile(), tls.keyFile()), Pem.NO_PASSWORD);
        keys = kmf.getKeyManagers();
      }
      TrustManager[] trust;
      if (tls.insecureSkipVerify()) {
        trust = new TrustManager[] {TRUST_ANY};
      } else if (tls.caFile() != null) {
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(Pem.trustStore(tls.caFile()));
        trust = tmf.getTrustManagers();
      } else {
        trust = null;
      }
      ssl.init(keys, trust, null);
      return ssl;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException("cannot load tls_config files: " + e.getMessage(), e);
    }
  }

  /**
   * {@code insecure_skip_verify}: an extended trust manager is where JSSE checks the host name, so accepting
   * everything here skips that check too, as Go's option does.
   */
  private static final X509ExtendedTrustManager TRUST_ANY = new X509ExtendedTrustManager() {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {}

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  };
}
