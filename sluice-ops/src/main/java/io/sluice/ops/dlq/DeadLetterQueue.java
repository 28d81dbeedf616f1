package io.sluice.ops.dlq;

import io.sluice.client.ClientOptions;
import io.sluice.registry.client.SchemaRegistryClient;
import io.sluice.ops.progress.Progress;
import io.sluice.topics.KafkaCluster;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * Dead-letter queues of Kafka Connect sinks: inspect, unwrap, replay, stats. Works on any Kafka cluster.
 *
 * <pre>{@code
 * DeadLetterQueue dlq = DeadLetterQueue.builder()
 *     .bootstrapServers("127.0.0.1:9092")
 *     .registryUrl("http://127.0.0.1:8081")    // to decode registry-framed values
 *     .connectUrl("http://127.0.0.1:8083")     // to find the sinks writing to a DLQ
 *     .build();
 * Inspection inspection = dlq.inspect("orders-dlq", ReadOptions.all());
 * ReplayResult result = dlq.replay(ReplayRequest.of("orders-dlq"), ProgressBar.onStderr("replay"));
 * }</pre>
 */
public final class DeadLetterQueue {
  private final Map<String, Object> clientProperties;
  private final Map<String, Object> producerOverrides;
  private final String connectUrl;
  private final Unwrapper unwrapper;
  private final Clock clock;
  private final Path backupDir;
  private final SchemaRegistryClient registry;
  private final ClientOptions options;

  private DeadLetterQueue(Builder b) {
    this.backupDir = b.backupDir;
    this.clientProperties = Map.copyOf(b.clientProperties);
    this.producerOverrides = Map.copyOf(b.producerOverrides);
    this.connectUrl = b.connectUrl;
    this.options = b.options;
    this.registry = b.registryUrl == null ? null : new SchemaRegistryClient(b.registryUrl, b.options);
    this.unwrapper = new Unwrapper(registry);
    this.clock = b.clock;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * The records chosen by {@code options}, headers decoded, with counts per exception class and stage. Holds every
   * record chosen: for a whole topic, {@link #inspect(String, ReadOptions, BiConsumer)} hands them over one by one.
   */
  public Inspection inspect(String topic, ReadOptions options) {
    List<DlqRecord> records = new ArrayList<>();
    Inspection counted = inspect(topic, options, (r, subjects) -> records.add(r));
    return new Inspection(topic, records, counted.count(), counted.groups(), counted.subjects(), counted.warnings());
  }

  /**
   * Hands each record chosen by {@code options} to {@code each} as it is read, with the registry subjects of its
   * value's schema id (empty when it has none, or no registry was given); returns the counts, without the records.
   * What is held at once does not grow with the topic: one poll of records (partitions × N for the newest N).
   */
  public Inspection inspect(String topic, ReadOptions options, BiConsumer<DlqRecord, List<String>> each) {
    Inspection.Tally tally = new Inspection.Tally();
    // An id the registry does not know has no subjects (subjectsOf answers an empty list). Any other failure (no
    // answer, credentials refused) is a warning with its cause, asked once: the ids are still shown.
    Map<Integer, List<String>> subjects = new TreeMap<>();
    List<String> warnings = new ArrayList<>();
    new DlqReader(clientProperties).read(topic, options, r -> {
      tally.add(r);
      Integer id = r.valueSchemaId();
      if (id != null && registry != null && warnings.isEmpty() && !subjects.containsKey(id)) {
        try {
          subjects.put(id, registry.subjectsOf(id));
        } catch (RuntimeException e) {
          warnings.add("the schema registry did not say which subjects schema id " + id
              + " belongs to, so no subject is shown: " + e.getMessage());
        }
      }
      each.accept(r, id == null ? List.of() : subjects.getOrDefault(id, List.of()));
    });
    return tally.inspection(topic, List.of(), subjects, warnings);
  }

  /** The original value of each record chosen by {@code options}, all held: see the streaming form below. */
  public List<Unwrapped> unwrap(String topic, ReadOptions options) {
    List<Unwrapped> out = new ArrayList<>();
    unwrap(topic, options, out::add);
    return out;
  }

  /** Hands the original value of each record chosen by {@code options} to {@code each} as it is read. */
  public void unwrap(String topic, ReadOptions options, Consumer<Unwrapped> each) {
    new DlqReader(clientProperties).read(topic, options, r -> each.accept(unwrapper.unwrap(r)));
  }

  /** The original value of one record read by {@link #inspect(String, ReadOptions, BiConsumer)}. */
  public Unwrapped unwrap(DlqRecord record) {
    return unwrapper.unwrap(record);
  }

  /**
   * Produces the originals back (see {@link ReplayRequest}); resumes where the request's group left off. Saves the
   * group's offsets first (see {@link Builder#backupDir}) and verifies after the last commit that every record was
   * acknowledged and the offsets read back as committed.
   *
   * @throws ReplayRunning when another replay of the request's group runs, here or on another node; nothing changed
   */
  public ReplayResult replay(ReplayRequest request, Progress progress) {
    return replayer().run(request, progress);
  }

  /**
   * Takes the request's replay group for a replay to be run later ({@link ReplayClaim#replay}), so that a caller
   * that runs it on another thread can still answer "already running" to whoever asked. A dry run claims nothing.
   *
   * @throws ReplayRunning when another replay of the group runs, here or on another node; nothing changed
   */
  public ReplayClaim claim(ReplayRequest request) {
    return new ReplayClaim(replayer(), request);
  }

  Replayer replayer() {
    return new Replayer(clientProperties, producerOverrides, unwrapper, clock, backupDir);
  }

  /** Offsets, rates and sink lag of one dead-letter topic. */
  public DlqStats stats(String topic) {
    List<ConnectDeadLetterTopics.Sink> sinks = List.of();
    String warning = null;
    if (connectUrl != null) {
      try {
        sinks = connectSinks();
      } catch (IllegalStateException e) {
        // The topic's own headers still name the connectors that wrote to it: worth showing without Connect.
        warning = e.getMessage() + "; sinks found from the records' headers only";
      }
    }
    return new StatsReader(clientProperties, clock).stats(topic, sinks, warning);
  }

  /** Stats of every dead-letter topic the Connect cluster's sink connectors are configured with. */
  public List<DlqStats> stats() {
    if (connectUrl == null) {
      throw new IllegalStateException("finding the dead-letter topics needs the Kafka Connect URL");
    }
    List<ConnectDeadLetterTopics.Sink> sinks = connectSinks();
    StatsReader reader = new StatsReader(clientProperties, clock);
    return sinks.stream().map(ConnectDeadLetterTopics.Sink::deadLetterTopic).distinct().sorted()
        .map(t -> statsOrMissing(reader, t, sinks)).toList();
  }

  /**
   * One configured dead-letter topic's stats; a topic not created yet (the sink's task has not started) is listed
   * empty with its sinks and a warning, instead of failing the list of every other topic.
   */
  private DlqStats statsOrMissing(StatsReader reader, String topic, List<ConnectDeadLetterTopics.Sink> sinks) {
    try {
      return reader.stats(topic, sinks, null);
    } catch (IllegalArgumentException missing) {
      List<DlqStats.SinkLag> writers = sinks.stream().filter(s -> s.deadLetterTopic().equals(topic))
          .map(s -> new DlqStats.SinkLag(s.connector(), s.group(), null, List.of(), s.state())).toList();
      return new DlqStats(topic, List.of(), 0, 0, 0, null, writers, clock.instant(), "topic " + topic
          + " does not exist yet (Kafka Connect creates it when the sink's task starts)");
    }
  }

  private List<ConnectDeadLetterTopics.Sink> connectSinks() {
    return connectUrl == null ? List.of() : new ConnectDeadLetterTopics(connectUrl, options).sinks();
  }

  public static final class Builder {
    private final Map<String, Object> clientProperties = new HashMap<>();
    private final Map<String, Object> producerOverrides = new HashMap<>();
    private String registryUrl;
    private String connectUrl;
    private ClientOptions options = ClientOptions.defaults();
    private Clock clock = Clock.systemUTC();
    private Path backupDir;

    private Builder() {}

    /**
     * Where replay saves its group's offsets before moving them, e.g. {@code <data-dir>/backups/dlq}; without it
     * replay takes no backup.
     */
    public Builder backupDir(Path backupDir) {
      this.backupDir = backupDir;
      return this;
    }

    /** Kafka bootstrap servers; required. */
    public Builder bootstrapServers(String bootstrapServers) {
      clientProperties.put("bootstrap.servers", bootstrapServers);
      return this;
    }

    /** The cluster and its client security settings; replaces {@link #bootstrapServers}. */
    public Builder cluster(KafkaCluster cluster) {
      clientProperties.putAll(cluster.clientConfig());
      return this;
    }

    /** Any other Kafka client property (security, timeouts), for every client this uses. */
    public Builder clientProperty(String key, Object value) {
      clientProperties.put(key, value);
      return this;
    }

    /** A property of the replay producer only, winning over Sluice's throughput settings. */
    public Builder producerProperty(String key, Object value) {
      producerOverrides.put(key, value);
      return this;
    }

    /** Schema registry to decode registry-framed values with; without it they are shown as base64. */
    public Builder registryUrl(String registryUrl) {
      this.registryUrl = registryUrl;
      return this;
    }

    /** Kafka Connect REST URL, to find the sinks writing to dead-letter topics; optional. */
    public Builder connectUrl(String connectUrl) {
      this.connectUrl = connectUrl;
      return this;
    }

    /** Credentials and CA for the registry and Connect (defaults: none, the JDK's CAs). */
    public Builder clientOptions(ClientOptions options) {
      this.options = options;
      return this;
    }

    /** The clock of replay marks and stats windows. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock);
      return this;
    }

    public DeadLetterQueue build() {
      Objects.requireNonNull(clientProperties.get("bootstrap.servers"), "bootstrapServers");
      return new DeadLetterQueue(this);
    }
  }
}
