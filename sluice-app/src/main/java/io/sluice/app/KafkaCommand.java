package io.sluice.app;

import io.sluice.app.cli.KafkaClientLogs;
import io.sluice.app.config.SluiceConfig;
import io.sluice.kafka.EmbeddedKafka;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sluice kafka}: one Kafka broker and KRaft controller, alone or as one node of a multi-node cluster, for
 * users without a Kafka cluster of their own. Three of them with the same {@code --voters} make a replicated cluster
 * that {@code sluice up --kafka-bootstrap} joins.
 */
@Command(name = "kafka", mixinStandardHelpOptions = true,
    description = "Run one Kafka broker and KRaft controller: alone, or with --node-id and --voters as one node of a "
        + "multi-node cluster (start every node with the same --voters).")
final class KafkaCommand implements java.util.concurrent.Callable<Integer> {
  private static final java.time.Duration STOP_WAIT = java.time.Duration.ofSeconds(30);

  @Option(names = "--config", description = "sluice.yaml (kafka.port, kafka.node.id, kafka.voters, kafka.broker.*)")
  Path configFile;

  @Option(names = "--data-dir", description = "where the broker keeps its log, under kafka/ (default ./data)")
  String dataDir;

  @Option(names = "--host", description = "address the broker binds to and advertises (default 127.0.0.1)")
  String host;

  @Option(names = "--kafka-port", description = "client port (default 9092)")
  Integer kafkaPort;

  @Option(names = "--node-id", description = "this node's id among the voters (default 1)")
  Integer nodeId;

  @Option(names = "--voters", paramLabel = "ID@HOST:PORT[,...]",
      description = "every controller of the quorum, this node's own controller port among them")
  String voters;

  @Option(names = "--cluster-id", description = "the cluster id to format with (default: derived from --voters)")
  String clusterId;

  @Option(names = "--set", paramLabel = "KEY=VALUE", description = "any configuration key, e.g. kafka.broker.num.partitions=3")
  Map<String, String> extra = new HashMap<>();

  @Override
  public Integer call() {
    // A broker is a server, as the data plane is: what its clients warn of (a voter it cannot reach) is about the
    // cluster. Set before the first logger exists, which is why this class has no static one.
    KafkaClientLogs.show();
    Map<String, String> flags = new HashMap<>(extra);
    SluiceConfig.putGiven(flags, SluiceConfig.DATA_DIR, dataDir);
    SluiceConfig.putGiven(flags, SluiceConfig.HOST, host);
    SluiceConfig.putGiven(flags, SluiceConfig.KAFKA_PORT, kafkaPort);
    SluiceConfig.putGiven(flags, SluiceConfig.KAFKA_NODE_ID, nodeId);
    SluiceConfig.putGiven(flags, SluiceConfig.KAFKA_VOTERS, voters);
    SluiceConfig.putGiven(flags, SluiceConfig.KAFKA_CLUSTER_ID, clusterId);
    EmbeddedKafka.Builder b;
    SluiceConfig config;
    try {
      config = SluiceConfig.load(Optional.ofNullable(configFile), flags);
      b = EmbeddedKafka.builder()
          .dataDir(config.dataDir().resolve("kafka"))
          .host(config.host())
          .port(config.port(SluiceConfig.KAFKA_PORT))
          .brokerProperties(config.withPrefix(SluiceConfig.KAFKA_BROKER_PREFIX));
      Optional<String> quorum = config.find(SluiceConfig.KAFKA_VOTERS);
      if (quorum.isPresent()) {
        b.node(Integer.parseInt(config.find(SluiceConfig.KAFKA_NODE_ID).orElse("1")), quorum.get(),
            config.find(SluiceConfig.KAFKA_CLUSTER_ID).orElse(null));
      } else if (config.find(SluiceConfig.KAFKA_NODE_ID).isPresent()) {
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
    System.out.println("sluice kafka ready node=" + config.find(SluiceConfig.KAFKA_NODE_ID).orElse("1")
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
