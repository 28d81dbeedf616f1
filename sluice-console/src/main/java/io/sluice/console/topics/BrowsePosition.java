package io.sluice.console.topics;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where the message browser reads from, as its URL says it, so that a link shows the same records to whoever opens
 * it: from the {@code start} or the {@code end} (the newest), from an {@code offset} (of one partition, or of each),
 * from a {@code time}; or, to page on, exact positions per partition: {@code at} (read forward from these offsets) or
 * {@code before} (read backward, older than these offsets), written {@code 0:120,1:98}.
 *
 * @param partition the one partition read, or null for all
 * @param forward whether the page runs forward from the positions (oldest first) or backward from them
 */
public record BrowsePosition(From from, Integer partition, long offset, Instant time, Map<Integer, Long> positions,
    boolean forward) {

  /** The kinds of start a URL may give. */
  public enum From { START, END, OFFSET, TIME, AT, BEFORE }

  public BrowsePosition {
    positions = positions == null ? Map.of() : Map.copyOf(positions);
  }

  /**
   * Reads the URL's parameters; {@code at} or {@code before}, when given, win over {@code from}.
   *
   * @throws IllegalArgumentException for a value that does not parse, with what was expected
   */
  public static BrowsePosition parse(String from, String partition, String offset, String time, String at,
      String before) {
    Integer p = null;
    if (partition != null && !partition.isBlank() && !partition.equals("all")) {
      p = parseInt(partition, "partition");
      if (p < 0) {
        throw new IllegalArgumentException("partition must be 0 or more, got " + partition);
      }
    }
    if (at != null && !at.isBlank()) {
      return new BrowsePosition(From.AT, p, 0, null, positions(at, "at"), true);
    }
    if (before != null && !before.isBlank()) {
      return new BrowsePosition(From.BEFORE, p, 0, null, positions(before, "before"), false);
    }
    String f = from == null || from.isBlank() ? "end" : from;
    return switch (f) {
      case "start" -> new BrowsePosition(From.START, p, 0, null, null, true);
      case "end" -> new BrowsePosition(From.END, p, 0, null, null, false);
      case "offset" -> {
        long o = parseLong(offset, "offset");
        if (o < 0) {
          throw new IllegalArgumentException("offset must be 0 or more, got " + offset);
        }
        yield new BrowsePosition(From.OFFSET, p, o, null, null, true);
      }
      case "time" -> new BrowsePosition(From.TIME, p, 0, parseTime(time), null, true);
      default -> throw new IllegalArgumentException("from must be start, end, offset or time, got " + f);
    };
  }

  /** {@code 0:120,1:98} as partition → offset. */
  static Map<Integer, Long> positions(String text, String name) {
    Map<Integer, Long> out = new TreeMap<>();
    for (String part : text.split(",")) {
      String[] kv = part.trim().split(":");
      if (kv.length != 2) {
        throw new IllegalArgumentException(name + " must be partition:offset pairs such as 0:120,1:98, got " + text);
      }
      out.put(parseInt(kv[0], name + "'s partition"), parseLong(kv[1], name + "'s offset"));
    }
    return out;
  }

  /** Positions as the URL writes them, by partition. */
  public static String format(Map<Integer, Long> positions) {
    StringBuilder b = new StringBuilder();
    new TreeMap<>(positions).forEach((p, o) -> b.append(b.isEmpty() ? "" : ",").append(p).append(':').append(o));
    return b.toString();
  }

  /** An RFC 3339 time ({@code 2026-11-26T08:00:00Z}) or unix milliseconds. */
  static Instant parseTime(String time) {
    if (time == null || time.isBlank()) {
      throw new IllegalArgumentException("from=time needs a time (RFC 3339, e.g. 2026-11-26T08:00:00Z, or unix ms)");
    }
    try {
      return time.chars().allMatch(Character::isDigit) ? Instant.ofEpochMilli(Long.parseLong(time))
          : Instant.parse(time);
    } catch (DateTimeParseException | NumberFormatException e) {
      throw new IllegalArgumentException("time must be RFC 3339 (e.g. 2026-11-26T08:00:00Z) or unix ms, got " + time);
    }
  }

  private static int parseInt(String s, String what) {
    try {
      return Integer.parseInt(s.trim());
    } catch (NumberFormatException | NullPointerException e) {
      throw new IllegalArgumentException(what + " must be a whole number, got " + s);
    }
  }

  private static long parseLong(String s, String what) {
    try {
      return Long.parseLong(s.trim());
    } catch (NumberFormatException | NullPointerException e) {
      throw new IllegalArgumentException(what + " must be a whole number, got " + s);
    }
  }
}
