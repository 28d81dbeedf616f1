package io.sluice.connect.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** How a sink table differs from its source, keyed by id: what a failed comparison says instead of both tables. */
public record SinkDifference(int sourceRows, int sinkRows, List<Integer> missing, List<Integer> extra,
    List<Integer> different) {
  private static final int SHOWN = 10;

  public static SinkDifference of(Map<Integer, String> source, Map<Integer, String> sink) {
    List<Integer> missing = new ArrayList<>();
    List<Integer> different = new ArrayList<>();
    source.forEach((id, row) -> {
      String there = sink.get(id);
      if (there == null) {
        missing.add(id);
      } else if (!there.equals(row)) {
        different.add(id);
      }
    });
    List<Integer> extra = sink.keySet().stream().filter(id -> !source.containsKey(id)).toList();
    return new SinkDifference(source.size(), sink.size(), missing, extra, different);
  }

  @Override
  public String toString() {
    return sinkRows + " rows in the sink; " + missing.size() + " missing " + some(missing) + ", " + extra.size()
        + " extra " + some(extra) + ", " + different.size() + " different " + some(different);
  }

  /** The first and last id (the source's order: which stretch of changes is missing) and the first few. */
  private static String some(List<Integer> ids) {
    if (ids.isEmpty()) {
      return "";
    }
    List<Integer> sorted = ids.stream().sorted().toList();
    return "(ids " + sorted.get(0) + " to " + sorted.get(sorted.size() - 1) + ": " + sorted.subList(0,
        Math.min(SHOWN, sorted.size())) + (sorted.size() > SHOWN ? " …)" : ")");
  }
}
