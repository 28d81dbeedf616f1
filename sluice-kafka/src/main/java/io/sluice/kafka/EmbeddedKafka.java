package io.sluice.kafka;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.Feature;
import org.apache.kafka.server.common.MetadataVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A single-node Apache Kafka broker in KRaft combined mode (broker and controller in one), running in this JVM.
 *
 * <pre>{@code
 * EmbeddedKafka kafka = EmbeddedKafka.builder().dataDir(Path.of("data/kafka")).port(9092).start();
 * String bootstrap = kafka.bootstrapServers();
 * kafka.close();
 * }</pre>
 *
 * <p>The log directory is formatted on first start and reused afterwards, so topics and their data survive a restart.
 *
 * <p>Alone it is a one-node cluster. Given {@link Builder#node} with the quorum's voters, it is one broker and
 * controller of a multi-node KRaft cluster: every node is started with the same voters ({@code id@host:port} of each
 * controller listener), and all of them format their storage with the same cluster id, derived from the voters unless
 * given. Internal topics are then replicated to up to three nodes, with two in sync required once there are three.
 */
public final class EmbeddedKafka implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(EmbeddedKafka.class);
  private static final int NODE_ID = 1;
  private static final String CONTROLLER_LISTENER = "CONTROLLER";

  private final KafkaRaftServer server;
  private final String host;
  private final int port;
  private final Path logDir;
  private volatile boolean closed;

  private EmbeddedKafka(Builder b, int controllerPort) {
    this.host = b.host;
    this.port = b.port;
    this.logDir = b.dataDir.toAbsolutePath();
    Properties props = new Properties();
    props.put("process.roles", "broker,controller");
    props.put("node.id", String.valueOf(b.nodeId));
    // Static voters: alone, the controller port is chosen afresh at every start, and only dynamic quorums persist it.
    String voters = b.voters != null ? b.voters : NODE_ID + "@" + host + ":" + controllerPort;
    props.put("controller.quorum.voters", voters);
    int nodes = voters.split(",").length;
    // The client listener: PLAINTEXT, or CLIENT speaking SASL when required (then also between brokers).
    String client = b.sasl == null ? "PLAINTEXT" : "CLIENT";
    StringBuilder listeners = new StringBuilder(client + "://" + host + ":" + port);
    StringBuilder advertised = new StringBuilder(client + "://" + host + ":" + port);
    StringBuilder protocols = new StringBuilder(client + ":" + (b.sasl == null ? "PLAINTEXT" : b.sasl.protocol()) + ","
        + CONTROLLER_LISTENER + ":PLAINTEXT");
    b.listeners.forEach((name, address) -> {
      listeners.append(',').append(name).append("://").append(host).append(':').append(address.port());
      advertised.append(',').append(name).append("://").append(host).append(':').append(address.port());
      protocols.append(',').append(name).append(':').append(address.protocol());
    });
    props.put("listeners", listeners + "," + CONTROLLER_LISTENER + "://" + host + ":" + controllerPort);
    props.put("advertised.listeners", advertised.toString());
    props.put("controller.listener.names", CONTROLLER_LISTENER);
    props.put("inter.broker.listener.name", client);
    if (b.sasl != null) {
      String mechanism = b.sasl.mechanism();
      props.put("sasl.enabled.mechanisms", mechanism);
      props.put("sasl.mechanism.inter.broker.protocol", mechanism);
      // The broker logs in as the user itself; PLAIN users live in the JAAS line, SCRAM users in the metadata log.
      String jaas = mechanism.equals("PLAIN")
          ? "org.apache.kafka.common.security.plain.PlainLoginModule required username=" + quoted(b.sasl.user())
              + " password=" + quoted(b.sasl.password()) + " user_" + b.sasl.user() + "=" + quoted(b.sasl.password())
              + ";"
          : "org.apache.kafka.common.security.scram.ScramLoginModule required username=" + quoted(b.sasl.user())
              + " password=" + quoted(b.sasl.password()) + ";";
      props.put("listener.name.client." + mechanism.toLowerCase(java.util.Locale.ROOT) + ".sasl.jaas.config", jaas);
    }
    props.put("listener.security.protocol.map", protocols.toString());
    props.put("log.dirs", logDir.toString());
    // Replicas on up to three nodes, two of them in sync once there are three; one node has one of each.
    String replicas = String.valueOf(Math.min(3, nodes));
    String inSync = nodes >= 3 ? "2" : "1";
    props.put("offsets.topic.replication.factor", replicas);
    props.put("offsets.topic.num.partitions", "10");
    props.put("transaction.state.log.replication.factor", replicas);
    props.put("transaction.state.log.min.isr", inSync);
    props.put("transaction.state.log.num.partitions", "4");
    props.put("share.coordinator.state.topic.replication.factor", replicas);
    props.put("share.coordinator.state.topic.min.isr", inSync);
    props.put("default.replication.factor", replicas);
    props.put("min.insync.replicas", inSync);
    props.put("group.initial.rebalance.delay.ms", "0");
    props.put("num.partitions", "1");
    props.put("auto.create.topics.enable", "true");
    // The log cleaner's offset map, allocated whole when the broker starts: Kafka's 128 MB was a sixth of an idle
    // sluice up's resident memory. 16 MB holds some 600,000 distinct keys a cleaning pass; a compacted topic with more
    // (the cleaner cleans a part at a time) takes more passes. kafka.broker.log.cleaner.dedupe.buffer.size sets it.
    props.put("log.cleaner.dedupe.buffer.size", String.valueOf(16 * 1024 * 1024));
    if (nodes == 1) {
      // The active controller writes a no-op record to the metadata log every 500 ms (Kafka's default) so that the
      // other nodes see the quorum make progress; alone, it had no one to show, and writing and replaying them was a
      // tenth of an idle sluice up's CPU. A quorum of several keeps Kafka's default.
      props.put("metadata.max.idle.interval.ms", "5000");
    }
    props.putAll(b.overrides);
    formatIfNeeded(logDir, b.sasl, b.nodeId, b.clusterId != null ? b.clusterId : clusterIdOf(voters));
    this.server = new KafkaRaftServer(KafkaConfig.fromProps(props, false), Time.SYSTEM);
  }

  public static Builder builder() {
    return new Builder();
  }

  public String bootstrapServers() {
    return host + ":" + port;
  }

  public Path logDir() {
    return logDir;
  }

  /** Stops the broker and waits for it; safe to call twice. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    log.info("stopping embedded Kafka broker");
    server.shutdown();
    server.awaitShutdown();
  }

  private static String quoted(String value) {
    return "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  /**
   * The cluster id every node of a quorum formats with: from the voters, so that nodes started with the same voters
   * agree without another setting. A single node keeps a random one (its voters name a port chosen at each start).
   */
  static String clusterIdOf(String voters) {
    if (voters.split(",").length == 1) {
      return Uuid.randomUuid().toString();
    }
    try {
      java.nio.ByteBuffer h = java.nio.ByteBuffer.wrap(java.security.MessageDigest.getInstance("SHA-256")
          .digest(voters.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
      return new Uuid(h.getLong(), h.getLong()).toString();
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void formatIfNeeded(Path logDir, Sasl sasl, int nodeId, String clusterId) {
    if (Files.exists(logDir.resolve("meta.properties"))) {
      return;
    }
    try {
      Files.createDirectories(logDir);
      Formatter formatter = new Formatter();
      if (sasl != null && sasl.mechanism().startsWith("SCRAM-")) {
        // SCRAM users are metadata: the broker's own is written with the first metadata, before anyone logs in.
        formatter.setScramArguments(List.of(sasl.mechanism() + "=[name=" + sasl.user() + ",password="
            + quoted(sasl.password()) + "]"));
      }
      formatter
          .setPrintStream(new PrintStream(PrintStream.nullOutputStream()))
          .setSupportedFeatures(Feature.PRODUCTION_FEATURES)
          .setNodeId(nodeId)
          .setClusterId(clusterId)
          .setDirectories(List.of(logDir.toString()))
          .setMetadataLogDirectory(logDir.toString())
          .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
          .setControllerListenerName(CONTROLLER_LISTENER)
          .setIgnoreFormatted(true)
          .run();
      log.info("formatted Kafka storage in {}", logDir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (Exception e) {
      throw new IllegalStateException("cannot format Kafka storage in " + logDir + ": " + e.getMessage(), e);
    }
  }

  static int freePort(String host) {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getByName(host))) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** How clients authenticate; {@link #toString()} leaves the password out. */
  private record Sasl(String protocol, String mechanism, String user, String password) {
    @Override
    public String toString() {
      return protocol + "/" + mechanism + " as " + user;
    }
  }

  /** Configures and starts the broker. */
  public static final class Builder {
    private Path dataDir = Path.of("data", "kafka");
    private String host = "127.0.0.1";
    private int port = 9092;
    private final Properties overrides = new Properties();
    private final Map<String, Listener> listeners = new java.util.LinkedHashMap<>();

    private Builder() {}

    private record Listener(String protocol, int port) {}

    private Sasl sasl;
    private int nodeId = NODE_ID;
    private String voters;
    private int controllerPort;
    private String clusterId;

    /**
     * This broker as node {@code nodeId} of a KRaft quorum: {@code voters} lists every controller as
     * {@code id@host:port} (this node's own among them, whose port is this node's controller listener), the same on
     * every node. {@code clusterId} may be null: then it is derived from the voters.
     */
    public Builder node(int nodeId, String voters, String clusterId) {
      if (nodeId < 0) {
        throw new IllegalArgumentException("node id must be 0 or more, not " + nodeId);
      }
      String own = null;
      for (String v : voters.split(",")) {
        String[] parts = v.trim().split("@", 2);
        if (parts.length != 2 || !parts[0].matches("\\d+") || !parts[1].matches(".+:\\d+")) {
          throw new IllegalArgumentException("voters must be id@host:port[,...], not " + voters);
        }
        if (Integer.parseInt(parts[0]) == nodeId) {
          own = parts[1];
        }
      }
      if (own == null) {
        throw new IllegalArgumentException("node " + nodeId + " is not among the voters " + voters);
      }
      this.nodeId = nodeId;
      this.voters = voters.replace(" ", "");
      this.controllerPort = Integer.parseInt(own.substring(own.lastIndexOf(':') + 1));
      this.clusterId = clusterId;
      return this;
    }

    /**
     * Clients must authenticate: the client listener speaks {@code protocol} (SASL_PLAINTEXT, or SASL_SSL with the
     * listener's key store under {@code listener.name.client.ssl.*}) with {@code mechanism} (PLAIN, SCRAM-SHA-256 or
     * SCRAM-SHA-512), and {@code user} is the one user, the broker's own too. A SCRAM user is written when the data
     * directory is first formatted; more users are added with Kafka's admin API, as on any cluster.
     */
    public Builder requireSasl(String protocol, String mechanism, String user, String password) {
      if (!protocol.equals("SASL_PLAINTEXT") && !protocol.equals("SASL_SSL")) {
        throw new IllegalArgumentException("the embedded broker requires SASL_PLAINTEXT or SASL_SSL, not " + protocol);
      }
      if (!List.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512").contains(mechanism)) {
        throw new IllegalArgumentException("the embedded broker offers PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512, not "
            + mechanism);
      }
      if (!user.matches("[A-Za-z0-9._-]+")) {
        throw new IllegalArgumentException("the embedded broker's user name may hold letters, digits, '.', '_' and "
            + "'-' only");
      }
      this.sasl = new Sasl(protocol, mechanism, user, password);
      return this;
    }

    /**
     * One more client listener beside the plain one, e.g. {@code listener("SASL_SSL", "SASL_SSL", 9093)}; its
     * settings go in as broker properties under {@code listener.name.<name lower-cased>.}, as Kafka names them.
     */
    public Builder listener(String name, String securityProtocol, int port) {
      listeners.put(name, new Listener(securityProtocol, port));
      return this;
    }

    public Builder dataDir(Path dataDir) {
      this.dataDir = dataDir;
      return this;
    }

    public Builder host(String host) {
      this.host = host;
      return this;
    }

    /** The client listener's port; 0 picks a free one. */
    public Builder port(int port) {
      this.port = port;
      return this;
    }

    /** Any broker property, applied last. */
    public Builder brokerProperty(String key, String value) {
      overrides.put(key, value);
      return this;
    }

    public Builder brokerProperties(Map<String, String> props) {
      overrides.putAll(props);
      return this;
    }

    /**
     * The address clients will use, known before the broker starts (port 0 is resolved to a free port here), so that
     * clients such as a Connect worker can begin their own start-up in parallel and connect once it answers.
     */
    public String bootstrapServers() {
      if (port == 0) {
        port = freePort(host);
      }
      return host + ":" + port;
    }

    /** Formats storage on first start, starts the broker and returns once it is unfenced and serving. */
    public EmbeddedKafka start() {
      bootstrapServers();
      EmbeddedKafka kafka = new EmbeddedKafka(this, voters != null ? controllerPort : freePort(host));
      long t0 = System.nanoTime();
      kafka.server.startup();
      log.info("embedded Kafka broker ready on {} in {} ms", kafka.bootstrapServers(), (System.nanoTime() - t0) / 1_000_000);
      return kafka;
    }
  }
}
