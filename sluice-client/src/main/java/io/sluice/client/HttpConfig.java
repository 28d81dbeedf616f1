package io.sluice.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Prometheus' and Alertmanager's common {@code http_config} ({@code basic_auth}, {@code authorization},
 * {@code bearer_token}, {@code tls_config}, {@code follow_redirects}, {@code enable_http2}, {@code http_headers}), read
 * into the {@link ClientOptions} every Sluice client takes: for its scrapes, its alert notifications to a router, the
 * router's receivers, the console's upstreams and a command's {@code --http-config}. It is checked as Prometheus'
 * {@code config.HTTPClientConfig} checks it, with the same messages; the keys Sluice cannot honour ({@code oauth2}, the
 * proxy settings, inline PEM) are refused, never ignored. Secrets given as {@code *_file} are read at each request, so
 * a rotated file is used at once.
 *
 * <pre>{@code
 * ClientOptions options = HttpConfig.load(Path.of("alertmanager-client.yml"));
 * }</pre>
 */
public final class HttpConfig {
  private HttpConfig() {}

  /** The keys of an {@code http_config}, those Sluice refuses included (a scrape config holds them among its own). */
  public static final Set<String> KEYS = Set.of("basic_auth", "authorization", "oauth2", "bearer_token",
      "bearer_token_file", "tls_config", "proxy_url", "no_proxy", "proxy_from_environment", "proxy_connect_header",
      "follow_redirects", "enable_http2", "http_headers");
  /** Prometheus' keys that Sluice cannot honour: refused, so that a configuration never means less than it says. */
  private static final List<String> UNSUPPORTED = List.of("oauth2", "proxy_url", "no_proxy",
      "proxy_from_environment", "proxy_connect_header");
  private static final Set<String> TLS_KEYS = Set.of("ca", "ca_file", "cert", "cert_file", "key", "key_file",
      "server_name", "insecure_skip_verify", "min_version", "max_version");
  private static final List<String> TLS_UNSUPPORTED = List.of("ca", "cert", "key", "server_name", "min_version",
      "max_version");
  /** Headers Prometheus does not let {@code http_headers} set: they change the connection or are its own. */
  private static final Set<String> RESERVED_HEADERS = Set.of("authorization", "host", "content-encoding",
      "content-length", "content-type", "user-agent", "connection", "keep-alive", "proxy-authenticate",
      "proxy-authorization", "www-authenticate", "accept-encoding", "x-prometheus-remote-write-version",
      "x-prometheus-remote-read-version", "x-prometheus-scrape-timeout-seconds", "x-amz-date",
      "x-amz-security-token", "x-amz-content-sha256");

  /** An {@code http_config} with nothing set: Prometheus' defaults (redirects followed, HTTP/2 offered). */
  public static ClientOptions none() {
    return ClientOptions.defaults().withFollowRedirects(true);
  }

  /**
   * An {@code http_config} in a file of its own (YAML); relative paths in it resolve against its folder. An unknown
   * key is refused, as Prometheus refuses one, and the message never quotes a value.
   */
  public static ClientOptions load(Path file) {
    JsonNode root;
    try {
      root = new ObjectMapper(new YAMLFactory())
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
    try {
      return section(root, file.toAbsolutePath().getParent(), null);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
    }
  }

  /**
   * An {@code http_config} mapping of its own (a receiver's, Alertmanager's {@code global.http_config}, a file's):
   * an unknown key is refused. With {@code env}, an inline secret may be {@code ${NAME}} (see {@link Secret#inline}).
   *
   * @throws IllegalArgumentException with Prometheus' message for what it refuses
   */
  public static ClientOptions section(JsonNode n, Path baseDir, Map<String, String> env) {
    unknown(n, KEYS, "http_config");
    return parse(n, baseDir, env);
  }

  /** Parses the keys of an {@code http_config} among others (a scrape or alertmanager config); secrets are literal. */
  public static ClientOptions parse(JsonNode n, Path baseDir) {
    return parse(n, baseDir, null);
  }

  private static ClientOptions parse(JsonNode n, Path baseDir, Map<String, String> env) {
    JsonNode basic = n.path("basic_auth");
    JsonNode auth = n.path("authorization");
    boolean bearer = given(n, "bearer_token");
    boolean bearerFile = given(n, "bearer_token_file");
    boolean oauth2 = n.hasNonNull("oauth2");
    // Prometheus' checks, in its order and words (config.HTTPClientConfig.Validate).
    if (bearer && bearerFile) {
      throw new IllegalArgumentException("at most one of bearer_token & bearer_token_file must be configured");
    }
    if ((basic.isObject() || oauth2) && (bearer || bearerFile)) {
      throw new IllegalArgumentException("at most one of basic_auth, oauth2, bearer_token & bearer_token_file must "
          + "be configured");
    }
    if (basic.isObject() && given(basic, "password") && given(basic, "password_file")) {
      throw new IllegalArgumentException("at most one of basic_auth password & password_file must be configured");
    }
    Optional<String> type = Optional.empty();
    Optional<Secret> creds = Optional.empty();
    if (auth.isObject()) {
      unknown(auth, Set.of("type", "credentials", "credentials_file"), "authorization");
      if (bearer || bearerFile) {
        throw new IllegalArgumentException("authorization is not compatible with bearer_token & bearer_token_file");
      }
      if (given(auth, "credentials") && given(auth, "credentials_file")) {
        throw new IllegalArgumentException("at most one of authorization credentials & credentials_file must be "
            + "configured");
      }
      String t = auth.path("type").asText("").strip();
      type = Optional.of(t.isEmpty() ? "Bearer" : t);
      if (type.get().toLowerCase(Locale.ROOT).equals("basic")) {
        throw new IllegalArgumentException("authorization type cannot be set to \"basic\", use \"basic_auth\" "
            + "instead");
      }
      if (basic.isObject() || oauth2) {
        throw new IllegalArgumentException("at most one of basic_auth, oauth2 & authorization must be configured");
      }
      creds = secret(auth, "credentials", baseDir, env);
    } else if (bearer || bearerFile) {
      type = Optional.of("Bearer");
      creds = secret(n, "bearer_token", baseDir, env);
    }
    for (String key : UNSUPPORTED) {
      if (n.hasNonNull(key)) {
        throw new IllegalArgumentException(key + " is not supported by Sluice");
      }
    }
    Optional<String> user = Optional.empty();
    Optional<Secret> pass = Optional.empty();
    if (basic.isObject()) {
      unknown(basic, Set.of("username", "password", "password_file"), "basic_auth");
      user = Optional.of(basic.path("username").asText(""));
      pass = secret(basic, "password", baseDir, env);
    }
    ClientOptions d = ClientOptions.defaults();
    return new ClientOptions(d.connectTimeout(), d.requestTimeout(), d.attempts(), d.retryBackoff(), user, pass, type,
        creds, headers(n.path("http_headers"), baseDir, env), tls(n.path("tls_config"), baseDir),
        n.path("follow_redirects").asBoolean(true), n.path("enable_http2").asBoolean(true));
  }

  private static ClientOptions.Tls tls(JsonNode t, Path baseDir) {
    if (!t.isObject()) {
      return null;
    }
    unknown(t, TLS_KEYS, "tls_config");
    // Prometheus' checks, in its order and words (config.TLSConfig.Validate).
    for (String k : List.of("ca", "cert", "key")) {
      if (given(t, k) && given(t, k + "_file")) {
        throw new IllegalArgumentException("at most one of " + k + " and " + k + "_file must be configured");
      }
    }
    boolean cert = given(t, "cert") || given(t, "cert_file");
    boolean key = given(t, "key") || given(t, "key_file");
    if (cert && !key) {
      throw new IllegalArgumentException("exactly one of key or key_file must be configured when a client "
          + "certificate is configured");
    }
    if (key && !cert) {
      throw new IllegalArgumentException("exactly one of cert or cert_file must be configured when a client key is "
          + "configured");
    }
    for (String k : TLS_UNSUPPORTED) {
      if (given(t, k)) {
        throw new IllegalArgumentException("tls_config " + k + " is not supported by Sluice"
            + (TLS_KEYS.contains(k + "_file") ? ": give " + k + "_file" : ""));
      }
    }
    return new ClientOptions.Tls(path(t, "ca_file", baseDir), path(t, "cert_file", baseDir), path(t, "key_file", baseDir),
        t.path("insecure_skip_verify").asBoolean(false));
  }

  /**
   * {@code http_headers}: a header's {@code values}, {@code secrets} and {@code files} (Prometheus' form), or a value
   * or list of values.
   */
  private static Map<String, List<Secret>> headers(JsonNode h, Path baseDir, Map<String, String> env) {
    Map<String, List<Secret>> out = new LinkedHashMap<>();
    h.fields().forEachRemaining(e -> {
      if (RESERVED_HEADERS.contains(e.getKey().toLowerCase(Locale.ROOT))) {
        throw new IllegalArgumentException("setting header \"" + e.getKey() + "\" is not allowed");
      }
      List<Secret> values = new ArrayList<>();
      JsonNode v = e.getValue();
      if (v.isTextual()) {
        values.add(new Secret.Inline(v.asText()));
      } else if (v.isArray()) {
        v.forEach(x -> values.add(new Secret.Inline(x.asText())));
      } else {
        unknown(v, Set.of("values", "secrets", "files"), "header");
        v.path("values").forEach(x -> values.add(new Secret.Inline(x.asText())));
        v.path("secrets").forEach(x -> values.add(Secret.inline(x.asText(), env)));
        v.path("files").forEach(x -> values.add(new Secret.FromFile(resolve(x.asText(), baseDir))));
      }
      out.put(e.getKey(), List.copyOf(values));
    });
    return out;
  }

  private static void unknown(JsonNode n, Set<String> known, String type) {
    n.fieldNames().forEachRemaining(k -> {
      if (!known.contains(k)) {
        throw new IllegalArgumentException("field " + k + " not found in type " + type);
      }
    });
  }

  /** Present and not empty, as Go's {@code len(x) > 0}. */
  private static boolean given(JsonNode n, String key) {
    return n.hasNonNull(key) && !n.get(key).asText().isEmpty();
  }

  private static Optional<Secret> secret(JsonNode n, String key, Path baseDir, Map<String, String> env) {
    if (given(n, key)) {
      return Optional.of(Secret.inline(n.get(key).asText(), env));
    }
    Path file = path(n, key + "_file", baseDir);
    return file == null ? Optional.empty() : Optional.of(new Secret.FromFile(file));
  }

  private static Path path(JsonNode n, String key, Path baseDir) {
    return given(n, key) ? resolve(n.get(key).asText(), baseDir) : null;
  }

  private static Path resolve(String file, Path baseDir) {
    Path p = Path.of(file);
    return p.isAbsolute() || baseDir == null ? p : baseDir.resolve(p);
  }
}
