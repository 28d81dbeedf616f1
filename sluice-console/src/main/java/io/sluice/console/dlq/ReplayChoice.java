package io.sluice.console.dlq;

import io.sluice.ops.dlq.RecordFilter;
import io.sluice.ops.dlq.ReplayRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What the console replays: the records of one error group (exception class and stage), or the records a person
 * picked. Each runs as {@code sluice dlq replay TOPIC --filter … --group …} would: to the records' original topics,
 * records replayed before that failed again passed over (so that a record that keeps failing does not loop), and
 * its progress in a replay group of its own. The group is named after what is replayed, so that the same choice made
 * again resumes where it stopped and never produces a record twice, while another choice (another error group, other
 * records) is not blocked by the offsets the first one committed past its records.
 *
 * @param what how the page and the audit name it
 * @param request the replay
 */
public record ReplayChoice(String what, ReplayRequest request) {
  /** Records a person may pick for one replay: a page or a few of them. */
  public static final int MAX_PICKED = 500;

  /** The records of one error group; {@code stage} may be empty (records whose headers have none). */
  public static ReplayChoice group(String topic, String exceptionClass, String stage) {
    if (exceptionClass == null || exceptionClass.isBlank()) {
      throw new IllegalArgumentException("a group to replay needs its exception class (records without Kafka"
          + " Connect's error headers are replayed by picking them, or with sluice dlq replay)");
    }
    List<String> filter = new ArrayList<>();
    filter.add("exception=" + exceptionClass.trim());
    if (stage != null && !stage.isBlank()) {
      filter.add("stage=" + stage.trim());
    }
    String key = String.join("|", filter);
    ReplayRequest request = new ReplayRequest(topic, null, RecordFilter.parse(filter), 0, false, false,
        groupName(topic, key), null);
    return new ReplayChoice(exceptionClass.trim() + (stage == null || stage.isBlank() ? "" : " in " + stage.trim()),
        request);
  }

  /** The picked records, {@code partition:offset} each ({@code 0:12}). */
  public static ReplayChoice records(String topic, List<String> picked) {
    if (picked.isEmpty()) {
      throw new IllegalArgumentException("pick at least one record to replay");
    }
    if (picked.size() > MAX_PICKED) {
      throw new IllegalArgumentException("at most " + MAX_PICKED + " records can be picked for one replay, got "
          + picked.size() + "; replay their error group instead");
    }
    Map<Integer, Set<Long>> records = new TreeMap<>();
    for (String p : picked) {
      String[] parts = p.trim().split(":");
      try {
        if (parts.length != 2) {
          throw new NumberFormatException();
        }
        records.computeIfAbsent(Integer.parseInt(parts[0]), x -> new TreeSet<>()).add(Long.parseLong(parts[1]));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("a picked record is partition:offset such as 0:12, not '" + p + "'");
      }
    }
    StringBuilder key = new StringBuilder();
    int count = 0;
    for (Map.Entry<Integer, Set<Long>> e : records.entrySet()) {
      for (long o : e.getValue()) {
        key.append(e.getKey()).append(':').append(o).append(',');
        count++;
      }
    }
    ReplayRequest request = new ReplayRequest(topic, null, RecordFilter.ALL, 0, false, false,
        groupName(topic, key.toString()), null, records);
    return new ReplayChoice(count == 1 ? "record " + key.substring(0, key.length() - 1) : count + " picked records",
        request);
  }

  /** {@code sluice-dlq-replay.<topic>.console-<12 hex digits of what is replayed>}. */
  static String groupName(String topic, String what) {
    return ReplayRequest.defaultGroup(topic) + ".console-" + ReplayRequest.shortHash(what);
  }
}
