package io.sluice.ops.reconcile;

import io.sluice.ops.reconcile.ReconcileReport.ColumnDifference;
import io.sluice.ops.reconcile.ReconcileReport.Mismatch;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The differing rows found by comparing segments row by row: exact counts, a limited number of examples of each
 * kind and, when a lag re-check will follow, the identity of every differing row so that the re-check reports only
 * rows that still differ and differed before.
 */
final class Findings {
  private final List<String> keyNames;
  private final List<String> valueNames;
  private final int limit;
  private final DifferingKeys remember;
  private final DifferingKeys onlyThese;
  /** The keys of the segment being compared that differed before, on a re-check. */
  private Set<String> before = Set.of();
  long missing;
  long extra;
  long changed;
  final List<Map<String, String>> missingExamples = new ArrayList<>();
  final List<Map<String, String>> extraExamples = new ArrayList<>();
  final List<Mismatch> mismatchExamples = new ArrayList<>();

  /**
   * @param remember where to keep every differing row's identity (for a later re-check), or null
   * @param onlyThese count only rows whose identity was kept there (the re-check), or null for all
   */
  Findings(List<String> keyNames, List<String> valueNames, int limit, DifferingKeys remember,
           DifferingKeys onlyThese) {
    this.keyNames = keyNames;
    this.valueNames = valueNames;
    this.limit = limit;
    this.remember = remember;
    this.onlyThese = onlyThese;
  }

  /** The rows compared next are those of segment {@code id} of the {@code leaves}-th set of differing segments. */
  void segment(int leaves, long id) {
    if (remember != null) {
      remember.segment(leaves, id);
    }
    if (onlyThese != null) {
      before = onlyThese.keys(leaves, id);
    }
  }

  boolean any() {
    return missing + extra + changed > 0;
  }

  /** Compares one segment's rows, both sides keyed by canonical key text. */
  void compare(Map<String, Row> source, Map<String, Row> sink) {
    for (Map.Entry<String, Row> e : source.entrySet()) {
      Row other = sink.get(e.getKey());
      if (other == null) {
        if (admit(e.getKey())) {
          missing++;
          if (missingExamples.size() < limit) {
            missingExamples.add(key(e.getValue()));
          }
        }
      } else if (!e.getValue().values().equals(other.values()) && admit(e.getKey())) {
        changed++;
        if (mismatchExamples.size() < limit) {
          mismatchExamples.add(new Mismatch(key(e.getValue()), differences(e.getValue(), other)));
        }
      }
    }
    for (Map.Entry<String, Row> e : sink.entrySet()) {
      if (!source.containsKey(e.getKey()) && admit(e.getKey())) {
        extra++;
        if (extraExamples.size() < limit) {
          extraExamples.add(key(e.getValue()));
        }
      }
    }
  }

  /** Whether to count a differing row: on a re-check, only if it differed before too (in whatever way). */
  private boolean admit(String key) {
    // By key only: a row missing at first that arrived with other values is still a difference.
    if (onlyThese != null && !before.contains(key)) {
      return false;
    }
    if (remember != null) {
      remember.add(key);
    }
    return true;
  }

  private Map<String, String> key(Row row) {
    Map<String, String> key = new LinkedHashMap<>();
    for (int i = 0; i < keyNames.size(); i++) {
      key.put(keyNames.get(i), row.key().get(i));
    }
    return key;
  }

  private List<ColumnDifference> differences(Row source, Row sink) {
    List<ColumnDifference> out = new ArrayList<>();
    for (int i = 0; i < valueNames.size(); i++) {
      String a = source.values().get(i);
      String b = sink.values().get(i);
      if (a == null ? b != null : !a.equals(b)) {
        out.add(new ColumnDifference(valueNames.get(i), a, b));
      }
    }
    return out;
  }

  /** One row's canonical key and values (null for SQL NULL). */
  record Row(List<String> key, List<String> values) {}
}
