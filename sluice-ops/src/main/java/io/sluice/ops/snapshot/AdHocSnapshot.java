package io.sluice.ops.snapshot;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.connect.client.ConnectRestClient;
import io.sluice.connect.defaults.SignalChannel;
import io.sluice.source.Engine;
import io.sluice.topics.KafkaCluster;
import io.sluice.topics.TopicScan;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.StreamSupport;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Ad-hoc snapshots of a running Debezium source through its Kafka signal channel ({@link SignalChannel}): checks
 * what the snapshot needs of the source's config, sends Debezium's signals, and reads back from the signal topic what
 * was last asked. Nothing is written to the source database unless the operator asks for a signal table.
 */
public final class AdHocSnapshot {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  /** How many of the signal topic's last records {@link #history} reads back. */
  private static final int HISTORY = 500;

  private final ConnectRestClient connect;
  private final KafkaCluster cluster;
  private final String secretsTopic;
  private final Clock clock;

  public AdHocSnapshot(ConnectRestClient connect, KafkaCluster cluster, String secretsTopic, Clock clock) {
    this.connect = connect;
    this.cluster = cluster;
    this.secretsTopic = secretsTopic;
    this.clock = clock;
  }

  /** A source that can take signals: its name, class, topic prefix (the signals' key) and signal topic. */
  public record Source(String connector, String connectorClass, String topicPrefix, String signalTopic,
      Map<String, String> config) {
    boolean readOnly() {
      return Boolean.parseBoolean(config.getOrDefault(SignalChannel.READ_ONLY, "false").trim());
    }

    Optional<String> signalTable() {
      String t = config.get(SignalChannel.DATA_COLLECTION);
      return t == null || t.isBlank() ? Optional.empty() : Optional.of(t.trim());
    }

    /** Its engine: a source is made only of a class {@link SignalChannel#supports}, which is one of an engine's. */
    Engine engine() {
      return Engine.ofConnectorClass(connectorClass).orElseThrow();
    }
  }

  /** What the operator asked beyond the snapshot itself, when the source lacks what an incremental one needs. */
  public record Options(boolean readOnly, boolean createSignalTable, Optional<String> signalTable) {
    public static final Options NONE = new Options(false, false, Optional.empty());
  }

  /** A signal sent: its id and type, where, when, and the config changes made before it. */
  public record Sent(String connector, String signalTopic, String id, String type, Instant at, JsonNode signal,
      List<String> changes) {}

  /** Refused before anything was sent or changed: the message says what the source lacks and the ways to give it. */
  public static final class Refused extends IllegalStateException {
    public Refused(String message) {
      super(message);
    }
  }

  /** The connector as a source that can take signals, or {@link Refused} saying why it cannot. */
  public Source source(String connector) {
    ObjectNode node = connect.config(connector).orElseThrow(() -> new IllegalArgumentException(
        "Kafka Connect at " + connect.baseUrl() + " has no connector " + connector));
    Map<String, String> config = new LinkedHashMap<>();
    node.fields().forEachRemaining(e -> config.put(e.getKey(), e.getValue().isNull() ? null : e.getValue().asText()));
    String cls = config.getOrDefault("connector.class", "");
    if (!SignalChannel.supports(cls)) {
      throw new Refused(connector + " is a " + cls + ": sluice snapshot works with Debezium's PostgreSQL, MySQL,"
          + " MariaDB and SQL Server sources");
    }
    String topic = SignalChannel.topic(config).orElseThrow(() -> new Refused(connector + " has no Kafka signal"
        + " channel: its " + SignalChannel.CHANNELS + " is '" + config.getOrDefault(SignalChannel.CHANNELS, "source")
        + "'. Sources created or updated through Sluice get one unless their config names channels of its own;"
        + " add kafka to " + SignalChannel.CHANNELS + " (e.g. source,kafka) and apply the config again"));
    return new Source(connector, cls, config.get("topic.prefix").trim(), topic, Map.copyOf(config));
  }

  /**
   * Asks the source for a snapshot. An incremental one needs watermarks: Debezium's read-only kind ({@code
   * read.only=true}: PostgreSQL 13 or newer from its transaction snapshots, MySQL with GTIDs) or a signal table in the
   * source database it writes them to ({@code signal.data.collection}). Without either, it is refused unless {@code
   * options} say which to set up. MariaDB's read-only kind is refused: see {@link #staleReadsOf}.
   *
   * <p>Setting one up changes the connector's config. The connector is stopped first and the signal written while no
   * task runs, then it is resumed: a task of the old config would take the signal from the topic and drop it (it has
   * no watermarks), and a new task that starts before the signal is written would never see it. The new task reads
   * the signal topic from where the old one left it, and the source's other changes from its committed offsets.
   */
  public Sent start(String connector, SnapshotRequest request, Options options) {
    Source source = source(connector);
    if (request.type() == SnapshotRequest.Type.BLOCKING && request.filter().isPresent()) {
      throw new Refused("a blocking snapshot with a filter is refused: Debezium marks a blocking snapshot's rows as"
          + " a full snapshot's, and Sluice's JDBC sink removes from a table the rows a full snapshot did not write;"
          + " use --type incremental to read part of a table");
    }
    boolean incremental = request.type() == SnapshotRequest.Type.INCREMENTAL;
    if (incremental && source.signalTable().isEmpty() && (source.readOnly() || options.readOnly())) {
      staleReadsOf(source, options.readOnly()).ifPresent(why -> {
        throw new Refused(why);
      });
    }
    List<String> changes = new ArrayList<>();
    Map<String, String> set = new LinkedHashMap<>();
    if (incremental && !source.readOnly() && source.signalTable().isEmpty()) {
      if (options.readOnly()) {
        set.put(SignalChannel.READ_ONLY, "true");
      } else if (options.createSignalTable()) {
        String table = options.signalTable().orElse(SignalTable.defaultName(source, request));
        changes.add(SignalTable.create(source, table, cluster, secretsTopic));
        set.put(SignalChannel.DATA_COLLECTION, table);
      } else {
        throw new Refused("an incremental snapshot of " + connector + " needs watermarks, and its config gives"
            + " Debezium none: neither " + SignalChannel.READ_ONLY + "=true nor a signal table ("
            + SignalChannel.DATA_COLLECTION + "). Choose one:\n"
            + (readOnlyNeeds(source).isEmpty() ? "" : "  --read-only             read-only incremental snapshots:"
            + " nothing is written to the source (" + readOnlyNeeds(source) + ")\n")
            + "  --create-signal-table   create a signal table in the source database (needs the right to create"
            + " and write a table there) and set " + SignalChannel.DATA_COLLECTION + "\n"
            + "  --type blocking         a blocking snapshot needs neither (streaming waits while the tables are"
            + " read)\n"
            + "Setting one up changes the connector's config once: it is stopped and resumed from its offsets.");
      }
    } else if (options.createSignalTable() || options.readOnly()) {
      changes.add("nothing to set up: " + connector + (source.readOnly() ? " takes read-only incremental snapshots"
          : source.signalTable().map(t -> " has signal table " + t).orElse(" needs no watermarks for a blocking"
          + " snapshot")));
    }
    ObjectNode signal = Signals.execute(UUID.randomUUID().toString(), request);
    return set.isEmpty() ? send(source, signal, changes) : reconfigureAndSend(source, set, signal, changes);
  }

  /**
   * Why a read-only incremental snapshot of this source could write a row older than a change already sent, if it
   * could. MariaDB's: Debezium takes its watermarks from {@code gtid_binlog_pos}, which counts a transaction once it
   * is in the binary log, before its rows are visible to the chunk's query; a change in that gap is sent before the
   * window opens, and the chunk then carries the row as it was before it (seen in Sluice's tests under load). The sink
   * would keep that stale row until the key changes again.
   */
  private static Optional<String> staleReadsOf(Source source, boolean asked) {
    if (source.engine() != Engine.MARIADB) {
      return Optional.empty();
    }
    return Optional.of("a read-only incremental snapshot of MariaDB is refused: Debezium's watermarks come from"
        + " gtid_binlog_pos, which counts a transaction before its rows are visible to the snapshot's query, so a"
        + " change made during the snapshot can be overwritten in the sink by the row as it was before it"
        + (asked ? "" : " (" + source.connector() + " has " + SignalChannel.READ_ONLY + "=true)") + ". Use"
        + " --create-signal-table (watermarks written to a table in the source database) or --type blocking"
        + " (nothing written to the source; streaming waits while the tables are read).");
  }

  private static String readOnlyNeeds(Source source) {
    return switch (source.engine()) {
      case POSTGRESQL -> "PostgreSQL 13 or newer";
      case MYSQL -> "MySQL with gtid_mode=ON";
      default -> "";
    };
  }

  public Sent pause(String connector) {
    return send(source(connector), Signals.pause(UUID.randomUUID().toString()), List.of());
  }

  public Sent resume(String connector) {
    return send(source(connector), Signals.resume(UUID.randomUUID().toString()), List.of());
  }

  public Sent stop(String connector, List<String> tables) {
    return send(source(connector), Signals.stop(UUID.randomUUID().toString(), tables), List.of());
  }

  /** One signal found in the topic, and when it was written. */
  public record Signal(JsonNode value, Instant at) {
    public String type() {
      return value.path("type").asText();
    }
  }

  /**
   * The source's snapshot signals among the last records of its signal topic, oldest first: what was asked of it and
   * when. Bounded: a topic full of other sources' signals gives up to its last {@value #HISTORY} records.
   */
  public List<Signal> history(String connector) {
    Source source = source(connector);
    return signals(cluster, source.signalTopic(), source.topicPrefix());
  }

  /** The JSON signals keyed {@code key} among the last {@value #HISTORY} records of partition 0 of {@code topic}. */
  static List<Signal> signals(KafkaCluster cluster, String topic, String key) {
    List<Signal> out = new ArrayList<>();
    try {
      TopicScan scan = TopicScan.of(cluster, topic).timeout(TIMEOUT).clientId("sluice-snapshot-status");
      // Debezium reads partition 0 alone, so only its last records count; any other partition is left unread.
      Map<Integer, Long> from = new HashMap<>();
      scan.endOffsets().forEach((partition, end) -> from.put(partition, partition == 0 ? end - HISTORY : end));
      scan.from(from).read(r -> {
        if (r.partition() == 0 && r.key() != null && r.value() != null
            && key.equals(new String(r.key(), StandardCharsets.UTF_8))) {
          try {
            out.add(new Signal(JSON.readTree(r.value()), Instant.ofEpochMilli(r.timestamp())));
          } catch (IOException notJson) {
            // Debezium skips it too.
          }
        }
      });
    } catch (TopicScan.NoSuchTopic e) {
      // No signal was ever sent through it: nothing was asked of the source.
      return List.of();
    } catch (IllegalStateException | KafkaException e) {
      throw new IllegalStateException("cannot read signal topic " + topic + " on " + cluster + ": " + e.getMessage(),
          e);
    }
    return Collections.unmodifiableList(out);
  }

  /**
   * Stops the connector, rewrites its config with {@code set} added, writes the signal and resumes it (see {@link
   * #start}). A Connect without stop (before Kafka 3.5) gets the config and then the signal once its tasks run again,
   * where an old task may still take the signal: status then stays at requested, and start can be asked again.
   */
  private Sent reconfigureAndSend(Source source, Map<String, String> set, ObjectNode signal, List<String> changes) {
    boolean stopped = connect.stop(source.connector(), Duration.ofSeconds(120));
    ObjectNode config = connect.config(source.connector()).orElseThrow();
    set.forEach(config::put);
    connect.putConfig(source.connector(), config);
    StringBuilder what = new StringBuilder();
    set.forEach((k, v) -> what.append(what.length() == 0 ? "" : ", ").append(k).append('=').append(v));
    List<String> all = new ArrayList<>(changes);
    all.add("set " + what + " on " + source.connector() + (stopped ? " (stopped, and resumed from its offsets)"
        : " (its tasks restarted from their offsets)"));
    if (!stopped) {
      awaitRunning(source);
      return send(source, signal, all);
    }
    Sent sent = send(source, signal, all);
    connect.resume(source.connector());
    awaitRunning(source);
    return sent;
  }

  private void awaitRunning(Source source) {
    connect.awaitStatus(source.connector(), s -> "RUNNING".equals(s.path("connector").path("state").asText())
        && s.path("tasks").size() > 0 && StreamSupport.stream(s.path("tasks").spliterator(), false)
        .allMatch(t -> "RUNNING".equals(t.path("state").asText())), Duration.ofSeconds(120), "RUNNING with its tasks");
  }

  /**
   * Writes the signal to partition 0 of the signal topic, the only one Debezium reads, keyed by the source's topic
   * prefix, creating the topic with one partition when it does not exist yet.
   */
  private Sent send(Source source, ObjectNode signal, List<String> changes) {
    ensureTopic(source.signalTopic());
    Instant at = clock.instant();
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(cluster.clientConfig(Map.of(
        "client.id", "sluice-snapshot", "acks", "all", "enable.idempotence", "false")), new StringSerializer(),
        new StringSerializer())) {
      producer.send(new ProducerRecord<>(source.signalTopic(), 0, at.toEpochMilli(), source.topicPrefix(),
          signal.toString())).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("cannot write to signal topic " + source.signalTopic() + " on " + cluster
          + ": " + (e.getCause() == null ? e : e.getCause()).getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
    return new Sent(source.connector(), source.signalTopic(), signal.path("id").asText(), signal.path("type")
        .asText(), at, signal, List.copyOf(changes));
  }

  private void ensureTopic(String topic) {
    try (Admin admin = Admin.create(cluster.clientConfig(Map.of("client.id", "sluice-snapshot")))) {
      if (admin.listTopics().names().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS).contains(topic)) {
        return;
      }
      try {
        admin.createTopics(List.of(new NewTopic(topic, Optional.of(1), Optional.empty()))).all()
            .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof TopicExistsException)) {
          throw e;
        }
      }
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("cannot create signal topic " + topic + " on " + cluster + ": "
          + (e.getCause() == null ? e : e.getCause()).getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
