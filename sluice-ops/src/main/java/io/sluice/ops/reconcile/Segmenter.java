package io.sluice.ops.reconcile;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Splits a table into segments whose count and checksum each database computes in one grouped scan.
 *
 * <p>An integer key is cut into key ranges ({@code (key - from) / width}), read in chunks through the primary-key
 * index so progress can be shown and differing ranges re-read cheaply. Any other key (text, UUID, composite) is cut
 * into buckets of the MD5 of its canonical text: both engines compute the same bucket for the same key, and no
 * collation is involved anywhere, which ordering text keys by range could not promise across engines. A segment too
 * large to compare in memory is split again ({@link #split}) with a finer range width or modulus.
 */
final class Segmenter {
  /** How many child segments a segment too large for memory is split into. */
  static final int FANOUT = 64;
  private static final long MAX_MODULUS = 1L << 32;

  /** A set of segments computed by one grouped query per side. */
  sealed interface Pass permits RangePass, BucketPass {}

  /**
   * Segments {@code [origin + i*width, origin + (i+1)*width)} of the keys within {@code ranges} (each
   * {@code [from, to)}; none: the whole table). Widths are powers of two, so the segments of every level line up and the finer segments of
   * many differing ranges can be computed by one query.
   */
  record RangePass(long origin, long width, List<long[]> ranges) implements Pass {}

  /** Segments {@code hash mod modulus}, limited to the keys whose {@code hash mod parentModulus} is in parents. */
  record BucketPass(long modulus, long parentModulus, List<Long> parents) implements Pass {}

  private final int segmentRows;
  private final int bucketRows;
  private final int maxSegments;

  Segmenter(int segmentRows, int bucketRows, int maxSegments) {
    this.segmentRows = segmentRows;
    this.bucketRows = bucketRows;
    this.maxSegments = maxSegments;
  }

  /** The first pass, over the whole table: key ranges when {@code keyBounds} are known, else hash buckets. */
  Pass top(long estimatedRows, long[] keyBounds) {
    long rows = Math.max(estimatedRows, 1);
    if (keyBounds == null) {
      // Bucket segments are not read through an index: smaller ones keep the rows read for differing ones few.
      return new BucketPass(Math.max(1, Math.min(maxSegments, ceilDiv(rows, bucketRows))), 1, List.of());
    }
    long from = keyBounds[0];
    long to = Math.max(keyBounds[1], from + 1);
    long segments = Math.max(1, Math.min(maxSegments, ceilDiv(rows, segmentRows)));
    long wanted = ceilDiv(to - from, segments);
    // Rounded down to a power of two: up to twice the segments wanted, still bounded by twice maxSegments.
    long width = Long.highestOneBit(Math.max(1, wanted));
    return new RangePass(from, width, List.of());
  }

  /** A finer pass over segment {@code id} of {@code pass}, or null when it cannot be split further. */
  static Pass split(Pass pass, long id) {
    if (pass instanceof RangePass r) {
      if (r.width() <= 1) {
        return null;
      }
      long from = r.origin() + id * r.width();
      long to = from > Long.MAX_VALUE - r.width() ? Long.MAX_VALUE : from + r.width();
      return new RangePass(r.origin(), Math.max(1, r.width() / FANOUT), List.of(new long[] {from, to}));
    }
    BucketPass b = (BucketPass) pass;
    return b.modulus() * FANOUT > MAX_MODULUS ? null : new BucketPass(b.modulus() * FANOUT, b.modulus(), List.of(id));
  }

  /** Joins finer passes of the same level into one, so one query per side serves them all. */
  static List<Pass> merge(List<Pass> passes) {
    java.util.Map<String, List<Pass>> levels = new java.util.LinkedHashMap<>();
    for (Pass p : passes) {
      String level = p instanceof RangePass r ? "r" + r.origin() + "/" + r.width() : "b" + ((BucketPass) p).modulus();
      levels.computeIfAbsent(level, k -> new ArrayList<>()).add(p);
    }
    List<Pass> merged = new ArrayList<>();
    for (List<Pass> same : levels.values()) {
      // Bounded so that the OR list (ranges) or IN list (buckets) stays a reasonable statement.
      for (int i = 0; i < same.size(); i += 256) {
        List<Pass> part = same.subList(i, Math.min(same.size(), i + 256));
        if (part.get(0) instanceof RangePass r) {
          List<long[]> ranges = new ArrayList<>();
          part.forEach(p -> ranges.addAll(((RangePass) p).ranges()));
          merged.add(new RangePass(r.origin(), r.width(), ranges));
        } else {
          BucketPass b = (BucketPass) part.get(0);
          List<Long> parents = new ArrayList<>();
          part.forEach(p -> parents.addAll(((BucketPass) p).parents()));
          merged.add(new BucketPass(b.modulus(), b.parentModulus(), parents));
        }
      }
    }
    return merged;
  }

  /** Whether a differing segment of {@code rows} rows is split again rather than read row by row. */
  static boolean worthSplitting(Pass pass, long rows, int leafRows, int maxRowsInMemory) {
    // Range segments split cheaply (an index range per query); bucket segments cost a scan, so only for memory.
    return pass instanceof RangePass ? rows > leafRows : rows > maxRowsInMemory;
  }

  /** SQL for the segment id of a row in {@code pass}. */
  static String segmentOf(Side side, Pass pass) {
    if (pass instanceof RangePass r) {
      return side.dialect.divide(side.integerKey() + " - (" + r.origin() + ")", r.width());
    }
    return side.dialect.modulo(side.keyHash32(), ((BucketPass) pass).modulus());
  }

  /** SQL restricting rows to {@code pass}, or null for the whole table. */
  static String scope(Side side, Pass pass) {
    if (pass instanceof RangePass r) {
      if (r.ranges().isEmpty()) {
        return null;
      }
      return r.ranges().stream().map(x -> range(side, x[0], x[1])).collect(Collectors.joining(" OR "));
    }
    BucketPass b = (BucketPass) pass;
    if (b.parents().isEmpty()) {
      return null;
    }
    return side.dialect.modulo(side.keyHash32(), b.parentModulus()) + " IN ("
        + b.parents().stream().map(String::valueOf).collect(Collectors.joining(", ")) + ")";
  }

  /**
   * SQL restricting rows to some segments of {@code pass}; with many segments the pass's own scope (the caller
   * skips the others), because a long OR list costs the database more than reading past rows.
   */
  static String scope(Side side, Pass pass, List<Long> ids) {
    if (ids.size() > 256) {
      return scope(side, pass);
    }
    if (pass instanceof RangePass r) {
      return ids.stream().map(id -> range(side, r.origin() + id * r.width(), end(r.origin() + id * r.width(), r.width())))
          .collect(Collectors.joining(" OR "));
    }
    return segmentOf(side, pass) + " IN (" + ids.stream().map(String::valueOf).collect(Collectors.joining(", ")) + ")";
  }

  /** SQL ordering rows by segment: the raw key for ranges (index order, same segment order), the bucket otherwise. */
  static String order(Side side, Pass pass) {
    return pass instanceof RangePass ? side.dialect.table(side.table) + "." + side.integerKey() : "1";
  }

  private static String range(Side side, long from, long to) {
    return side.integerKey() + " >= " + from + " AND " + side.integerKey() + " < " + to;
  }

  /** A segment as text for reports. */
  static String describe(Pass pass, long id) {
    if (pass instanceof RangePass r) {
      long from = r.origin() + id * r.width();
      return "key [" + from + ", " + end(from, r.width()) + ")";
    }
    return "md5(key) mod " + ((BucketPass) pass).modulus() + " = " + id;
  }

  private static long end(long from, long width) {
    return from > Long.MAX_VALUE - width ? Long.MAX_VALUE : from + width;
  }

  static long ceilDiv(long a, long b) {
    return -Math.floorDiv(-a, b);
  }
}
