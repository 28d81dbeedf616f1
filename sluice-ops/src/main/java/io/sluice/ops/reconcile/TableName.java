package io.sluice.ops.reconcile;

/** A table as the operator names it: {@code table} or {@code schema.table} (for MySQL/MariaDB, {@code database.table}). */
record TableName(String schema, String name) {

  static TableName parse(String text) {
    int dot = text.indexOf('.');
    if (text.isBlank() || dot == 0 || dot == text.length() - 1) {
      throw new IllegalArgumentException("not a table name: '" + text + "'");
    }
    return dot < 0 ? new TableName(null, text) : new TableName(text.substring(0, dot), text.substring(dot + 1));
  }

  @Override
  public String toString() {
    return schema == null ? name : schema + "." + name;
  }
}
