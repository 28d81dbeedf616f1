package io.sluice.sink.jdbc;

import io.debezium.connector.jdbc.JdbcKafkaSinkRecord;
import io.debezium.connector.jdbc.JdbcSinkConnectorConfig;
import io.debezium.connector.jdbc.JdbcSinkConnectorTask;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Debezium's JDBC sink task, carrying each source snapshot to its end.
 *
 * <p>A snapshot says what a table holds, but not what it no longer holds. A source that streamed changes and then
 * started over without a committed offset (killed before its first offset flush, or its offsets reset) takes a fresh
 * snapshot; a row it had streamed and that was deleted in between has an insert in the topic and never a delete, and
 * an upserting sink keeps it for ever. This task follows every snapshot ({@link SnapshotTracker}); once one has been
 * written whole it removes the table's rows that the snapshot did not write ({@link StaleRows}), before any change
 * streamed after the snapshot is applied. Until then it holds its committed offset at the snapshot's first record, so
 * a task started again mid-snapshot reads the snapshot again from its start.
 *
 * <p>Only where that is certain: one task ({@code tasks.max=1}, so this task reads every partition), a topic of one
 * partition (Debezium's default; across partitions the snapshot's records have no order), keys on the records, and
 * {@code delete.enabled=true}. Elsewhere the sink behaves exactly as Debezium's.
 */
public class SluiceJdbcSinkTask extends JdbcSinkConnectorTask {
  private static final Logger LOG = LoggerFactory.getLogger(SluiceJdbcSinkTask.class);
  private static final Pattern PLAIN_IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_$]*");

  private JdbcSinkConnectorConfig config;
  private Map<String, String> props;
  private SnapshotTracker tracker;
  private boolean completing;

  @Override
  public void start(Map<String, String> props) {
    super.start(props);
    this.props = Map.copyOf(props);
    this.config = new JdbcSinkConnectorConfig(props);
    this.tracker = new SnapshotTracker(this::keyText);
    this.completing = config.isDeleteEnabled() && "1".equals(props.getOrDefault("tasks.max", "1").trim());
    if (!completing) {
      LOG.info("Snapshots are not carried to their end by this sink: it needs delete.enabled=true and tasks.max=1");
    }
  }

  @Override
  public void put(Collection<SinkRecord> records) {
    if (!completing) {
      super.put(records);
      return;
    }
    List<SinkRecord> segment = new ArrayList<>();
    for (SinkRecord record : records) {
      Optional<SnapshotTracker.Window> before = tracker.endedBefore(record);
      if (before.isPresent()) {
        write(segment);
        complete(before.get());
      }
      segment.add(record);
      Optional<SnapshotTracker.Window> with = tracker.record(record);
      if (with.isPresent()) {
        write(segment);
        complete(with.get());
      }
    }
    write(segment);
  }

  private void write(List<SinkRecord> segment) {
    if (!segment.isEmpty()) {
      super.put(new ArrayList<>(segment));
      segment.clear();
    }
  }

  @Override
  public Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
    Map<TopicPartition, OffsetAndMetadata> offsets = super.preCommit(currentOffsets);
    if (tracker == null) {
      return offsets;
    }
    tracker.held().forEach((tp, first) -> {
      OffsetAndMetadata o = offsets.get(tp);
      if (o != null && o.offset() > first) {
        offsets.put(tp, new OffsetAndMetadata(first));
      }
    });
    return offsets;
  }

  @Override
  public void close(Collection<TopicPartition> partitions) {
    if (tracker != null) {
      tracker.forget(partitions);
    }
    super.close(partitions);
  }

  /** Removes what the snapshot in {@code w} did not write, when this task can be sure which rows those are. */
  private void complete(SnapshotTracker.Window w) {
    if (getLastProcessingException() != null) {
      return; // the snapshot was not written; the task fails on its next put and reads it again from the held offset
    }
    long partitions = context.assignment().stream().filter(tp -> tp.topic().equals(w.topic)).count();
    if (w.keyless || w.spread || partitions > 1) {
      LOG.warn("Snapshot of topic {} written; rows it no longer holds are not removed: {}", w.topic,
          w.keyless ? "its records have no key" : "the topic has more than one partition");
      return;
    }
    JdbcKafkaSinkRecord sample = new JdbcKafkaSinkRecord(w.last, config);
    String table = config.getCollectionNamingStrategy().resolveCollectionName(sample, config.getCollectionNameFormat());
    List<String> columns = sample.keyFieldNames().stream()
        .map(f -> config.getColumnNamingStrategy().resolveColumnName(f)).collect(Collectors.toList());
    try (Connection db = DriverManager.getConnection(props.get("connection.url"),
        props.get("connection.username"), props.get("connection.password"))) {
      String quote = db.getMetaData().getIdentifierQuoteString().trim();
      StaleRows.Outcome outcome = StaleRows.remove(db, identifier(table, quote),
          columns.stream().map(c -> identifier(c, quote)).toList(), w.keys);
      if (outcome.guarded()) {
        LOG.warn("Snapshot of topic {} written ({} rows), but only {} of its keys were found in table {} as read back;"
            + " no rows removed. `sluice reconcile` compares the two sides.", w.topic, outcome.snapshotKeys(),
            outcome.matched(), table);
      } else {
        LOG.info("Snapshot of topic {} written ({} rows); removed {} rows of table {} that it no longer holds",
            w.topic, outcome.snapshotKeys(), outcome.removed(), table);
      }
    } catch (SQLException e) {
      LOG.warn("Snapshot of topic {} written; could not remove the rows it no longer holds from table {}: {}",
          w.topic, table, e.getMessage());
    }
  }

  /** Quoted as the sink quotes its own identifiers; a dotted name is a schema and a table. */
  private String identifier(String name, String quote) {
    if (!config.isQuoteIdentifiers() || quote.isEmpty()) {
      return name;
    }
    return java.util.Arrays.stream(name.split("\\."))
        .map(part -> PLAIN_IDENTIFIER.matcher(part).matches() ? quote + part + quote : part)
        .collect(Collectors.joining("."));
  }

  private Optional<String> keyText(SinkRecord record) {
    Struct key = new JdbcKafkaSinkRecord(record, config).filteredKey();
    if (key == null || key.schema().fields().isEmpty()) {
      return Optional.empty();
    }
    List<Object> parts = new ArrayList<>();
    for (Field f : key.schema().fields()) {
      parts.add(key.get(f));
    }
    return Optional.of(KeyText.of(parts));
  }
}
