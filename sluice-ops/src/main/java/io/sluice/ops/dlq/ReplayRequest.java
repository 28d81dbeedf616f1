package io.sluice.ops.dlq;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * One replay of a dead-letter topic.
 *
 * @param topic the dead-letter topic
 * @param target where the originals go
 * @param filter which records are replayed; the others are passed over (and counted)
 * @param ratePerSecond at most this many records a second; 0 for no limit
 * @param dryRun read and count what would be replayed, produce and commit nothing
 * @param includeReplayed replay records that an earlier replay produced and that failed again; without it they are
 *     skipped, so a record that keeps failing does not loop forever
 * @param group the consumer group holding the replay's progress; default {@code sluice-dlq-replay.<topic>}, and
 *     for a filtered replay {@code sluice-dlq-replay.<topic>.filter-<hash of the filter>}: a replay commits past the
 *     records its filter passed over, so a replay of another filter in the same group would find them gone
 * @param limit stop after producing this many records (progress committed, a later run resumes); null for all
 * @param records only these records, offsets by dead-letter partition (the ones a person picked); empty for all.
 *     The others are passed over as the filter passes them over
 */
public record ReplayRequest(String topic, ReplayTarget target, RecordFilter filter, double ratePerSecond,
                            boolean dryRun, boolean includeReplayed, String group, Long limit,
                            Map<Integer, Set<Long>> records) {
  public ReplayRequest {
    if (topic == null || topic.isBlank()) {
      throw new IllegalArgumentException("a dead-letter topic is required");
    }
    target = target == null ? new ReplayTarget.Original() : target;
    filter = filter == null ? RecordFilter.ALL : filter;
    group = group == null || group.isBlank() ? defaultGroup(topic, filter) : group;
    if (ratePerSecond < 0) {
      throw new IllegalArgumentException("rate must not be negative");
    }
    if (limit != null && limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1");
    }
    Map<Integer, Set<Long>> chosen = new TreeMap<>();
    if (records != null) {
      records.forEach((p, offsets) -> chosen.put(p, Set.copyOf(offsets)));
    }
    records = Map.copyOf(chosen);
  }

  /** Every record the filter takes. */
  public ReplayRequest(String topic, ReplayTarget target, RecordFilter filter, double ratePerSecond, boolean dryRun,
                       boolean includeReplayed, String group, Long limit) {
    this(topic, target, filter, ratePerSecond, dryRun, includeReplayed, group, limit, Map.of());
  }

  /** Whether {@code records} lets the record at this dead-letter partition and offset through. */
  public boolean chosen(int partition, long offset) {
    if (records.isEmpty()) {
      return true;
    }
    Set<Long> offsets = records.get(partition);
    return offsets != null && offsets.contains(offset);
  }

  /** Everything to the original topics, no rate limit, the default group. */
  public static ReplayRequest of(String topic) {
    return new ReplayRequest(topic, null, null, 0, false, false, null, null, Map.of());
  }

  public static String defaultGroup(String topic) {
    return "sluice-dlq-replay." + topic;
  }

  /** The group of a replay with this filter when none is given. */
  public static String defaultGroup(String topic, RecordFilter filter) {
    return filter.conditions().isEmpty() ? defaultGroup(topic)
        : defaultGroup(topic) + ".filter-" + shortHash(filter.canonical());
  }

  /** 12 hex digits of the SHA-256 of a text: names a group after what it replays. */
  public static String shortHash(String text) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 6);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  public ReplayRequest withLimit(Long limit) {
    return new ReplayRequest(topic, target, filter, ratePerSecond, dryRun, includeReplayed, group, limit, records);
  }

  public ReplayRequest withDryRun(boolean dryRun) {
    return new ReplayRequest(topic, target, filter, ratePerSecond, dryRun, includeReplayed, group, limit, records);
  }

  public ReplayRequest withIncludeReplayed(boolean includeReplayed) {
    return new ReplayRequest(topic, target, filter, ratePerSecond, dryRun, includeReplayed, group, limit, records);
  }

  public ReplayRequest withTarget(ReplayTarget target) {
    return new ReplayRequest(topic, target, filter, ratePerSecond, dryRun, includeReplayed, group, limit, records);
  }

  public ReplayRequest withRecords(Map<Integer, Set<Long>> records) {
    return new ReplayRequest(topic, target, filter, ratePerSecond, dryRun, includeReplayed, group, limit, records);
  }

  public ReplayRequest withGroup(String group) {
    return new ReplayRequest(topic, target, filter, ratePerSecond, dryRun, includeReplayed, group, limit, records);
  }
}
