package io.sluice.app.reconcile;

import io.sluice.ops.reconcile.ReconcileReport;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** A reconciliation report for people: the verdict, the counts, then examples of each difference. */
final class ReportTable {
  private ReportTable() {}

  static void print(ReconcileReport r, boolean verbose, PrintWriter out) {
    out.printf(Locale.ROOT, "%s (%s) -> %s (%s): %s%n", r.sourceTable(), r.sourceEngine(), r.sinkTable(),
        r.sinkEngine(), r.equal() ? "EQUAL" : "DIFFERENT");
    out.printf(Locale.ROOT, "  %-10s %,15d source  %,15d sink%n", "rows", r.sourceRows(), r.sinkRows());
    out.printf(Locale.ROOT, "  %-10s %15s source  %15s sink%n", "checksum", r.sourceChecksum(), r.sinkChecksum());
    out.printf(Locale.ROOT, "  %-10s %,15d  (in source, not in sink)%n", "missing", r.missing());
    out.printf(Locale.ROOT, "  %-10s %,15d  (in sink, not in source)%n", "extra", r.extra());
    out.printf(Locale.ROOT, "  %-10s %,15d  (same key, columns differ)%n", "changed", r.changed());
    if (r.settled() > 0) {
      out.printf(Locale.ROOT, "  %-10s %,15d  (differed at first, agreed after the lag window)%n", "settled", r.settled());
    }
    out.printf(Locale.ROOT, "  key %s; columns %s%n", r.key(), r.columns());
    r.casts().forEach(c -> out.println("  cast: " + c));
    r.skipped().forEach(c -> out.println("  not compared: " + c));
    examples(out, "missing rows", r.missingExamples(), r.missing());
    examples(out, "extra rows", r.extraExamples(), r.extra());
    if (!r.mismatchExamples().isEmpty()) {
      out.println("  changed rows" + shown(r.mismatchExamples().size(), r.changed()) + ":");
      for (ReconcileReport.Mismatch m : r.mismatchExamples()) {
        out.println("    " + key(m.key()));
        for (ReconcileReport.ColumnDifference d : m.columns()) {
          out.println("      " + d.column() + ": " + value(d.source()) + " (source)  " + value(d.sink()) + " (sink)");
        }
      }
    }
    if (verbose) {
      out.println("  segments:");
      for (ReconcileReport.SegmentChecksum s : r.segments()) {
        out.printf(Locale.ROOT, "    %-40s %,10d %s  %,10d %s%s%n", s.segment(), s.sourceRows(), s.sourceChecksum(),
            s.sinkRows(), s.sinkChecksum(), s.equal() ? "" : "  DIFFERENT");
      }
      ReconcileReport.Stats st = r.stats();
      out.printf(Locale.ROOT, "  %d queries, %d segments read row by row (%,d rows), %.1f s%n", st.queries(),
          st.segmentsCompared(), st.rowsFetched(), st.elapsedMillis() / 1000.0);
    }
  }

  private static void examples(PrintWriter out, String title, List<Map<String, String>> keys, long total) {
    if (keys.isEmpty()) {
      return;
    }
    out.println("  " + title + shown(keys.size(), total) + ":");
    keys.forEach(k -> out.println("    " + key(k)));
  }

  private static String shown(int shown, long total) {
    return shown < total ? " (first " + shown + " of " + String.format(Locale.ROOT, "%,d", total) + ")" : "";
  }

  private static String key(Map<String, String> key) {
    return key.entrySet().stream().map(e -> e.getKey() + "=" + value(e.getValue())).collect(Collectors.joining(" "));
  }

  private static String value(String v) {
    return v == null ? "NULL" : "'" + v.replace("'", "''") + "'";
  }
}
