package io.sluice.ops.dlq;

import java.time.Duration;
import java.util.Map;

/**
 * Which records of a dead-letter topic {@code inspect} and {@code unwrap} read.
 *
 * @param maxMessages at most this many records (those matching the filter); null for all
 * @param timeout stop waiting when no record has arrived for this long (the read ends at the topic's end anyway)
 * @param fromBeginning the first {@code maxMessages} records; otherwise the newest ones
 * @param sample when set, this many matching records spread evenly over the topic instead
 * @param filter which records count
 * @param from where to start reading each partition (a partition not named, or named below its log start, from its
 *     start): the next page of a reader that pages through the topic without holding it
 */
public record ReadOptions(Integer maxMessages, Duration timeout, boolean fromBeginning, Integer sample,
                          RecordFilter filter, Map<Integer, Long> from) {
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

  public ReadOptions {
    if (maxMessages != null && maxMessages < 1) {
      throw new IllegalArgumentException("max messages must be at least 1, not " + maxMessages);
    }
    if (sample != null && sample < 1) {
      throw new IllegalArgumentException("sample size must be at least 1, not " + sample);
    }
    timeout = timeout == null ? DEFAULT_TIMEOUT : timeout;
    filter = filter == null ? RecordFilter.ALL : filter;
    from = from == null ? Map.of() : Map.copyOf(from);
  }

  /** Reading each partition from its start. */
  public ReadOptions(Integer maxMessages, Duration timeout, boolean fromBeginning, Integer sample,
                     RecordFilter filter) {
    this(maxMessages, timeout, fromBeginning, sample, filter, Map.of());
  }

  /** Every record of the topic, oldest first. */
  public static ReadOptions all() {
    return new ReadOptions(null, null, true, null, RecordFilter.ALL);
  }
}
