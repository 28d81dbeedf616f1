package io.sluice.ops.reconcile;

import io.sluice.ops.progress.Progress;
import io.sluice.ops.reconcile.ReconcileReport.SegmentChecksum;
import io.sluice.ops.reconcile.Segmenter.Pass;
import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Checksum bisection. Each pass asks both databases, in parallel, for the row count and checksum of every segment;
 * segments that agree are done, segments that differ are split again while too large for memory, and the small
 * differing ones are read row by row and compared. Memory holds one pass's segment sums and one segment's rows.
 */
final class Differ {
  private final Side source;
  private final Side sink;
  private final ExecutorService pool;
  private final int maxRowsInMemory;
  private final int leafRows;
  private final Progress progress;
  private final boolean verbose;

  long sourceRows;
  long sinkRows;
  long sourceSum;
  long sinkSum;
  long segmentsCompared;
  long rowsFetched;
  final List<SegmentChecksum> segments = new ArrayList<>();
  /** The differing segments compared row by row, for a re-check after the lag window. */
  final List<Leaves> differing = new ArrayList<>();

  /** Segments of one pass that are compared row by row. */
  record Leaves(Pass pass, List<Long> ids) {}

  /** Count and checksum of one segment on one side. */
  private record Sums(long id, long count, long sum) {}

  Differ(Side source, Side sink, ExecutorService pool, int leafRows, int maxRowsInMemory, Progress progress,
      boolean verbose) {
    this.source = source;
    this.sink = sink;
    this.pool = pool;
    this.leafRows = leafRows;
    this.maxRowsInMemory = maxRowsInMemory;
    this.progress = progress;
    this.verbose = verbose;
  }

  /**
   * Bisects from {@code top}, the pass over the whole table, which each side reads in {@code chunks} (its own
   * pieces of the table, see {@link Dialect#chunks}) so that progress can be reported while it runs.
   */
  void run(Pass top, long estimatedRows, int chunks, long[] keyBounds, Findings findings) {
    long total = Math.max(1, estimatedRows);
    progress.update(0, total);
    AtomicInteger finished = new AtomicInteger();
    List<List<Sums>> both = onBoth(side -> {
      // One snapshot for all chunks, so a row updated meanwhile is neither counted twice nor missed.
      List<String> scopes = side.dialect.chunks(side, chunks, keyBounds);
      Map<Long, long[]> acc = new HashMap<>();
      for (String chunk : scopes) {
        for (Sums s : sums(side, top, chunk)) {
          long[] a = acc.computeIfAbsent(s.id(), k -> new long[2]);
          a[0] += s.count();
          a[1] += s.sum();
        }
        int done = finished.addAndGet(scopes.size() == chunks ? 1 : Math.max(1, chunks / scopes.size()));
        synchronized (progress) {
          progress.update(Math.min(total, total * done / (2L * chunks)), total);
        }
      }
      side.endTransaction();
      List<Sums> out = new ArrayList<>(acc.size());
      acc.forEach((id, a) -> out.add(new Sums(id, a[0], a[1])));
      out.sort(java.util.Comparator.comparingLong(Sums::id));
      return out;
    });
    Deque<Pass> finer = new ArrayDeque<>();
    long covered = bisect(top, both, true, finer, findings);
    progress.update(covered, Math.max(covered, 1));
    while (!finer.isEmpty()) {
      List<Pass> batch = new ArrayList<>(finer);
      finer.clear();
      for (Pass pass : Segmenter.merge(batch)) {
        List<List<Sums>> sums = onBoth(side -> {
          List<Sums> out = sums(side, pass, null);
          side.endTransaction();
          return out;
        });
        bisect(pass, sums, false, finer, findings);
      }
    }
  }

  /** Compares one pass's sums, queues finer passes, compares small differing segments; returns rows covered. */
  private long bisect(Pass pass, List<List<Sums>> both, boolean top, Deque<Pass> finer, Findings findings) {
    List<Sums> a = both.get(0);
    List<Sums> b = both.get(1);
    List<Long> leaves = new ArrayList<>();
    long covered = 0;
    int i = 0;
    int j = 0;
    while (i < a.size() || j < b.size()) {
      long ida = i < a.size() ? a.get(i).id() : Long.MAX_VALUE;
      long idb = j < b.size() ? b.get(j).id() : Long.MAX_VALUE;
      long id = Math.min(ida, idb);
      Sums sa = ida == id ? a.get(i++) : new Sums(id, 0, 0);
      Sums sb = idb == id ? b.get(j++) : new Sums(id, 0, 0);
      covered += Math.max(sa.count(), sb.count());
      if (top) {
        sourceRows += sa.count();
        sinkRows += sb.count();
        sourceSum += sa.sum();
        sinkSum += sb.sum();
        if (verbose) {
          segments.add(new SegmentChecksum(Segmenter.describe(pass, id), sa.count(), sb.count(), hex(sa.sum()), hex(sb.sum())));
        }
      }
      if (sa.count() == sb.count() && sa.sum() == sb.sum()) {
        continue;
      }
      long rows = Math.max(sa.count(), sb.count());
      Pass split = Segmenter.worthSplitting(pass, rows, leafRows, maxRowsInMemory) ? Segmenter.split(pass, id) : null;
      if (split != null) {
        finer.add(split);
      } else {
        leaves.add(id);
      }
    }
    if (!leaves.isEmpty()) {
      Leaves l = new Leaves(pass, List.copyOf(leaves));
      differing.add(l);
      compareRows(differing.size() - 1, l, findings);
    }
    return covered;
  }

  /**
   * Reads the rows of some segments of a pass on both sides, segment by segment in step, and compares them;
   * {@code no} is the place of {@code leaves} in {@link #differing}.
   */
  void compareRows(int no, Leaves leaves, Findings findings) {
    Set<Long> wanted = new HashSet<>(leaves.ids());
    List<RowCursor> cursors = onBoth(side -> new RowCursor(side, rowsQuery(side, leaves)));
    RowCursor a = cursors.get(0);
    RowCursor b = cursors.get(1);
    try {
      while (a.hasRow() || b.hasRow()) {
        long id = Math.min(a.hasRow() ? a.segment() : Long.MAX_VALUE, b.hasRow() ? b.segment() : Long.MAX_VALUE);
        boolean keep = wanted.contains(id);
        Map<String, Findings.Row> rowsA = a.take(id, keep);
        Map<String, Findings.Row> rowsB = b.take(id, keep);
        if (keep) {
          segmentsCompared++;
          rowsFetched += rowsA.size() + rowsB.size();
          findings.segment(no, id);
          findings.compare(rowsA, rowsB);
        }
      }
    } finally {
      a.close();
      b.close();
    }
  }

  private String rowsQuery(Side side, Leaves leaves) {
    // Aliases, because PostgreSQL names "id"::text "id", and ORDER BY "id" would then sort the text.
    List<String> columns = new ArrayList<>();
    columns.add(Segmenter.segmentOf(side, leaves.pass()) + " AS seg");
    List<String> keys = side.canonicalKeys();
    for (int i = 0; i < keys.size(); i++) {
      columns.add(keys.get(i) + " AS k" + i);
    }
    List<String> values = side.canonicalValues();
    for (int i = 0; i < values.size(); i++) {
      columns.add(values.get(i) + " AS v" + i);
    }
    return "SELECT " + String.join(", ", columns) + side.from()
        + side.where(Segmenter.scope(side, leaves.pass(), leaves.ids()))
        + " ORDER BY " + Segmenter.order(side, leaves.pass());
  }

  private static List<Sums> sums(Side side, Pass pass, String chunk) {
    // Not ORDER BY: the database may then aggregate by hashing; the few thousand sums are sorted here.
    String scope = Segmenter.scope(side, pass);
    if (chunk != null) {
      scope = scope == null ? chunk : "(" + scope + ") AND (" + chunk + ")";
    }
    String sql = side.dialect.segmentSums(Segmenter.segmentOf(side, pass), side.rowHash(),
        side.from() + side.where(scope));
    return side.query(sql, rs -> {
      List<Sums> out = new ArrayList<>();
      try {
        while (rs.next()) {
          out.add(new Sums(rs.getLong(1), rs.getLong(2), wrap(rs.getBigDecimal(3))));
        }
      } catch (SQLException e) {
        throw new ReconcileException(side.role + ": " + e.getMessage(), e);
      }
      out.sort(java.util.Comparator.comparingLong(Sums::id));
      return out;
    });
  }

  /** The SQL sum of checksums modulo 2^64 (PostgreSQL sums signed values, MariaDB unsigned: equal modulo 2^64). */
  static long wrap(BigDecimal sum) {
    return sum == null ? 0 : sum.toBigInteger().longValue();
  }

  static String hex(long checksum) {
    return String.format("%016x", checksum);
  }

  /** Runs {@code work} on both sides in parallel; source first in the result, either of them possibly null. */
  <T> List<T> onBoth(Function<Side, T> work) {
    Future<T> onSource = pool.submit(() -> work.apply(source));
    T onSink = work.apply(sink);
    try {
      // Not List.of: an answer may be null (an empty table has no key bounds).
      return java.util.Arrays.asList(onSource.get(), onSink);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ReconcileException("interrupted", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new ReconcileException(e.getCause().getMessage(), e.getCause());
    }
  }

  /** A streamed, segment-ordered row query on one side. */
  private static final class RowCursor {
    private final Side side;
    private final Statement statement;
    private final ResultSet rs;
    private final int keys;
    private final int columns;
    private boolean has;

    RowCursor(Side side, String sql) {
      this.side = side;
      ResultSet[] out = new ResultSet[1];
      this.statement = side.open(sql, out);
      this.rs = out[0];
      this.keys = side.canonicalKeys().size();
      try {
        this.columns = rs.getMetaData().getColumnCount();
        has = rs.next();
      } catch (SQLException e) {
        throw new ReconcileException(side.role + ": " + e.getMessage(), e);
      }
    }

    boolean hasRow() {
      return has;
    }

    long segment() {
      try {
        return rs.getLong(1);
      } catch (SQLException e) {
        throw new ReconcileException(side.role + ": " + e.getMessage(), e);
      }
    }

    /** The rows of segment {@code id} (the cursor is on or before it), kept only when wanted. */
    Map<String, Findings.Row> take(long id, boolean keep) {
      Map<String, Findings.Row> rows = new HashMap<>();
      try {
        while (has && rs.getLong(1) == id) {
          if (keep) {
            List<String> key = new ArrayList<>(keys);
            for (int c = 2; c < 2 + keys; c++) {
              key.add(rs.getString(c));
            }
            List<String> values = new ArrayList<>(columns - 1 - keys);
            for (int c = 2 + keys; c <= columns; c++) {
              values.add(rs.getString(c));
            }
            rows.put(String.join("\u001f", key), new Findings.Row(key, values));
          }
          has = rs.next();
        }
      } catch (SQLException e) {
        throw new ReconcileException(side.role + ": " + e.getMessage(), e);
      }
      return rows;
    }

    void close() {
      try {
        statement.close();
      } catch (SQLException ignored) {
        // Closing a read-only statement; the transaction ends next.
      }
      side.endTransaction();
    }
  }
}
