package io.sluice.app.up;

import io.sluice.app.config.ConfigDefinitions;
import io.sluice.app.config.SluiceConfig;
import io.sluice.connect.ConnectRuntime;
import io.sluice.connect.secrets.SecretStore;
import io.sluice.exporter.MetricsExporter;
import io.sluice.kafka.EmbeddedKafka;
import io.sluice.topics.KafkaCluster;
import io.sluice.topics.Replication;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The part of {@code sluice up} that moves data: the embedded broker (unless Sluice joins a cluster), the Connect
 * worker with its connectors, and the exporter, which reads the worker's metrics in this JVM. A connector runs user
 * data through this heap, so this is what may exhaust memory; it shares nothing in memory with the {@link ControlPlane}
 * that pages about it.
 *
 * <p>The broker starts while the worker scans its plugins; the worker joins its group once the broker answers. Stopped
 * in reverse: Connect first, so tasks flush their offsets while the broker still runs, then the exporter, which writes
 * the final counts of the tasks Connect stopped.
 */
public final class DataPlane implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DataPlane.class);

  private final Deque<Stoppable> started = new ArrayDeque<>();
  private final Map<String, String> urls = new LinkedHashMap<>();
  private final KafkaCluster cluster;
  private ConnectRuntime connect;
  /** The component being stopped, for what the plane says while it stops. */
  private volatile String stopping = "Connect";

  private DataPlane(SluiceConfig config, Path pluginPath, WebSurfaces web) {
    String host = config.host();
    Path dataDir = config.dataDir().toAbsolutePath();
    ConnectRuntime.Builder connectBuilder = ConnectRuntime.builder()
        .restHost(host)
        .restPort(config.get(ConfigDefinitions.CONNECT_PORT))
        .groupId(config.get(ConfigDefinitions.CONNECT_GROUP))
        .pluginPath(pluginPath)
        .dataDir(dataDir)
        .consumerInterceptor(MetricsExporter.FRESHNESS)
        .webConfig(web.of("connect"))
        .workerProperties(config.withPrefix(ConfigDefinitions.CONNECT_WORKER));
    EmbeddedKafka.Builder kafkaBuilder = config.externalKafka().isPresent() ? null : EmbeddedKafka.builder()
        .dataDir(dataDir.resolve("kafka"))
        .host(host)
        .port(config.get(ConfigDefinitions.KAFKA_PORT))
        .brokerProperties(config.withPrefix(ConfigDefinitions.KAFKA_BROKER));
    if (kafkaBuilder != null) {
      requireSasl(config, kafkaBuilder);
      connectBuilder.clusterStarting(true);
    }
    String bootstrap = kafkaBuilder == null ? config.externalKafka().get() : kafkaBuilder.bootstrapServers();
    this.cluster = config.kafkaCluster(bootstrap);
    try {
      if (kafkaBuilder == null) {
        connectBuilder.workerProperties(connectReplication(config, cluster));
      }
      // Connect's plugin scan and REST set-up need no broker: run them while the broker starts.
      Starting<ConnectRuntime> connectStart = Starting.now("sluice-connect-start",
          () -> connectBuilder.cluster(cluster).start(), ConnectRuntime::close);
      try {
        if (kafkaBuilder != null) {
          EmbeddedKafka kafka = kafkaBuilder.start();
          started.push(step("the broker", kafka::close));
          prepareCoordinator(cluster, config.get(ConfigDefinitions.CONNECT_GROUP));
        }
        urls.put("kafka", bootstrap);
      } catch (RuntimeException e) {
        connectStart.abandon();
        throw e;
      }
      connect = connectStart.join();
      started.push(step("the secret store", SecretStore::closeAll));
      MetricsExporter exporter;
      try {
        exporter = MetricsExporter.builder(connect).host(host)
            .port(config.get(ConfigDefinitions.EXPORTER_PORT)).webConfig(web.of("exporter"))
            .maxRequestBytes(config.get(ConfigDefinitions.EXPORTER_MAX_REQUEST))
            .moveHold(config.get(ConfigDefinitions.EXPORTER_MOVE_HOLD)).start();
      } catch (RuntimeException e) {
        connect.close();
        throw e;
      }
      // The exporter stops after Connect: it writes each task's total once the task has stopped, final, so that the
      // node that takes the task goes on from exactly there.
      started.push(step("the exporter", exporter::close));
      started.push(step("Connect", connect::close));
      urls.put("connect", connect.restUrl());
      urls.put("exporter", exporter.url());
      WeakTopics.reportLater(cluster, config.dataTopics());
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /** Starts the broker, the worker and the exporter; returns once each answers. */
  static DataPlane start(SluiceConfig config, Path pluginPath, WebSurfaces web) {
    return new DataPlane(config, pluginPath, web);
  }

  /**
   * The addresses this plane will answer on, known from the configuration alone (every port given): what the control
   * plane announces to the cluster while this plane may still be starting, or starting again.
   */
  static Map<String, String> expectedUrls(SluiceConfig config, String scheme) {
    Map<String, String> out = new LinkedHashMap<>();
    String host = config.host();
    out.put("kafka", config.externalKafka().orElse(host + ":" + config.get(ConfigDefinitions.KAFKA_PORT)));
    String reached = host.equals("0.0.0.0") || host.isEmpty() ? "127.0.0.1" : host;
    out.put("connect", scheme + "://" + reached + ":" + config.get(ConfigDefinitions.CONNECT_PORT));
    out.put("exporter", scheme + "://" + host + ":" + config.get(ConfigDefinitions.EXPORTER_PORT));
    return out;
  }

  Map<String, String> urls() {
    return java.util.Collections.unmodifiableMap(new LinkedHashMap<>(urls));
  }

  KafkaCluster cluster() {
    return cluster;
  }

  ConnectRuntime connect() {
    return connect;
  }

  /**
   * Asks the broker just started where the Connect group's coordinator is, in a thread of its own. On a new cluster the
   * question creates the coordinators' topic ({@code __consumer_offsets}), whose partitions then load while the worker
   * reads its own topics, instead of after the worker's first question and a retry a fifth of a second later.
   */
  private static void prepareCoordinator(KafkaCluster cluster, String group) {
    Thread t = new Thread(() -> {
      try (Admin admin = Admin.create(cluster.clientConfig(Map.of("client.id", "sluice-coordinator")))) {
        admin.describeConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS);
      } catch (Exception e) {
        // The worker asks again and says what fails.
        log.debug("the coordinator of group {} was not found beforehand: {}", group, e.toString());
      }
    }, "sluice-coordinator");
    t.setDaemon(true);
    t.start();
  }

  /**
   * When {@code kafka.client} asks for SASL and the broker is the embedded one, the broker requires it: the login of
   * the {@code sasl.username} shorthand is its one user.
   */
  public static void requireSasl(SluiceConfig config, EmbeddedKafka.Builder kafka) {
    String protocol = config.withPrefix(ConfigDefinitions.KAFKA_CLIENT).getOrDefault("security.protocol", "PLAINTEXT");
    if (!protocol.startsWith("SASL_")) {
      return;
    }
    SluiceConfig.KafkaLogin login = config.kafkaLogin().orElseThrow(() -> new SluiceConfig.ConfigException(
        "the embedded broker requires SASL when kafka.client.security.protocol is " + protocol + ": give "
            + ConfigDefinitions.KAFKA_CLIENT.prefix() + "sasl.username and sasl.password.file, its user"));
    try {
      kafka.requireSasl(protocol, login.mechanism(), login.user(), login.password());
    } catch (IllegalArgumentException e) {
      throw new SluiceConfig.ConfigException(e.getMessage());
    }
  }

  /**
   * Connect's internal topics on a cluster Sluice joins: replicated as {@link Replication} says for its brokers, where
   * the worker settings do not say otherwise (Connect itself would take the cluster's default replication factor).
   */
  private static Map<String, String> connectReplication(SluiceConfig config, KafkaCluster cluster) {
    int brokers;
    try (Admin admin = Admin.create(cluster.clientConfig(Map.of("client.id", "sluice-replication")))) {
      brokers = admin.describeCluster().nodes().get(60, TimeUnit.SECONDS).size();
    } catch (Exception e) {
      // Connect reports an unreachable cluster itself, in the words operators know.
      return Map.of();
    }
    Map<String, String> worker = config.withPrefix(ConfigDefinitions.CONNECT_WORKER);
    Map<String, String> out = new LinkedHashMap<>();
    for (String store : List.of("offset", "config", "status")) {
      if (!worker.containsKey(store + ".storage.replication.factor")) {
        out.put(store + ".storage.replication.factor", String.valueOf(Replication.replicas(brokers)));
      }
      if (!worker.containsKey(store + ".storage.min.insync.replicas")) {
        out.put(store + ".storage.min.insync.replicas", String.valueOf(Replication.inSync(brokers)));
      }
    }
    return out;
  }

  /** A component's stop that names the component while it runs. */
  private Stoppable step(String what, Stoppable stop) {
    return () -> {
      stopping = what;
      stop.stop();
    };
  }

  /**
   * Stops as {@link #close()} does, saying what it is at ({@link PlaneCommand.Stopping}): at once, with the tasks it
   * runs, then each second in which the count of its tasks still stopping, or its step, changed.
   */
  void close(Consumer<PlaneCommand.Stopping> say) {
    AtomicReference<PlaneCommand.Stopping> said = new AtomicReference<>(now());
    say.accept(said.get());
    ScheduledExecutorService progress = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "sluice-stop-progress");
      t.setDaemon(true);
      return t;
    });
    progress.scheduleWithFixedDelay(() -> {
      PlaneCommand.Stopping s = now();
      if (!s.equals(said.getAndSet(s))) {
        say.accept(s);
      }
    }, 1, 1, TimeUnit.SECONDS);
    try {
      close();
    } finally {
      progress.shutdownNow();
    }
  }

  private PlaneCommand.Stopping now() {
    return new PlaneCommand.Stopping(connect == null ? 0 : ConnectRuntime.taskThreads(), stopping);
  }

  /** Stops the components in the reverse order of their start; each failure is logged, the rest still stop. */
  @Override
  public synchronized void close() {
    // What was stopped has left the deque: a second close finds it empty.
    Stoppable.stopAll(started, log);
  }
}
