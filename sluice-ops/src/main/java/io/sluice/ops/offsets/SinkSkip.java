package io.sluice.ops.offsets;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.connect.client.ConnectRestClient;
import io.sluice.connect.offsets.GroupOffsetsBackup;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.common.TopicPartition;

/**
 * Offset surgery on a sink connector: moving its consumer group past the one record its task fails on, and putting a
 * group's offsets back from a backup. The same safety as for sources ({@link OffsetSurgery}): the connector is
 * stopped first and its position read after that, the group's offsets are backed up before anything changes, the
 * restore must fit the time budget, the write is read back, and a read-back that differs puts the backup back.
 *
 * <p>A sink task commits the offset of the first record it has not written; after a failure that is the first record
 * of the batch that failed, the one it reads first when it starts again. Skipping any other record would leave the
 * records before it unwritten, or write those after it twice, so the record must be at that position (or
 * {@code --force}).
 */
final class SinkSkip {
  private final ConnectRestClient api;
  private final ConnectorControl control;
  private final SinkOffsets offsets;
  private final RecordLookup lookup;
  private final DeadLetterCopy deadLetters;
  private final GroupOffsetsBackup backups;
  private final Supplier<String> clusterId;
  private final Budget budget;
  private final Clock clock;
  private final Consumer<String> log;
  private final String operator;

  /** The restore-time check of {@link OffsetSurgery}: an estimate, or a refusal past the budget. */
  @FunctionalInterface
  interface Budget {
    RestoreEstimate check(long records, Duration read, int connectors);
  }

  SinkSkip(ConnectRestClient api, ConnectorControl control, RecordLookup lookup, DeadLetterCopy deadLetters,
      Path backupDir, Supplier<String> clusterId, Budget budget, Clock clock, Consumer<String> log, String operator) {
    this.api = api;
    this.control = control;
    this.offsets = new SinkOffsets(api);
    this.lookup = lookup;
    this.deadLetters = deadLetters;
    this.backups = new GroupOffsetsBackup(backupDir, clock);
    this.clusterId = clusterId;
    this.budget = budget;
    this.clock = clock;
    this.log = log;
    this.operator = operator;
  }

  static boolean isSink(JsonNode status) {
    return "sink".equals(status.path("type").asText());
  }

  OffsetSurgery.RecordSkip skip(String connector, TopicOffset at, OffsetSurgery.Options options, boolean toDlq) {
    long t0 = System.nanoTime();
    ObjectNode config = control.requireConnector(connector);
    JsonNode status = api.status(connector);
    if (!isSink(status)) {
      throw OffsetSurgeryException.refused("connector " + connector + " is a " + status.path("type").asText("source")
          + " connector: --topic, --partition and --offset name a record a sink reads. A source skips the change after"
          + " its stored position: sluice offsets skip " + connector);
    }
    if (!reads(config, at.topic())) {
      throw OffsetSurgeryException.refused("sink " + connector + " does not read topic " + at.topic() + " (topics: "
          + config.path("topics").asText(config.path("topics.regex").asText("-")) + ")");
    }
    String group = SinkOffsets.groupOf(connector, config);
    TaskFailure failure = TaskFailure.fromStatus(status).stream().findFirst().orElse(null);
    RecordLookup.Found found = lookup.find(at);
    String dlq = toDlq ? DeadLetterCopy.topicOf(connector, config) : null;
    ConnectorControl.Halt halt = null;
    boolean written = false;
    try {
      if (!options.dryRun()) {
        // The position is read once the tasks are gone: a running task commits until it stops.
        halt = control.halt(connector, "skip", null);
      }
      long r0 = System.nanoTime();
      Map<TopicPartition, Long> before = committed(connector);
      Duration read = Duration.ofNanos(System.nanoTime() - r0);
      TopicPartition tp = at.topicPartition();
      boolean fromLatest = "latest".equalsIgnoreCase(config.path("consumer.override.auto.offset.reset").asText(""));
      long position = before.getOrDefault(tp, fromLatest ? found.logEnd() : found.logStart());
      String warning = null;
      if (position != at.offset()) {
        String why = positionMismatch(connector, at, position, before.containsKey(tp));
        if (!options.force()) {
          throw OffsetSurgeryException.refused(why + ". Nothing was changed; --force skips it anyway.");
        }
        warning = why;
      }
      RestoreEstimate estimate = budget.check(Math.max(1, before.size()), read, 1);
      Map<TopicPartition, Long> after = new LinkedHashMap<>(before);
      after.put(tp, at.offset() + 1);
      if (options.dryRun()) {
        return new OffsetSurgery.RecordSkip(connector, group, at, list(before), list(after), null, null, dlq, failure,
            warning, estimate, true, null, since(t0));
      }
      Path backup = backup(connector, group, before);
      log.accept("backup: " + backup);
      halt = halt.withBackup(backup);
      TopicOffset copy = null;
      if (dlq != null) {
        try {
          copy = deadLetters.copy(found.record(), dlq, config, context(connector, config, failure));
        } catch (RuntimeException e) {
          throw OffsetSurgeryException.failed("could not copy the record to " + dlq + " (" + e.getMessage() + "); the"
              + " offsets were not moved and " + connector + " is back in its earlier state", e);
        }
        log.accept("copied to " + copy + " (dead letter queue)");
      }
      written = true;
      Map<TopicPartition, Long> restore = new LinkedHashMap<>(before);
      restore.putIfAbsent(tp, null);
      String kept = copy == null ? "" : "; its copy stays in " + copy.topic() + " at offset " + copy.offset();
      String via = write(connector, halt, Map.of(tp, at.offset() + 1), restore, backup, kept);
      control.release(halt);
      return new OffsetSurgery.RecordSkip(connector, group, at, list(before), list(after), backup, copy, dlq, failure,
          warning, estimate, false, via, since(t0));
    } catch (RuntimeException e) {
      if (halt != null && !written) {
        // Refused or failed before anything was written: the connector goes back as it was.
        control.release(halt);
      }
      throw e;
    }
  }

  /** Puts a sink's group offsets back from a backup: stop, write, read back, resume into its earlier state. */
  OffsetSurgery.RestoreReport restore(Path file, String connector, boolean force) {
    long t0 = System.nanoTime();
    GroupOffsetsBackup.Backup backup;
    try {
      backup = GroupOffsetsBackup.read(file);
    } catch (IllegalArgumentException | UncheckedIOException e) {
      throw OffsetSurgeryException.refused(e.getMessage());
    }
    GroupOffsetsBackup.Manifest manifest = backup.manifest();
    String name = connector != null ? connector : manifest == null ? null : manifest.connector();
    if (name == null) {
      throw OffsetSurgeryException.refused("backup " + file + " names no connector" + (manifest == null ? "" : " (it is"
          + " of consumer group " + manifest.group() + ")") + ": give the sink with --connector, or put a group's"
          + " offsets back with kafka-consumer-groups --reset-offsets --from-file " + file + " --group GROUP --execute");
    }
    if (backup.offsets().isEmpty()) {
      throw OffsetSurgeryException.refused("backup " + file + " holds no offsets");
    }
    ObjectNode config = control.requireConnector(name);
    if (!isSink(api.status(name))) {
      throw OffsetSurgeryException.refused("backup " + file + " holds a consumer group's offsets, and " + name
          + " is not a sink connector");
    }
    boolean forced = false;
    String group = SinkOffsets.groupOf(name, config);
    List<String> doubts = new ArrayList<>();
    if (manifest != null && manifest.group() != null && !manifest.group().equals(group)) {
      doubts.add("backup " + file + " is of consumer group " + manifest.group() + ", and " + name + " reads as " + group);
    }
    String here = clusterId.get();
    if (manifest != null && manifest.clusterId() != null && !manifest.clusterId().equals(here)) {
      doubts.add("backup " + file + " was taken from Kafka cluster " + manifest.clusterId() + ", this is " + here);
    }
    if (!doubts.isEmpty()) {
      if (!force) {
        throw OffsetSurgeryException.refused(String.join("; ", doubts) + ". Nothing was changed; --force restores it"
            + " anyway");
      }
      forced = true;
    }
    long r0 = System.nanoTime();
    Map<TopicPartition, Long> current = committed(name);
    RestoreEstimate estimate = budget.check(backup.offsets().size(), Duration.ofNanos(System.nanoTime() - r0), 1);
    ConnectorControl.Halt halt = control.halt(name, "restore", file);
    current = committed(name);
    Path safety = backups.write("pre-restore-" + name, here, group, name, current);
    log.accept("backup of the current offsets: " + safety);
    try {
      offsets.write(name, backup.offsets());
    } catch (RuntimeException e) {
      throw OffsetSurgeryException.failed("restore could not write the offsets (" + e.getMessage() + "); connector "
          + name + " is left stopped: run sluice offsets restore " + file + " again", e);
    }
    List<String> mismatches = mismatches(committed(name), backup.offsets());
    if (!mismatches.isEmpty()) {
      throw OffsetSurgeryException.failed("verification after restore found " + mismatches.size() + " differing"
          + " offsets (" + mismatches.get(0) + "); connector " + name + " is left stopped", null);
    }
    control.release(halt);
    return new OffsetSurgery.RestoreReport(file, safety, backup.offsets().size(), List.of(name), forced, estimate,
        since(t0));
  }

  private Map<TopicPartition, Long> committed(String connector) {
    return offsets.committed(connector).orElseThrow(() -> OffsetSurgeryException.refused("Kafka Connect at "
        + api.baseUrl() + " has no offsets API (Kafka 3.6 and later have it): a sink's offsets are moved through it,"
        + " so that no task of the connector can commit over them"));
  }

  private Path backup(String connector, String group, Map<TopicPartition, Long> committed) {
    try {
      return backups.write(connector, clusterId.get(), group, connector, committed);
    } catch (UncheckedIOException e) {
      throw OffsetSurgeryException.failed(e.getMessage() + " (" + e.getCause().getMessage() + "); nothing was"
          + " changed", e);
    }
  }

  /** Writes the new offsets, reads them back, and puts the backup back if anything differs. */
  private String write(String connector, ConnectorControl.Halt halt, Map<TopicPartition, Long> change,
      Map<TopicPartition, Long> before, Path backup, String kept) {
    try {
      offsets.write(connector, change);
      String via = "Kafka Connect offsets API (PATCH /connectors/" + connector + "/offsets)";
      log.accept("written through " + via + "; reading back");
      Map<TopicPartition, Long> expected = new LinkedHashMap<>(before);
      expected.putAll(change);
      List<String> mismatches = mismatches(committed(connector), expected);
      if (!mismatches.isEmpty()) {
        throw new IllegalStateException("read-back differs: " + String.join("; ", mismatches));
      }
      return via;
    } catch (RuntimeException e) {
      throw undo(connector, halt, before, backup, e, kept);
    }
  }

  private OffsetSurgeryException undo(String connector, ConnectorControl.Halt halt, Map<TopicPartition, Long> before,
      Path backup, RuntimeException cause, String kept) {
    try {
      offsets.write(connector, before);
      List<String> mismatches = mismatches(committed(connector), before);
      if (!mismatches.isEmpty()) {
        throw new IllegalStateException("restore verification failed: " + String.join("; ", mismatches));
      }
      control.release(halt);
      log.accept("restored from " + backup + " after: " + cause.getMessage());
      return OffsetSurgeryException.failed(cause.getMessage() + ". The offsets of " + connector + " were restored"
          + " from backup " + backup + " and verified; the connector is back in its earlier state" + kept, cause);
    } catch (RuntimeException e) {
      cause.addSuppressed(e);
      return OffsetSurgeryException.failed(cause.getMessage() + ". The automatic restore failed too (" + e.getMessage()
          + "): connector " + connector + " is left stopped; run: sluice offsets restore " + backup + kept, cause);
    }
  }

  /** Each expected offset that the group does not hold (null: no committed offset expected). */
  private static List<String> mismatches(Map<TopicPartition, Long> actual, Map<TopicPartition, Long> expected) {
    List<String> out = new ArrayList<>();
    expected.forEach((tp, offset) -> {
      if (!Objects.equals(actual.get(tp), offset)) {
        out.add(tp + " holds " + (actual.containsKey(tp) ? "offset " + actual.get(tp) : "no offset") + ", expected "
            + (offset == null ? "none" : offset));
      }
    });
    return out;
  }

  private static String positionMismatch(String connector, TopicOffset at, long position, boolean committed) {
    String where = committed ? "the committed position of " + connector + " on " + at.topic() + " partition "
        + at.partition() + " is offset " + position : connector + " has committed no offset on " + at.topic()
        + " partition " + at.partition() + ", so it starts there at offset " + position;
    if (at.offset() > position) {
      return where + ": the record it is blocked on is that one, not " + at.offset() + ". Skipping " + at.offset()
          + " would leave the " + (at.offset() - position) + " record(s) from " + position + " to " + (at.offset() - 1)
          + " unwritten by the sink (lost to it)";
    }
    return where + ": the record at " + at.offset() + " is behind it (written already). Moving the sink to "
        + (at.offset() + 1) + " would write the " + (position - at.offset() - 1) + " record(s) after it again";
  }

  private DeadLetterCopy.Context context(String connector, JsonNode config, TaskFailure failure) {
    String why = failure == null ? "no task of the connector had failed"
        : "task " + failure.task() + " had failed with " + failure.rootCause();
    return new DeadLetterCopy.Context(connector, failure == null ? 0 : failure.task(),
        config.path("connector.class").asText(null),
        failure != null && failure.rootCauseClass() != null ? failure.rootCauseClass()
            : "org.apache.kafka.connect.errors.ConnectException",
        "Skipped by an operator (sluice offsets skip, " + operator + ", " + clock.instant() + "): " + why,
        failure == null ? null : failure.trace());
  }

  /** Whether the sink subscribes to {@code topic}, by its {@code topics} list or its {@code topics.regex}. */
  private static boolean reads(JsonNode config, String topic) {
    String topics = config.path("topics").asText("");
    if (Arrays.stream(topics.split(",")).map(String::strip).anyMatch(topic::equals)) {
      return true;
    }
    String regex = config.path("topics.regex").asText("").strip();
    try {
      return !regex.isEmpty() && Pattern.compile(regex).matcher(topic).matches();
    } catch (PatternSyntaxException e) {
      return false;
    }
  }

  private static List<TopicOffset> list(Map<TopicPartition, Long> offsets) {
    return offsets.entrySet().stream()
        .map(e -> new TopicOffset(e.getKey().topic(), e.getKey().partition(), e.getValue()))
        .sorted(Comparator.comparing(TopicOffset::topic).thenComparingInt(TopicOffset::partition))
        .toList();
  }

  private static Duration since(long t0) {
    return Duration.ofNanos(System.nanoTime() - t0);
  }
}
