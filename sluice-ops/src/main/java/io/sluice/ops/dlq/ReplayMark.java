package io.sluice.ops.dlq;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.kafka.common.header.Header;
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

  /** Whether the record carries any replay header: it was replayed, whether its mark can be read or not. */
  public static boolean present(Headers headers) {
    for (Header h : headers) {
      if (h.key().startsWith(PREFIX)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The mark in a record's headers, or null when it carries none (it was never replayed).
   *
   * @throws IllegalArgumentException when the mark is damaged (a header missing, or one that does not parse): such a
   *     record was replayed, but from where cannot be told, and reading it as "never replayed" could replay it twice
   */
  public static ReplayMark from(Headers headers) {
    if (!present(headers)) {
      return null;
    }
    String topic = ErrorContext.text(headers, TOPIC);
    String partition = ErrorContext.text(headers, PARTITION);
    String offset = ErrorContext.text(headers, OFFSET);
    String time = ErrorContext.text(headers, TIME);
    String group = ErrorContext.text(headers, GROUP);
    List<String> missing = new ArrayList<>();
    for (String[] h : new String[][] {{TOPIC, topic}, {PARTITION, partition}, {OFFSET, offset}, {GROUP, group}}) {
      if (h[1] == null) {
        missing.add(h[0]);
      }
    }
    if (!missing.isEmpty()) {
      throw new IllegalArgumentException("damaged replay mark: no " + String.join(", ", missing) + " header");
    }
    return new ReplayMark(topic, parsed(PARTITION, partition, Integer::parseInt),
        parsed(OFFSET, offset, Long::parseLong), time == null ? null : parsed(TIME, time, Instant::parse), group);
  }

  private static <T> T parsed(String header, String value, Function<String, T> parse) {
    try {
      return parse.apply(value);
    } catch (NumberFormatException | DateTimeParseException e) {
      throw new IllegalArgumentException("damaged replay mark: " + header + " is '" + value + "'");
    }
  }
}
