package io.sluice.exporter;

import io.sluice.exporter.ConnectorCatalog.Connector;
import io.sluice.exporter.ConnectorCatalog.Kind;
import io.sluice.connect.secrets.SecretConfigProvider;
import java.sql.Connection;
import java.sql.Driver;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import io.sluice.topics.KafkaCluster;
import java.util.Map;
import java.util.Properties;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigTransformer;
import org.apache.kafka.common.config.provider.ConfigProvider;
import org.apache.kafka.connect.runtime.Herder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The values that cost a round trip to Kafka or to a database: topic end offsets, sink consumer lag, source log
 * retention and, while a source snapshots, its tables' estimated sizes. Read on the exporter's own thread at its refresh interval; a scrape only takes the last {@link Readings},
 * each value with the time it was read, so a slow broker or database never slows a scrape down.
 */
final class SlowReadings implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SlowReadings.class);
  private static final long TIMEOUT_MS = 10_000;

  /** A value and when it was read (unix seconds). */
  record Timed<T>(T value, double readAt) {}

  /** Everything read so far; replaced whole after each pass. */
  record Readings(Timed<Map<TopicPartition, Long>> endOffsets, Map<String, Timed<Map<TopicPartition, Long>>> sinkLag,
      Map<String, Timed<SourceRetention.Reading>> retention, Map<String, Timed<Map<String, Long>>> rowEstimates) {
    static final Readings EMPTY = new Readings(new Timed<>(Map.of(), 0), Map.of(), Map.of(), Map.of());
  }

  private final ConnectorCatalog catalog;
  private final Herder herder;
  private final Admin admin;
  private final Clock clock;
  private final ConfigProvider secrets;
  private final Map<String, SourceRetention> probes = new ConcurrentHashMap<>();
  private volatile Readings readings = Readings.EMPTY;

  SlowReadings(ConnectorCatalog catalog, Herder herder, Map<String, String> workerConfig, Clock clock) {
    this.catalog = catalog;
    this.herder = herder;
    this.clock = clock;
    KafkaCluster cluster = KafkaCluster.from(workerConfig);
    this.admin = Admin.create(cluster.clientConfig(Map.of("client.id", "sluice-exporter",
        "request.timeout.ms", "10000", "default.api.timeout.ms", "10000")));
    SecretConfigProvider provider = new SecretConfigProvider();
    String secretsTopic = workerConfig.get("sluice.secrets.topic");
    if (secretsTopic != null) {
      provider.configure(cluster.clientConfig(Map.of("topic", secretsTopic)));
      this.secrets = provider;
    } else {
      this.secrets = null;
    }
  }

  Readings last() {
    return readings;
  }

  /** One pass over everything; called by the exporter's refresh thread. Failures keep the previous reading. */
  void refresh() {
    List<Connector> connectors = catalog.connectors();
    Readings prev = readings;
    Timed<Map<TopicPartition, Long>> ends = prev.endOffsets();
    try {
      ends = new Timed<>(endOffsets(topicsOf(connectors)), now());
    } catch (RuntimeException | ExecutionException | TimeoutException e) {
      log.debug("end offsets not read: {}", e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    Map<String, Timed<Map<TopicPartition, Long>>> lag = new HashMap<>();
    Map<String, Timed<SourceRetention.Reading>> retention = new HashMap<>();
    Map<String, Timed<Map<String, Long>>> estimates = new HashMap<>();
    Map<String, SnapshotProgress> snapshots = connectors.stream().anyMatch(c -> c.kind() == Kind.SOURCE)
        ? SnapshotProgress.read() : Map.of();
    for (Connector c : connectors) {
      if (c.kind() == Kind.SINK) {
        Timed<Map<TopicPartition, Long>> l = prev.sinkLag().get(c.name());
        try {
          l = new Timed<>(lagOf(c, ends.value()), now());
        } catch (RuntimeException | ExecutionException | TimeoutException e) {
          log.debug("lag of {} not read: {}", c.name(), e.toString());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
        if (l != null) {
          lag.put(c.name(), l);
        }
      }
      SourceRetention probe = c.kind() == Kind.SOURCE ? probeFor(c.connectorClass()) : null;
      if (probe != null) {
        Timed<SourceRetention.Reading> r = prev.retention().get(c.name());
        try {
          r = new Timed<>(readRetention(c, probe), now());
        } catch (Exception e) {
          log.debug("retention of {} not read: {}", c.name(), e.toString());
        }
        if (r != null) {
          retention.put(c.name(), r);
        }
      }
      SnapshotProgress snapshot = c.kind() == Kind.SOURCE ? snapshots.get(c.config().get("topic.prefix")) : null;
      RowEstimates sizes = snapshot != null && snapshot.inProgress() ? RowEstimates.forClass(c.connectorClass()) : null;
      if (sizes != null) {
        try {
          estimates.put(c.name(), new Timed<>(readEstimates(c, sizes, snapshot.tables()), now()));
        } catch (Exception e) {
          log.debug("row estimates of {} not read: {}", c.name(), e.toString());
        }
      }
    }
    readings = new Readings(ends, Map.copyOf(lag), Map.copyOf(retention), Map.copyOf(estimates));
  }

  private double now() {
    return clock.millis() / 1000.0;
  }

  private SourceRetention probeFor(String connectorClass) {
    SourceRetention existing = probes.get(connectorClass);
    if (existing == null) {
      existing = SourceRetention.forClass(connectorClass, clock);
      if (existing != null) {
        probes.put(connectorClass, existing);
      }
    }
    return existing;
  }

  /** DLQ topics, the topics sinks read and the topics Connect saw any connector use. */
  private Set<String> topicsOf(List<Connector> connectors)
      throws ExecutionException, InterruptedException, TimeoutException {
    Set<String> topics = new HashSet<>();
    List<Pattern> regexes = new ArrayList<>();
    for (Connector c : connectors) {
      topics.addAll(c.activeTopics());
      if (c.kind() == Kind.SINK) {
        topics.addAll(c.sinkTopics());
        if (c.dlqTopic() != null) {
          topics.add(c.dlqTopic());
        }
        if (c.sinkTopicsRegex() != null) {
          regexes.add(c.sinkTopicsRegex());
        }
      }
    }
    if (!regexes.isEmpty()) {
      for (String t : admin.listTopics().names().get(TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
        if (regexes.stream().anyMatch(r -> r.matcher(t).matches())) {
          topics.add(t);
        }
      }
    }
    return topics;
  }

  private Map<TopicPartition, Long> endOffsets(Set<String> topics)
      throws ExecutionException, InterruptedException, TimeoutException {
    if (topics.isEmpty()) {
      return Map.of();
    }
    Map<TopicPartition, OffsetSpec> request = new HashMap<>();
    Map<String, KafkaFuture<TopicDescription>> described = admin.describeTopics(topics).topicNameValues();
    for (Map.Entry<String, KafkaFuture<TopicDescription>> e : described.entrySet()) {
      try {
        TopicDescription d = e.getValue().get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
        d.partitions().forEach(p -> request.put(new TopicPartition(d.name(), p.partition()), OffsetSpec.latest()));
      } catch (ExecutionException missing) {
        // A DLQ topic that has not received a record yet does not exist: no series for it.
      }
    }
    Map<TopicPartition, Long> out = new HashMap<>();
    for (Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> e
        : admin.listOffsets(request).all().get(TIMEOUT_MS, TimeUnit.MILLISECONDS).entrySet()) {
      out.put(e.getKey(), e.getValue().offset());
    }
    return out;
  }

  /** Records not yet committed by the sink's group, per partition it has committed on. */
  private Map<TopicPartition, Long> lagOf(Connector sink, Map<TopicPartition, Long> ends)
      throws ExecutionException, InterruptedException, TimeoutException {
    Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(sink.consumerGroup())
        .partitionsToOffsetAndMetadata().get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
    Map<TopicPartition, Long> out = new HashMap<>();
    committed.forEach((tp, om) -> {
      Long end = ends.get(tp);
      if (om != null && end != null) {
        out.put(tp, Math.max(0, end - om.offset()));
      }
    });
    return out;
  }

  private SourceRetention.Reading readRetention(Connector c, SourceRetention probe) throws Exception {
    Map<String, String> config = resolved(c);
    try (Connection db = connect(c, config, probe.jdbcUrl(config))) {
      return probe.read(db, config);
    }
  }

  /** The sizes of the tables of a snapshot in progress; the database is the one the retention probe reaches. */
  private Map<String, Long> readEstimates(Connector c, RowEstimates sizes, Set<String> tables) throws Exception {
    SourceRetention probe = probeFor(c.connectorClass());
    if (probe == null || tables.isEmpty()) {
      return Map.of();
    }
    Map<String, String> config = resolved(c);
    try (Connection db = connect(c, config, probe.jdbcUrl(config))) {
      return sizes.read(db, tables);
    }
  }

  private Connection connect(Connector c, Map<String, String> config, String url) throws Exception {
    Driver driver = driverFor(c.connectorClass(), url);
    Properties props = new Properties();
    props.setProperty("user", config.getOrDefault("database.user", ""));
    props.setProperty("password", config.getOrDefault("database.password", ""));
    // Both drivers take seconds for these; a database that hangs must not hold the refresh thread for long.
    props.setProperty("connectTimeout", url.startsWith("jdbc:mysql:") ? "10000" : "10");
    props.setProperty("socketTimeout", url.startsWith("jdbc:mysql:") ? "10000" : "10");
    Connection db = driver.connect(url, props);
    if (db == null) {
      throw new IllegalStateException("driver " + driver.getClass().getName() + " refused " + url);
    }
    return db;
  }

  /** The connector's config with Sluice's secret references resolved, as its tasks see it. */
  private Map<String, String> resolved(Connector c) {
    if (secrets == null || c.config().values().stream().noneMatch(v -> v != null && v.contains("${"))) {
      return c.config();
    }
    return new ConfigTransformer(Map.of(SecretConfigProvider.NAME, secrets)).transform(c.config()).data();
  }

  /** The JDBC driver the connector itself uses: its plugin folder brings it, the exporter's classpath does not. */
  private Driver driverFor(String connectorClass, String url) throws Exception {
    // Connect's delegating loader hands out the connector class from its plugin folder; that class's loader sees the
    // folder's jars, the driver among them.
    ClassLoader loader = herder.plugins().delegatingLoader().loadClass(connectorClass).getClassLoader();
    for (Driver d : ServiceLoader.load(Driver.class, loader)) {
      if (d.acceptsURL(url)) {
        return d;
      }
    }
    throw new IllegalStateException("no JDBC driver for " + url + " in the plugin of " + connectorClass);
  }

  @Override
  public void close() {
    admin.close(Duration.ofSeconds(5));
  }
}
