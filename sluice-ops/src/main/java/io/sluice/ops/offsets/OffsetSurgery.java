package io.sluice.ops.offsets;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.connect.client.ConnectRestClient;
import io.sluice.connect.offsets.GroupOffsetsBackup;
import io.sluice.connect.offsets.OffsetBackup;
import io.sluice.connect.offsets.OffsetRecord;
import io.sluice.connect.offsets.OffsetsSnapshot;
import io.sluice.connect.offsets.OffsetsTopic;
import io.sluice.connect.defaults.SnapshotModes;
import io.sluice.ops.progress.Progress;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import io.sluice.topics.KafkaCluster;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Offset surgery on Kafka Connect's {@code connect-offsets} topic, made safe: every change is checked (types, the
 * source still retaining the target position, the time a restore would take), backed up first, verified by reading
 * it back, and undone automatically when the read-back differs.
 *
 * <pre>{@code
 * OffsetSurgery surgery = OffsetSurgery.builder()
 *     .bootstrapServers("127.0.0.1:9092").connectUrl("http://127.0.0.1:8083")
 *     .backupDir(Path.of("data/backups/offsets")).build();
 * surgery.set("orders-source", Target.lsn("0/16B3748"), OffsetSurgery.Options.NONE);
 * }</pre>
 *
 * <p>Writes go through Kafka Connect's offsets API ({@code PATCH /connectors/{name}/offsets} on a stopped connector)
 * where the runtime has it, and to the topic otherwise; restores always write the topic, byte for byte. A sink
 * connector's position is its consumer group's offsets, not a record of {@code connect-offsets}: skipping the record
 * a sink is blocked on is {@link SinkSkip}'s, under the same rules, through the offsets API only.
 */
public final class OffsetSurgery {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final ConnectRestClient api;
  private final OffsetsTopic topic;
  private final TopicWriter writer;
  private final KafkaCluster cluster;
  private final String secretsTopic;
  private final Path backupDir;
  private final Clock clock;
  private final Function<String, Progress> progress;
  private final Consumer<String> log;
  private final Duration readTimeout;
  private final Duration verifyTimeout;
  private final Duration restoreBudget;
  private final Duration connectorTimeout;
  private final SourceDatabase.Overrides sourceOverride;
  private final SurgeryJournal journal;
  private final ConnectorControl control;
  private final SinkSkip sinks;

  private OffsetSurgery(Builder b) {
    this.cluster = Objects.requireNonNull(b.cluster, "bootstrapServers");
    this.api = new ConnectRestClient(Objects.requireNonNull(b.connectUrl, "connectUrl"), b.options);
    this.topic = new OffsetsTopic(cluster, b.offsetsTopic);
    this.writer = new TopicWriter(cluster, b.offsetsTopic);
    this.secretsTopic = b.secretsTopic;
    this.backupDir = Objects.requireNonNull(b.backupDir, "backupDir");
    this.clock = b.clock;
    this.progress = b.progress;
    this.log = b.log;
    this.readTimeout = b.readTimeout;
    this.verifyTimeout = b.verifyTimeout;
    this.restoreBudget = b.restoreBudget;
    this.connectorTimeout = b.connectorTimeout;
    this.sourceOverride = b.sourceOverride;
    this.journal = new SurgeryJournal(backupDir);
    this.control = new ConnectorControl(api, journal, log, connectorTimeout);
    this.sinks = new SinkSkip(api, control, new RecordLookup(cluster, readTimeout), new DeadLetterCopy(cluster,
        readTimeout), backupDir, () -> topic.clusterId(readTimeout), this::checkBudget, clock, log, b.operator);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** {@code dryRun}: check and show, change nothing. {@code force}: proceed although the source lost the target. */
  public record Options(boolean dryRun, boolean force) {
    public static final Options NONE = new Options(false, false);
  }

  public record BackupReport(Path file, OffsetBackup.Manifest manifest, Duration elapsed) {}

  /** One stored position: its key exactly as stored, the partition and offset maps, and the decoded fields. */
  public record Position(String key, JsonNode partition, JsonNode offset, List<Field> fields) {}

  /** A connector's stored positions, with what the traces of its failed tasks say ({@code failures}). */
  public record Positions(String connector, String connectorClass, String database, String state,
      List<Position> positions, String unfinishedSurgery, List<TaskFailure> failures) {}

  public record PositionChange(String key, JsonNode partition, JsonNode before, JsonNode after,
      List<Field> beforeFields, List<Field> afterFields) {}

  /**
   * What {@code set} or {@code skip} did (or, dry-run, would do). {@code retention} is the source check's verdict;
   * {@code forced} says it was overridden.
   */
  public record Change(String connector, String operation, String database, List<PositionChange> changes,
      Path backup, String retention, boolean forced, RestoreEstimate estimate, boolean dryRun, String writtenThrough,
      Duration elapsed) {}

  /**
   * What {@code skip} of a sink did (or, dry-run, would do): the record, the group's committed offsets before and
   * after, the backup, the record's copy in {@code deadLetterTopic} when it was asked for, the failure of its task,
   * and {@code forced}, the refusal {@code --force} overrode.
   */
  public record RecordSkip(String connector, String group, TopicOffset record, List<TopicOffset> before,
      List<TopicOffset> after, Path backup, TopicOffset deadLetterCopy, String deadLetterTopic, TaskFailure failure,
      String forced, RestoreEstimate estimate, boolean dryRun, String writtenThrough, Duration elapsed) {}

  public record RestoreReport(Path from, Path safetyBackup, long records, List<String> connectors, boolean forced,
      RestoreEstimate estimate, Duration elapsed) {}

  public record ResetReport(String connector, SnapshotChoice snapshot, Path backup, long removed, boolean dryRun,
      Duration elapsed) {}

  /** The snapshot decision {@code reset} requires, with what each does to the source. */
  public enum SnapshotChoice {
    INITIAL("initial", "reads every row of every captured table again (a full snapshot: load on the source for as"
        + " long as the tables take to read), then streams changes"),
    SCHEMA_ONLY("schema_only", "reads no rows: streams changes from where the replication slot or log stands now;"
        + " changes between the old position and that point are not delivered"),
    NEVER("never", "like schema_only (Debezium's no_data): no rows are read, streaming starts at the source's"
        + " current position");

    public final String value;
    public final String effect;

    SnapshotChoice(String value, String effect) {
      this.value = value;
      this.effect = effect;
    }

    public static SnapshotChoice parse(String text) {
      for (SnapshotChoice c : values()) {
        if (c.value.equalsIgnoreCase(text == null ? "" : text.trim())) {
          return c;
        }
      }
      throw new IllegalArgumentException("unknown snapshot mode '" + text + "': " + choices());
    }

    /** All three choices with their effect, for the refusal when none was given. */
    public static String choices() {
      StringBuilder sb = new StringBuilder("choose one with --snapshot:");
      for (SnapshotChoice c : values()) {
        sb.append("\n  ").append(c.value).append(": ").append(c.effect);
      }
      return sb.toString();
    }
  }

  // ---------------------------------------------------------------------------------------------------- backup

  /** Backs up the whole topic, or one connector's keys, to {@code out} (default: a new file in the backup dir). */
  public BackupReport backup(String connector, Path out, Duration timeout) {
    long t0 = System.nanoTime();
    OffsetsSnapshot snapshot = read(timeout).snapshot();
    if (connector != null) {
      snapshot = snapshot.forConnector(connector);
    }
    OffsetBackup backup = new OffsetBackup(backupDir, clock);
    Path file = out == null ? backup.write(connector, snapshot) : backup.write(out, connector, snapshot);
    return new BackupReport(file, OffsetBackup.manifest(file), since(t0));
  }

  // ------------------------------------------------------------------------------------------------------ show

  public Positions show(String connector) {
    ObjectNode config = control.requireConnector(connector);
    String cls = config.path("connector.class").asText(null);
    JsonNode status = api.status(connector);
    List<TaskFailure> failures = TaskFailure.fromStatus(status);
    String state = status.path("connector").path("state").asText();
    List<Position> positions = new ArrayList<>();
    if (SinkSkip.isSink(status)) {
      // A sink's position is its consumer group's, which Connect reports through its offsets API.
      api.offsets(connector).ifPresent(answer -> answer.path("offsets").forEach(e -> positions.add(new Position(null,
          e.path("partition"), e.path("offset"), List.of(new Field("kafka_offset", e.path("offset").path("kafka_offset"),
              e.path("offset").path("kafka_offset").asText()))))));
      return new Positions(connector, cls, "sink, consumer group " + SinkOffsets.groupOf(connector, config), state,
          positions, unfinished(connector), failures);
    }
    Optional<OffsetFormat> format = OffsetFormat.forConnectorClass(cls);
    for (OffsetRecord r : read(readTimeout).snapshot().forConnector(connector).live()) {
      JsonNode key = parse(r.key());
      JsonNode value = parse(r.value());
      positions.add(new Position(r.key(), key.path(1), value,
          format.map(f -> f.describe(value)).orElseGet(() -> OffsetFormat.describe(value, List.of(), Map.of()))));
    }
    return new Positions(connector, cls, format.map(OffsetFormat::database).orElse("unknown"), state, positions,
        unfinished(connector), failures);
  }

  private String unfinished(String connector) {
    try {
      return journal.previousState(connector).map(s -> "an earlier offset operation on this connector did"
          + " not finish (it was " + s + " before); run sluice offsets restore with its backup").orElse(null);
    } catch (OffsetSurgeryException unreadable) {
      return unreadable.getMessage();
    }
  }

  // ------------------------------------------------------------------------------------------------- set, skip

  public Change set(String connector, Target target, Options options) {
    return change(connector, "set", options,
        (format, current, source) -> format.moveTo(current, format.complete(target, current, source::get)));
  }

  /** Advances past the one change after the current position (a poison record the connector cannot process). */
  public Change skip(String connector, Options options) {
    control.requireConnector(connector);
    if (SinkSkip.isSink(api.status(connector))) {
      throw OffsetSurgeryException.refused("connector " + connector + " is a sink: name the record it is blocked on,"
          + " sluice offsets skip " + connector + " --topic T --partition P --offset O (sluice connectors describe "
          + connector + " shows where it stopped)");
    }
    return change(connector, "skip", options, (format, current, source) -> format.skipOne(current, source.get()));
  }

  /**
   * Moves a sink connector's consumer group past the one record at {@code record}, which must be where the sink
   * stopped (its committed position) unless {@code options.force()}; with {@code toDlq} the record is first copied,
   * with Connect's error context headers, to the sink's dead letter queue.
   */
  public RecordSkip skip(String connector, TopicOffset record, Options options, boolean toDlq) {
    return sinks.skip(connector, record, options, toDlq);
  }

  @FunctionalInterface
  private interface Move {
    ObjectNode apply(OffsetFormat format, ObjectNode current, Lazy<SourceDatabase> source);
  }

  private Change change(String connector, String operation, Options options, Move move) {
    long t0 = System.nanoTime();
    ObjectNode config = control.requireConnector(connector);
    OffsetFormat format = OffsetFormat.forConnectorClass(config.path("connector.class").asText(null)).orElseThrow(() ->
        OffsetSurgeryException.refused("connector " + connector + " is a " + config.path("connector.class").asText()
            + ": offset surgery knows the Debezium PostgreSQL, MySQL/MariaDB and SQL Server sources"));
    Read read = read(readTimeout);
    OffsetsSnapshot mine = read.snapshot().forConnector(connector);
    List<OffsetRecord> live = mine.live();
    if (live.isEmpty()) {
      throw OffsetSurgeryException.refused("connector " + connector + " has no stored position in " + topic.topic()
          + " yet (it has not committed offsets): nothing to " + operation);
    }
    Lazy<SourceDatabase> source = new Lazy<>(() -> SourceDatabase.from(format, config, sourceOverride, cluster,
        secretsTopic));
    // A skip moves relative to the stored position, so it must start from the one the stopped connector committed
    // last: a running connector keeps committing until it stops.
    boolean needsHalt = operation.equals("skip");
    ConnectorControl.Halt early = null;
    List<PositionChange> changes = new ArrayList<>();
    String retention;
    try {
      if (needsHalt && !options.dryRun()) {
        early = control.halt(connector, operation, null);
        if (format instanceof PostgresOffsets) {
          // The slot's pending changes can only be read while no one streams from it.
          control.awaitSlotIdle(source.get());
        }
        read = read(readTimeout);
        mine = read.snapshot().forConnector(connector);
        live = mine.live();
        if (live.isEmpty()) {
          throw OffsetSurgeryException.refused("connector " + connector + " has no stored position in " + topic.topic()
              + " after it stopped: nothing to " + operation);
        }
      } else if (needsHalt && format instanceof PostgresOffsets) {
        throw OffsetSurgeryException.refused("--dry-run cannot show a PostgreSQL skip: finding the next change needs"
            + " the connector stopped");
      }
      for (OffsetRecord r : live) {
        JsonNode key = parse(r.key());
        JsonNode before = parse(r.value());
        if (!(before instanceof ObjectNode current)) {
          throw OffsetSurgeryException.refused("the stored position under " + r.key() + " is not a JSON object: " + r.value());
        }
        ObjectNode after;
        try {
          after = move.apply(format, current, source);
          format.validate(after);
        } catch (IllegalArgumentException e) {
          throw OffsetSurgeryException.refused(e.getMessage());
        }
        changes.add(new PositionChange(r.key(), key.path(1), before, after, format.describe(before),
            format.describe(after)));
      }
      retention = checkRetention(format, source, changes, options.force());
      RestoreEstimate estimate = checkBudget(live.size(), read.elapsed(), 1);
      if (options.dryRun()) {
        return new Change(connector, operation, format.database(), changes, null, retention, options.force(), estimate,
            true, null, since(t0));
      }
      Path backup = new OffsetBackup(backupDir, clock).write(connector, mine);
      log.accept("backup: " + backup);
      ConnectorControl.Halt halt = early != null ? early.withBackup(backup) : control.halt(connector, operation, backup);
      early = null;
      String via = writeChanges(connector, halt, mine, backup, changes);
      control.release(halt);
      return new Change(connector, operation, format.database(), changes, backup, retention, options.force(), estimate,
          false, via, since(t0));
    } catch (RuntimeException e) {
      if (early != null) {
        // Refused after halting for the slot peek: nothing was written, so the connector goes back as it was.
        control.release(early);
      }
      throw e;
    }
  }

  private String checkRetention(OffsetFormat format, Lazy<SourceDatabase> source, List<PositionChange> changes,
      boolean force) {
    List<String> verdicts = new ArrayList<>();
    for (PositionChange c : changes) {
      RetentionCheck.Verdict v;
      try {
        v = RetentionCheck.forSource(format, source.get()).check(c.after());
      } catch (IllegalArgumentException | IllegalStateException e) {
        if (!force) {
          throw OffsetSurgeryException.refused("cannot check that the source still retains the target position: "
              + e.getMessage());
        }
        verdicts.add("FORCED (--force): retention not checked: " + e.getMessage());
        continue;
      }
      if (!v.retained() && !force) {
        throw OffsetSurgeryException.refused(v.explanation() + ". Nothing was changed; --force moves the connector"
            + " there anyway.");
      }
      verdicts.add(v.retained() ? v.explanation() : "FORCED (--force) although not retained: " + v.explanation());
    }
    return String.join("; ", verdicts);
  }

  private RestoreEstimate checkBudget(long records, Duration fullRead, int connectors) {
    return RestoreEstimate.within(restoreBudget, records, fullRead, connectors, backupDir);
  }

  /** Writes the new positions, reads them back, and puts the backup back if anything differs. */
  private String writeChanges(String connector, ConnectorControl.Halt halt, OffsetsSnapshot original, Path backup,
      List<PositionChange> changes) {
    Map<Integer, Long> before = topic.endOffsets(readTimeout);
    String via;
    Set<String> strays = new LinkedHashSet<>();
    try {
      if (halt.viaStop() && api.offsets(connector).isPresent()) {
        ObjectNode body = JSON.createObjectNode();
        ArrayNode list = body.putArray("offsets");
        for (PositionChange c : changes) {
          list.addObject().<ObjectNode>set("partition", c.partition()).set("offset", c.after());
        }
        api.patchOffsets(connector, body);
        via = "Kafka Connect offsets API (PATCH /connectors/" + connector + "/offsets)";
      } else {
        writer.write(changes.stream().map(c -> new OffsetRecord(c.key(), c.after().toString(), -1, -1)).toList(),
            Progress.NONE);
        via = "topic " + topic.topic();
      }
      log.accept("written through " + via + "; reading back");
      List<String> mismatches = untilReadable(() -> {
        Map<String, OffsetRecord> written = latestSince(before, connector);
        List<String> found = new ArrayList<>();
        for (PositionChange c : changes) {
          OffsetRecord r = written.remove(c.key());
          if (r == null) {
            found.add("nothing was written under the connector's exact key bytes " + c.key());
          } else if (r.value() == null || !normalized(r.value()).equals(c.after().toString())) {
            found.add("under " + c.key() + " the topic holds " + r.value() + ", expected " + c.after());
          }
        }
        for (OffsetRecord stray : written.values()) {
          strays.add(stray.key());
          found.add("a record under other key bytes was written: " + stray.key());
        }
        return found;
      });
      if (!mismatches.isEmpty()) {
        throw new IllegalStateException("read-back differs: " + String.join("; ", mismatches));
      }
      return via;
    } catch (RuntimeException e) {
      throw undo(connector, halt, original, strays, backup, e);
    }
  }

  /** Puts a connector's positions back from the backup taken before the change, verifies, and resumes it. */
  private OffsetSurgeryException undo(String connector, ConnectorControl.Halt halt, OffsetsSnapshot original, Set<String> strays,
      Path backup, RuntimeException cause) {
    List<OffsetRecord> back = new ArrayList<>(original.records());
    Set<String> keys = new HashSet<>();
    back.forEach(r -> keys.add(r.key()));
    strays.stream().filter(k -> !keys.contains(k)).forEach(k -> back.add(new OffsetRecord(k, null, -1, -1)));
    try {
      Map<Integer, Long> before = topic.endOffsets(readTimeout);
      writer.write(back, Progress.NONE);
      List<String> mismatches = untilReadable(() -> verifyExact(back, before));
      if (!mismatches.isEmpty()) {
        throw new IllegalStateException("restore verification failed: " + String.join("; ", mismatches));
      }
      control.release(halt);
      log.accept("restored from " + backup + " after: " + cause.getMessage());
      return OffsetSurgeryException.failed(cause.getMessage() + ". The positions of " + connector + " were restored"
          + " from backup " + backup + " and verified; the connector is back in its earlier state", cause);
    } catch (RuntimeException e) {
      cause.addSuppressed(e);
      return OffsetSurgeryException.failed(cause.getMessage() + ". The automatic restore failed too (" + e.getMessage()
          + "): connector " + connector + " is left stopped; run: sluice offsets restore " + backup, cause);
    }
  }

  // --------------------------------------------------------------------------------------------------- restore

  /**
   * Writes a backup's records back (all, or one connector's), verifies them, and resumes the connectors. A .csv backup
   * is a sink's consumer group offsets ({@link GroupOffsetsBackup}), put back through Connect's offsets API.
   */
  public RestoreReport restore(Path file, String connector, boolean force) {
    if (GroupOffsetsBackup.isGroupBackup(file)) {
      return sinks.restore(file, connector, force);
    }
    long t0 = System.nanoTime();
    OffsetBackup.Backup backup;
    try {
      backup = OffsetBackup.read(file);
    } catch (IllegalArgumentException | UncheckedIOException e) {
      throw OffsetSurgeryException.refused(e.getMessage());
    }
    List<OffsetRecord> records = backup.records().stream()
        .filter(r -> connector == null || connector.equals(OffsetsTopic.connectorOf(r.key()))).toList();
    if (records.isEmpty()) {
      throw OffsetSurgeryException.refused("backup " + file + " holds no records"
          + (connector == null ? "" : " of connector " + connector));
    }
    String here = topic.clusterId(readTimeout);
    String there = backup.manifest() == null ? null : backup.manifest().clusterId();
    boolean forced = false;
    if (there != null && !there.equals(here)) {
      if (!force) {
        throw OffsetSurgeryException.refused("backup " + file + " was taken from Kafka cluster " + there + ", but "
            + cluster.bootstrapServers() + " is cluster " + here + ": its positions belong to other connectors' sources."
            + " Nothing was changed; --force restores it here anyway");
      }
      forced = true;
    }
    Set<String> connectors = new LinkedHashSet<>();
    records.forEach(r -> Optional.ofNullable(OffsetsTopic.connectorOf(r.key())).ifPresent(connectors::add));
    Set<String> known = api.connectorNames();
    List<String> existing = connectors.stream().filter(known::contains).toList();
    Read read = read(readTimeout);
    RestoreEstimate estimate = checkBudget(records.size(), read.elapsed(), existing.size());

    Set<String> keys = new HashSet<>();
    records.forEach(r -> keys.add(r.key()));
    OffsetsSnapshot current = read.snapshot();
    OffsetsSnapshot before = new OffsetsSnapshot(current.clusterId(), current.topic(), current.endOffsets(),
        current.records().stream().filter(r -> keys.contains(r.key())
            || connectors.contains(OffsetsTopic.connectorOf(r.key()))).toList());
    Path safety = new OffsetBackup(backupDir, clock).write("pre-restore-" + (connector == null ? "all" : connector),
        before);
    log.accept("backup of the current positions: " + safety);

    List<ConnectorControl.Halt> halts = new ArrayList<>();
    for (String c : existing) {
      halts.add(control.halt(c, "restore", safety));
    }
    Map<Integer, Long> end = topic.endOffsets(readTimeout);
    Progress bar = progress.apply("restore");
    long w0 = System.nanoTime();
    try {
      writer.write(records, bar);
    } catch (RuntimeException e) {
      throw OffsetSurgeryException.failed("restore was interrupted after writing part of the records (" + e.getMessage()
          + "); connectors " + existing + " are left stopped: run sluice offsets restore " + file + " again", e);
    } finally {
      bar.finish();
    }
    RestoreEstimate.recordWrite(backupDir, records.size(), since(w0));
    List<String> mismatches = verifyExact(records, end);
    if (!mismatches.isEmpty()) {
      throw OffsetSurgeryException.failed("verification after restore found " + mismatches.size() + " differing"
          + " records (" + mismatches.get(0) + "); connectors " + existing + " are left stopped", null);
    }
    halts.forEach(control::release);
    return new RestoreReport(file, safety, records.size(), List.copyOf(connectors), forced, estimate, since(t0));
  }

  // ----------------------------------------------------------------------------------------------------- reset

  /** Deletes the connector's positions and sets its snapshot mode: on resume it starts over as {@code choice} says. */
  public ResetReport reset(String connector, SnapshotChoice choice, Options options) {
    long t0 = System.nanoTime();
    if (choice == null) {
      throw OffsetSurgeryException.refused("reset needs an explicit snapshot decision: deleting a connector's offsets"
          + " without one makes it take a full snapshot, which may overload the source. " + SnapshotChoice.choices());
    }
    ObjectNode config = control.requireConnector(connector);
    String cls = config.path("connector.class").asText(null);
    var translation = SnapshotModes.translate(cls, choice.value, null).orElseThrow();
    if (translation instanceof SnapshotModes.Translation.Refused r) {
      throw OffsetSurgeryException.refused(r.message());
    }
    String debeziumMode = ((SnapshotModes.Translation.Mode) translation).debeziumValue();
    Read read = read(readTimeout);
    OffsetsSnapshot mine = read.snapshot().forConnector(connector);
    List<OffsetRecord> live = mine.live();
    checkBudget(live.size(), read.elapsed(), 1);
    if (options.dryRun()) {
      return new ResetReport(connector, choice, null, live.size(), true, since(t0));
    }
    Path backup = new OffsetBackup(backupDir, clock).write(connector, mine);
    log.accept("backup: " + backup);
    ConnectorControl.Halt halt = control.halt(connector, "reset", backup);
    try {
      Map<Integer, Long> before = topic.endOffsets(readTimeout);
      if (halt.viaStop() && api.offsets(connector).isPresent()) {
        api.deleteOffsets(connector);
      } else {
        writer.write(live.stream().map(r -> new OffsetRecord(r.key(), null, -1, -1)).toList(), Progress.NONE);
      }
      Map<String, OffsetRecord> after = latestSince(before, connector);
      for (OffsetRecord r : live) {
        OffsetRecord now = after.get(r.key());
        if (now == null || now.value() != null) {
          throw new IllegalStateException("read-back differs: the position under " + r.key() + " was not deleted");
        }
      }
      ObjectNode next = config.deepCopy();
      next.remove(SnapshotModes.KEY);
      next.put(SnapshotModes.DEBEZIUM_KEY, debeziumMode);
      api.putConfig(connector, next);
    } catch (RuntimeException e) {
      throw undo(connector, halt, mine, Set.of(), backup, e);
    }
    control.release(halt);
    return new ResetReport(connector, choice, backup, live.size(), false, since(t0));
  }

  // ---------------------------------------------------------------------------------------------------- pieces

  private record Read(OffsetsSnapshot snapshot, Duration elapsed) {}

  private Read read(Duration timeout) {
    long t0 = System.nanoTime();
    Progress bar = progress.apply("read " + topic.topic());
    try {
      return new Read(topic.snapshot(timeout, bar::update), since(t0));
    } catch (IllegalStateException e) {
      throw OffsetSurgeryException.failed("cannot read " + topic.topic() + " on " + cluster.bootstrapServers() + ": "
          + e.getMessage(), e);
    } finally {
      bar.finish();
    }
  }

  private Map<String, OffsetRecord> latestSince(Map<Integer, Long> before, String connector) {
    Map<String, OffsetRecord> out = new LinkedHashMap<>();
    for (OffsetRecord r : topic.latestSince(before, verifyTimeout)) {
      if (connector.equals(OffsetsTopic.connectorOf(r.key()))) {
        out.put(r.key(), r);
      }
    }
    return out;
  }

  /** Every expected record is the latest of its key among those written since {@code before}, byte for byte. */
  /**
   * Reads back until nothing differs or the verify timeout passes. A read-committed reader sees a write only once the
   * last stable offset passes it: the runtime's offsets API writes in a transaction whose commit markers reach the
   * partition after the commit returns, and an open transaction of a running exactly-once source holds back the
   * records written after it. One read right after the write can miss a write that did land.
   */
  private List<String> untilReadable(Supplier<List<String>> readBack) {
    long deadline = System.nanoTime() + verifyTimeout.toNanos();
    List<String> mismatches = readBack.get();
    while (!mismatches.isEmpty() && System.nanoTime() < deadline) {
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return mismatches;
      }
      mismatches = readBack.get();
    }
    return mismatches;
  }

  private List<String> verifyExact(List<OffsetRecord> expected, Map<Integer, Long> before) {
    Map<String, OffsetRecord> actual = new HashMap<>();
    for (OffsetRecord r : topic.latestSince(before, verifyTimeout)) {
      actual.put(r.key(), r);
    }
    Map<String, OffsetRecord> wanted = new LinkedHashMap<>();
    expected.forEach(r -> wanted.put(r.key(), r));
    List<String> mismatches = new ArrayList<>();
    for (OffsetRecord e : wanted.values()) {
      OffsetRecord a = actual.get(e.key());
      if (a == null || !Objects.equals(a.value(), e.value())) {
        mismatches.add(e.key() + ": expected " + e.value() + ", topic holds " + (a == null ? "nothing new" : a.value()));
      }
    }
    return mismatches;
  }

  private static JsonNode parse(String json) {
    try {
      return JSON.readTree(json);
    } catch (IOException e) {
      throw OffsetSurgeryException.refused("a stored record is not JSON: " + json);
    }
  }

  /** The compact form Jackson writes, so the runtime's serialization and ours compare equal when the data is. */
  private static String normalized(String json) {
    return parse(json).toString();
  }

  private static Duration since(long t0) {
    return Duration.ofNanos(System.nanoTime() - t0);
  }

  static String human(Duration d) {
    return d.toMillis() < 60_000 ? String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0)
        : d.toMinutes() + " min " + d.toSecondsPart() + " s";
  }

  /** Computed on first use: the source connection is needed only by some operations. */
  private static final class Lazy<T> {
    private final java.util.function.Supplier<T> supplier;
    private T value;

    Lazy(java.util.function.Supplier<T> supplier) {
      this.supplier = supplier;
    }

    T get() {
      if (value == null) {
        value = supplier.get();
      }
      return value;
    }
  }

  public static final class Builder {
    private KafkaCluster cluster;
    private String connectUrl;
    private io.sluice.client.ClientOptions options = io.sluice.client.ClientOptions.defaults();
    private String offsetsTopic = "connect-offsets";
    private String secretsTopic = "sluice-connect-secrets";
    private Path backupDir;
    private Clock clock = Clock.systemUTC();
    private Function<String, Progress> progress = label -> Progress.NONE;
    private Consumer<String> log = line -> { };
    private Duration readTimeout = Duration.ofMillis(10_000);
    private Duration verifyTimeout = Duration.ofMillis(5_000);
    private Duration restoreBudget = Duration.ofMinutes(5);
    private Duration connectorTimeout = Duration.ofSeconds(60);
    private SourceDatabase.Overrides sourceOverride = SourceDatabase.Overrides.NONE;
    private String operator = System.getProperty("user.name", "an operator");

    private Builder() {}

    public Builder bootstrapServers(String v) {
      cluster = KafkaCluster.of(v);
      return this;
    }

    /** The cluster and its client security settings; replaces {@link #bootstrapServers}. */
    public Builder cluster(KafkaCluster v) {
      cluster = v;
      return this;
    }

    public Builder connectUrl(String v) {
      connectUrl = v;
      return this;
    }

    /** The worker's {@code offset.storage.topic}; default {@code connect-offsets}. */
    public Builder offsetsTopic(String v) {
      offsetsTopic = v;
      return this;
    }

    /** Where {@code ${sluice:…}} secrets are kept; default {@code sluice-connect-secrets}. */
    public Builder secretsTopic(String v) {
      secretsTopic = v;
      return this;
    }

    /** Where backups go: {@code <data-dir>/backups/offsets} under {@code sluice up}. */
    public Builder backupDir(Path v) {
      backupDir = v;
      return this;
    }

    /** Credentials and CA for Connect's REST API (defaults: none, the JDK's CAs). */
    public Builder clientOptions(io.sluice.client.ClientOptions v) {
      options = v;
      return this;
    }

    public Builder clock(Clock v) {
      clock = v;
      return this;
    }

    /** A progress reporter per long step, given the step's label ({@code ProgressBar::onStderr} on a terminal). */
    public Builder progress(Function<String, Progress> v) {
      progress = v;
      return this;
    }

    /** Where steps are told (backup written, connector stopped/resumed). */
    public Builder log(Consumer<String> v) {
      log = v;
      return this;
    }

    public Builder readTimeout(Duration v) {
      readTimeout = v;
      return this;
    }

    public Builder verifyTimeout(Duration v) {
      verifyTimeout = v;
      return this;
    }

    /** The longest a restore of the original state may take for surgery to start; 5 minutes by default. */
    public Builder restoreBudget(Duration v) {
      restoreBudget = v;
      return this;
    }

    public Builder connectorTimeout(Duration v) {
      connectorTimeout = v;
      return this;
    }

    /** JDBC URL, user and password of the source, each overriding the connector config's (null keeps it). */
    public Builder source(String jdbcUrl, String user, String password) {
      sourceOverride = new SourceDatabase.Overrides(jdbcUrl, user, password);
      return this;
    }

    /** Who runs the surgery, as a skipped record's dead-letter copy names them; default the OS user. */
    public Builder operator(String v) {
      operator = v;
      return this;
    }

    public OffsetSurgery build() {
      return new OffsetSurgery(this);
    }
  }
}
