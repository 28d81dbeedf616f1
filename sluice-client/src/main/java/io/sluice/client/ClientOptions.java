package io.sluice.client;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * How a Sluice client reaches a server: timeouts, how often an idempotent request is tried, the credentials (basic, or
 * an {@code Authorization} scheme such as a bearer token), the headers, the TLS (a CA, a client certificate) and
 * Prometheus' {@code follow_redirects} and {@code enable_http2}. Every client takes one, whether it was built from a
 * command's flags or read from a Prometheus-style {@code http_config} ({@link HttpConfig}); {@link #clientBuilder()}
 * and {@link #apply} are the only places these settings become HTTP, so each reaches the server on every path. Secrets
 * are read when a request is made, so none sits in a string that an error message or a log line could print.
 *
 * <pre>{@code
 * ClientOptions options = ClientOptions.defaults().withBearerToken(new Secret.FromFile(Path.of("token")))
 *     .withCaFile(Path.of("ca.pem"));
 * }</pre>
 *
 * @param username basic authentication's user ({@code basic_auth.username})
 * @param password its password
 * @param authorizationType the scheme of an {@code Authorization} header other than basic (Bearer, or
 *     {@code authorization.type}); at most one of it and {@code username} is set
 * @param credentials that header's credentials
 * @param headers headers sent with every request, each with its values in order
 * @param tls the CA to trust and the certificate to show, or null for the JVM's authorities and no certificate
 */
public record ClientOptions(Duration connectTimeout, Duration requestTimeout, int attempts, Duration retryBackoff,
    Optional<String> username, Optional<Secret> password, Optional<String> authorizationType,
    Optional<Secret> credentials, Map<String, List<Secret>> headers, Tls tls, boolean followRedirects,
    boolean enableHttp2) {

  public ClientOptions {
    Objects.requireNonNull(connectTimeout);
    Objects.requireNonNull(requestTimeout);
    Objects.requireNonNull(retryBackoff);
    Objects.requireNonNull(username);
    Objects.requireNonNull(password);
    Objects.requireNonNull(authorizationType);
    Objects.requireNonNull(credentials);
    headers = Map.copyOf(headers);
    if (attempts < 1) {
      throw new IllegalArgumentException("attempts must be at least 1: " + attempts);
    }
  }

  /**
   * A {@code tls_config}: CA to trust, a client certificate to show, or no verification at all.
   *
   * @param caFile null for the JVM's authorities
   * @param certFile null for no client certificate (then {@code keyFile} is null too)
   * @param insecureSkipVerify trust any server certificate for any host, as Go's option of that name
   */
  public record Tls(Path caFile, Path certFile, Path keyFile, boolean insecureSkipVerify) {}

  /**
   * 10 s to connect, 60 s per request, three attempts 500 ms apart, no credentials, the JDK's trusted CAs, redirects
   * not followed (an API's answer is read as it comes), HTTP/2 where the server offers it.
   */
  public static ClientOptions defaults() {
    return new ClientOptions(Duration.ofSeconds(10), Duration.ofSeconds(60), 3, Duration.ofMillis(500),
        Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Map.of(), null, false, true);
  }

  public ClientOptions withConnectTimeout(Duration timeout) {
    return with(d -> d.connectTimeout = timeout);
  }

  public ClientOptions withRequestTimeout(Duration timeout) {
    return with(d -> d.requestTimeout = timeout);
  }

  public ClientOptions withAttempts(int attempts, Duration backoff) {
    return with(d -> {
      d.attempts = attempts;
      d.retryBackoff = backoff;
    });
  }

  /** Basic authentication, in place of any other {@code Authorization}; a null password sends an empty one. */
  public ClientOptions withBasicAuth(String user, Secret password) {
    return withCredentials(Optional.of(user), Optional.ofNullable(password), Optional.empty(), Optional.empty());
  }

  /** {@code Authorization: <type> <credentials>}, in place of basic authentication. */
  public ClientOptions withAuthorization(String type, Secret credentials) {
    return withCredentials(Optional.empty(), Optional.empty(), Optional.of(type), Optional.ofNullable(credentials));
  }

  /** One kind of credentials: a request carries one {@code Authorization}. */
  private ClientOptions withCredentials(Optional<String> user, Optional<Secret> password, Optional<String> type,
      Optional<Secret> credentials) {
    return with(d -> {
      d.username = user;
      d.password = password;
      d.authorizationType = type;
      d.credentials = credentials;
    });
  }

  public ClientOptions withBearerToken(Secret token) {
    return withAuthorization("Bearer", token);
  }

  /** A header sent with every request, after those already set under its name. */
  public ClientOptions withHeader(String name, Secret value) {
    return with(d -> {
      List<Secret> values = new ArrayList<>(d.headers.getOrDefault(name, List.of()));
      values.add(value);
      d.headers.put(name, List.copyOf(values));
    });
  }

  public ClientOptions withHeader(String name, String value) {
    return withHeader(name, new Secret.Inline(value));
  }

  /** Trusts the certificates of {@code caFile} in place of the JVM's authorities, keeping any client certificate. */
  public ClientOptions withCaFile(Path caFile) {
    return withTls(tls == null ? new Tls(caFile, null, null, false)
        : new Tls(caFile, tls.certFile(), tls.keyFile(), tls.insecureSkipVerify()));
  }

  /** Shows the certificate of {@code certFile} (its key in {@code keyFile}), keeping the CA trusted. */
  public ClientOptions withClientCertificate(Path certFile, Path keyFile) {
    return withTls(tls == null ? new Tls(null, certFile, keyFile, false)
        : new Tls(tls.caFile(), certFile, keyFile, tls.insecureSkipVerify()));
  }

  public ClientOptions withTls(Tls tls) {
    return with(d -> d.tls = tls);
  }

  public ClientOptions withFollowRedirects(boolean follow) {
    return with(d -> d.followRedirects = follow);
  }

  public ClientOptions withHttp2(boolean enable) {
    return with(d -> d.enableHttp2 = enable);
  }

  /** The {@code Authorization} header to send, if any; secret files are read now. */
  public Optional<String> authorization() {
    if (username.isPresent()) {
      String pw = password.map(Secret::reveal).orElse("");
      return Optional.of("Basic " + Base64.getEncoder().encodeToString((username.get() + ":" + pw)
          .getBytes(StandardCharsets.UTF_8)));
    }
    return authorizationType.map(t -> t + " " + credentials.map(Secret::reveal).orElse(""));
  }

  /** Puts the {@code Authorization} and the headers on a request; secret files are read now. */
  public HttpRequest.Builder apply(HttpRequest.Builder request) {
    authorization().ifPresent(a -> request.header("Authorization", a));
    headers.forEach((name, values) -> values.forEach(v -> request.header(name, v.reveal())));
    return request;
  }

  /**
   * A JDK client builder with the connect timeout, TLS, redirect policy and HTTP version; the TLS files are read now,
   * so a configuration can be checked when it is loaded.
   *
   * @throws IllegalArgumentException naming the TLS file that cannot be read
   */
  public HttpClient.Builder clientBuilder() {
    HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(connectTimeout)
        .followRedirects(followRedirects ? HttpClient.Redirect.NORMAL : HttpClient.Redirect.NEVER)
        .version(enableHttp2 ? HttpClient.Version.HTTP_2 : HttpClient.Version.HTTP_1_1);
    if (tls != null) {
      b.sslContext(ClientTls.context(tls));
    }
    return b;
  }

  /** Never prints a secret: only which settings are given. */
  @Override
  public String toString() {
    return "ClientOptions[connectTimeout=" + connectTimeout + ", requestTimeout=" + requestTimeout + ", attempts="
        + attempts + ", user=" + username.orElse("<none>") + ", authorization=" + authorizationType.orElse("<none>")
        + ", tls=" + tls + ", headers=" + headers.keySet() + ", followRedirects=" + followRedirects
        + ", enableHttp2=" + enableHttp2 + "]";
  }

  /** These options with {@code change} made to a copy of their settings. */
  private ClientOptions with(Consumer<Draft> change) {
    Draft d = new Draft(this);
    change.accept(d);
    return d.build();
  }

  /** The settings being changed by one {@code with} method. */
  private static final class Draft {
    Duration connectTimeout;
    Duration requestTimeout;
    int attempts;
    Duration retryBackoff;
    Optional<String> username;
    Optional<Secret> password;
    Optional<String> authorizationType;
    Optional<Secret> credentials;
    Map<String, List<Secret>> headers;
    Tls tls;
    boolean followRedirects;
    boolean enableHttp2;

    Draft(ClientOptions o) {
      connectTimeout = o.connectTimeout;
      requestTimeout = o.requestTimeout;
      attempts = o.attempts;
      retryBackoff = o.retryBackoff;
      username = o.username;
      password = o.password;
      authorizationType = o.authorizationType;
      credentials = o.credentials;
      headers = new LinkedHashMap<>(o.headers);
      tls = o.tls;
      followRedirects = o.followRedirects;
      enableHttp2 = o.enableHttp2;
    }

    ClientOptions build() {
      return new ClientOptions(connectTimeout, requestTimeout, attempts, retryBackoff, username, password,
          authorizationType, credentials, headers, tls, followRedirects, enableHttp2);
    }
  }
}
