package io.sluice.console.topics;

import static io.sluice.console.reads.ParallelReads.join;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.connect.client.ConnectRestClient;
import io.sluice.console.reads.Recent;
import io.sluice.topics.KafkaCluster;
import io.sluice.topics.TransactionMarkers;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * What the console shows of Kafka itself: the topics with their partitions, messages, bytes and retention and who uses
 * each (connectors, consumer groups), and the consumer groups with their lag per partition and where it comes from.
 * Each kind of fact is one Admin call for every topic or group at once (describe, list offsets, configs, log dirs,
 * group offsets), made side by side, never one call per topic: a page costs the same few round trips at 10 topics or
 * at 1,000.
 */
public final class KafkaInventory implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long TIMEOUT_S = 15;
  /** Kafka Connect names a sink task's consumer {@code connector-consumer-<connector>-<task>}. */
  private static final String TASK_CLIENT = "connector-consumer-";

  /**
   * How long a read is shown again. The topics page and the groups page refresh on demand, several people may look at
   * once, and each read is a handful of Admin calls over every topic: a second look within this shares the read.
   */
  static final java.time.Duration RECENT = java.time.Duration.ofSeconds(2);
  /** Topic configs (retention, cleanup) change rarely: read for all topics this often, for a new topic at once. */
  static final java.time.Duration CONFIGS = java.time.Duration.ofSeconds(30);
  /** Sizes on disk: every replica of every partition from every broker, the heaviest call of the page. */
  static final java.time.Duration SIZES = java.time.Duration.ofSeconds(10);

  private final Admin admin;
  private final ConnectRestClient connect;
  private final ExecutorService pool;
  private final java.time.Clock clock = java.time.Clock.systemUTC();
  /**
   * A list at most this old is answered at once while it is read anew in the background: the list of 1,000 topics is
   * a few hundred milliseconds of Admin calls, a page refreshes every few seconds.
   */
  static final java.time.Duration STALE = java.time.Duration.ofSeconds(10);
  private final Recent<ObjectNode> topicsRead;
  private final Recent<Groups> groupsRead;
  private final Recent<JsonNode> connectRead;
  private final Recent<Map<String, Long>> sizes;
  private Map<String, Config> configs = new HashMap<>();
  private long configsAt;
  private final KafkaCluster cluster;
  /** Reads whether a small lag is transaction markers only; made at first need, one page at a time. */
  private KafkaConsumer<byte[], byte[]> markerProbe;

  public KafkaInventory(KafkaCluster cluster, ConnectRestClient connect, ExecutorService pool) {
    this.admin = Admin.create(cluster.clientConfig(Map.of(AdminClientConfig.CLIENT_ID_CONFIG, "sluice-console",
        AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "15000",
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "15000")));
    this.connect = connect;
    this.pool = pool;
    this.cluster = cluster;
    this.topicsRead = new Recent<>(RECENT, STALE, pool, clock, this::readTopics);
    this.groupsRead = new Recent<>(RECENT, clock, this::groups);
    this.connectRead = new Recent<>(RECENT, clock, connect::connectorsExpanded);
    this.sizes = new Recent<>(SIZES, clock, () -> bytes(admin.describeLogDirs(get(admin.describeCluster().nodes())
        .stream().map(Node::id).toList()).allDescriptions()));
  }

  /**
   * The topics (internal ones left out), each with its figures and users, sorted by name; the same answer for
   * {@link #RECENT}.
   */
  public ObjectNode topics() throws Exception {
    return topicsRead.get();
  }

  private ObjectNode readTopics() throws Exception {
    Set<String> names = get(admin.listTopics(new ListTopicsOptions().listInternal(false)).names());
    KafkaFuture<Map<String, TopicDescription>> described = admin.describeTopics(names).allTopicNames();
    CompletableFuture<Map<String, Config>> configsRead = CompletableFuture.supplyAsync(() -> configs(names), pool);
    CompletableFuture<Map<String, Long>> sizesRead = CompletableFuture.supplyAsync(() -> {
      try {
        return sizes.get();
      } catch (Exception e) {
        return Map.of();
      }
    }, pool);
    CompletableFuture<Groups> groups = CompletableFuture.supplyAsync(this::recentGroups, pool);
    Map<String, TopicDescription> topics = get(described);
    List<TopicPartition> tps = partitions(topics.values());
    KafkaFuture<Map<TopicPartition, ListOffsetsResultInfo>> earliest = admin.listOffsets(spec(tps,
        OffsetSpec.earliest())).all();
    KafkaFuture<Map<TopicPartition, ListOffsetsResultInfo>> latest = admin.listOffsets(spec(tps,
        OffsetSpec.latest())).all();
    Map<TopicPartition, ListOffsetsResultInfo> begin = get(earliest);
    Map<TopicPartition, ListOffsetsResultInfo> end = get(latest);
    Map<String, Config> config = join(configsRead);
    Map<String, Long> bytes = join(sizesRead);
    // Connect on this thread: its per-source calls go to the pool, which must not wait on itself.
    Connectors users = connectors();
    Map<String, Set<String>> groupsOf = join(groups).byTopic();

    ObjectNode out = JSON.createObjectNode();
    ArrayNode rows = out.putArray("topics");
    for (String name : new TreeSet<>(topics.keySet())) {
      TopicDescription d = topics.get(name);
      long messages = 0;
      for (TopicPartitionInfo p : d.partitions()) {
        TopicPartition tp = new TopicPartition(name, p.partition());
        messages += offset(end, tp) - offset(begin, tp);
      }
      Config c = config.get(name);
      ObjectNode row = rows.addObject().put("name", name).put("partitions", d.partitions().size())
          .put("replicas", d.partitions().isEmpty() ? 0 : d.partitions().get(0).replicas().size())
          .put("messages", messages);
      if (bytes.containsKey(name)) {
        row.put("bytes", bytes.get(name));
      } else {
        row.putNull("bytes");
      }
      row.put("cleanupPolicy", value(c, "cleanup.policy")).put("retentionMs", value(c, "retention.ms"))
          .put("retentionBytes", value(c, "retention.bytes"));
      ArrayNode cs = row.putArray("connectors");
      users.of(name).forEach((connector, role) -> cs.addObject().put("name", connector).put("role", role));
      ArrayNode gs = row.putArray("groups");
      groupsOf.getOrDefault(name, Set.of()).forEach(gs::add);
    }
    if (users.error() != null) {
      out.put("connectError", users.error());
    }
    return out;
  }

  /** One topic: its partitions (leader, replicas, in sync, first and next offset) and its config. */
  public ObjectNode topic(String name) throws Exception {
    TopicDescription d;
    try {
      d = get(admin.describeTopics(List.of(name)).allTopicNames()).get(name);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException) {
        throw new IllegalArgumentException("topic " + name + " does not exist");
      }
      throw e;
    }
    List<TopicPartition> tps = partitions(List.of(d));
    KafkaFuture<Map<TopicPartition, ListOffsetsResultInfo>> earliest = admin.listOffsets(spec(tps,
        OffsetSpec.earliest())).all();
    KafkaFuture<Map<TopicPartition, ListOffsetsResultInfo>> latest = admin.listOffsets(spec(tps,
        OffsetSpec.latest())).all();
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, name);
    KafkaFuture<Map<ConfigResource, Config>> configs = admin.describeConfigs(List.of(resource)).all();
    ObjectNode out = JSON.createObjectNode().put("name", name);
    ArrayNode parts = out.putArray("partitions");
    Map<TopicPartition, ListOffsetsResultInfo> begin = get(earliest);
    Map<TopicPartition, ListOffsetsResultInfo> end = get(latest);
    for (TopicPartitionInfo p : d.partitions()) {
      TopicPartition tp = new TopicPartition(name, p.partition());
      parts.addObject().put("partition", p.partition()).put("leader", p.leader() == null ? -1 : p.leader().id())
          .put("replicas", p.replicas().size()).put("inSync", p.isr().size())
          .put("first", offset(begin, tp)).put("next", offset(end, tp));
    }
    ObjectNode config = out.putObject("config");
    get(configs).get(resource).entries().stream().filter(e -> !e.isDefault() || e.name().startsWith("retention")
        || e.name().equals("cleanup.policy")).sorted((a, b) -> a.name().compareTo(b.name()))
        .forEach(e -> config.put(e.name(), e.isSensitive() ? "********" : e.value()));
    return out;
  }

  /**
   * Every consumer group with its committed offset, end offset and lag per partition, its members, and for a sink's
   * group the connector, and for each partition the task (and worker) that holds it, as Connect's status says. A group
   * that committed past a partition's last stable offset reads uncommitted records ({@code readsUncommitted}): seen
   * while a transaction is open on a partition it reads, the only time it can be told apart.
   */
  public ObjectNode consumerGroups() throws Exception {
    // Read now, not shared: the lag is committed offsets against end offsets of the same moment.
    CompletableFuture<Groups> reading = CompletableFuture.supplyAsync(this::groups, pool);
    Connectors users = connectors();
    Groups groups = join(reading);
    Set<TopicPartition> tps = new java.util.HashSet<>();
    groups.committed().values().forEach(m -> tps.addAll(m.keySet()));
    groups.described().values().forEach(d -> d.members().forEach(m -> tps.addAll(m.assignment().topicPartitions())));
    // Lag against the last stable offsets, which a group reading committed records (every one of Sluice's) can reach.
    Map<TopicPartition, ListOffsetsResultInfo> end = tps.isEmpty() ? Map.of()
        : get(admin.listOffsets(spec(new ArrayList<>(tps), OffsetSpec.latest()),
            new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all());
    Map<TopicPartition, Long> ends = new HashMap<>();
    end.forEach((tp, info) -> ends.put(tp, info.offset()));
    ObjectNode out = JSON.createObjectNode();
    ArrayNode rows = out.putArray("groups");
    for (String group : new TreeSet<>(groups.states().keySet())) {
      ConsumerGroupDescription d = groups.described().get(group);
      Map<TopicPartition, OffsetAndMetadata> committed = groups.committed().getOrDefault(group, Map.of());
      String connector = users.sinkOfGroup(group);
      Map<TopicPartition, MemberDescription> holder = new HashMap<>();
      if (d != null) {
        d.members().forEach(m -> m.assignment().topicPartitions().forEach(tp -> holder.put(tp, m)));
      }
      Set<TopicPartition> parts = new TreeSet<>(java.util.Comparator.comparing(TopicPartition::topic)
          .thenComparingInt(TopicPartition::partition));
      parts.addAll(committed.keySet());
      parts.addAll(holder.keySet());
      ObjectNode row = rows.addObject().put("group", group).put("state", groups.states().get(group))
          .put("members", d == null ? 0 : d.members().size());
      if (connector != null) {
        row.put("connector", connector);
      }
      long total = 0;
      boolean readsUncommitted = false;
      Set<TopicPartition> caughtUp = markersOnly(committed, ends);
      ArrayNode ps = row.putArray("partitions");
      for (TopicPartition tp : parts) {
        OffsetAndMetadata c = committed.get(tp);
        ListOffsetsResultInfo e = end.get(tp);
        ObjectNode p = ps.addObject().put("topic", tp.topic()).put("partition", tp.partition());
        if (c != null) {
          p.put("committed", c.offset());
        } else {
          p.putNull("committed");
        }
        if (e != null) {
          p.put("end", e.offset());
        } else {
          p.putNull("end");
        }
        if (c != null && e != null) {
          long lag = caughtUp.contains(tp) ? 0 : Math.max(0, e.offset() - c.offset());
          p.put("lag", lag);
          total += lag;
          // Past the last stable offset: only a consumer with isolation.level=read_uncommitted reads a transaction
          // still open (or later aborted), so its group has taken records that may never have been committed.
          if (c.offset() > e.offset()) {
            p.put("uncommitted", true);
            readsUncommitted = true;
          }
        } else {
          p.putNull("lag");
        }
        MemberDescription m = holder.get(tp);
        if (m != null) {
          p.put("clientId", m.clientId()).put("host", m.host());
          Integer task = connector == null ? null : taskOf(m.clientId(), connector);
          if (task != null) {
            p.put("task", task);
            String worker = users.workerOf(connector, task);
            if (worker != null) {
              p.put("worker", worker);
            }
          }
        }
      }
      row.put("lag", total);
      row.put("readsUncommitted", readsUncommitted);
    }
    if (users.error() != null) {
      out.put("connectError", users.error());
    }
    return out;
  }

  /** The task number in a sink task's consumer client id ({@code connector-consumer-orders-sink-0}), or null. */
  static Integer taskOf(String clientId, String connector) {
    String prefix = TASK_CLIENT + connector + "-";
    if (clientId == null || !clientId.startsWith(prefix)) {
      return null;
    }
    try {
      return Integer.parseInt(clientId.substring(prefix.length()));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  // ---- groups

  /** The consumer groups' states, descriptions and committed offsets: three Admin calls for all of them. */
  record Groups(Map<String, String> states, Map<String, ConsumerGroupDescription> described,
      Map<String, Map<TopicPartition, OffsetAndMetadata>> committed) {
    /** Topic → the groups that committed on it or are assigned one of its partitions. */
    Map<String, Set<String>> byTopic() {
      Map<String, Set<String>> out = new HashMap<>();
      committed.forEach((g, m) -> m.keySet().forEach(tp -> out.computeIfAbsent(tp.topic(), t -> new TreeSet<>())
          .add(g)));
      described.forEach((g, d) -> d.members().forEach(m -> m.assignment().topicPartitions().forEach(tp ->
          out.computeIfAbsent(tp.topic(), t -> new TreeSet<>()).add(g))));
      return out;
    }
  }

  private Groups recentGroups() {
    try {
      return groupsRead.get();
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  /**
   * The configs of {@code names}: every topic's read again once {@link #CONFIGS} has passed, else only those of topics
   * not seen before (one call either way).
   */
  private synchronized Map<String, Config> configs(Set<String> names) {
    boolean all = clock.millis() - configsAt > CONFIGS.toMillis();
    List<String> wanted = all ? List.copyOf(names) : names.stream().filter(n -> !configs.containsKey(n)).toList();
    if (!wanted.isEmpty()) {
      try {
        Map<String, Config> read = new HashMap<>(all ? Map.of() : configs);
        get(admin.describeConfigs(wanted.stream().map(n -> new ConfigResource(ConfigResource.Type.TOPIC, n))
            .toList()).all()).forEach((r, c) -> read.put(r.name(), c));
        configs = read;
        if (all) {
          configsAt = clock.millis();
        }
      } catch (ExecutionException | TimeoutException e) {
        throw new IllegalStateException("cannot read the topics' configs: " + e.getMessage(), e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }
    return configs;
  }

  private Groups groups() {
    try {
      Collection<GroupListing> listed = get(admin.listGroups(ListGroupsOptions.forConsumerGroups()).all());
      Map<String, String> states = new TreeMap<>();
      listed.forEach(g -> states.put(g.groupId(), g.groupState().map(Object::toString).orElse("Unknown")));
      if (states.isEmpty()) {
        return new Groups(states, Map.of(), Map.of());
      }
      KafkaFuture<Map<String, ConsumerGroupDescription>> described = admin.describeConsumerGroups(states.keySet())
          .all();
      Map<String, ListConsumerGroupOffsetsSpec> specs = new HashMap<>();
      states.keySet().forEach(g -> specs.put(g, new ListConsumerGroupOffsetsSpec()));
      Map<String, Map<TopicPartition, OffsetAndMetadata>> committed = new HashMap<>();
      get(admin.listConsumerGroupOffsets(specs).all()).forEach((g, m) -> {
        Map<TopicPartition, OffsetAndMetadata> present = new HashMap<>();
        m.forEach((tp, om) -> {
          if (om != null) {
            present.put(tp, om);
          }
        });
        committed.put(g, present);
      });
      return new Groups(states, get(described), committed);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("cannot read the consumer groups: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  // ---- connectors

  /**
   * Which connector uses which topic, from one {@code GET /connectors?expand=info&expand=status} (a sink's
   * {@code topics}, {@code topics.regex} and dead-letter topic) and, for each source, the topics Connect saw it write.
   */
  record Connectors(Map<String, Map<String, String>> byTopic, List<Map.Entry<Pattern, String>> regexes,
      Map<String, String> sinkGroups, Map<String, Map<Integer, String>> workers, String error) {
    Map<String, String> of(String topic) {
      Map<String, String> out = new TreeMap<>(byTopic.getOrDefault(topic, Map.of()));
      for (Map.Entry<Pattern, String> r : regexes) {
        if (r.getKey().matcher(topic).matches()) {
          out.putIfAbsent(r.getValue(), "reads");
        }
      }
      return out;
    }

    String sinkOfGroup(String group) {
      return sinkGroups.get(group);
    }

    String workerOf(String connector, int task) {
      return workers.getOrDefault(connector, Map.of()).get(task);
    }
  }

  private Connectors connectors() {
    Map<String, Map<String, String>> byTopic = new HashMap<>();
    List<Map.Entry<Pattern, String>> regexes = new ArrayList<>();
    Map<String, String> sinkGroups = new HashMap<>();
    Map<String, Map<Integer, String>> workers = new HashMap<>();
    JsonNode all;
    try {
      all = connectRead.get();
    } catch (Exception e) {
      return new Connectors(byTopic, regexes, sinkGroups, workers, "Kafka Connect did not answer: " + e.getMessage());
    }
    Map<String, CompletableFuture<List<String>>> sourceTopics = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = all.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String name = e.getKey();
      JsonNode config = e.getValue().path("info").path("config");
      String type = e.getValue().path("info").path("type").asText(e.getValue().path("status").path("type").asText());
      Map<Integer, String> tasks = new HashMap<>();
      e.getValue().path("status").path("tasks").forEach(t -> tasks.put(t.path("id").asInt(),
          t.path("worker_id").asText()));
      workers.put(name, tasks);
      if (type.equals("sink")) {
        for (String t : config.path("topics").asText("").split(",")) {
          if (!t.isBlank()) {
            byTopic.computeIfAbsent(t.trim(), x -> new TreeMap<>()).put(name, "reads");
          }
        }
        String regex = config.path("topics.regex").asText("");
        if (!regex.isBlank()) {
          try {
            regexes.add(Map.entry(Pattern.compile(regex), name));
          } catch (PatternSyntaxException bad) {
            // Connect refuses such a config; nothing to match.
          }
        }
        String dlq = config.path("errors.deadletterqueue.topic.name").asText("");
        if (!dlq.isBlank()) {
          byTopic.computeIfAbsent(dlq, x -> new TreeMap<>()).put(name, "dead letters");
        }
        sinkGroups.put(config.path("consumer.override.group.id").asText("connect-" + name), name);
      } else {
        sourceTopics.put(name, CompletableFuture.supplyAsync(() -> connect.topics(name), pool));
      }
    }
    String error = null;
    for (Map.Entry<String, CompletableFuture<List<String>>> e : sourceTopics.entrySet()) {
      try {
        e.getValue().join().forEach(t -> byTopic.computeIfAbsent(t, x -> new TreeMap<>()).put(e.getKey(), "writes"));
      } catch (RuntimeException failed) {
        // topic.tracking.enable=false: a source's topics are unknown; the page says so once.
        error = "Kafka Connect does not say which topics " + e.getKey() + " writes: " + failed.getMessage();
      }
    }
    return new Connectors(byTopic, regexes, sinkGroups, workers, error);
  }

  // ---- helpers

  /** Bytes on disk per topic: the largest replica of each partition, summed; empty when the brokers do not say. */
  private static Map<String, Long> bytes(KafkaFuture<Map<Integer, Map<String, LogDirDescription>>> described) {
    // A broker that does not answer: no sizes, and the next page asks again (a failed read is not kept).
    Map<TopicPartition, Long> largest = new HashMap<>();
    try {
      get(described).values().forEach(byDir -> byDir.values().forEach(d -> d.replicaInfos().forEach((tp, r) ->
          largest.merge(tp, r.size(), Math::max))));
    } catch (Exception e) {
      return Map.of();
    }
    Map<String, Long> out = new HashMap<>();
    largest.forEach((tp, size) -> out.merge(tp.topic(), size, Long::sum));
    return out;
  }

  private static List<TopicPartition> partitions(Collection<TopicDescription> topics) {
    List<TopicPartition> out = new ArrayList<>();
    topics.forEach(d -> d.partitions().forEach(p -> out.add(new TopicPartition(d.name(), p.partition()))));
    return out;
  }

  private static Map<TopicPartition, OffsetSpec> spec(List<TopicPartition> tps, OffsetSpec spec) {
    Map<TopicPartition, OffsetSpec> out = new HashMap<>();
    tps.forEach(tp -> out.put(tp, spec));
    return out;
  }

  private static long offset(Map<TopicPartition, ListOffsetsResultInfo> offsets, TopicPartition tp) {
    ListOffsetsResultInfo i = offsets.get(tp);
    return i == null ? 0 : i.offset();
  }

  private static String value(Config c, String key) {
    if (c == null || c.get(key) == null) {
      return null;
    }
    return c.get(key).value();
  }

  private static <T> T get(KafkaFuture<T> f) throws ExecutionException, InterruptedException, TimeoutException {
    return f.get(TIMEOUT_S, TimeUnit.SECONDS);
  }


  /**
   * The partitions of a group whose small lag is transaction markers only ({@link TransactionMarkers}): a group that
   * read everything of a topic written in transactions commits short of the end by the last transaction's marker.
   */
  private synchronized Set<TopicPartition> markersOnly(Map<TopicPartition, OffsetAndMetadata> committed,
      Map<TopicPartition, Long> ends) {
    Map<TopicPartition, Long> from = new HashMap<>();
    committed.forEach((tp, om) -> {
      if (om != null) {
        from.put(tp, om.offset());
      }
    });
    try {
      if (markerProbe == null) {
        markerProbe = new KafkaConsumer<>(cluster.consumerConfig(Map.of("client.id", "sluice-console-lag",
            "enable.auto.commit", "false", "allow.auto.create.topics", "false", "fetch.max.wait.ms", "20",
            "max.poll.records", "1")), new ByteArrayDeserializer(), new ByteArrayDeserializer());
      }
      return TransactionMarkers.only(markerProbe, from, ends, MARKER_PROBE, java.time.Duration.ofSeconds(1));
    } catch (RuntimeException e) {
      return Set.of();
    }
  }

  /** The largest lag, in offsets, read to see whether it is transaction markers only. */
  private static final long MARKER_PROBE = 100;

  @Override
  public synchronized void close() {
    if (markerProbe != null) {
      markerProbe.close(java.time.Duration.ofSeconds(5));
    }
    admin.close(java.time.Duration.ofSeconds(5));
  }
}
