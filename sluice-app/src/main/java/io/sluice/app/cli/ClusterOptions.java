package io.sluice.app.cli;

import io.sluice.app.config.SluiceConfig;
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

  private SluiceConfig config;

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
        : SluiceConfig.load(Optional.ofNullable(configFile), Map.of(SluiceConfig.DATA_DIR, dataDir.toString()));
  }

  public String bootstrapServers() {
    if (bootstrap != null) {
      return bootstrap;
    }
    return config().externalKafka().orElse(config().host() + ":" + config().port(SluiceConfig.KAFKA_PORT));
  }

  public String connectUrl() {
    return connectUrl != null ? connectUrl : "http://" + config().host() + ":" + config().port(SluiceConfig.CONNECT_PORT);
  }

  public String registryUrl() {
    return registryUrl != null ? registryUrl : "http://" + config().host() + ":" + config().port(SluiceConfig.REGISTRY_PORT);
  }

  public String metricsUrl() {
    return metricsUrl != null ? metricsUrl
        : "http://" + config().host() + ":" + config().port(SluiceConfig.METRICS_PORT);
  }

  public String alertsUrl() {
    return alertsUrl != null ? alertsUrl : "http://" + config().host() + ":" + config().port(SluiceConfig.ALERTS_PORT);
  }

  public Path dataDir() {
    return dataDir != null ? dataDir : config().dataDir();
  }
}
