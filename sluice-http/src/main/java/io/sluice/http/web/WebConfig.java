package io.sluice.http.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The web configuration file of Prometheus, Alertmanager and their exporters (the exporter toolkit's format), so an
 * operator's existing file works unchanged: {@code tls_server_config} ({@code cert_file}, {@code key_file},
 * {@code client_auth_type}, {@code client_ca_file}, {@code min_version}), {@code basic_auth_users} (user → bcrypt
 * hash) and {@code http_server_config.headers}. Roles are Sluice's own, under a key of their own,
 * {@code sluice_roles} (user → read, operate or admin); a user without a role is an admin, as every user of a
 * Prometheus web configuration can do everything. The exporter toolkit refuses a file with a key it does not know, so
 * the roles go in a file of their own (the roles file, with only that key) when the web configuration is shared with
 * Prometheus or Alertmanager; roles there override any in the web configuration.
 *
 * @param tls how to serve TLS, or null for plain HTTP
 * @param users bcrypt hashes by user name; empty when no authentication is asked for
 * @param roles roles by user name (users not listed are admins)
 * @param headers response headers to add to every answer
 * @param source the file it came from, for messages
 * @param rolesSource the roles file, or null when the roles (if any) are in the web configuration
 */
public record WebConfig(Tls tls, Map<String, String> users, Map<String, Role> roles, Map<String, String> headers,
    Path source, Path rolesSource) {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final String ROLES = "sluice_roles";
  private static final Set<String> TOP = Set.of("tls_server_config", "basic_auth_users", "http_server_config", ROLES);
  private static final Set<String> TLS_KEYS = Set.of("cert_file", "key_file", "client_auth_type", "client_ca_file",
      "min_version", "max_version", "cipher_suites", "curve_preferences", "prefer_server_cipher_suites",
      "client_allowed_sans", "cert", "key");
  /** The response headers the exporter toolkit lets a file set. */
  private static final Set<String> HEADERS = Set.of("Content-Security-Policy", "X-Frame-Options",
      "X-Content-Type-Options", "X-XSS-Protection", "Strict-Transport-Security");

  /**
   * Where the server's certificate and key are, and how clients are asked for theirs.
   *
   * @param clientAuth one of the exporter toolkit's: NoClientCert, RequestClientCert, RequireAnyClientCert,
   *     VerifyClientCertIfGiven, RequireAndVerifyClientCert
   * @param minVersion TLS10 … TLS13 (default TLS12, the toolkit's)
   */
  public record Tls(Path certFile, Path keyFile, String clientAuth, Path clientCaFile, String minVersion) {
    /** The JSSE protocol names from {@code min_version} up. */
    public List<String> protocols() {
      List<String> all = List.of("TLSv1", "TLSv1.1", "TLSv1.2", "TLSv1.3");
      int from = switch (minVersion == null ? "TLS12" : minVersion) {
        case "TLS10" -> 0;
        case "TLS11" -> 1;
        case "TLS13" -> 3;
        default -> 2;
      };
      return all.subList(from, all.size());
    }

    /**
     * When the certificate, key and client CA files last changed (null for one missing), so that a server can tell
     * a renewed certificate and load it without a restart.
     */
    public List<FileTime> fileTimes() {
      List<FileTime> out = new ArrayList<>();
      for (Path p : new Path[] {certFile, keyFile, clientCaFile}) {
        try {
          out.add(p == null ? null : Files.getLastModifiedTime(p));
        } catch (IOException e) {
          out.add(null);
        }
      }
      return out;
    }
  }

  public WebConfig {
    users = Map.copyOf(users);
    roles = Map.copyOf(roles);
    headers = Map.copyOf(headers);
  }

  public static WebConfig none() {
    return new WebConfig(null, Map.of(), Map.of(), Map.of(), null, null);
  }

  /** This configuration with one more user (a hash) of the given role. */
  public WebConfig withUser(String user, String bcryptHash, Role role) {
    Map<String, String> u = new LinkedHashMap<>(users);
    u.put(user, bcryptHash);
    Map<String, Role> r = new LinkedHashMap<>(roles);
    r.put(user, role);
    return new WebConfig(tls, u, r, headers, source, rolesSource);
  }

  public boolean authenticates() {
    return !users.isEmpty();
  }

  public Role roleOf(String user) {
    return roles.getOrDefault(user, Role.ADMIN);
  }

  /** Reads and checks a file; relative paths in it resolve against its folder, as in the toolkit. */
  public static WebConfig load(Path file) {
    return load(file, null);
  }

  /** Reads and checks a web configuration and, unless null, the roles file that goes with it. */
  public static WebConfig load(Path file, Path rolesFile) {
    JsonNode root = mapping(file, "web configuration");
    if (root == null) {
      if (rolesFile != null) {
        throw new IllegalArgumentException(rolesFile + ": roles need users; " + file + " has no basic_auth_users");
      }
      return new WebConfig(null, Map.of(), Map.of(), Map.of(), file, null);
    }
    unknown(root, TOP, file, "");
    Path base = file.toAbsolutePath().getParent();
    Tls tls = null;
    JsonNode t = root.path("tls_server_config");
    if (t.isObject()) {
      unknown(t, TLS_KEYS, file, "tls_server_config.");
      if (t.has("cert") || t.has("key")) {
        throw new IllegalArgumentException(file + ": inline cert and key are not supported; use cert_file and key_file");
      }
      if (!t.hasNonNull("cert_file") || !t.hasNonNull("key_file")) {
        throw new IllegalArgumentException(file + ": tls_server_config needs cert_file and key_file");
      }
      String clientAuth = t.path("client_auth_type").asText("NoClientCert");
      if (!List.of("NoClientCert", "RequestClientCert", "RequireAnyClientCert", "VerifyClientCertIfGiven",
          "RequireAndVerifyClientCert").contains(clientAuth)) {
        throw new IllegalArgumentException(file + ": invalid client_auth_type " + clientAuth);
      }
      Path ca = t.hasNonNull("client_ca_file") ? base.resolve(t.get("client_ca_file").asText()) : null;
      if (ca == null && (clientAuth.equals("VerifyClientCertIfGiven") || clientAuth.equals("RequireAndVerifyClientCert"))) {
        throw new IllegalArgumentException(file + ": client_ca_file is required with client_auth_type " + clientAuth);
      }
      String min = t.path("min_version").asText("TLS12");
      if (!List.of("TLS10", "TLS11", "TLS12", "TLS13").contains(min)) {
        throw new IllegalArgumentException(file + ": unknown min_version " + min);
      }
      tls = new Tls(base.resolve(t.get("cert_file").asText()), base.resolve(t.get("key_file").asText()), clientAuth,
          ca, min);
    }
    Map<String, String> users = new LinkedHashMap<>();
    root.path("basic_auth_users").fields().forEachRemaining(e -> {
      String hash = e.getValue().asText();
      if (!hash.startsWith("$2")) {
        throw new IllegalArgumentException(file + ": the password of " + e.getKey() + " is not a bcrypt hash");
      }
      users.put(e.getKey(), hash);
    });
    Map<String, Role> roles = new LinkedHashMap<>();
    readRoles(root, users, file, roles);
    if (rolesFile != null) {
      JsonNode r = mapping(rolesFile, "roles file");
      if (r != null) {
        unknown(r, Set.of(ROLES), rolesFile, "");
        readRoles(r, users, rolesFile, roles);
      }
    }
    Map<String, String> headers = new LinkedHashMap<>();
    JsonNode h = root.path("http_server_config").path("headers");
    for (Iterator<Map.Entry<String, JsonNode>> it = h.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      if (HEADERS.stream().noneMatch(e.getKey()::equalsIgnoreCase)) {
        throw new IllegalArgumentException(file + ": header " + e.getKey() + " may not be set (allowed: "
            + String.join(", ", HEADERS) + ")");
      }
      headers.put(e.getKey(), e.getValue().asText());
    }
    return new WebConfig(tls, users, roles, headers, file, rolesFile);
  }

  /** A YAML file's top mapping, or null when the file is empty. */
  private static JsonNode mapping(Path file, String what) {
    JsonNode root;
    try {
      root = YAML.readTree(Files.readString(file));
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read the " + what + " " + file + ": " + e.getMessage(), e);
    }
    if (root == null || root.isMissingNode() || root.isNull()) {
      return null;
    }
    if (!root.isObject()) {
      throw new IllegalArgumentException(file + ": a " + what + " is a mapping");
    }
    return root;
  }

  private static void readRoles(JsonNode root, Map<String, String> users, Path file, Map<String, Role> into) {
    JsonNode r = root.path(ROLES);
    if (!r.isMissingNode() && !r.isNull() && !r.isObject()) {
      throw new IllegalArgumentException(file + ": " + ROLES + " maps user names to read, operate or admin");
    }
    r.fields().forEachRemaining(e -> {
      if (!users.containsKey(e.getKey())) {
        throw new IllegalArgumentException(file + ": " + ROLES + " names " + e.getKey()
            + ", who is not in basic_auth_users");
      }
      try {
        into.put(e.getKey(), Role.parse(e.getValue().asText()));
      } catch (IllegalArgumentException bad) {
        throw new IllegalArgumentException(file + ": " + bad.getMessage(), bad);
      }
    });
  }

  private static void unknown(JsonNode node, Set<String> known, Path file, String prefix) {
    node.fieldNames().forEachRemaining(k -> {
      if (!known.contains(k)) {
        throw new IllegalArgumentException(file + ": unknown field " + prefix + k);
      }
    });
  }
}
