package io.sluice.ops.reconcile;

/**
 * One column as the catalogue of its database declares it, reduced to what canonicalisation needs.
 *
 * @param precision fractional-second digits for times and timestamps, otherwise unused
 * @param scale decimal places of an exact number, {@code -1} when the column does not fix them
 */
record ColumnType(String name, Kind kind, int precision, int scale, String declared) {

  /** The families of types whose values are canonicalised alike on every engine. */
  enum Kind { INTEGER, DECIMAL, FLOAT, BOOLEAN, TEXT, BYTES, DATE, TIME, TIMESTAMP, TIMESTAMPTZ, UUID, OTHER }

  boolean isTemporal() {
    return kind == Kind.TIMESTAMP || kind == Kind.TIMESTAMPTZ;
  }

  boolean isNumber() {
    return kind == Kind.INTEGER || kind == Kind.DECIMAL || kind == Kind.FLOAT || kind == Kind.BOOLEAN;
  }
}
