package io.sluice.ops.dlq;

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
 * @param group the consumer group holding the replay's progress; default {@code sluice-dlq-replay.<topic>}
 * @param limit stop after producing this many records (progress committed, a later run resumes); null for all
 */
public record ReplayRequest(String topic, ReplayTarget target, RecordFilter filter, double ratePerSecond,
                            boolean dryRun, boolean includeReplayed, String group, Long limit) {
  public ReplayRequest {
    if (topic == null || topic.isBlank()) {
      throw new IllegalArgumentException("a dead-letter topic is required");
    }
    target = target == null ? new ReplayTarget.Original() : target;
    filter = filter == null ? RecordFilter.ALL : filter;
    group = group == null || group.isBlank() ? defaultGroup(topic) : group;
    if (ratePerSecond < 0) {
      throw new IllegalArgumentException("rate must not be negative");
    }
    if (limit != null && limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1");
    }
  }

  /** Everything to the original topics, no rate limit, the default group. */
  public static ReplayRequest of(String topic) {
    return new ReplayRequest(topic, null, null, 0, false, false, null, null);
  }

  public static String defaultGroup(String topic) {
    return "sluice-dlq-replay." + topic;
  }

  public ReplayRequest withLimit(Long limit) {
    return new ReplayRequest(topic, target, filter, ratePerSecond, dryRun, includeReplayed, group, limit);
  }

  public ReplayRequest withDryRun(boolean dryRun) {
    return new ReplayRequest(topic, target, filter, ratePerSecond, dryRun, includeReplayed, group, limit);
  }

  public ReplayRequest withIncludeReplayed(boolean includeReplayed) {
    return new ReplayRequest(topic, target, filter, ratePerSecond, dryRun, includeReplayed, group, limit);
  }

  public ReplayRequest withTarget(ReplayTarget target) {
    return new ReplayRequest(topic, target, filter, ratePerSecond, dryRun, includeReplayed, group, limit);
  }

  public ReplayRequest withGroup(String group) {
    return new ReplayRequest(topic, target, filter, ratePerSecond, dryRun, includeReplayed, group, limit);
  }
}
