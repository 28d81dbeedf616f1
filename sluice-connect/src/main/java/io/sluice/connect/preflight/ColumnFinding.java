package io.sluice.connect.preflight;

import io.sluice.connect.defaults.PostgresTypeFidelity;
import io.sluice.connect.defaults.PostgresTypeFidelity.NotCarried;

/**
 * A captured column the pipeline cannot carry faithfully, as a source's column check finds it
 * ({@link PostgresColumnCheck}, {@link BinlogColumnCheck}): where it is, its type as the source database shows it, and
 * what becomes of it and what to do ({@code verdict}; its remedy names the column as {@link PostgresTypeFidelity#COLUMN}).
 */
public record ColumnFinding(String schema, String table, String column, String type, NotCarried verdict) {
  public String qualifiedName() {
    return schema + "." + table + "." + column;
  }

  /** One line: the table, column and type, what happens, and what to do. */
  public String message() {
    String regex = PostgresColumnCheck.regex(qualifiedName());
    return "Column " + column + " of table " + schema + "." + table + " (" + type + ") is not carried faithfully: "
        + verdict.happens() + ". Exclude it (add " + regex + " to " + CaptureFilters.COLUMN_EXCLUDE + "), "
        + verdict.remedy().replace(PostgresTypeFidelity.COLUMN, column) + ", or accept the loss (add " + regex
        + " to " + PostgresColumnCheck.ACCEPT_LOSS + ").";
  }
}
