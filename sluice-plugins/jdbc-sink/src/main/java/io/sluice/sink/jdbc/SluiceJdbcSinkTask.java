package io.sluice.sink.jdbc;

import io.debezium.connector.jdbc.JdbcKafkaSinkRecord;
import io.debezium.connector.jdbc.JdbcSinkConnectorConfig;
import io.debezium.connector.jdbc.JdbcSinkConnectorTask;
import io.debezium.sink.SinkConnectorConfig.PrimaryKeyMode;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.Measurable;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Debezium's JDBC sink task, carrying each source snapshot to its end.
 *
 * <p>A snapshot says what a table holds, but not what it no longer holds. A source that streamed changes and then
 * started over without a committed offset (killed before its first offset flush, or its offsets reset) takes a fresh
 * snapshot; a row it had streamed and that was deleted in between has an insert in the topic and never a delete, and
 * an upserting sink keeps it. This task follows every snapshot ({@link SnapshotTracker}); once one has been written
 * whole it removes the table's rows that the snapshot did not write ({@link StaleRows}), before any change streamed
 * after the snapshot is applied.
 *
 * <p>A snapshot may hold more rows than a heap, so its keys go to the sink database as they are written, with the
 * window's progress ({@link WindowStore}); the task holds only the records of the put in hand. That also lets a task
 * started again take a snapshot up where the last one left it, from its committed offset, instead of reading it again
 * from its start. Only where the window's state could not be saved does the task hold its committed offset at the
 * snapshot's first record. Keeping keys never fails the sink: a window whose keys could not all be kept is marked
 * unsure, and nothing is removed at its end.
 *
 * <p>Only where that is certain: one task ({@code tasks.max=1}, so this task reads every partition), a topic of one
 * partition (Debezium's default; across partitions the snapshot's records have no order), keys on the records,
 * {@code delete.enabled=true}, and a PostgreSQL, MariaDB or MySQL database. Elsewhere the sink behaves exactly as
 * Debezium's.
 *
 * <p>Into PostgreSQL, a put whose records are all upserts and deletes with keys, of types whose values COPY provably
 * writes as Debezium binds them, is written by COPY into a staging table and one merge ({@link CopyWriter}); into
 * MariaDB and MySQL, such a put is written by statements of many rows each, every row as Debezium's statement writes it
 * ({@link MultiRowWriter}). Any other put, and a put whose write there fails, goes through Debezium's sink.
 * {@code sluice.sink.copy=false} turns both off.
 */
public class SluiceJdbcSinkTask extends JdbcSinkConnectorTask {
  private static final Logger LOG = LoggerFactory.getLogger(SluiceJdbcSinkTask.class);
  /** Failures of {@link #copy} in a row after which the task leaves it for good: the cause is not going away. */
  private static final int MAX_COPY_FAILURES = 3;
  private static final List<Header> NO_HEADERS = List.of();
  private static final Pattern PLAIN_IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_$]*");

  /** The sink table of a topic and its key columns, quoted as the sink quotes its own. */
  private record Target(String table, List<String> columns) {}

  private JdbcSinkConnectorConfig config;
  private Dialect dialect;
  private SnapshotTracker tracker;
  private WindowStore store;
  private final List<SinkRecord> segment = new ArrayList<>();
  /** The records of {@link #segment} that belong to each followed window. */
  private final Map<SnapshotTracker.Window, List<SinkRecord>> followed = new LinkedHashMap<>();
  private WriteFreshness freshness;
  /**
   * The dialect Debezium's start made for this task, with column types of its own (see {@link SinkDialects}); null
   * where it cannot have them.
   */
  private io.debezium.connector.jdbc.dialect.DatabaseDialect sinkDialect;
  /** Whether the sink reads the records' headers (its key from them): else they are dropped before it sees them. */
  private boolean headersUsed = true;
  /**
   * Writes puts by COPY, or by statements of many rows, where that ends as Debezium's writes would; null where it
   * cannot (a database without such a writer, inserts only, …).
   */
  private BulkWriter copy;
  /** Widens columns and drops NOT NULL as the records' schemas change, where Debezium's basic evolution does not. */
  private ColumnEvolution evolution;
  private int copyFailures;
  /** For each partition, the offset after the last record written by {@link #copy}: Debezium's task never saw it. */
  private final Map<TopicPartition, OffsetAndMetadata> copied = new HashMap<>();
  private MetricName copyRows;
  private Map<String, String> props;
  /**
   * The task's writes once Debezium's task failed a put for a record it could not write: Debezium's would throw that
   * failure at every later put ({@link RecordByRecordWriter}); null until then.
   */
  private RecordByRecordWriter byRecord;
  /**
   * Into MariaDB or MySQL, the values those databases have no room for (NaN, infinities, years beyond 9999), which the
   * task refuses itself, naming them, before the rest of the put is written; null for other databases.
   */
  private BinlogValueCheck unholdable;
  /** The sink database's enum types, read once as the task starts (tables the sink makes give them to enum columns). */
  private java.util.Set<String> enumTypes = java.util.Set.of();

  @Override
  public void start(Map<String, String> props) {
    this.config = new JdbcSinkConnectorConfig(props);
    this.props = Map.copyOf(props);
    this.sinkDialect = SinkDialects.start(props.getOrDefault("name", ""), () -> super.start(props));
    this.enumTypes = TargetTypes.enums(props.get("connection.url"), props.get("connection.username"),
        props.get("connection.password"));
    if (sinkDialect != null) {
      io.sluice.sink.jdbc.types.EnumTypeOfTarget.know(sinkDialect, enumTypes);
    }
    this.freshness = WriteFreshness.publish(pluginMetrics(), System::currentTimeMillis);
    this.headersUsed = config.getPrimaryKeyMode() == PrimaryKeyMode.RECORD_HEADER;
    this.copy = BulkWriter.forSink(config, sinkDialect, props).orElse(null);
    this.evolution = ColumnEvolution.forSink(config, sinkDialect, props).orElse(null);
    String url = props.getOrDefault("connection.url", "");
    this.unholdable = url.startsWith("jdbc:mariadb:") || url.startsWith("jdbc:mysql:")
        ? new BinlogValueCheck(config.getColumnNamingStrategy()::resolveColumnName) : null;
    publishCopyRows();
    Optional<Dialect> engine = Dialect.forUrl(props.get("connection.url"));
    boolean completing = config.isDeleteEnabled() && "1".equals(props.getOrDefault("tasks.max", "1").trim())
        && engine.isPresent();
    if (!completing) {
      LOG.info("Snapshots are not carried to their end by this sink: it needs delete.enabled=true, tasks.max=1 and a"
          + " PostgreSQL, MariaDB or MySQL database");
      return;
    }
    this.dialect = engine.get();
    this.tracker = new SnapshotTracker();
    this.store = new WindowStore(props.get("connection.url"), props.get("connection.username"),
        props.get("connection.password"), props.getOrDefault("name", ""), dialect);
  }

  /** The task's plugin metrics (Kafka 4.1's KIP-877); null on a worker that has none. */
  private PluginMetrics pluginMetrics() {
    try {
      return context == null ? null : context.pluginMetrics();
    } catch (UnsupportedOperationException | AbstractMethodError | NoSuchMethodError olderWorker) {
      return null;
    }
  }

  @Override
  public void open(Collection<TopicPartition> partitions) {
    super.open(partitions);
    partitions.forEach(copied::remove);
    if (store == null) {
      return;
    }
    try {
      // All of them: the one task reads every partition, and a window names its topic as renamed by transforms.
      for (SnapshotTracker.Window w : store.load()) {
        if (tracker.resume(w)) {
          LOG.info("Snapshot of topic {} taken up where an earlier task left it (from offset {}, written up to {})",
              w.topic, w.firstOffset, w.nextOffset);
        }
      }
    } catch (SQLException e) {
      LOG.warn("Snapshots this sink was following cannot be taken up ({}); their rest is written as Debezium's sink"
          + " writes it, and nothing is removed at their end", ErrorText.of(e));
    }
  }

  @Override
  public void put(Collection<SinkRecord> received) {
    Collection<SinkRecord> records = headersUsed ? received : withoutHeaders(received);
    if (tracker == null || records.isEmpty()) {
      // Connect's empty puts must reach Debezium's task too: it throws a write that failed on the put after it, and
      // when the refused record was the last one a quiet topic had, no other put would ever fail the task (COPY
      // takes no empty put, so putThrough hands it on).
      putThrough(new ArrayList<>(records));
      if (!records.isEmpty() && !failed()) {
        freshness.written(records);
      }
      return;
    }
    for (SinkRecord record : records) {
      SnapshotTracker.Step step = tracker.next(record);
      if (step.ended() != null) {
        write();
        complete(step.ended(), record);
      }
      if (step.abandoned() != null) {
        write();
        abandon(step.abandoned(), step.opens());
      }
      if (step.opens()) {
        write();
        begin(step.window());
      }
      segment.add(record);
      if (step.window() != null) {
        followed.computeIfAbsent(step.window(), w -> new ArrayList<>()).add(record);
      }
      if (step.closes()) {
        write();
        complete(step.window(), record);
      }
    }
    write();
  }

  /**
   * The records without their headers, which Debezium's sink reads only for {@code primary.key.mode=record_header}
   * but turns into a struct for every record (Debezium's sources put three on each), a tenth of the task's time.
   */
  private static List<SinkRecord> withoutHeaders(Collection<SinkRecord> records) {
    List<SinkRecord> out = new ArrayList<>(records.size());
    for (SinkRecord r : records) {
      out.add(r.headers().isEmpty() ? r : r.newRecord(r.topic(), r.kafkaPartition(), r.keySchema(), r.key(),
          r.valueSchema(), r.value(), r.timestamp(), NO_HEADERS));
    }
    return out;
  }

  /** Writes the records in hand, then keeps the keys of those that belong to a window. */
  private void write() {
    if (segment.isEmpty()) {
      return;
    }
    List<SinkRecord> batch = new ArrayList<>(segment);
    putThrough(batch);
    segment.clear();
    Map<SnapshotTracker.Window, List<SinkRecord>> written = new LinkedHashMap<>(followed);
    followed.clear();
    if (failed()) {
      return; // not written: the task fails on its next put and reads them again from its committed offset
    }
    freshness.written(batch);
    written.forEach(this::keep);
  }

  /**
   * Writes {@code received}, less the records holding values the database cannot hold, which are refused by name
   * ({@link #withoutUnholdable}).
   */
  private void putThrough(List<SinkRecord> received) {
    List<SinkRecord> refused = new ArrayList<>(0);
    List<SinkRecord> batch = withoutUnholdable(received, refused);
    writeThrough(batch);
    if (!refused.isEmpty() && !failed()) {
      markWritten(refused); // not before: an offset past a record whose write failed would skip it
    }
  }

  /**
   * {@code records} less those holding a value the database cannot hold ({@link BinlogValueCheck}), each of which goes
   * to the dead letter queue (and into {@code refused}) naming its table, columns, types and values; where the sink
   * has no dead letter queue, or is set to fail on a refused record, the task fails with that message instead.
   */
  private List<SinkRecord> withoutUnholdable(List<SinkRecord> records, List<SinkRecord> refused) {
    if (unholdable == null) {
      return records;
    }
    List<SinkRecord> kept = null;
    for (int i = 0; i < records.size(); i++) {
      SinkRecord r = records.get(i);
      List<BinlogValueCheck.Unholdable> found = unholdable.find(r);
      if (found.isEmpty()) {
        if (kept != null) {
          kept.add(r);
        }
        continue;
      }
      if (kept == null) {
        kept = new ArrayList<>(records.subList(0, i));
      }
      String reason = "The record at " + RefusedRecords.where(r) + " for table " + RefusedRecords.table(config, r) + " is not written: "
          + found.stream().map(Object::toString).collect(Collectors.joining(", ")) + "; "
          + BinlogValueCheck.why(found) + ". Exclude the column at the source or change such values there";
      if ("fail".equalsIgnoreCase(props.getOrDefault(RecordByRecordWriter.REFUSED, "dlq").trim())) {
        throw new org.apache.kafka.connect.errors.ConnectException(reason + " (" + RecordByRecordWriter.REFUSED
            + "=fail)");
      }
      RefusedRecords.send(errantRecordReporter(), r, reason, null);
      refused.add(r);
      LOG.warn("Sink {}: {}; sent to the dead letter queue", props.getOrDefault("name", ""), reason);
    }
    return kept == null ? records : kept;
  }


  /**
   * Writes {@code batch} by the sink's own writer ({@link BulkWriter}) when it can write it as Debezium's sink would,
   * else (and when that write fails) through Debezium's sink, which then fails the task as it always has if its write
   * fails too. Where the batch's table is not there yet, Debezium's sink writes its first record alone, making the
   * table as it would for the whole batch, and the rest goes by the sink's own writer: applied in order, the two parts
   * end as the whole does.
   */
  private void writeThrough(List<SinkRecord> batch) {
    if (evolution != null && !failed() && evolution.follow(batch) && copy != null) {
      copy.forgetTables();
    }
    BulkWriter.Outcome outcome = copy(batch);
    if (outcome == BulkWriter.Outcome.WRITTEN) {
      return;
    }
    if (outcome == BulkWriter.Outcome.NO_TABLE && batch.size() > 1 && makesTableAsWhole(batch.get(0))) {
      putThroughDebezium(batch.subList(0, 1));
      if (failed()) {
        return; // the task fails on its next put and reads the batch again from its committed offset
      }
      batch = batch.subList(1, batch.size());
      if (copy(batch) == BulkWriter.Outcome.WRITTEN) {
        return;
      }
    }
    putThroughDebezium(batch);
  }

  /**
   * Whether Debezium's sink makes the table from {@code first} alone as it would from the batch it leads: an upsert,
   * which carries the whole row. A delete or a tombstone carries only its key, and what Debezium would make of that
   * alone is not shown to be the table it makes of the whole batch, which then goes through it as before.
   */
  private boolean makesTableAsWhole(SinkRecord first) {
    JdbcKafkaSinkRecord record = new JdbcKafkaSinkRecord(first, config);
    return !record.isDelete() && !record.isTombstone() && !record.isSchemaChange() && !record.isTruncate();
  }

  /** Writes {@code batch} by the sink's own writer where it can; null where the task has none, or its last put failed. */
  private BulkWriter.Outcome copy(List<SinkRecord> batch) {
    if (copy == null || failed()) {
      return null;
    }
    try {
      BulkWriter.Outcome outcome = copy.write(batch);
      if (outcome == BulkWriter.Outcome.WRITTEN) {
        copyFailures = 0;
        markWritten(batch);
      }
      return outcome;
    } catch (SQLException | RuntimeException e) {
      copyFailures++;
      LOG.warn("Writing {} records by {} failed ({}); they go through Debezium's sink{}", batch.size(),
          copy instanceof CopyWriter ? "COPY" : "multi-row statements",
          ErrorText.of(e),
          copyFailures >= MAX_COPY_FAILURES ? ", and so does every later put until the task restarts" : "");
      if (copyFailures >= MAX_COPY_FAILURES) {
        copy.close();
        copy = null;
      }
      return null;
    }
  }

  /** Writes {@code batch} through Debezium's sink, or record by record once a put of it was refused. */
  private void putThroughDebezium(List<SinkRecord> batch) {
    if (byRecord != null) {
      byRecord.write(batch);
      markWritten(batch);
      return;
    }
    super.put(batch);
    Throwable failure = getLastProcessingException();
    if (failure != null && !batch.isEmpty() && RecordByRecordWriter.takesOver(props, failure)) {
      LOG.warn("Sink {}: the database refused a put of {} records ({}); from now on this task writes a refused put"
          + " one record at a time and sends what the database refuses to the dead letter queue",
          props.getOrDefault("name", ""), batch.size(), ErrorText.reasons(failure));
      byRecord = RecordByRecordWriter.open(props, errantRecordReporter(), enumTypes);
      byRecord.write(batch);
      markWritten(batch);
    }
  }

  /** Whether the last put was not written: Debezium's task then fails at the next put, and this one with it. */
  private boolean failed() {
    return byRecord == null && getLastProcessingException() != null;
  }

  /** Records written outside Debezium's task count as written at the next commit. */
  private void markWritten(List<SinkRecord> batch) {
    for (SinkRecord r : batch) {
      copied.merge(new TopicPartition(r.originalTopic(), r.originalKafkaPartition()),
          new OffsetAndMetadata(r.originalKafkaOffset() + 1), (a, b) -> a.offset() >= b.offset() ? a : b);
    }
  }

  /** The worker's reporter of records the task could not write; null where the sink has no dead letter queue. */
  private org.apache.kafka.connect.sink.ErrantRecordReporter errantRecordReporter() {
    try {
      return context == null ? null : context.errantRecordReporter();
    } catch (NoSuchMethodError | NoClassDefFoundError olderWorker) {
      return null;
    }
  }

  /**
   * {@code sink-copy-rows}: rows the task wrote by its own writer (COPY, or statements of many rows), beside the write
   * freshness in the task's plugin metrics.
   */
  private void publishCopyRows() {
    PluginMetrics metrics = pluginMetrics();
    if (metrics == null || copy == null) {
      return;
    }
    try {
      BulkWriter writer = copy;
      copyRows = metrics.metricName("sink-copy-rows", "Rows the sink upserted or deleted by COPY and one merge, or by"
          + " statements of many rows",
          new LinkedHashMap<>());
      metrics.addMetric(copyRows, (Measurable) (c, now) -> writer.rows());
    } catch (RuntimeException e) {
      LOG.warn("The sink's COPY row count is not published: {}", e.toString());
      copyRows = null;
    }
  }

  private void begin(SnapshotTracker.Window w) {
    try {
      store.open(w);
      w.durable = true;
    } catch (SQLException e) {
      w.unsure = true;
      LOG.warn("Snapshot of topic {} begun, but its keys cannot be kept in the sink database ({}): the sink holds its"
          + " committed offset at the snapshot's first record, and removes nothing at its end", w.topic,
          ErrorText.of(e));
    }
  }

  private void keep(SnapshotTracker.Window w, List<SinkRecord> records) {
    try {
      List<List<Object>> keys = new ArrayList<>(records.size());
      Target target = null;
      for (SinkRecord r : records) {
        Struct key = new JdbcKafkaSinkRecord(r, config).filteredKey();
        if (key == null || key.schema().fields().isEmpty()) {
          w.keyless = true;
        } else {
          keys.add(key.schema().fields().stream().map(key::get).toList());
          target = target == null ? target(r) : target;
        }
      }
      store.keep(w, target == null ? null : target.table, target == null ? null : target.columns, keys);
      w.durable = true;
    } catch (SQLException | RuntimeException e) {
      if (!w.unsure) {
        w.unsure = true;
        LOG.warn("Snapshot of topic {}: its keys could not be kept in table {} ({}); the rows it no longer holds will"
            + " not be removed at its end", w.topic, store.scratch(w.topic), ErrorText.of(e));
      }
      save(w);
    }
  }

  private void save(SnapshotTracker.Window w) {
    try {
      store.save(w);
      w.durable = true;
    } catch (SQLException e) {
      if (w.durable) {
        LOG.warn("Snapshot of topic {}: its state could not be saved in table {} ({}); the sink holds its committed"
            + " offset at the snapshot's first record until it ends", w.topic, WindowStore.STATE_TABLE,
            ErrorText.of(e));
      }
      w.durable = false;
    }
  }

  private void abandon(SnapshotTracker.Window w, boolean replaced) {
    if (replaced) {
      return; // the new window's start drops the old one's keys
    }
    LOG.info("Snapshot of topic {} that an earlier task followed is not taken up: this task reads the topic outside"
        + " it", w.topic);
    forget(w);
  }

  @Override
  public Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
    Map<TopicPartition, OffsetAndMetadata> offsets = super.preCommit(currentOffsets);
    // Debezium's task answers with the last record it wrote, or Connect's offsets when it wrote none; records written
    // by COPY after its last one are written too.
    copied.forEach((tp, o) -> offsets.computeIfPresent(tp, (k, d) -> d.offset() < o.offset() ? o : d));
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
    partitions.forEach(copied::remove);
    super.close(partitions);
  }

  @Override
  public void stop() {
    if (store != null) {
      store.close();
    }
    if (freshness != null) {
      freshness.unpublish();
    }
    if (copyRows != null) {
      try {
        pluginMetrics().removeMetric(copyRows);
      } catch (RuntimeException alreadyGone) {
        // the worker closed the task's plugin metrics first
      }
    }
    if (copy != null) {
      copy.close();
    }
    if (evolution != null) {
      evolution.close();
    }
    if (byRecord != null) {
      byRecord.close();
    }
    super.stop();
  }

  /** Removes what the snapshot in {@code w} did not write, when this task can be sure which rows those are. */
  private void complete(SnapshotTracker.Window w, SinkRecord sample) {
    if (failed()) {
      return; // the snapshot was not written; the task fails on its next put and reads its end again
    }
    long partitions = context.assignment().stream().filter(tp -> tp.topic().equals(w.topic)).count();
    if (w.keyless || w.spread || partitions > 1 || w.unsure) {
      LOG.warn("Snapshot of topic {} written; rows it no longer holds are not removed: {}", w.topic,
          w.keyless ? "its records have no key" : w.unsure ? "its keys could not all be kept (see the warning above);"
              + " `sluice reconcile` compares the two sides" : "the topic has more than one partition");
      forget(w);
      return;
    }
    String table = w.topic;
    try {
      Target target = target(sample);
      table = target.table;
      StaleRows.Outcome outcome = store.removeStale(w, target.table, target.columns);
      if (outcome.guarded()) {
        LOG.warn("Snapshot of topic {} written ({} rows), but only {} of its keys were found in table {}; no rows"
            + " removed. `sluice reconcile` compares the two sides.", w.topic, outcome.snapshotKeys(),
            outcome.snapshotKeys() - outcome.missing(), table);
      } else {
        LOG.info("Snapshot of topic {} written ({} rows); removed {} rows of table {} that it no longer holds",
            w.topic, outcome.snapshotKeys(), outcome.removed(), table);
      }
    } catch (SQLException | RuntimeException e) {
      LOG.warn("Snapshot of topic {} written; could not remove the rows it no longer holds from table {}: {}",
          w.topic, table, ErrorText.of(e));
    }
    forget(w);
  }

  private void forget(SnapshotTracker.Window w) {
    try {
      store.forget(w);
    } catch (SQLException e) {
      LOG.warn("Snapshot of topic {}: its state could not be dropped from table {} and {} ({}); a task started again"
          + " drops it once it reads past the snapshot", w.topic, WindowStore.STATE_TABLE, store.scratch(w.topic),
          ErrorText.of(e));
    }
  }

  private Target target(SinkRecord record) {
    JdbcKafkaSinkRecord sample = new JdbcKafkaSinkRecord(record, config);
    String table = config.getCollectionNamingStrategy().resolveCollectionName(sample, config.getCollectionNameFormat());
    List<String> columns = sample.keyFieldNames().stream()
        .map(f -> identifier(config.getColumnNamingStrategy().resolveColumnName(f))).toList();
    return new Target(identifier(table), columns);
  }

  /** Quoted as the sink quotes its own identifiers; a dotted name is a schema and a table. */
  private String identifier(String name) {
    if (!config.isQuoteIdentifiers()) {
      return name;
    }
    return Arrays.stream(name.split("\\."))
        .map(part -> PLAIN_IDENTIFIER.matcher(part).matches() ? dialect.quote + part + dialect.quote : part)
        .collect(Collectors.joining("."));
  }
}
