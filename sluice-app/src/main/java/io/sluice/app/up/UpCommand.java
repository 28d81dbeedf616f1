package io.sluice.app.up;

import io.sluice.app.cli.ConfigFlags;
import io.sluice.app.cli.StopSignal;
import io.sluice.app.config.ConfigDefinitions;
import io.sluice.app.config.ConfigKey;
import io.sluice.app.config.SluiceConfig;
import io.sluice.app.kafka.KafkaCommand;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/** {@code sluice up}: runs the whole stack, supervised ({@link Supervisor}), until SIGTERM or Ctrl-C. */
@Command(name = "up", mixinStandardHelpOptions = true, modelTransformer = UpCommand.Flags.class,
    description = "Start Kafka, Kafka Connect with the bundled connectors, the schema registry, the metrics server, the alert router and the console: a data plane and a control plane, each its own process, supervised as one.")
public final class UpCommand implements java.util.concurrent.Callable<Integer> {

  @Option(names = "--config", description = "sluice.yaml with every port and path (flags override it)")
  Path configFile;

  @Option(names = "--set", paramLabel = "KEY=VALUE", description = "any configuration key, e.g. connect.worker.producer.linger.ms=5")
  Map<String, String> extra = new HashMap<>();

  /** The flags of sluice.yaml keys given on this command line, by key. */
  final Map<String, String> given = new HashMap<>();

  /**
   * The flags of sluice.yaml keys {@code sluice up} takes: every key's that has one, but those of {@code sluice kafka}'s
   * quorum.
   */
  static List<ConfigKey<?>> flagKeys() {
    return ConfigDefinitions.keys().stream().filter(k -> k.flag().isPresent())
        .filter(k -> !KafkaCommand.QUORUM_KEYS.contains(k)).toList();
  }

  /** Adds the flags of {@link #flagKeys()} to the command's model, before its command line is parsed. */
  static final class Flags implements CommandLine.IModelTransformer {
    @Override
    public CommandSpec transform(CommandSpec spec) {
      ConfigFlags.add(spec, flagKeys(), ((UpCommand) spec.userObject()).given);
      return spec;
    }
  }

  @Override
  public Integer call() {
    Map<String, String> flags = new HashMap<>(extra);
    flags.putAll(given);
    SluiceConfig config;
    try {
      config = SluiceConfig.load(Optional.ofNullable(configFile), flags);
    } catch (SluiceConfig.ConfigException e) {
      System.err.println("sluice: " + e.getMessage());
      return 2;
    }
    List<String> problems = new ArrayList<>(config.problems());
    problems.addAll(Ports.clashes(config));
    if (!problems.isEmpty()) {
      problems.forEach(p -> System.err.println("sluice: " + p));
      return 2;
    }
    Path plugins = config.find(ConfigDefinitions.PLUGIN_PATH).orElseGet(Platform::bundledPlugins);
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
