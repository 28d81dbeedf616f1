package io.sluice.sink.jdbc;

import io.debezium.connector.jdbc.JdbcKafkaSinkRecord;
import io.debezium.connector.jdbc.JdbcSinkConnectorConfig;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * A put's changes as the sink's own writers ({@link BulkWriter}) apply them: by table, each key's last change, upserts
 * and deletes apart. That is what Debezium's reduction buffer keeps: applied in order, an upsert of a key's whole row
 * and a delete leave the row as the last of them says, and changes to different keys commute. The writers apply a
 * table's upserts first, then its deletes, as Debezium flushes its buffers.
 */
final class PutChanges {
  /** One table's changes of a put: each key's last record, upserts and deletes apart, in the order of their last change. */
  static final class Changes {
    final Map<Struct, JdbcKafkaSinkRecord> upserts = new LinkedHashMap<>();
    final Map<Struct, JdbcKafkaSinkRecord> deletes = new LinkedHashMap<>();
  }

  private PutChanges() {}

  /**
   * The changes of {@code records} by the table Debezium's sink names for them, or empty when a record is not an upsert
   * or a delete with a key (a schema change, a truncate, a delete while deletes are off, a record without a key or a
   * table), which only Debezium's sink writes.
   */
  static Optional<Map<String, Changes>> byTable(List<SinkRecord> records, JdbcSinkConnectorConfig config) {
    Map<String, Changes> byTable = new LinkedHashMap<>();
    for (SinkRecord r : records) {
      JdbcKafkaSinkRecord record = new JdbcKafkaSinkRecord(r, config);
      if (record.isSchemaChange() || record.isTruncate()) {
        return Optional.empty();
      }
      boolean delete = record.isDelete() || record.isTombstone();
      if (delete && !config.isDeleteEnabled()) {
        return Optional.empty();
      }
      String table = config.getCollectionNamingStrategy()
          .resolveCollectionName(record, config.getCollectionNameFormat());
      Struct key = record.filteredKey();
      if (table == null || key == null || key.schema().fields().isEmpty()) {
        return Optional.empty();
      }
      Changes changes = byTable.computeIfAbsent(table, t -> new Changes());
      if (record.isTombstone() && changes.deletes.containsKey(key)) {
        continue; // the delete it follows stays the key's last change: the record that names the row's columns
      }
      changes.upserts.remove(key);
      changes.deletes.remove(key);
      (delete ? changes.deletes : changes.upserts).put(key, record);
    }
    return byTable.isEmpty() ? Optional.empty() : Optional.of(byTable);
  }
}
