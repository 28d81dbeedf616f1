package io.sluice.ops.dlq;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The records {@code inspect} read, and how many failed how: one group per exception class and stage.
 *
 * @param topic the dead-letter topic
 * @param records the records, headers decoded; empty when they were handed over one by one as they were read
 * @param count how many records were read
 * @param groups counts per exception class and stage, largest first
 * @param subjects the registry subjects of each schema id the records' values are framed with, where a registry was
 *     given to ask
 * @param warnings what could not be found out, with its cause (the registry did not answer, refused the credentials)
 */
public record Inspection(String topic, List<DlqRecord> records, long count, List<ErrorGroup> groups,
    Map<Integer, List<String>> subjects, List<String> warnings) {

  public Inspection {
    records = List.copyOf(records);
    groups = List.copyOf(groups);
    subjects = Map.copyOf(subjects);
    warnings = List.copyOf(warnings);
  }

  /**
   * The records that failed with one exception class in one stage.
   *
   * @param exceptionClass the exception class (full name), or null for records without Connect's context
   * @param stage the stage, or null likewise
   * @param count how many records
   * @param replayed how many of them had been replayed before and failed again
   */
  public record ErrorGroup(String exceptionClass, String stage, long count, long replayed) {}

  /** Counts records as they pass, per exception class and stage: memory grows with the groups, not the records. */
  static final class Tally {
    private record Key(String exceptionClass, String stage) {}

    private final Map<Key, long[]> counts = new LinkedHashMap<>();
    private long count;

    void add(DlqRecord r) {
      long[] c = counts.computeIfAbsent(new Key(r.error().exceptionClass(), r.error().stage()), k -> new long[2]);
      c[0]++;
      if (r.replayed()) {
        c[1]++;
      }
      count++;
    }

    Inspection inspection(String topic, List<DlqRecord> records, Map<Integer, List<String>> subjects,
                          List<String> warnings) {
      List<ErrorGroup> groups = new ArrayList<>();
      counts.forEach((k, c) -> groups.add(new ErrorGroup(k.exceptionClass(), k.stage(), c[0], c[1])));
      groups.sort(Comparator.comparingLong(ErrorGroup::count).reversed()
          .thenComparing(g -> String.valueOf(g.exceptionClass())).thenComparing(g -> String.valueOf(g.stage())));
      return new Inspection(topic, records, count, groups, subjects, warnings);
    }
  }
}
