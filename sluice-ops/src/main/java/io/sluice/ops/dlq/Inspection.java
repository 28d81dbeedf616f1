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
 * @param records the records, headers decoded
 * @param groups counts per exception class and stage, largest first
 * @param subjects the registry subjects of each schema id the records' values are framed with, where a registry was
 *     given to ask
 * @param warnings what could not be found out, with its cause (the registry did not answer, refused the credentials)
 */
public record Inspection(String topic, List<DlqRecord> records, List<ErrorGroup> groups,
    Map<Integer, List<String>> subjects, List<String> warnings) {

  /**
   * The records that failed with one exception class in one stage.
   *
   * @param exceptionClass the exception class (full name), or null for records without Connect's context
   * @param stage the stage, or null likewise
   * @param count how many records
   * @param replayed how many of them had been replayed before and failed again
   */
  public record ErrorGroup(String exceptionClass, String stage, long count, long replayed) {}

  static Inspection of(String topic, List<DlqRecord> records) {
    record Key(String exceptionClass, String stage) {}
    Map<Key, long[]> counts = new LinkedHashMap<>();
    for (DlqRecord r : records) {
      long[] c = counts.computeIfAbsent(new Key(r.error().exceptionClass(), r.error().stage()), k -> new long[2]);
      c[0]++;
      if (r.replayed()) {
        c[1]++;
      }
    }
    List<ErrorGroup> groups = new ArrayList<>();
    counts.forEach((k, c) -> groups.add(new ErrorGroup(k.exceptionClass(), k.stage(), c[0], c[1])));
    groups.sort(Comparator.comparingLong(ErrorGroup::count).reversed()
        .thenComparing(g -> String.valueOf(g.exceptionClass())).thenComparing(g -> String.valueOf(g.stage())));
    return new Inspection(topic, records, groups, Map.of(), List.of());
  }

  Inspection withSubjects(Map<Integer, List<String>> subjects, List<String> warnings) {
    return new Inspection(topic, records, groups, Map.copyOf(subjects), List.copyOf(warnings));
  }
}
