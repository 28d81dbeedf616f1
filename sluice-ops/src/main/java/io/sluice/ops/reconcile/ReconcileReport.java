package io.sluice.ops.reconcile;

import java.util.List;
import java.util.Map;

/**
 * What a reconciliation found for one table pair. Counts are exact; examples are limited to {@code limitRows} of
 * each kind. Checksums are the order-independent table checksums (sum of the first 64 bits of the MD5 of each
 * row's canonical text, modulo 2^64, in hexadecimal): equal tables have equal checksums.
 *
 * @param checksumMethod how rows were hashed (the portable MD5 of canonical text, or an engine's native hash when
 *     both sides are the same engine with identical column types)
 * @param casts precision casts applied so that a coarser side does not cause false mismatches
 * @param skipped columns left out of the comparison and why
 * @param settled rows that differed at first but agreed when re-checked after the lag window
 * @param segments per-segment checksums of the first pass (only when verbose)
 */
public record ReconcileReport(
    String sourceTable, String sinkTable, String sourceEngine, String sinkEngine,
    List<String> key, List<String> columns,
    long sourceRows, long sinkRows, long missing, long extra, long changed,
    String sourceChecksum, String sinkChecksum,
    List<Map<String, String>> missingExamples, List<Map<String, String>> extraExamples,
    List<Mismatch> mismatchExamples,
    String checksumMethod, List<String> casts, List<String> skipped, long settled,
    List<SegmentChecksum> segments, Stats stats) {

  /** True when both tables hold the same rows. */
  public boolean equal() {
    return missing == 0 && extra == 0 && changed == 0 && sourceRows == sinkRows;
  }

  /** A row present on both sides whose columns differ: its key and each differing column. */
  public record Mismatch(Map<String, String> key, List<ColumnDifference> columns) {}

  /** One differing column, with both sides' canonical values (null for SQL NULL). */
  public record ColumnDifference(String column, String source, String sink) {}

  /** The count and checksum of one segment on both sides. */
  public record SegmentChecksum(String segment, long sourceRows, long sinkRows, String sourceChecksum,
      String sinkChecksum) {
    public boolean equal() {
      return sourceRows == sinkRows && sourceChecksum.equals(sinkChecksum);
    }
  }

  /**
   * How much work it took: grouped checksum queries, segments compared row by row, and rows read into memory (the
   * rest was compared by checksum inside the databases).
   */
  public record Stats(int queries, long segmentsCompared, long rowsFetched, long elapsedMillis) {}
}
