package io.sluice.ops.reconcile;

import io.sluice.ops.reconcile.Reconciler.Explained;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/** The plain SQL behind each check, for {@code sluice reconcile --explain}. */
final class Explanation {
  private Explanation() {}

  static List<Explained> of(Comparison comparison, Side source, Side sink, boolean oneConnection) {
    List<Explained> steps = new ArrayList<>();
    for (Side side : List.of(source, sink)) {
      steps.add(new Explained("row count (" + side.role + ")", "SELECT count(*)" + side.from() + side.where(null) + ";"));
    }
    for (Side side : List.of(source, sink)) {
      steps.add(new Explained("table checksum (" + side.role + "): " + comparison.checksumMethod()
          + ", modulo 2^64; equal on both sides when the rows are equal",
          "SELECT count(*), sum(" + side.rowHash() + ")" + side.from() + side.where(null) + ";"));
    }
    for (Side side : List.of(source, sink)) {
      steps.add(new Explained("segment checksums (" + side.role + "): compare segment by segment, then list the rows"
          + " of the segments that differ",
          "SELECT " + side.dialect.modulo(side.keyHash32(), 1024) + " AS segment, count(*), sum("
              + side.rowHash() + ")" + side.from() + side.where(null) + " GROUP BY 1 ORDER BY 1;"));
    }
    if (!oneConnection) {
      steps.add(new Explained("missing / extra rows and column mismatches: the two tables are not reachable from one"
          + " connection, so no join can be written; compare the segment checksums above and list the keys of"
          + " differing segments on each side", "-- per side: SELECT <key columns> ... WHERE <segment expression> = N;"));
      return steps;
    }
    Dialect d = source.dialect;
    String src = d.table(source.table) + " s";
    String snk = d.table(sink.table) + " k";
    String on = comparison.keys().stream()
        .map(c -> "s." + d.quote(c.source().name()) + " = k." + d.quote(c.sink().name()))
        .collect(Collectors.joining(" AND "));
    String sourceKeys = comparison.keys().stream().map(c -> "s." + d.quote(c.source().name())).collect(Collectors.joining(", "));
    String sinkKeys = comparison.keys().stream().map(c -> "k." + d.quote(c.sink().name())).collect(Collectors.joining(", "));
    steps.add(new Explained("missing rows (in the source, not in the sink)",
        "SELECT " + sourceKeys + " FROM " + src + " WHERE NOT EXISTS (SELECT 1 FROM " + snk + " WHERE " + on + ");"));
    steps.add(new Explained("extra rows (in the sink, not in the source)",
        "SELECT " + sinkKeys + " FROM " + snk + " WHERE NOT EXISTS (SELECT 1 FROM " + src + " WHERE " + on + ");"));
    List<String> differs = new ArrayList<>();
    List<String> shown = new ArrayList<>();
    for (Comparison.Column c : comparison.values()) {
      String a = d.canonical("s." + d.quote(c.source().name()), c.source(), c.canon());
      String b = d.canonical("k." + d.quote(c.sink().name()), c.sink(), c.canon());
      differs.add(d instanceof MariaDbDialect ? "NOT (" + a + " <=> " + b + ")" : a + " IS DISTINCT FROM " + b);
      shown.add(a + ", " + b);
    }
    if (!differs.isEmpty()) {
      steps.add(new Explained("column mismatches (rows on both sides whose columns differ)",
          "SELECT " + sourceKeys + ", " + String.join(", ", shown) + " FROM " + src + " JOIN " + snk + " ON " + on
              + " WHERE " + String.join(" OR ", differs) + ";"));
    }
    return steps;
  }
}
