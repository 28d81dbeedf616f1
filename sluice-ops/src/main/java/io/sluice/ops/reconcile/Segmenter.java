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

  /** Segments {@code [from + i*width, from + (i+1)*width)} within {@code [from, to)}. */
  record RangePass(long from, long to, long width) implements Pass {}

  /** Segments {@code hash mod modulus}, limited to the keys whose {@code hash mod parentModulus} is in parents. */
  record BucketPass(long modulus, long parentModulus, List<Long> parents) implements Pass {}

  private final int segmentRows;
  private final int maxSegments;

  Segmenter(int segmentRows, int maxSegments) {
    this.segmentRows = segmentRows;
    this.maxSegments = maxSegments;
  }

  /** The first passes over the whole table: one per chunk of ranges, or one bucket pass. */
  List<Pass> top(long estimatedRows, long[] keyBounds, long rowsPerChunk) {
    long segments = Math.max(1, Math.min(maxSegments, ceilDiv(Math.max(estimatedRows, 1), segmentRows)));
    if (keyBounds == null) {
      return List.of(new BucketPass(segments, 1, List.of()));
    }
    long from = keyBounds[0];
    long to = keyBounds[1];
    if (to <= from) {
      return List.of(new RangePass(from, from + 1, 1));
    }
    long width = Math.max(1, ceilDiv(to - from, segments));
    long chunks = Math.max(1, Math.min(64, ceilDiv(Math.max(estimatedRows, 1), rowsPerChunk)));
    long perChunk = Math.max(1, ceilDiv(ceilDiv(to - from, width), chunks)) * width;
    List<Pass> passes = new ArrayList<>();
    for (long start = from; start < to; start = start > to - perChunk ? to : start + perChunk) {
      passes.add(new RangePass(start, start > to - perChunk ? to : start + perChunk, width));
    }
    return passes;
  }

  /** A finer pass over segment {@code id} of {@code pass}, or null when it cannot be split further. */
  static Pass split(Pass pass, long id) {
    if (pass instanceof RangePass r) {
      long from = r.from() + id * r.width();
      long to = Math.min(r.to(), from + r.width());
      return r.width() <= 1 ? null : new RangePass(from, to, Math.max(1, ceilDiv(to - from, FANOUT)));
    }
    BucketPass b = (BucketPass) pass;
    return b.modulus() * FANOUT > MAX_MODULUS ? null : new BucketPass(b.modulus() * FANOUT, b.modulus(), List.of(id));
  }

  /** Joins finer passes made from the same bucket pass into one, so one scan serves them all. */
  static List<Pass> merge(List<Pass> passes) {
    List<Pass> merged = new ArrayList<>();
    List<Long> parents = new ArrayList<>();
    BucketPass template = null;
    for (Pass p : passes) {
      if (p instanceof BucketPass b) {
        template = b;
        parents.addAll(b.parents());
      } else {
        merged.add(p);
      }
    }
    if (template != null) {
      merged.add(new BucketPass(template.modulus(), template.parentModulus(), List.copyOf(parents)));
    }
    return merged;
  }

  /** SQL for the segment id of a row in {@code pass}. */
  static String segmentOf(Side side, Pass pass) {
    if (pass instanceof RangePass r) {
      return side.dialect.divide(side.integerKey() + " - (" + r.from() + ")", r.width());
    }
    return side.dialect.modulo(side.dialect.hash32(side.keyText()), ((BucketPass) pass).modulus());
  }

  /** SQL restricting rows to {@code pass}, or null for the whole table. */
  static String scope(Side side, Pass pass) {
    if (pass instanceof RangePass r) {
      return range(side, r.from(), r.to());
    }
    BucketPass b = (BucketPass) pass;
    if (b.parents().isEmpty()) {
      return null;
    }
    return side.dialect.modulo(side.dialect.hash32(side.keyText()), b.parentModulus()) + " IN ("
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
      return ids.stream().map(id -> range(side, r.from() + id * r.width(), Math.min(r.to(), r.from() + (id + 1) * r.width())))
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
      long from = r.from() + id * r.width();
      return "key [" + from + ", " + Math.min(r.to(), from + r.width()) + ")";
    }
    return "md5(key) mod " + ((BucketPass) pass).modulus() + " = " + id;
  }

  static long ceilDiv(long a, long b) {
    return -Math.floorDiv(-a, b);
  }
}
