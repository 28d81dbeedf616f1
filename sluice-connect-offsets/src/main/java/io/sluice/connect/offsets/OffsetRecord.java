package io.sluice.connect.offsets;

/**
 * One record of the {@code connect-offsets} topic, key and value exactly as the topic holds them (UTF-8 JSON text).
 * A null value is a tombstone: the position was deleted.
 */
public record OffsetRecord(String key, String value, int partition, long offset) {

  /** The {@code key<TAB>value} line that {@code kcat -K '\t'} prints for this record. */
  public String toTsvLine() {
    return key + "\t" + (value == null ? "" : value);
  }
}
