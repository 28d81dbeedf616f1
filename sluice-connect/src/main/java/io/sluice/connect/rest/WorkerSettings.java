package io.sluice.connect.rest;

import io.sluice.topics.KafkaCluster;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/** What the REST filters need from the worker configuration, and the keys Sluice adds to it. */
public record WorkerSettings(String restUrl, KafkaCluster cluster, String offsetsTopic, String secretsTopic, Path backupDir,
    long maxRequestBytes, List<String> configProviders, String internalToken, Optional<Path> webConfigFile,
    Optional<Path> rolesFile, Optional<Path> serverCertificate, boolean exactlyOnceSource) {
  static final String DATA_DIR = "sluice.data.dir";
  static final String SECRETS_TOPIC = "sluice.secrets.topic";
  /** The largest request body the REST API reads; a larger one is answered 413 before it is read. */
  static final String MAX_REQUEST_BYTES = "sluice.rest.max.request.bytes";
  static final long DEFAULT_MAX_REQUEST_BYTES = 4L << 20;
  /** The header that carries the token. */
  public static final String INTERNAL_HEADER = "X-Sluice-Internal";
  /** Marks the worker's calls to itself; set by {@code ConnectRuntime}, random when the extension runs elsewhere. */
  public static final String INTERNAL_TOKEN = "sluice.rest.internal.token";
  /** The web configuration (Prometheus tools' format) whose users and roles guard the REST API. */
  public static final String WEB_CONFIG_FILE = "sluice.web.config.file";
  /** The roles file that goes with it, when the roles are kept out of the web configuration. */
  public static final String WEB_ROLES_FILE = "sluice.web.roles.file";
  /**
   * The worker's {@code config.providers} once more: Connect hands its extensions the worker configuration without
   * that key, and a reference to a configured provider must stay a reference.
   */
  public static final String CONFIG_PROVIDERS = "sluice.config.providers";
  /** The certificate the REST server presents, which the worker's calls to itself trust. */
  public static final String SERVER_CERTIFICATE = "sluice.rest.server.certificate";

  public static WorkerSettings from(Map<String, ?> c) {
    String listener = String.valueOf(c.get("listeners")).split(",")[0].trim();
    String restUrl = listener.replace("://0.0.0.0:", "://127.0.0.1:").replace("://:", "://127.0.0.1:");
    Object dataDir = c.get(DATA_DIR);
    Object max = c.get(MAX_REQUEST_BYTES);
    long maxBytes;
    try {
      maxBytes = max == null ? DEFAULT_MAX_REQUEST_BYTES : Long.parseLong(max.toString().trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(MAX_REQUEST_BYTES + " must be a number of bytes, not '" + max + "'", e);
    }
    if (maxBytes <= 0) {
      throw new IllegalArgumentException(MAX_REQUEST_BYTES + " must be positive, not " + maxBytes);
    }
    return new WorkerSettings(
        restUrl,
        KafkaCluster.from(c),
        String.valueOf(c.get("offset.storage.topic")),
        String.valueOf(c.get(SECRETS_TOPIC)),
        Path.of(dataDir == null ? "data" : dataDir.toString()).resolve("backups").resolve("offsets"),
        maxBytes,
        c.get(CONFIG_PROVIDERS) == null ? List.of() : Arrays.stream(c.get(CONFIG_PROVIDERS).toString()
            .split(",")).map(String::trim).filter(x -> !x.isEmpty()).toList(),
        c.get(INTERNAL_TOKEN) == null ? UUID.randomUUID().toString() : c.get(INTERNAL_TOKEN).toString(),
        Optional.ofNullable(c.get(WEB_CONFIG_FILE)).map(f -> Path.of(f.toString())),
        Optional.ofNullable(c.get(WEB_ROLES_FILE)).map(f -> Path.of(f.toString())),
        Optional.ofNullable(c.get(SERVER_CERTIFICATE)).map(f -> Path.of(f.toString())),
        // Connect's default is disabled; "preparing" fences but does not yet run tasks in transactions.
        "enabled".equalsIgnoreCase(String.valueOf(c.get("exactly.once.source.support")).trim()));
  }
}
