package io.sluice.connect;

import io.sluice.connect.secrets.KafkaClientConfigProvider;
import io.sluice.connect.secrets.SecretConfigProvider;
import io.sluice.connect.secrets.SecretStore;
import io.sluice.client.ClientOptions;
import io.sluice.client.HttpTransport;
import io.sluice.connect.rest.RestTls;
import io.sluice.connect.rest.WorkerSettings;
import io.sluice.http.web.WebConfig;
import io.sluice.serde.connect.JsonEnvelopeConverter;
import io.sluice.topics.KafkaCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.kafka.connect.cli.ConnectDistributed;
import org.apache.kafka.connect.runtime.Connect;
import org.apache.kafka.connect.runtime.Herder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An Apache Kafka Connect worker in distributed mode, in this JVM, with Sluice's REST additions and secret provider.
 *
 * <pre>{@code
 * ConnectRuntime connect = ConnectRuntime.builder()
 *     .bootstrapServers("127.0.0.1:9092")
 *     .restPort(8083)
 *     .pluginPath(Path.of("plugins"))
 *     .dataDir(Path.of("data"))
 *     .start();
 * }</pre>
 *
 * <p>Workers given the same bootstrap servers and group id form one Connect cluster, whether they run in one JVM or
 * in several processes: connectors and tasks are spread over them and move when one stops.
 */
public final class ConnectRuntime implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ConnectRuntime.class);
  /** The consumer configuration key that carries the worker's REST address ({@code host:port}) to interceptors. */
  public static final String WORKER_KEY = "sluice.worker";

  /** Internal topics, named as every Connect tool expects them. */
  public static final String OFFSETS_TOPIC = "connect-offsets";
  public static final String CONFIGS_TOPIC = "connect-configs";
  public static final String STATUS_TOPIC = "connect-status";
  public static final String SECRETS_TOPIC = "sluice-connect-secrets";
  /** The worker key of Connect's exactly-once source support: {@code enabled}, {@code preparing} or {@code disabled}. */
  public static final String EXACTLY_ONCE_SOURCE_SUPPORT = "exactly.once.source.support";

  /** How long the worker's stop waits for its tasks together ({@code task.shutdown.graceful.timeout.ms}). */
  public static final Duration TASK_STOP_TIMEOUT = Duration.ofSeconds(30);

  private final Connect<?> connect;
  private final String restUrl;
  private final Map<String, String> workerConfig;
  private final RestTls tls;
  private volatile boolean stopped;

  private ConnectRuntime(Connect<?> connect, String restUrl, Map<String, String> workerConfig, RestTls tls) {
    this.connect = connect;
    this.restUrl = restUrl;
    this.workerConfig = Map.copyOf(workerConfig);
    this.tls = tls;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Base URL of the Connect REST API, e.g. {@code http://127.0.0.1:8083}. */
  public String restUrl() {
    return restUrl;
  }

  /** The worker configuration in force (after defaults and overrides). */
  public Map<String, String> workerConfig() {
    return workerConfig;
  }

  /**
   * The worker's herder, for in-process readers of its state (the metrics exporter reads connector statuses,
   * configs and the worker's metrics registry from it instead of going through the REST API).
   */
  public Herder herder() {
    return connect.herder();
  }

  /**
   * Connect's task threads alive in this JVM, which Connect names {@code task-thread-<connector>-<task>}: the tasks that
   * run, and those still stopping. Every worker's, in a JVM that runs several (tests do).
   */
  public static int taskThreads() {
    ThreadGroup root = Thread.currentThread().getThreadGroup();
    while (root.getParent() != null) {
      root = root.getParent();
    }
    Thread[] threads = new Thread[root.activeCount() * 2 + 16];
    int n = root.enumerate(threads, true);
    int tasks = 0;
    for (int i = 0; i < n; i++) {
      if (threads[i].getName().startsWith("task-thread-")) {
        tasks++;
      }
    }
    return tasks;
  }

  /** Stops the worker synchronously: tasks stop and flush their offsets before this returns. */
  @Override
  public synchronized void close() {
    if (stopped) {
      return;
    }
    stopped = true;
    log.info("stopping Connect worker {}", restUrl);
    if (tls != null) {
      tls.close();
    }
    connect.stop();
  }

  /** Configures and starts the worker. */
  public static final class Builder {
    private KafkaCluster cluster = KafkaCluster.of("127.0.0.1:9092");
    private String restHost = "127.0.0.1";
    private int restPort = 8083;
    private String groupId = "sluice";
    private Path pluginPath;
    private Path dataDir = Path.of("data");
    private String offsetsTopic = OFFSETS_TOPIC;
    private String configsTopic = CONFIGS_TOPIC;
    private String statusTopic = STATUS_TOPIC;
    private String secretsTopic = SECRETS_TOPIC;
    private final Map<String, String> overrides = new HashMap<>();
    private final List<String> consumerInterceptors = new ArrayList<>();
    private WebConfig web = WebConfig.none();
    private final String internalToken = UUID.randomUUID().toString();
    /** Made with the worker configuration when the REST API serves TLS. */
    private RestTls restTls;
    private boolean clusterStarting;

    private Builder() {}

    public Builder bootstrapServers(String bootstrapServers) {
      this.cluster = KafkaCluster.of(bootstrapServers, cluster.security());
      return this;
    }

    /**
     * The cluster and the client security it asks for: the worker's own clients, its tasks' producers, consumers and
     * admin clients, and the secrets topic all use it.
     */
    public Builder cluster(KafkaCluster cluster) {
      this.cluster = cluster;
      return this;
    }

    public Builder restHost(String restHost) {
      this.restHost = restHost;
      return this;
    }

    public Builder restPort(int restPort) {
      this.restPort = restPort;
      return this;
    }

    public Builder groupId(String groupId) {
      this.groupId = groupId;
      return this;
    }

    /** Folder whose sub-folders are one connector plugin each. */
    public Builder pluginPath(Path pluginPath) {
      this.pluginPath = pluginPath;
      return this;
    }

    /** Where offset backups and other local files go. */
    public Builder dataDir(Path dataDir) {
      this.dataDir = dataDir;
      return this;
    }

    /** Names of the internal topics; tests use their own so that workers of different tests do not meet. */
    public Builder topics(String offsets, String configs, String status, String secrets) {
      this.offsetsTopic = offsets;
      this.configsTopic = configs;
      this.statusTopic = status;
      this.secretsTopic = secrets;
      return this;
    }

    /**
     * Adds an interceptor to every consumer the worker creates (its sink tasks'). Each is configured with
     * {@link #WORKER_KEY}, this worker's REST address, so that an interceptor can tell which worker's observer it
     * reports to when several workers share a JVM.
     */
    public Builder consumerInterceptor(Class<?> interceptor) {
      consumerInterceptors.add(interceptor.getName());
      return this;
    }

    /**
     * Users, roles, headers and TLS of the REST API, from the web configuration of Prometheus' tools: the same file
     * Sluice's other surfaces read. The worker reads the users from the configuration's file; Connect reads
     * certificates at start (it has no reload of its own).
     */
    public Builder webConfig(WebConfig web) {
      this.web = web;
      return this;
    }

    /**
     * The cluster's broker is starting beside this worker (a node's embedded broker): the worker makes its Kafka clients
     * once the broker listens, after the plugin scan and the REST server's set-up, because a client that finds no
     * broker backs off for up to a second between attempts and would begin that much after the broker could answer it.
     */
    public Builder clusterStarting(boolean starting) {
      this.clusterStarting = starting;
      return this;
    }

    /** Any Connect worker property, applied last. */
    public Builder workerProperty(String key, String value) {
      overrides.put(key, value);
      return this;
    }

    /** Connect worker properties, applied last. */
    public Builder workerProperties(Map<String, String> props) {
      overrides.putAll(props);
      return this;
    }

    private String scheme() {
      return web.tls() == null ? "http" : "https";
    }

    Map<String, String> workerConfig() {
      Map<String, String> c = new HashMap<>();
      c.put("bootstrap.servers", cluster.bootstrapServers());
      // Connect gives its tasks' clients only what is under their prefix; each needs the cluster's security too.
      cluster.security().forEach((k, v) -> {
        c.put(k, v);
        for (String client : List.of("producer.", "consumer.", "admin.")) {
          c.put(client + k, v);
        }
        // Both of Sluice's config providers reach the cluster: the secret store, and the settings themselves.
        for (String provider : List.of(SecretConfigProvider.NAME, KafkaClientConfigProvider.NAME)) {
          c.put("config.providers." + provider + ".param." + k, v);
        }
      });
      c.put("group.id", groupId);
      c.put("listeners", scheme() + "://" + restHost + ":" + restPort);
      c.put("rest.advertised.host.name", restHost);
      c.put("rest.advertised.port", String.valueOf(restPort));
      // Kafka's JSON format, byte for byte, with each schema serialized once instead of once per record.
      c.put("key.converter", JsonEnvelopeConverter.class.getName());
      c.put("value.converter", JsonEnvelopeConverter.class.getName());
      c.put("offset.storage.topic", offsetsTopic);
      c.put("config.storage.topic", configsTopic);
      c.put("status.storage.topic", statusTopic);
      // -1: the cluster's default replication factor (1 on the embedded broker, the operator's choice elsewhere).
      c.put("offset.storage.replication.factor", "-1");
      c.put("config.storage.replication.factor", "-1");
      c.put("status.storage.replication.factor", "-1");
      // Created once, on first start; Connect's 25 partitions cost a noticeable part of a cold start and buy
      // nothing at the offset-commit rates of a CDC pipeline.
      c.put("offset.storage.partitions", "5");
      // The default, 60 s, leaves stored offsets far behind what the connector has delivered.
      c.put("offset.flush.interval.ms", "1000");
      // The readers of the configs, offsets and status topics (the worker's own keys reach only them): a fetch of a
      // quiet topic waits up to this long before the broker answers it empty, Kafka's 500 ms made them a tenth of an
      // idle data plane's CPU. A record or a transaction marker answers a waiting fetch at once, and Connect wakes a
      // reader it needs at the end of its topic, so nothing is read later.
      c.put("fetch.max.wait.ms", "5000");
      // Scanning the classpath costs ~5 s of start time; every bundled plugin declares its services.
      c.put("plugin.discovery", "service_load");
      if (pluginPath != null) {
        c.put("plugin.path", pluginPath.toAbsolutePath().toString());
      }
      // How long the worker's stop waits for its tasks, all of them together, before it abandons those still stopping:
      // a source abandoned has its producer closed at once and cannot commit what it delivered since its last commit,
      // so it produces that again. Connect's 5 s is one deadline for every task of the worker; a fleet's tasks stop
      // side by side but share the node's cores: 100 and 200 tasks took 5-25 s on a loaded two-core machine (bench/
      // FleetBenchmark). Not longer: the same deadline holds the herder whenever it stops tasks (a connector stopped,
      // paused or restarted, a rebalance), so a task that never stops blocks the worker that long; at 60 s a connector
      // stopped during its task's restart stayed RESTARTING past a minute (ConnectorLifecycleTest). The data plane's
      // stop allowance (90 s and more per task) leaves room for it and the broker.
      c.put("task.shutdown.graceful.timeout.ms", String.valueOf(TASK_STOP_TIMEOUT.toMillis()));
      // Reassign a stopped worker's connectors at once instead of waiting 5 minutes for it to come back.
      c.put("scheduled.rebalance.max.delay.ms", "0");
      c.put("connector.client.config.override.policy", "All");
      // Throughput: change events are small and come in bursts; bigger, compressed batches cut per-record cost
      // (bench/ measures the effect against Kafka's defaults).
      c.put("producer.linger.ms", "20");
      c.put("producer.batch.size", "524288");
      c.put("producer.compression.type", "lz4");
      c.put("producer.buffer.memory", "134217728");
      // Connect allows one request in flight so that retries cannot reorder records; the idempotent producer keeps
      // order with up to five, which keeps the broker busy while the next batch fills.
      c.put("producer.enable.idempotence", "true");
      c.put("producer.max.in.flight.requests.per.connection", "5");
      // Exactly once (KIP-618): each source task writes its records and their offsets in one producer transaction,
      // under the transactional id <group>-<connector>-<task>, and the leader fences a task's earlier generation
      // before starting the next, so neither a kill -9 nor a task moved to another node produces a change twice. A
      // cluster whose workers ran without it changes over in two rolling restarts: every worker with "preparing",
      // then every worker with "enabled" (connect.worker.exactly.once.source.support in sluice.yaml).
      c.put(EXACTLY_ONCE_SOURCE_SUPPORT, "enabled");
      // The sink tasks' consumers skip the records of aborted transactions and wait for open ones to end.
      c.put("consumer.isolation.level", "read_committed");
      c.put("rest.extension.classes", "io.sluice.connect.rest.SluiceRestExtension");
      c.put("config.providers", SecretConfigProvider.NAME + "," + KafkaClientConfigProvider.NAME);
      c.put("config.providers." + SecretConfigProvider.NAME + ".class", SecretConfigProvider.class.getName());
      c.put("config.providers." + SecretConfigProvider.NAME + ".param.topic", secretsTopic);
      c.put("config.providers." + KafkaClientConfigProvider.NAME + ".class", KafkaClientConfigProvider.class.getName());
      for (String provider : List.of(SecretConfigProvider.NAME, KafkaClientConfigProvider.NAME)) {
        c.put("config.providers." + provider + ".param.bootstrap.servers", cluster.bootstrapServers());
      }
      c.put("sluice.data.dir", dataDir.toAbsolutePath().toString());
      if (!consumerInterceptors.isEmpty()) {
        c.put("consumer.interceptor.classes", String.join(",", consumerInterceptors));
        c.put("consumer." + WORKER_KEY, restHost + ":" + restPort);
      }
      c.put("sluice.secrets.topic", secretsTopic);
      c.put(WorkerSettings.INTERNAL_TOKEN, internalToken);
      if (web.source() != null) {
        c.put(WorkerSettings.WEB_CONFIG_FILE, web.source().toAbsolutePath().toString());
        if (web.rolesSource() != null) {
          c.put(WorkerSettings.WEB_ROLES_FILE, web.rolesSource().toAbsolutePath().toString());
        }
      }
      if (web.tls() != null) {
        restTls = RestTls.create(web.tls(), dataDir.resolve("tls"));
        c.putAll(restTls.workerConfig());
        c.put(WorkerSettings.SERVER_CERTIFICATE, web.tls().certFile().toAbsolutePath().toString());
      }
      c.putAll(overrides);
      c.put(WorkerSettings.CONFIG_PROVIDERS, c.get("config.providers"));
      return c;
    }

    /** Starts the worker and returns once its REST API answers and it has joined the group. */
    public ConnectRuntime start() {
      Map<String, String> config = workerConfig();
      long t0 = System.nanoTime();
      // Scans plugins and binds the REST port before it needs Kafka, then waits for the cluster to answer: the
      // embedded broker may still be starting.
      DistributedWorker worker = new DistributedWorker();
      Connect<?> connect = worker.start(config, () -> {
        if (clusterStarting) {
          cluster.awaitListening(Duration.ofSeconds(120));
        }
        requireTransactionPermissions(config, clusterStarting);
      });
      ConnectRuntime runtime = new ConnectRuntime(connect, scheme() + "://" + restHost + ":" + restPort, config,
          restTls);
      if (restTls != null) {
        restTls.renewOnChange(worker.tls());
      }
      try {
        // The secrets topic must exist before the first connector config that refers to it. It is made and read while
        // the herder reads its own topics, and the wait for the worker begins at once: its HTTP client is then set up
        // by the time the worker can answer.
        CompletableFuture<SecretStore> secrets = CompletableFuture.supplyAsync(
            () -> SecretStore.of(cluster, secretsTopic), runnable -> {
              Thread t = new Thread(runnable, "sluice-connect-secrets");
              t.setDaemon(true);
              t.start();
            });
        ClientOptions self = ClientOptions.defaults().withHeader(WorkerSettings.INTERNAL_HEADER, internalToken);
        runtime.awaitReady(web.tls() == null ? self : self.withCaFile(web.tls().certFile()), Duration.ofSeconds(120));
        try {
          secrets.join();
        } catch (CompletionException e) {
          throw e.getCause() instanceof RuntimeException r ? r : e;
        }
      } catch (RuntimeException e) {
        runtime.close();
        throw e;
      }
      log.info("Connect worker ready at {} in {} ms", runtime.restUrl, (System.nanoTime() - t0) / 1_000_000);
      return runtime;
    }
  }

  /**
   * Refuses to start a worker whose principal lacks what exactly-once sources need: without them its tasks would fail
   * one by one after the start, and the leader could not write its config topic. Asked of every cluster the worker
   * joins, and of a node's own broker when its clients log in; the embedded broker of a plain {@code sluice up},
   * reached without a login, has no principals to tell apart and is not asked, which keeps that start as quick.
   */
  private static void requireTransactionPermissions(Map<String, String> config, boolean clusterStarting) {
    TransactionPermissions permissions = TransactionPermissions.ofWorker(config);
    String protocol = config.getOrDefault("security.protocol", "PLAINTEXT");
    if (!permissions.needed() || clusterStarting && protocol.equalsIgnoreCase("PLAINTEXT")) {
      return;
    }
    TransactionPermissions.Report report = permissions.check(Duration.ofSeconds(30));
    report.unasked().forEach(u -> log.warn("exactly-once permissions not checked: {}", u));
    if (report.missing().isEmpty()) {
      return;
    }
    List<String> sentences = permissions.sentences(report);
    sentences.forEach(s -> log.error("exactly-once sources need a permission the worker's principal lacks: {}", s));
    throw new IllegalStateException("Connect worker not started: exactly-once sources ("
        + EXACTLY_ONCE_SOURCE_SUPPORT + "=" + config.get(EXACTLY_ONCE_SOURCE_SUPPORT) + ") need "
        + (sentences.size() == 1 ? "a permission" : sentences.size() + " permissions")
        + " the worker's principal lacks (docs/security.md, \"Exactly once: transactional ids and ACLs\"):"
        + numbered(sentences));
  }

  /** One sentence a line, numbered when there are several: sluice up prints a plane's refusal as one line. */
  private static String numbered(List<String> sentences) {
    if (sentences.size() == 1) {
      return "\n  " + sentences.get(0);
    }
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < sentences.size(); i++) {
      out.append("\n  ").append(i + 1).append(". ").append(sentences.get(i));
    }
    return out.toString();
  }

  /**
   * Ready: {@code GET /health} answers 200, which the worker's herder does once it has read its config topic and joined
   * its group (503, starting, until then), and {@code GET /connectors} answers 200. The REST resources come up beside
   * the herder's start, so {@code /connectors} alone can answer from a config topic not yet read.
   */
  private void awaitReady(ClientOptions self, Duration timeout) {
    // The worker holds a /health request until its herder gets to it, for up to its own 10 s.
    HttpTransport http = new HttpTransport(restUrl, self.withRequestTimeout(Duration.ofSeconds(15))
        .withAttempts(1, Duration.ofMillis(100)), "Kafka Connect");
    long deadline = System.nanoTime() + timeout.toNanos();
    String last = "no answer";
    boolean healthy = false;
    while (System.nanoTime() < deadline) {
      try {
        if (!healthy) {
          HttpTransport.Reply h = http.send("GET", "/health", null, true);
          healthy = h.status() == 200;
          last = "/health: HTTP " + h.status() + " " + h.body();
        }
        if (healthy) {
          HttpTransport.Reply r = http.send("GET", "/connectors", null, true);
          if (r.status() == 200) {
            return;
          }
          last = "/connectors: HTTP " + r.status() + " " + r.body();
        }
      } catch (HttpTransport.UnreachableException e) {
        last = e.getMessage();
      }
      try {
        // Often: each round is a loopback request, and the worker's start is what sluice up waits for.
        Thread.sleep(25);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for Connect", e);
      }
    }
    throw new IllegalStateException("Connect worker at " + restUrl + " not ready after " + timeout.toSeconds()
        + " s: " + last);
  }
}
