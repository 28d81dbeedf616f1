package io.debezium.connector.jdbc.dialect;

import io.debezium.connector.jdbc.JdbcSinkRecord;
import io.debezium.connector.jdbc.relational.TableDescriptor;
import io.debezium.metadata.CollectionId;
import io.debezium.sink.field.FieldDescriptor;

/**
 * Sluice's, in Debezium's package: the parts of a dialect's statements that {@link GeneralDatabaseDialect} builds them
 * from and keeps protected, so that a writer of many rows a statement writes each row with exactly what Debezium's
 * statement of one row has (see {@code io.sluice.sink.jdbc.MultiRowWriter}).
 */
public final class DialectStatements {
  private DialectStatements() {}

  /** Whether {@code dialect} builds its statements as {@link GeneralDatabaseDialect} does. */
  public static boolean supports(DatabaseDialect dialect) {
    return dialect instanceof GeneralDatabaseDialect;
  }

  /** The table as the dialect's statements name it. */
  public static String tableName(DatabaseDialect dialect, CollectionId table) {
    return ((GeneralDatabaseDialect) dialect).getQualifiedTableName(table);
  }

  /** The name of the column the dialect writes {@code field} into, as it looks the column up in a table. */
  public static String columnName(DatabaseDialect dialect, FieldDescriptor field) {
    return ((GeneralDatabaseDialect) dialect).resolveColumnName(field);
  }

  /** The expression the dialect's statement binds {@code field} of {@code record} with ({@code ?}, a cast of it, …). */
  public static String queryBinding(DatabaseDialect dialect, String field, TableDescriptor table,
      JdbcSinkRecord record) {
    return ((GeneralDatabaseDialect) dialect).columnQueryBindingFromField(field, table, record);
  }
}
