package io.sluice.app.cli;

import io.sluice.app.config.ConfigDefinitions;
import io.sluice.app.config.SluiceConfig;
import io.sluice.client.ClientOptions;
import io.sluice.client.HttpConfig;
import io.sluice.client.Secret;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import io.sluice.topics.KafkaCluster;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * Where an operator command finds the platform: the {@code sluice up} defaults (from {@code sluice.yaml} when
 * {@code --config} is given), or any Kafka + Connect cluster through the flags. Mixed into every operator command so
 * they all accept the same flags.
 */
public final class ClusterOptions {
  @Option(names = "--config", description = "sluice.yaml to take addresses from (default: the built-in defaults)")
  Path configFile;

  @Option(names = "--bootstrap", paramLabel = "HOST:PORT[,...]", description = "Kafka bootstrap servers (default: the sluice up broker)")
  String bootstrap;

  @Option(names = "--connect-url", paramLabel = "URL", description = "Kafka Connect REST URL (default: the sluice up worker)")
  String connectUrl;

  @Option(names = "--registry", paramLabel = "URL", description = "schema registry URL (default: the sluice up registry)")
  String registryUrl;

  @Option(names = "--metrics-url", paramLabel = "URL", description = "metrics server URL (default: the sluice up metrics server)")
  String metricsUrl;

  @Option(names = "--alerts-url", paramLabel = "URL", description = "alert router URL (default: the sluice up router)")
  String alertsUrl;

  @Option(names = "--data-dir", paramLabel = "DIR", description = "data directory for backups (default ./data)")
  Path dataDir;

  @Option(names = "--user", paramLabel = "USER", description = "user for Sluice's HTTP surfaces when they ask for "
      + "credentials; the password comes from --password-file or the environment variable SLUICE_PASSWORD")
  String user;

  @Option(names = "--password-file", paramLabel = "FILE", description = "file holding the password of --user "
      + "(never a flag: a flag shows in the process list)")
  Path passwordFile;

  @Option(names = "--cacert", paramLabel = "FILE", description = "PEM CA certificate(s) to trust for https URLs")
  Path caCert;

  @Option(names = "--http-config", paramLabel = "FILE", description = "how to reach the HTTP surfaces, in the keys of "
      + "Prometheus' http_config (basic_auth, authorization or bearer_token, http_headers, tls_config with a client "
      + "certificate); --user and --cacert, when given too, take the place of its credentials and CA")
  Path httpConfig;

  /** The variable the password of {@code --user} is read from when no {@code --password-file} is given. */
  public static final String PASSWORD_ENV = "SLUICE_PASSWORD";

  private SluiceConfig config;
  private String scheme;

  private SluiceConfig config() {
    if (config == null) {
      config = SluiceConfig.load(Optional.ofNullable(configFile), Map.of());
    }
    return config;
  }

  /** True when --connect-url was given: the user named a Connect cluster, none is to be started. */
  public boolean connectUrlGiven() {
    return connectUrl != null;
  }

  /** The configuration a platform started on behalf of a command runs with (--config, and --data-dir over it). */
  public SluiceConfig platformConfig() {
    return dataDir == null ? config()
        : SluiceConfig.load(Optional.ofNullable(configFile),
            Map.of(ConfigDefinitions.DATA_DIR.name(), dataDir.toString()));
  }

  /** The Kafka cluster with the client security settings of sluice.yaml's kafka.client section. */
  public KafkaCluster cluster() {
    return config().kafkaCluster(bootstrapServers());
  }

  /** The topics Sluice keeps its state in, as this configuration names them. */
  public java.util.List<String> stateTopics() {
    return config().stateTopics();
  }

  /** The topic the nodes of the cluster announce themselves in. */
  public String clusterTopic() {
    return config().get(ConfigDefinitions.CLUSTER_TOPIC);
  }

  public String bootstrapServers() {
    if (bootstrap != null) {
      return bootstrap;
    }
    return config().externalKafka().orElse(config().host() + ":" + config().get(ConfigDefinitions.KAFKA_PORT));
  }

  public String connectUrl() {
    return connectUrl != null ? connectUrl
        : scheme() + "://" + config().host() + ":" + config().get(ConfigDefinitions.CONNECT_PORT);
  }

  public String registryUrl() {
    return registryUrl != null ? registryUrl
        : scheme() + "://" + config().host() + ":" + config().get(ConfigDefinitions.REGISTRY_PORT);
  }

  public String metricsUrl() {
    return metricsUrl != null ? metricsUrl
        : scheme() + "://" + config().host() + ":" + config().get(ConfigDefinitions.METRICS_PORT);
  }

  public String alertsUrl() {
    return alertsUrl != null ? alertsUrl
        : scheme() + "://" + config().host() + ":" + config().get(ConfigDefinitions.ALERTS_PORT);
  }

  /**
   * How commands reach the HTTP surfaces: what the {@code --http-config} file says, then the credentials of
   * {@code --user} and the CA of {@code --cacert} over it. The password is read when a request is made, never held in
   * a flag or printed.
   */
  public ClientOptions clientOptions() {
    ClientOptions options = ClientOptions.defaults();
    if (httpConfig != null) {
      try {
        options = HttpConfig.load(httpConfig);
      } catch (IllegalArgumentException e) {
        throw CommandError.usage("--http-config: " + e.getMessage());
      }
    }
    if (user != null) {
      options = options.withBasicAuth(user, new Secret.Supplied(this::password));
    }
    if (caCert != null) {
      options = options.withCaFile(caCert);
    }
    return options;
  }

  /** The {@code --user} given, if any. */
  public Optional<String> user() {
    return Optional.ofNullable(user);
  }

  private String password() {
    if (passwordFile != null) {
      try {
        return Files.readString(passwordFile, StandardCharsets.UTF_8).strip();
      } catch (IOException e) {
        throw new IllegalStateException("cannot read --password-file " + passwordFile + ": " + e.getMessage(), e);
      }
    }
    String env = System.getenv(PASSWORD_ENV);
    if (env == null) {
      throw new IllegalStateException("--user " + user + " needs a password: --password-file FILE or " + PASSWORD_ENV);
    }
    return env;
  }

  /**
   * https when the configuration's web configuration serves TLS, as {@code sluice up} then does; the file is read
   * once per command, not once per URL asked for.
   */
  private String scheme() {
    if (scheme == null) {
      scheme = config().find(ConfigDefinitions.WEB_CONFIG_FILE).map(f -> {
        try {
          return io.sluice.http.web.WebConfig.load(f).tls() != null ? "https" : "http";
        } catch (IllegalArgumentException e) {
          return "http";
        }
      }).orElse("http");
    }
    return scheme;
  }

  public Path dataDir() {
    return dataDir != null ? dataDir : config().dataDir();
  }
}
