package io.sluice.app.kafka;

import io.sluice.app.cli.KafkaClientLogs;
import io.sluice.app.cli.ConfigFlags;
import io.sluice.app.cli.StopSignal;
import io.sluice.app.config.ConfigDefinitions;
import io.sluice.app.config.ConfigKey;
import io.sluice.app.config.SluiceConfig;
import io.sluice.kafka.EmbeddedKafka;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * {@code sluice kafka}: one Kafka broker and KRaft controller, alone or as one node of a multi-node cluster, for
 * users without a Kafka cluster of their own. Three of them with the same {@code --voters} make a replicated cluster
 * that {@code sluice up --kafka-bootstrap} joins.
 */
@Command(name = "kafka", mixinStandardHelpOptions = true, modelTransformer = KafkaCommand.Flags.class,
    description = "Run one Kafka broker and KRaft controller: alone, or with --node-id and --voters as one node of a "
        + "multi-node cluster (start every node with the same --voters).")
public final class KafkaCommand implements java.util.concurrent.Callable<Integer> {
  private static final java.time.Duration STOP_WAIT = java.time.Duration.ofSeconds(30);

  @Option(names = "--config", description = "sluice.yaml (kafka.port, kafka.node.id, kafka.voters, kafka.broker.*)")
  Path configFile;

  @Option(names = "--set", paramLabel = "KEY=VALUE", description = "any configuration key, e.g. kafka.broker.num.partitions=3")
  Map<String, String> extra = new HashMap<>();

  /** The keys of a node of a multi-node quorum: {@code sluice kafka}'s alone among the flags. */
  public static final List<ConfigKey<?>> QUORUM_KEYS = List.of(ConfigDefinitions.KAFKA_NODE_ID,
      ConfigDefinitions.KAFKA_VOTERS, ConfigDefinitions.KAFKA_CLUSTER_ID);
  /** The flags of sluice.yaml keys {@code sluice kafka} takes. */
  public static final List<ConfigKey<?>> FLAG_KEYS = List.of(ConfigDefinitions.DATA_DIR, ConfigDefinitions.HOST,
      ConfigDefinitions.KAFKA_PORT, ConfigDefinitions.KAFKA_NODE_ID, ConfigDefinitions.KAFKA_VOTERS,
      ConfigDefinitions.KAFKA_CLUSTER_ID);

  /** The flags of sluice.yaml keys given on this command line, by key. */
  final Map<String, String> given = new HashMap<>();

  /** Adds the flags of {@link #FLAG_KEYS} to the command's model, before its command line is parsed. */
  static final class Flags implements CommandLine.IModelTransformer {
    @Override
    public CommandSpec transform(CommandSpec spec) {
      ConfigFlags.add(spec, FLAG_KEYS, ((KafkaCommand) spec.userObject()).given);
      return spec;
    }
  }

  @Override
  public Integer call() {
    // A broker is a server, as the data plane is: what its clients warn of (a voter it cannot reach) is about the
    // cluster. Set before the first logger exists, which is why this class has no static one.
    KafkaClientLogs.show();
    Map<String, String> flags = new HashMap<>(extra);
    flags.putAll(given);
    EmbeddedKafka.Builder b;
    SluiceConfig config;
    try {
      config = SluiceConfig.load(Optional.ofNullable(configFile), flags);
      List<String> problems = config.problems();
      if (!problems.isEmpty()) {
        problems.forEach(p -> System.err.println("sluice: " + p));
        return 2;
      }
      b = EmbeddedKafka.builder()
          .dataDir(config.dataDir().resolve("kafka"))
          .host(config.host())
          .port(config.get(ConfigDefinitions.KAFKA_PORT))
          .brokerProperties(config.withPrefix(ConfigDefinitions.KAFKA_BROKER));
      Optional<String> quorum = config.find(ConfigDefinitions.KAFKA_VOTERS);
      if (quorum.isPresent()) {
        b.node(config.find(ConfigDefinitions.KAFKA_NODE_ID).orElse(1L).intValue(), quorum.get(),
            config.find(ConfigDefinitions.KAFKA_CLUSTER_ID).orElse(null));
      } else if (config.find(ConfigDefinitions.KAFKA_NODE_ID).isPresent()) {
        throw new SluiceConfig.ConfigException("--node-id needs --voters: every controller of the quorum");
      }
    } catch (SluiceConfig.ConfigException | IllegalArgumentException e) {
      System.err.println("sluice: " + e.getMessage());
      return 2;
    }
    StopSignal stop = StopSignal.install();
    EmbeddedKafka kafka;
    try {
      kafka = b.start();
    } catch (RuntimeException e) {
      LoggerFactory.getLogger(KafkaCommand.class).error("sluice kafka could not start", e);
      System.err.println("sluice: could not start: " + e.getMessage());
      return 1;
    }
    Runtime.getRuntime().addShutdownHook(new Thread(kafka::close, "sluice-kafka-shutdown"));
    System.out.println("sluice kafka ready node=" + config.find(ConfigDefinitions.KAFKA_NODE_ID).orElse(1L)
        + " bootstrap=" + kafka.bootstrapServers());
    System.out.flush();
    stop.await();
    System.out.println("sluice kafka stopping");
    // A broker whose quorum has gone (the other nodes stopped first) waits for a controller to accept its controlled
    // shutdown; its log is safe on disk, so after a bounded wait it ends as a killed broker would.
    Thread closing = new Thread(kafka::close, "sluice-kafka-stop");
    closing.setDaemon(true);
    closing.start();
    try {
      closing.join(STOP_WAIT.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (closing.isAlive()) {
      System.err.println("sluice: the broker did not stop within " + STOP_WAIT.toSeconds() + " s (is its quorum gone?); "
          + "ending without it: it recovers its log at the next start");
      System.out.flush();
      Runtime.getRuntime().halt(1);
    }
    System.out.println("sluice kafka stopped");
    return stop.status();
  }
}
