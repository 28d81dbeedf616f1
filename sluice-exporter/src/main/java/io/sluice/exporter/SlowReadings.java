package io.sluice.exporter;

import io.sluice.connect.defaults.ExactlyOnce;
import io.sluice.connect.secrets.SecretConfigProvider;
import io.sluice.exporter.ConnectorCatalog.Connector;
import io.sluice.exporter.ConnectorCatalog.Kind;
import io.sluice.source.SourceConnection;
import io.sluice.topics.KafkaCluster;
import io.sluice.topics.TransactionMarkers;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeTransactionsResult;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsResult;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigTransformer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.config.provider.ConfigProvider;
import org.apache.kafka.connect.runtime.Herder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The values that cost a round trip to Kafka or to a database: topic end offsets, sink consumer lag, source log
 * retention and, while a source snapshots, its tables' estimated sizes. Read on the exporter's own thread at its
 * refresh interval; a scrape only takes the last {@link Readings}, each value with the time it was read, so a slow
 * broker or database never slows a scrape down. A pass costs a fixed number of round trips to Kafka (every topic's
 * end offsets in one, every sink group's commits in one) and one per source database session, which stays open
 * between passes and serves every connector that reaches that database as the same user.
 */
final class SlowReadings implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SlowReadings.class);
  private static final long TIMEOUT_MS = 10_000;
  /** The largest lag, in offsets, that is read to see whether it is transaction markers only. */
  private static final long MARKER_PROBE = 100;

  /** A value and when it was read (unix seconds). */
  record Timed<T>(T value, double readAt) {}

  /** Everything read so far; replaced whole after each pass. */
  record Readings(Timed<Map<TopicPartition, Long>> endOffsets, Map<String, Timed<Map<TopicPartition, Long>>> sinkLag,
      Map<String, Timed<SourceRetention.Reading>> retention, Map<String, Timed<Map<String, Long>>> rowEstimates,
      Timed<Map<TaskKey, Transaction>> transactions) {
    static final Readings EMPTY = new Readings(new Timed<>(Map.of(), 0), Map.of(), Map.of(), Map.of(),
        new Timed<>(Map.of(), 0));
  }

  /**
   * An exactly-once source task's transaction as its coordinator describes it: how long the open one has been open
   * (0 when none is), and the timeout past which the coordinator aborts it.
   */
  record Transaction(double openSeconds, double timeoutSeconds) {}

  private final ConnectorCatalog catalog;
  private final Admin admin;
  private final Clock clock;
  private final ConfigProvider secrets;
  private final Map<String, SourceRetention> probes = new ConcurrentHashMap<>();
  private final SourceConnections connections;
  private final KafkaCluster cluster;
  /** The worker's group id, which Connect puts before each source task's transactional id. */
  private final String groupId;
  /** Made at the first lag that may be transaction markers only; used by the refresh thread alone. */
  private KafkaConsumer<byte[], byte[]> markerProbe;
  private volatile Readings readings = Readings.EMPTY;

  SlowReadings(ConnectorCatalog catalog, Herder herder, Map<String, String> workerConfig, Clock clock) {
    this.catalog = catalog;
    this.clock = clock;
    this.connections = new SourceConnections(herder, clock);
    KafkaCluster cluster = KafkaCluster.from(workerConfig);
    this.cluster = cluster;
    this.groupId = workerConfig.get("group.id");
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
    Map<String, Timed<Map<TopicPartition, Long>>> lag;
    try {
      lag = sinkLag(connectors.stream().filter(c -> c.kind() == Kind.SINK).toList(), ends.value(), prev.sinkLag());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    List<Connector> sources = connectors.stream().filter(c -> c.kind() == Kind.SOURCE).toList();
    Map<String, Timed<SourceRetention.Reading>> retention = new HashMap<>();
    Map<String, Reach> reachOf = reachOf(sources, prev, retention);
    retention.putAll(retention(reachOf, prev));
    Map<String, Timed<Map<String, Long>>> estimates = sources.isEmpty() ? Map.of() : estimates(sources, reachOf);
    connections.keepOnly(reachOf.values().stream().map(r -> r.session().server()).collect(Collectors.toSet()));
    Timed<Map<TaskKey, Transaction>> transactions = prev.transactions();
    try {
      transactions = new Timed<>(transactions(sources), now());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    readings = new Readings(ends, Map.copyOf(lag), Map.copyOf(retention), Map.copyOf(estimates), transactions);
  }

  /**
   * The transaction of each task of an exactly-once source, from the transaction coordinator (one round trip for
   * all): Connect's transactional id of a source task is {@code <group.id>-<connector>-<task>}. A task whose id the
   * coordinator does not know yet (no transaction begun) has none open.
   */
  private Map<TaskKey, Transaction> transactions(List<Connector> sources) throws InterruptedException {
    Map<String, TaskKey> ids = new LinkedHashMap<>();
    for (Connector c : sources) {
      if (ExactlyOnce.guarantee(c.config()) == ExactlyOnce.Guarantee.EXACTLY_ONCE) {
        c.tasks().forEach(t -> ids.put(groupId + "-" + c.name() + "-" + t.id(),
            new TaskKey(c.name(), Integer.toString(t.id()))));
      }
    }
    if (ids.isEmpty() || groupId == null) {
      return Map.of();
    }
    DescribeTransactionsResult described = admin.describeTransactions(ids.keySet());
    long now = clock.millis();
    Map<TaskKey, Transaction> out = new LinkedHashMap<>();
    for (Map.Entry<String, TaskKey> id : ids.entrySet()) {
      try {
        TransactionDescription d = described.description(id.getKey()).get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
        boolean open = d.state() == TransactionState.ONGOING || d.state() == TransactionState.PREPARE_COMMIT
            || d.state() == TransactionState.PREPARE_ABORT;
        double openSeconds = open && d.transactionStartTimeMs().isPresent()
            ? Math.max(0, now - d.transactionStartTimeMs().getAsLong()) / 1000.0 : 0;
        out.put(id.getValue(), new Transaction(openSeconds, d.transactionTimeoutMs() / 1000.0));
      } catch (ExecutionException | TimeoutException e) {
        // Not known to the coordinator yet, or not answered: no reading for this task this pass.
        log.debug("transaction {} not described: {}", id.getKey(), e.toString());
      }
    }
    return out;
  }

  /**
   * Where each source's probe connects, with the source's config resolved. A source whose config cannot be resolved
   * keeps its last reading in {@code retention}.
   */
  private Map<String, Reach> reachOf(List<Connector> sources, Readings prev,
      Map<String, Timed<SourceRetention.Reading>> retention) {
    Map<String, Reach> out = new LinkedHashMap<>();
    for (Connector c : sources) {
      SourceRetention probe = probeFor(c.connectorClass());
      if (probe == null) {
        continue;
      }
      try {
        Map<String, String> config = resolved(c);
        // The config's references are resolved already.
        SourceConnection source = SourceConnection.of(config, SourceConnection.Secrets.AS_GIVEN);
        out.put(c.name(), new Reach(new Session(new SourceConnections.Server(source), c.connectorClass()), config));
      } catch (RuntimeException e) {
        log.debug("retention of {} not read: {}", c.name(), e.toString());
        Timed<SourceRetention.Reading> last = prev.retention().get(c.name());
        if (last != null) {
          retention.put(c.name(), last);
        }
      }
    }
    return out;
  }

  /**
   * Each source's retention, read once per database session for every source that reaches the database through it;
   * the sources of a session that fails keep their last readings.
   */
  private Map<String, Timed<SourceRetention.Reading>> retention(Map<String, Reach> reachOf, Readings prev) {
    Map<Session, Map<String, Map<String, String>>> bySession = new LinkedHashMap<>();
    reachOf.forEach((connector, reach) -> bySession.computeIfAbsent(reach.session(), k -> new LinkedHashMap<>())
        .put(connector, reach.config()));
    Map<String, Timed<SourceRetention.Reading>> out = new HashMap<>();
    for (Map.Entry<Session, Map<String, Map<String, String>>> e : bySession.entrySet()) {
      Session session = e.getKey();
      SourceRetention probe = probeFor(session.connectorClass());
      Map<String, SourceRetention.Reading> read = Map.of();
      try {
        read = connections.run(session.server(), session.connectorClass(), db -> probe.read(db, e.getValue()));
      } catch (Exception failed) {
        log.debug("retention of {} not read from {}: {}", e.getValue().keySet(), session.server(), failed.toString());
      }
      double at = now();
      for (String connector : e.getValue().keySet()) {
        SourceRetention.Reading r = read.get(connector);
        Timed<SourceRetention.Reading> t = r != null ? new Timed<>(r, at) : prev.retention().get(connector);
        if (t != null) {
          out.put(connector, t);
        }
      }
    }
    return out;
  }

  /** The sizes of the tables of each snapshot in progress, from the database the source's retention probe reaches. */
  private Map<String, Timed<Map<String, Long>>> estimates(List<Connector> sources, Map<String, Reach> reachOf) {
    Map<String, SnapshotProgress> snapshots = SnapshotProgress.read();
    Map<String, Timed<Map<String, Long>>> out = new HashMap<>();
    for (Connector c : sources) {
      SnapshotProgress snapshot = snapshots.get(c.config().get("topic.prefix"));
      RowEstimates sizes = snapshot != null && snapshot.inProgress() ? RowEstimates.forClass(c.connectorClass()) : null;
      Reach reach = reachOf.get(c.name());
      if (sizes == null || reach == null) {
        continue;
      }
      try {
        Map<String, Long> read = snapshot.tables().isEmpty() ? Map.of()
            : connections.run(reach.session().server(), reach.session().connectorClass(),
                db -> sizes.read(db, snapshot.tables()));
        out.put(c.name(), new Timed<>(read, now()));
      } catch (Exception e) {
        log.debug("row estimates of {} not read: {}", c.name(), e.toString());
      }
    }
    return out;
  }

  /** A database session as a probe needs it: the server, and the connector class whose plugin has the driver. */
  private record Session(SourceConnections.Server server, String connectorClass) {}

  /** Where a source's probe connects, and the source's resolved config. */
  private record Reach(Session session, Map<String, String> config) {
    /** Without the config, which holds the password. */
    @Override
    public String toString() {
      return session.server() + " (" + session.connectorClass() + ")";
    }
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
    // The last stable offsets: as far as a consumer reading committed records (every sink's) can get. A source's
    // transaction still open is not lag a sink could have closed.
    for (Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> e : admin.listOffsets(request,
        new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get(TIMEOUT_MS, TimeUnit.MILLISECONDS).entrySet()) {
      out.put(e.getKey(), e.getValue().offset());
    }
    return out;
  }

  /**
   * Records not yet committed by each sink's group, per partition it has committed on. Every group is asked in one
   * request (the admin client groups them by coordinator); a group whose answer fails or is late keeps its sink's
   * previous reading.
   */
  private Map<String, Timed<Map<TopicPartition, Long>>> sinkLag(List<Connector> sinks, Map<TopicPartition, Long> ends,
      Map<String, Timed<Map<TopicPartition, Long>>> prev) throws InterruptedException {
    if (sinks.isEmpty()) {
      return Map.of();
    }
    Map<String, ListConsumerGroupOffsetsSpec> groups = new HashMap<>();
    sinks.forEach(s -> groups.put(s.consumerGroup(), new ListConsumerGroupOffsetsSpec()));
    ListConsumerGroupOffsetsResult result = admin.listConsumerGroupOffsets(groups);
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS);
    Map<String, Timed<Map<TopicPartition, Long>>> out = new HashMap<>();
    for (Connector sink : sinks) {
      Timed<Map<TopicPartition, Long>> l = prev.get(sink.name());
      try {
        Map<TopicPartition, OffsetAndMetadata> committed = result.partitionsToOffsetAndMetadata(sink.consumerGroup())
            .get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        Map<TopicPartition, Long> lag = new HashMap<>();
        committed.forEach((tp, om) -> {
          Long end = ends.get(tp);
          if (om != null && end != null) {
            lag.put(tp, Math.max(0, end - om.offset()));
          }
        });
        markersOnly(lag, committed, ends);
        l = new Timed<>(lag, now());
      } catch (ExecutionException | TimeoutException e) {
        log.debug("lag of {} not read: {}", sink.name(), e.toString());
      }
      if (l != null) {
        out.put(sink.name(), l);
      }
    }
    return out;
  }

  /**
   * Sets to 0 the lag of a partition where the offsets between the sink's committed offset and the end hold
   * transaction markers only ({@link TransactionMarkers}): a sink that has read everything of an exactly-once source's
   * topic would otherwise lag by an offset or a few for good. Asked only of lags up to {@value #MARKER_PROBE} offsets; a
   * larger lag stays in offsets, an upper bound of the records.
   */
  private void markersOnly(Map<TopicPartition, Long> lag, Map<TopicPartition, OffsetAndMetadata> committed,
      Map<TopicPartition, Long> ends) {
    Map<TopicPartition, Long> from = new HashMap<>();
    lag.forEach((tp, l) -> {
      if (l > 0 && l <= MARKER_PROBE) {
        from.put(tp, committed.get(tp).offset());
      }
    });
    if (from.isEmpty()) {
      return;
    }
    try {
      if (markerProbe == null) {
        markerProbe = new KafkaConsumer<>(cluster.consumerConfig(Map.of("client.id", "sluice-exporter-lag",
            "enable.auto.commit", "false", "allow.auto.create.topics", "false", "fetch.max.wait.ms", "20",
            "max.poll.records", "1")), new ByteArrayDeserializer(), new ByteArrayDeserializer());
      }
      TransactionMarkers.only(markerProbe, from, ends, MARKER_PROBE, Duration.ofSeconds(1)).forEach(tp -> lag.put(tp, 0L));
    } catch (RuntimeException e) {
      log.debug("transaction markers not probed: {}", e.toString());
    }
  }

  /** The connector's config with Sluice's secret references resolved, as its tasks see it. */
  private Map<String, String> resolved(Connector c) {
    if (secrets == null || c.config().values().stream().noneMatch(v -> v != null && v.contains("${"))) {
      return c.config();
    }
    return new ConfigTransformer(Map.of(SecretConfigProvider.NAME, secrets)).transform(c.config()).data();
  }

  @Override
  public void close() {
    if (markerProbe != null) {
      markerProbe.close(Duration.ofSeconds(5));
    }
    admin.close(Duration.ofSeconds(5));
    connections.close();
  }
}
