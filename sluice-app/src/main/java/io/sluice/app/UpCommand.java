package io.sluice.app;

import io.sluice.app.config.SluiceConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code sluice up}: runs the whole stack, supervised ({@link Supervisor}), until SIGTERM or Ctrl-C. */
@Command(name = "up", mixinStandardHelpOptions = true,
    description = "Start Kafka, Kafka Connect with the bundled connectors, the schema registry, the metrics server, the alert router and the dashboard: a data plane and a control plane, each its own process, supervised as one.")
final class UpCommand implements java.util.concurrent.Callable<Integer> {

  @Option(names = "--config", description = "sluice.yaml with every port and path (flags override it)")
  Path configFile;

  @Option(names = "--data-dir", description = "broker logs, backups and caches (default ./data)")
  String dataDir;

  @Option(names = "--host", description = "address every component binds to (default 127.0.0.1)")
  String host;

  @Option(names = "--kafka-bootstrap", paramLabel = "HOST:PORT[,...]",
      description = "join this Kafka cluster instead of running an embedded broker")
  String kafkaBootstrap;

  @Option(names = "--kafka-port", description = "embedded broker's client port (default 9092)")
  Integer kafkaPort;

  @Option(names = "--connect-port", description = "Kafka Connect REST port (default 8083)")
  Integer connectPort;

  @Option(names = "--connect-group", description = "Connect cluster group id (default sluice)")
  String connectGroup;

  @Option(names = "--registry-port", description = "schema registry port (default 8081)")
  Integer registryPort;

  @Option(names = "--metrics-port", description = "metrics server (Prometheus API) port (default 9090)")
  Integer metricsPort;

  @Option(names = "--metrics-config", description = "prometheus.yml for the metrics server (default: scrape Sluice)")
  Path metricsConfig;

  @Option(names = "--storage.retention", description = "how long the metrics server keeps samples (default 15d)")
  String metricsRetention;

  @Option(names = "--alerts-port", description = "alert router port (default 9093)")
  Integer alertsPort;

  @Option(names = "--exporter-port", description = "metrics exporter (/metrics) port (default 5556)")
  Integer exporterPort;

  @Option(names = "--ui-port", description = "dashboard port (default 3000)")
  Integer uiPort;

  @Option(names = "--alerts-config", description = "alertmanager.yml for the alert router (default: the bundled CDC routing)")
  Path alertsConfig;

  @Option(names = "--web.config.file", paramLabel = "FILE", description = "TLS, users (bcrypt) and roles for every "
      + "HTTP surface, in the format of Prometheus' web configuration file (default: none, plain HTTP on 127.0.0.1)")
  Path webConfigFile;

  @Option(names = "--web.roles.file", paramLabel = "FILE", description = "the users' roles (sluice_roles: user: "
      + "read|operate|admin) in a file of their own, so the web configuration stays valid for Prometheus")
  Path webRolesFile;

  @Option(names = "--plugin-path", description = "folder of connector plugin folders (default: the bundled ones)")
  Path pluginPath;

  @Option(names = "--set", paramLabel = "KEY=VALUE", description = "any configuration key, e.g. connect.worker.producer.linger.ms=5")
  Map<String, String> extra = new HashMap<>();

  @Override
  public Integer call() {
    Map<String, String> flags = new HashMap<>(extra);
    SluiceConfig.putGiven(flags, SluiceConfig.DATA_DIR, dataDir);
    SluiceConfig.putGiven(flags, SluiceConfig.HOST, host);
    SluiceConfig.putGiven(flags, SluiceConfig.KAFKA_BOOTSTRAP, kafkaBootstrap);
    SluiceConfig.putGiven(flags, SluiceConfig.KAFKA_PORT, kafkaPort);
    SluiceConfig.putGiven(flags, SluiceConfig.CONNECT_PORT, connectPort);
    SluiceConfig.putGiven(flags, SluiceConfig.CONNECT_GROUP, connectGroup);
    SluiceConfig.putGiven(flags, SluiceConfig.REGISTRY_PORT, registryPort);
    SluiceConfig.putGiven(flags, SluiceConfig.ALERTS_PORT, alertsPort);
    SluiceConfig.putGiven(flags, SluiceConfig.METRICS_PORT, metricsPort);
    SluiceConfig.putGiven(flags, SluiceConfig.EXPORTER_PORT, exporterPort);
    SluiceConfig.putGiven(flags, SluiceConfig.UI_PORT, uiPort);
    SluiceConfig.putGiven(flags, SluiceConfig.METRICS_CONFIG, metricsConfig);
    SluiceConfig.putGiven(flags, SluiceConfig.METRICS_RETENTION, metricsRetention);
    SluiceConfig.putGiven(flags, SluiceConfig.ALERTS_CONFIG, alertsConfig);
    SluiceConfig.putGiven(flags, SluiceConfig.PLUGIN_PATH, pluginPath);
    SluiceConfig.putGiven(flags, SluiceConfig.WEB_CONFIG_FILE, webConfigFile);
    SluiceConfig.putGiven(flags, SluiceConfig.WEB_ROLES_FILE, webRolesFile);
    SluiceConfig config;
    try {
      config = SluiceConfig.load(Optional.ofNullable(configFile), flags);
    } catch (SluiceConfig.ConfigException e) {
      System.err.println("sluice: " + e.getMessage());
      return 2;
    }
    Path plugins = config.find(SluiceConfig.PLUGIN_PATH).map(Path::of).orElseGet(Platform::bundledPlugins);
    if (!Files.isDirectory(plugins)) {
      System.err.println("sluice: plugin folder " + plugins + " does not exist (build with ./mvnw package, or pass --plugin-path)");
      return 2;
    }

    StopSignal stop = StopSignal.install();

    Supervisor supervisor;
    try {
      supervisor = Supervisor.start(config, plugins);
    } catch (SluiceConfig.ConfigException e) {
      System.err.println("sluice: " + e.getMessage());
      return 2;
    } catch (Supervisor.StartFailure e) {
      // 2: the configuration, in the words the single-process start used.
      System.err.println("sluice: " + (e.status == 2 ? "" : "could not start: ") + e.getMessage());
      return e.status == 2 ? 2 : 1;
    } catch (RuntimeException e) {
      // No logger made before: logging configures itself once the planes are ready (see Supervisor).
      LoggerFactory.getLogger(UpCommand.class).error("sluice could not start", e);
      System.err.println("sluice: could not start: " + e.getMessage());
      return 1;
    }
    Thread hook = new Thread(supervisor::close, "sluice-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    System.out.println(supervisor.readyLine());
    System.out.flush();
    supervisor.sayProcesses();
    stop.await();
    System.out.println("sluice stopping");
    supervisor.close();
    System.out.println("sluice stopped");
    return stop.status();
  }
}
