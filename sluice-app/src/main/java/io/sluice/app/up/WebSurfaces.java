package io.sluice.app.up;

import io.sluice.app.config.ConfigDefinitions;
import io.sluice.app.config.SluiceConfig;
import io.sluice.client.ClientOptions;
import io.sluice.client.HttpConfig;
import io.sluice.client.Secret;
import io.sluice.http.web.BasicAuth;
import io.sluice.http.web.Role;
import io.sluice.http.web.WebConfig;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
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
public final class WebSurfaces {
  static final List<String> COMPONENTS = ConfigDefinitions.WEB_COMPONENTS;
  static final String INTERNAL_USER = "sluice-internal";

  private final Map<String, WebConfig> configs;
  private final InternalUser internalUser;
  private final String scheme;

  /**
   * Sluice's own user where a surface asks for credentials: a password made at random at start and its bcrypt hash.
   * The supervisor makes both once and hands both to each plane, so a start pays for one bcrypt hash, not one per
   * process.
   */
  record InternalUser(String password, String hash) {
    static InternalUser create() {
      String password = newPassword();
      return new InternalUser(password, BasicAuth.hash(password));
    }

    @Override
    public String toString() {
      return "InternalUser[" + INTERNAL_USER + "]";
    }
  }

  private WebSurfaces(Map<String, WebConfig> configs, InternalUser internalUser, String scheme) {
    this.configs = configs;
    this.internalUser = internalUser;
    this.scheme = scheme;
  }

  static WebSurfaces load(SluiceConfig config) {
    return load(config, null);
  }

  /**
   * As {@link #load(SluiceConfig)}, with the internal user given: the processes of one {@code sluice up} must share it,
   * so the supervisor makes it once and hands it to each.
   */
  static WebSurfaces load(SluiceConfig config, InternalUser given) {
    Map<String, WebConfig> loaded = new LinkedHashMap<>();
    for (String c : COMPONENTS) {
      try {
        loaded.put(c, loadOne(config, c));
      } catch (IllegalArgumentException e) {
        throw new SluiceConfig.ConfigException("web configuration of the " + c + ": " + e.getMessage());
      }
    }
    String scheme = checkTogether(loaded);
    boolean anyAuth = loaded.values().stream().anyMatch(WebConfig::authenticates);
    InternalUser internal = null;
    if (anyAuth) {
      internal = given != null ? given : InternalUser.create();
      for (String c : COMPONENTS) {
        WebConfig w = loaded.get(c);
        if (w.authenticates()) {
          loaded.put(c, w.withUser(INTERNAL_USER, internal.hash(), Role.ADMIN));
        }
      }
    }
    return new WebSurfaces(Map.copyOf(loaded), internal, scheme);
  }

  /**
   * Every problem of the web configurations and roles files, read as {@code sluice up} reads them but without starting
   * anything (for {@code sluice check-config}); a file shared by several components is reported once, naming them.
   */
  public static List<String> check(SluiceConfig config) {
    Map<String, List<String>> componentsByProblem = new LinkedHashMap<>();
    Map<String, WebConfig> loaded = new LinkedHashMap<>();
    for (String c : COMPONENTS) {
      try {
        loaded.put(c, loadOne(config, c));
      } catch (IllegalArgumentException e) {
        componentsByProblem.computeIfAbsent(e.getMessage(), m -> new ArrayList<>()).add(c);
      }
    }
    List<String> problems = new ArrayList<>();
    componentsByProblem.forEach((problem, components) -> problems.add("web configuration of "
        + (components.size() == COMPONENTS.size() ? "every component" : "the " + String.join(", ", components)) + ": "
        + problem));
    if (problems.isEmpty()) {
      try {
        checkTogether(loaded);
      } catch (SluiceConfig.ConfigException e) {
        problems.add(e.getMessage());
      }
    }
    return problems;
  }

  /** The web configuration of one component: its own file or the global one, with its roles file if any. */
  private static WebConfig loadOne(SluiceConfig config, String component) {
    Optional<Path> file = config.find(ConfigDefinitions.COMPONENT_WEB_CONFIG_FILE, component);
    Path roles = config.find(ConfigDefinitions.COMPONENT_WEB_ROLES_FILE, component).orElse(null);
    if (file.isEmpty() && roles != null) {
      throw new IllegalArgumentException("a roles file (" + roles + ") needs a web configuration with its users");
    }
    return file.map(f -> WebConfig.load(f, roles)).orElse(WebConfig.none());
  }

  /**
   * What must hold across the components: one scheme for all (the scheme returned), and no user of the operator's
   * named as Sluice's internal one.
   */
  private static String checkTogether(Map<String, WebConfig> loaded) {
    long tls = loaded.values().stream().filter(w -> w.tls() != null).count();
    if (tls != 0 && tls != loaded.size()) {
      throw new SluiceConfig.ConfigException("the web configurations of " + COMPONENTS + " must all serve TLS or "
          + "none (Sluice's components reach each other with one scheme)");
    }
    for (WebConfig w : loaded.values()) {
      if (w.authenticates() && w.users().containsKey(INTERNAL_USER)) {
        throw new SluiceConfig.ConfigException(INTERNAL_USER + " is Sluice's own user; name yours otherwise");
      }
    }
    return tls > 0 ? "https" : "http";
  }

  static String newPassword() {
    byte[] random = new byte[24];
    new SecureRandom().nextBytes(random);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(random);
  }

  /** The internal user; null where no surface asks for credentials. */
  InternalUser internalUser() {
    return internalUser;
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
  ClientOptions internalClient() {
    ClientOptions options = HttpConfig.none();
    if (scheme.equals("https")) {
      options = options.withTls(new ClientOptions.Tls(null, null, null, true));
    }
    return internalUser == null ? options
        : options.withBasicAuth(INTERNAL_USER, new Secret.Inline(internalUser.password()));
  }

  /**
   * How a client of this platform acts on one of its own surfaces (Connect, the router, the registry): as the internal
   * user where the surface asks for credentials, trusting the surface's own certificate where it serves TLS (as the
   * worker reaches itself).
   */
  ClientOptions ownSurface(String component) {
    ClientOptions options = ClientOptions.defaults();
    WebConfig w = of(component);
    if (w.authenticates() && internalUser != null) {
      options = options.withBasicAuth(INTERNAL_USER, new Secret.Inline(internalUser.password()));
    }
    return w.tls() != null ? options.withCaFile(w.tls().certFile()) : options;
  }
}
