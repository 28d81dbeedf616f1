package io.sluice.ops.snapshot;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * An ad-hoc snapshot of some of a source's tables, as Debezium's {@code execute-snapshot} signal carries it.
 *
 * @param tables the tables as the source names them ({@code schema.table} for PostgreSQL, {@code database.table} for
 *     MySQL and MariaDB); Debezium reads each as a regular expression
 * @param filter an SQL condition on the rows to read (Debezium's {@code additional-conditions}), applied to every
 *     table named
 */
public record SnapshotRequest(List<String> tables, Type type, Optional<String> filter) {
  /** Debezium's two kinds of ad-hoc snapshot. */
  public enum Type {
    /** Read in chunks between streamed changes; can be paused, resumed and stopped. */
    INCREMENTAL,
    /** Streaming stops while the tables are read, as in an initial snapshot, and resumes after. */
    BLOCKING;

    public static Type parse(String text) {
      try {
        return valueOf(text.trim().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("snapshot type '" + text + "': incremental or blocking");
      }
    }

    public String lower() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  public SnapshotRequest {
    tables = List.copyOf(tables);
    if (tables.isEmpty()) {
      throw new IllegalArgumentException("name at least one table to snapshot");
    }
    for (String t : tables) {
      if (t.isBlank() || !t.contains(".")) {
        throw new IllegalArgumentException("table '" + t + "': name it as the source does, schema.table"
            + " (PostgreSQL) or database.table (MySQL, MariaDB)");
      }
    }
    filter = filter.map(String::strip).filter(f -> !f.isEmpty());
  }
}
