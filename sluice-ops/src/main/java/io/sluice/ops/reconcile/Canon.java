package io.sluice.ops.reconcile;

/**
 * How one column's values become text before hashing, decided once from both sides' declared types so that equal
 * values give byte-identical text on every engine. Each {@link Dialect} writes the SQL for each form.
 */
sealed interface Canon {
  /** Integers and booleans: decimal digits, booleans as {@code 0}/{@code 1}. */
  record Integer() implements Canon {}

  /**
   * Exact numbers with {@code scale} places. {@code rescale}: rounded there first (half away from zero, as both
   * engines store them), because the sides declare different scales; otherwise both print the declared scale as is.
   * {@code scale -1}: as stored, trailing zeros dropped.
   */
  record Decimal(int scale, boolean rescale) implements Canon {}

  /** Text as its UTF-8 bytes; no collation is involved anywhere. */
  record Text() implements Canon {}

  /** Lowercase hexadecimal. */
  record Bytes() implements Canon {}

  /** {@code YYYY-MM-DD}. */
  record Date() implements Canon {}

  /** {@code HH:MM:SS[.f…]} with {@code digits} fractional digits, truncated. */
  record Time(int digits) implements Canon {}

  /**
   * {@code YYYY-MM-DD HH:MM:SS[.f…]} with {@code digits} fractional digits; times with a zone are taken in UTC.
   * {@code round}: half a unit is added before truncating, for when the coarser side's engine rounds on store.
   * For 0, 3 and 6 digits (nearly every column) the text is PostgreSQL's own output (trailing fractional zeros
   * dropped), which it writes several times faster than a formatted one; other digit counts are zero-padded.
   */
  record Timestamp(int digits, boolean round) implements Canon {}

  /** Lowercase hyphenated text. */
  record Uuid() implements Canon {}
}
