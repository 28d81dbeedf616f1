package io.sluice.ops.dlq;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import org.apache.kafka.common.header.Headers;

/**
 * The headers {@code sluice dlq replay} puts on every record it produces: which dead-letter record it came from, when,
 * and under which replay group. Connect copies a failed record's headers into its dead-letter record, so a replayed
 * record that fails again arrives in the DLQ still carrying its mark; replay recognises it and does not loop.
 *
 * @param topic the dead-letter topic the record was replayed from
 * @param partition its partition there
 * @param offset its offset there
 * @param time when it was replayed
 * @param group the replay's consumer group
 */
public record ReplayMark(String topic, int partition, long offset, Instant time, String group) {
  public static final String PREFIX = "__sluice.replay.";
  public static final String TOPIC = PREFIX + "topic";
  public static final String PARTITION = PREFIX + "partition";
  public static final String OFFSET = PREFIX + "offset";
  public static final String TIME = PREFIX + "time";
  public static final String GROUP = PREFIX + "group";

  /** The mark in a record's headers, or null when it was never replayed (or the mark is damaged). */
  public static ReplayMark from(Headers headers) {
    String topic = ErrorContext.text(headers, TOPIC);
    String partition = ErrorContext.text(headers, PARTITION);
    String offset = ErrorContext.text(headers, OFFSET);
    if (topic == null || partition == null || offset == null) {
      return null;
    }
    try {
      String time = ErrorContext.text(headers, TIME);
      return new ReplayMark(topic, Integer.parseInt(partition), Long.parseLong(offset),
          time == null ? null : Instant.parse(time), ErrorContext.text(headers, GROUP));
    } catch (NumberFormatException | DateTimeParseException e) {
      return null;
    }
  }
}
