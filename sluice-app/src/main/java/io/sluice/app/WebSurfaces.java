package io.sluice.app;

import io.sluice.app.config.SluiceConfig;
import io.sluice.http.client.HttpClientConfig;
import io.sluice.http.client.Secret;
import io.sluice.http.web.BasicAuth;
import io.sluice.http.web.Role;
import io.sluice.http.web.WebConfig;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The web configuration of each HTTP surface {@code sluice up} serves: {@code web.config.file} for all, or
 * {@code <component>.web.config.file} for one, each with its roles file ({@code web.roles.file}, likewise). Where a
 * surface asks for credentials, Sluice's own components reach each other as an internal user whose password is made
 * at random at start and never written anywhere, so turning authentication on needs no password of the operator's in
 * any file Sluice reads.
 */
final class WebSurfaces {
  static final List<String> COMPONENTS = List.of("connect", "registry", "metrics", "alerts", "exporter", "ui");
  static final String INTERNAL_USER = "sluice-internal";

  private final Map<String, WebConfig> configs;
  private final String internalPassword;
  private final String scheme;

  private WebSurfaces(Map<String, WebConfig> configs, String internalPassword, String scheme) {
    this.configs = configs;
    this.internalPassword = internalPassword;
    this.scheme = scheme;
  }

  static WebSurfaces load(SluiceConfig config) {
    return load(config, null);
  }

  /**
   * As {@link #load(SluiceConfig)}, with the internal user's password given: the processes of one {@code sluice up}
   * must share it, so the supervisor makes it once and hands it to each.
   */
  static WebSurfaces load(SluiceConfig config, String internalPassword) {
    Optional<String> global = config.find(SluiceConfig.WEB_CONFIG_FILE);
    Optional<String> globalRoles = config.find(SluiceConfig.WEB_ROLES_FILE);
    Map<String, WebConfig> loaded = new LinkedHashMap<>();
    for (String c : COMPONENTS) {
      Optional<String> file = config.find(c + "." + SluiceConfig.WEB_CONFIG_FILE).or(() -> global);
      Path roles = config.find(c + "." + SluiceConfig.WEB_ROLES_FILE).or(() -> globalRoles).map(Path::of)
          .orElse(null);
      try {
        if (file.isEmpty() && roles != null) {
          throw new IllegalArgumentException("a roles file (" + roles + ") needs a web configuration with its users");
        }
        loaded.put(c, file.map(f -> WebConfig.load(Path.of(f), roles)).orElse(WebConfig.none()));
      } catch (IllegalArgumentException e) {
        throw new SluiceConfig.ConfigException("web configuration of the " + c + ": " + e.getMessage());
      }
    }
    long tls = loaded.values().stream().filter(w -> w.tls() != null).count();
    if (tls != 0 && tls != loaded.size()) {
      throw new SluiceConfig.ConfigException("the web configurations of " + COMPONENTS + " must all serve TLS or "
          + "none (Sluice's components reach each other with one scheme)");
    }
    boolean anyAuth = loaded.values().stream().anyMatch(WebConfig::authenticates);
    String password = null;
    if (anyAuth) {
      password = internalPassword != null ? internalPassword : newPassword();
      String hash = BasicAuth.hash(password);
      for (String c : COMPONENTS) {
        WebConfig w = loaded.get(c);
        if (w.authenticates()) {
          if (w.users().containsKey(INTERNAL_USER)) {
            throw new SluiceConfig.ConfigException(INTERNAL_USER + " is Sluice's own user; name yours otherwise");
          }
          loaded.put(c, w.withUser(INTERNAL_USER, hash, Role.ADMIN));
        }
      }
    }
    return new WebSurfaces(Map.copyOf(loaded), password, tls > 0 ? "https" : "http");
  }

  static String newPassword() {
    byte[] random = new byte[24];
    new SecureRandom().nextBytes(random);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(random);
  }

  /** The internal user's password; null where no surface asks for credentials. */
  String internalPassword() {
    return internalPassword;
  }

  WebConfig of(String component) {
    return configs.get(component);
  }

  String scheme() {
    return scheme;
  }

  /**
   * How Sluice's components reach each other: as the internal user where credentials are asked for, over TLS without
   * checking the certificate where it is served (loopback traffic between the parts of one process).
   */
  HttpClientConfig internalClient() {
    HttpClientConfig.Tls tls = scheme.equals("https") ? new HttpClientConfig.Tls(null, null, null, true) : null;
    if (internalPassword == null) {
      return new HttpClientConfig(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
          Map.of(), tls, true, true);
    }
    return HttpClientConfig.basicAuth(INTERNAL_USER, new Secret.Inline(internalPassword), tls);
  }
}
