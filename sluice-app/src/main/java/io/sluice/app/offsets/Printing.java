package io.sluice.app.offsets;

import io.sluice.app.cli.TextTable;
import io.sluice.ops.offsets.Field;
import io.sluice.ops.offsets.OffsetSurgery;
import io.sluice.ops.offsets.RestoreEstimate;
import io.sluice.ops.offsets.TaskFailure;
import io.sluice.ops.offsets.TopicOffset;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/** The human-readable forms of the surgery results. */
final class Printing {
  private Printing() {}

  static String backup(OffsetSurgery.BackupReport r) {
    var m = r.manifest();
    return "backup:   " + r.file() + "\n"
        + "manifest: " + io.sluice.connect.offsets.OffsetBackup.manifestOf(r.file()) + "\n"
        + String.format(Locale.ROOT, "records:  %,d (%,d tombstones) from %s on cluster %s%n", m.records(),
            m.tombstones(), m.topic(), m.clusterId())
        + "sha256:   " + m.sha256() + "\n"
        + "took:     " + seconds(r.elapsed()) + "\n";
  }

  static String positions(OffsetSurgery.Positions p) {
    StringBuilder sb = new StringBuilder();
    sb.append("connector ").append(p.connector()).append(" (").append(p.database()).append(", ").append(p.state())
        .append(")\n");
    if (p.unfinishedSurgery() != null) {
      sb.append("WARNING: ").append(p.unfinishedSurgery()).append('\n');
    }
    if (p.positions().isEmpty()) {
      sb.append("no stored position\n");
    }
    for (OffsetSurgery.Position pos : p.positions()) {
      sb.append("partition ").append(pos.partition()).append(pos.key() == null ? "" : "   key " + pos.key())
          .append('\n');
      sb.append(table(List.of("field", "value"), pos.fields().stream().map(f -> List.of(f.name(), f.shown())).toList()));
    }
    boolean sink = p.database().startsWith("sink");
    List<TopicOffset> committed = sink ? p.positions().stream()
        .map(pos -> new TopicOffset(pos.partition().path("kafka_topic").asText(),
            pos.partition().path("kafka_partition").asInt(), pos.offset().path("kafka_offset").asLong())).toList()
        : List.of();
    for (TaskFailure f : p.failures()) {
      sb.append("task ").append(f.task()).append(" FAILED: ").append(f.rootCause()).append('\n');
      var at = sink ? f.amongCommitted(committed) : f.record();
      if (f.record() != null) {
        sb.append("  the trace names the record: ").append(f.record()).append('\n');
      } else if (at != null) {
        sb.append("  its trace names no record; the sink starts again at ").append(at).append(", the record it"
            + " failed on or the first of the batch that held it\n");
      } else if (sink) {
        sb.append("  its trace names no record; the sink starts again at its committed offsets above, one of them"
            + " the record it failed on or the first of the batch that held it\n");
      }
    }
    return sb.toString();
  }

  static String change(OffsetSurgery.Change c) {
    StringBuilder sb = new StringBuilder();
    sb.append(c.dryRun() ? "DRY RUN (nothing changed): " : "").append(c.operation()).append(" ").append(c.connector())
        .append(" (").append(c.database()).append(")\n");
    if (c.backup() != null) {
      sb.append("backup:    ").append(c.backup()).append('\n');
    }
    sb.append(c.forced() ? "WARNING --force: " : "retention: ").append(c.retention()).append('\n');
    sb.append("restore estimate: ").append(estimate(c.estimate())).append('\n');
    if (c.writtenThrough() != null) {
      sb.append("written through ").append(c.writtenThrough()).append(", read back and verified\n");
    }
    for (OffsetSurgery.PositionChange pc : c.changes()) {
      sb.append("partition ").append(pc.partition()).append('\n');
      Map<String, String> before = shown(pc.beforeFields());
      Map<String, String> after = shown(pc.afterFields());
      List<String> names = new ArrayList<>(before.keySet());
      after.keySet().stream().filter(n -> !names.contains(n)).forEach(names::add);
      List<List<String>> rows = new ArrayList<>();
      for (String n : names) {
        String b = before.getOrDefault(n, "-");
        String a = after.getOrDefault(n, "(removed)");
        rows.add(List.of(n, b, a, Objects.equals(b, a) ? "" : "*"));
      }
      sb.append(table(List.of("field", "before", "after", "changed"), rows));
    }
    sb.append("took ").append(seconds(c.elapsed())).append('\n');
    return sb.toString();
  }

  static String recordSkip(OffsetSurgery.RecordSkip s) {
    StringBuilder sb = new StringBuilder();
    sb.append(s.dryRun() ? "DRY RUN (nothing changed): " : "").append("skip ").append(s.record()).append(" for sink ")
        .append(s.connector()).append(" (consumer group ").append(s.group()).append(")\n");
    if (s.failure() != null) {
      sb.append("task ").append(s.failure().task()).append(" had failed: ").append(s.failure().rootCause())
          .append('\n');
    }
    if (s.forced() != null) {
      sb.append("WARNING --force: ").append(s.forced()).append('\n');
    }
    if (s.backup() != null) {
      sb.append("backup:    ").append(s.backup()).append("   (sluice offsets restore, or kafka-consumer-groups"
          + " --reset-offsets --from-file)\n");
    }
    if (s.deadLetterCopy() != null) {
      sb.append("kept in:   ").append(s.deadLetterCopy()).append("   (sluice dlq inspect ")
          .append(s.deadLetterCopy().topic()).append(")\n");
    } else if (s.deadLetterTopic() != null) {
      sb.append("kept in:   ").append(s.deadLetterTopic()).append(" (a copy with Connect's error headers)\n");
    } else {
      sb.append("kept in:   nowhere (--to-dlq keeps a copy in the sink's dead letter queue)\n");
    }
    sb.append("restore estimate: ").append(estimate(s.estimate())).append('\n');
    if (s.writtenThrough() != null) {
      sb.append("written through ").append(s.writtenThrough()).append(", read back and verified; ")
          .append(s.connector()).append(" resumed\n");
    }
    Map<String, Long> before = new LinkedHashMap<>();
    s.before().forEach(o -> before.put(o.topic() + " " + o.partition(), o.offset()));
    List<List<String>> rows = new ArrayList<>();
    for (var o : s.after()) {
      Long b = before.get(o.topic() + " " + o.partition());
      rows.add(List.of(o.topic(), String.valueOf(o.partition()), b == null ? "-" : String.valueOf(b),
          String.valueOf(o.offset()), Objects.equals(b, o.offset()) ? "" : "*"));
    }
    sb.append(table(List.of("topic", "partition", "before", "after", "changed"), rows));
    sb.append("took ").append(seconds(s.elapsed())).append('\n');
    return sb.toString();
  }

  static String restore(OffsetSurgery.RestoreReport r) {
    return "restored " + String.format(Locale.ROOT, "%,d", r.records()) + " records from " + r.from() + "\n"
        + (r.forced() ? "WARNING --force: the backup was taken from another Kafka cluster\n" : "")
        + "connectors: " + String.join(", ", r.connectors()) + "\n"
        + "positions before the restore: " + r.safetyBackup() + "\n"
        + "read back and verified\n"
        + "estimate was " + estimate(r.estimate()) + "\n"
        + "restore took " + seconds(r.elapsed()) + " (target: operations resumed within 15 minutes)\n";
  }

  static String reset(OffsetSurgery.ResetReport r) {
    return (r.dryRun() ? "DRY RUN (nothing changed): " : "") + "reset " + r.connector() + " with snapshot mode "
        + r.snapshot().value + "\n"
        + (r.backup() == null ? "" : "backup: " + r.backup() + "\n")
        + "positions removed: " + r.removed() + "\n"
        + "on resume the connector " + r.snapshot().effect + "\n"
        + "took " + seconds(r.elapsed()) + "\n";
  }

  private static String estimate(RestoreEstimate e) {
    return seconds(e.total()) + String.format(Locale.ROOT, " (%,d records at %,.0f/s, verify %s, connectors %s;"
        + " budget 5 min)", e.records(), e.writePerSecond(), seconds(e.verify()), seconds(e.connectors()));
  }

  private static Map<String, String> shown(List<Field> fields) {
    return fields.stream().collect(Collectors.toMap(Field::name, Field::shown, (a, b) -> b,
        java.util.LinkedHashMap::new));
  }

  private static String seconds(Duration d) {
    return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
  }

  static String table(List<String> header, List<List<String>> rows) {
    return new TextTable(header).indent("  ").rows(rows).render();
  }
}
