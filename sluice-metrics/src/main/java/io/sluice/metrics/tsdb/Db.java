package io.sluice.metrics.tsdb;

import io.sluice.metrics.model.Labels;
import io.sluice.metrics.model.Matcher;
import io.sluice.metrics.model.StaleNaN;
import io.sluice.metrics.storage.Appender;
import io.sluice.metrics.storage.Querier;
import io.sluice.metrics.storage.SampleBudget;
import io.sluice.metrics.storage.SeriesData;
import io.sluice.metrics.storage.Storage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The time-series database: a {@link Head} for recent data, a {@link Wal} that makes the head survive a crash, and
 * immutable {@link Block}s on disk, each covering one block range (2 h by default). When the head spans more than
 * 1.5 block ranges, its oldest complete range is written as a block and dropped from memory, so memory follows the
 * number of active series rather than retention. Blocks older than the retention (measured from the newest sample,
 * as Prometheus does) are deleted.
 *
 * <p>Without a directory the store is purely in memory and keeps everything in the head (tests, benchmarks).
 */
public final class Db implements Storage {
  private static final Logger log = LoggerFactory.getLogger(Db.class);

  private final Path dir;
  private final long retentionMillis;
  private final long blockRange;
  private final Head head;
  private final Wal wal;
  private final CopyOnWriteArrayList<Block> blocks = new CopyOnWriteArrayList<>();
  private final Object commitLock = new Object();
  private volatile long outOfOrder;

  private Db(Path dir, Duration retention, Duration blockRange) {
    this.dir = dir;
    this.retentionMillis = retention.toMillis();
    this.blockRange = blockRange.toMillis();
    this.head = new Head(this.blockRange);
    if (dir == null) {
      this.wal = null;
      return;
    }
    try {
      Files.createDirectories(dir);
      deleteLeftoverTemporaries();
      for (Path p : Block.list(dir)) {
        blocks.add(Block.open(p));
      }
      this.wal = new Wal(dir.resolve("wal"));
      replayWal();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open metrics store in " + dir, e);
    }
  }

  /** A persistent store in {@code dir}. */
  public static Db open(Path dir, Duration retention) {
    return new Db(dir, retention, Duration.ofHours(2));
  }

  public static Db open(Path dir, Duration retention, Duration blockRange) {
    return new Db(dir, retention, blockRange);
  }

  /** A store that lives in memory only. */
  public static Db inMemory() {
    return new Db(null, Duration.ofDays(15), Duration.ofHours(2));
  }

  private void deleteLeftoverTemporaries() throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      for (Path p : s.filter(p -> p.getFileName().toString().endsWith(".tmp")).toList()) {
        deleteRecursively(p);
      }
    }
  }

  private void replayWal() throws IOException {
    long[] samples = {0};
    wal.replay(new Wal.Visitor() {
      @Override
      public void series(long ref, Labels labels) {
        head.create(ref, labels, null);
      }

      @Override
      public void sample(long ref, long t, double v) {
        MemSeries s = head.byRef(ref);
        if (s != null && s.append(t, v)) {
          head.observe(t);
          head.observeMin(t);
          samples[0]++;
        }
      }

      @Override
      public void chunk(long ref, ChunkMeta chunk) {
        MemSeries s = head.byRef(ref);
        if (s != null) {
          s.addClosedChunk(chunk);
          head.observe(chunk.maxt());
          head.observeMin(chunk.mint());
        }
      }
    });
    // Series replayed without data (all of it already in blocks) would only take memory.
    for (MemSeries s : new ArrayList<>(head.all())) {
      if (s.isEmpty()) {
        head.remove(s);
      }
    }
    log.info("metrics store: replayed WAL, {} series, {} samples", head.numSeries(), samples[0]);
  }

  @Override
  public Appender appender() {
    return new DbAppender();
  }

  private final class DbAppender implements Appender {
    private Labels[] labels = new Labels[64];
    private long[] ts = new long[64];
    private double[] vs = new double[64];
    private int n;

    @Override
    public void append(Labels l, long t, double v) {
      if (n == ts.length) {
        labels = Arrays.copyOf(labels, n * 2);
        ts = Arrays.copyOf(ts, n * 2);
        vs = Arrays.copyOf(vs, n * 2);
      }
      labels[n] = l;
      ts[n] = t;
      vs[n] = v;
      n++;
    }

    @Override
    public void commit() {
      if (n == 0) {
        return;
      }
      long[] refs = new long[n];
      synchronized (commitLock) {
        boolean[] created = new boolean[1];
        MemSeries[] series = new MemSeries[n];
        for (int i = 0; i < n; i++) {
          created[0] = false;
          MemSeries s = head.getOrCreate(labels[i], created);
          if (created[0] && wal != null) {
            wal.logSeries(s.ref, s.labels);
          }
          series[i] = s;
          refs[i] = s.ref;
        }
        if (wal != null) {
          wal.logSamples(refs, ts, vs, n);
          wal.commit();
        }
        long max = Long.MIN_VALUE;
        long min = Long.MAX_VALUE;
        for (int i = 0; i < n; i++) {
          if (series[i].append(ts[i], vs[i])) {
            max = Math.max(max, ts[i]);
            min = Math.min(min, ts[i]);
          } else {
            outOfOrder++;
          }
        }
        head.observe(max);
        head.observeMin(min);
      }
      n = 0;
      maybeCompact();
    }

    @Override
    public void rollback() {
      n = 0;
    }
  }

  /**
   * Ends, with a stale marker at {@code now}, every series with a sample within {@code lookback} before it that no
   * stale marker ended: what the run before this one left open when it did not stop cleanly (killed -9; a clean stop
   * ends its targets' series itself). Until its lookback ran out, a query would still see such a series' last value,
   * a target that died with that run, or a task that moved to another node meanwhile, as if it were there now; a
   * series that goes on starts again at its next scrape. Returns how many series it ended.
   */
  public int endOpenSeries(long now, Duration lookback) {
    Appender app = appender();
    int ended = 0;
    for (MemSeries s : head.all()) {
      if (s.openSince(now - lookback.toMillis()) && s.lastTimestamp() < now) {
        app.append(s.labels, now, StaleNaN.VALUE);
        ended++;
      }
    }
    app.commit();
    return ended;
  }

  /** Samples rejected because they were not newer than their series' last sample. */
  public long outOfOrderSamples() {
    return outOfOrder;
  }

  private void maybeCompact() {
    if (dir == null) {
      // In memory there is nowhere to move old data to: everything stays in the head.
      return;
    }
    long maxT = head.maxTime();
    long minT = head.minTimeBound();
    if (maxT == Long.MIN_VALUE || minT == Long.MAX_VALUE || maxT - minT <= blockRange * 3 / 2) {
      return;
    }
    compact();
  }

  /** Persists every complete block range of the head that is older than half a range before the newest sample. */
  public void compact() {
    synchronized (commitLock) {
      while (true) {
        long minT = head.minTime();
        long maxT = head.maxTime();
        if (minT == Long.MAX_VALUE || maxT - minT <= blockRange * 3 / 2) {
          break;
        }
        long start = Math.floorDiv(minT, blockRange) * blockRange;
        long end = start + blockRange;
        Map<Labels, List<ChunkMeta>> data = new HashMap<>();
        for (MemSeries s : head.all()) {
          List<ChunkMeta> cut = s.cutBefore(end);
          if (!cut.isEmpty()) {
            data.put(s.labels, cut);
          }
        }
        if (dir != null && !data.isEmpty()) {
          try {
            blocks.add(Block.write(dir, start, end - 1, data));
          } catch (IOException e) {
            throw new UncheckedIOException("cannot write block " + start + "-" + (end - 1), e);
          }
        }
        for (MemSeries s : new ArrayList<>(head.all())) {
          if (s.isEmpty()) {
            head.remove(s);
          }
        }
        if (data.isEmpty() && head.minTime() == minT) {
          // Nothing movable (chunks replayed from a WAL written with another block range): stop rather than spin.
          break;
        }
      }
      head.minTime();
      if (wal != null) {
        checkpoint();
      }
      applyRetention();
    }
  }

  /** Rewrites the head into a fresh WAL segment and drops the older segments, whose data now lives in blocks. */
  private void checkpoint() {
    int keepFrom = wal.cut();
    for (MemSeries s : head.all()) {
      wal.logSeries(s.ref, s.labels);
      List<ChunkMeta> closed = new ArrayList<>();
      List<long[]> ts = new ArrayList<>();
      List<double[]> vs = new ArrayList<>();
      s.snapshot(closed, ts, vs);
      for (ChunkMeta c : closed) {
        wal.logChunk(s.ref, c);
      }
      for (int i = 0; i < ts.size(); i++) {
        long[] refs = new long[ts.get(i).length];
        Arrays.fill(refs, s.ref);
        wal.logSamples(refs, ts.get(i), vs.get(i), refs.length);
      }
    }
    wal.commit();
    wal.truncateBefore(keepFrom);
  }

  private void applyRetention() {
    long maxT = head.maxTime();
    for (Block b : blocks) {
      if (maxT - b.maxt > retentionMillis) {
        blocks.remove(b);
        b.close();
        try {
          deleteRecursively(b.dir);
        } catch (IOException e) {
          log.warn("cannot delete expired block {}", b.dir, e);
        }
      }
    }
  }

  private static void deleteRecursively(Path p) throws IOException {
    try (Stream<Path> s = Files.walk(p)) {
      for (Path q : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(q);
      }
    }
  }

  @Override
  public Querier querier(long mint, long maxt) {
    return new DbQuerier(mint, maxt);
  }

  private final class DbQuerier implements Querier {
    private final long mint;
    private final long maxt;

    DbQuerier(long mint, long maxt) {
      this.mint = mint;
      this.maxt = maxt;
    }

    /**
     * The chunks of the matching series that overlap the window. Chunks wholly inside it are charged now, before
     * blocks copy them; those across its edges (at most two a series) are charged as they are decoded.
     */
    private Map<Labels, List<ChunkMeta>> collect(List<Matcher> matchers, SampleBudget budget) {
      Map<Labels, List<ChunkMeta>> out = new TreeMap<>();
      for (Block b : blocks) {
        if (b.maxt >= mint && b.mint <= maxt) {
          b.select(matchers, mint, maxt, out, budget);
        }
      }
      List<ChunkMeta> own = new ArrayList<>();
      for (MemSeries s : head.select(matchers)) {
        own.clear();
        s.chunks(mint, maxt, own);
        for (ChunkMeta c : own) {
          if (inside(c)) {
            budget.charge(XorChunk.Reader.count(c.data()));
          }
        }
        if (!own.isEmpty()) {
          out.computeIfAbsent(s.labels, k -> new ArrayList<>()).addAll(own);
        }
      }
      return out;
    }

    private boolean inside(ChunkMeta c) {
      return c.mint() >= mint && c.maxt() <= maxt;
    }

    @Override
    public List<SeriesData> select(List<Matcher> matchers, SampleBudget budget) {
      Map<Labels, List<ChunkMeta>> found = collect(matchers, budget);
      List<SeriesData> out = new ArrayList<>(found.size());
      for (Map.Entry<Labels, List<ChunkMeta>> e : found.entrySet()) {
        List<ChunkMeta> cs = e.getValue();
        int cap = 0;
        for (ChunkMeta c : cs) {
          cap += XorChunk.Reader.count(c.data());
        }
        long[] ts = new long[cap];
        double[] vs = new double[cap];
        int n = 0;
        long last = Long.MIN_VALUE;
        for (ChunkMeta c : cs) {
          int from = n;
          XorChunk.Reader r = new XorChunk.Reader(c.data());
          while (r.next()) {
            long t = r.t();
            if (t < mint || t > maxt || t <= last) {
              continue;
            }
            ts[n] = t;
            vs[n] = r.v();
            last = t;
            n++;
          }
          if (!inside(c)) {
            budget.charge(n - from);
          }
        }
        if (n == 0) {
          continue;
        }
        out.add(new SeriesData(e.getKey(), n == cap ? ts : Arrays.copyOf(ts, n), n == cap ? vs : Arrays.copyOf(vs, n)));
      }
      return out;
    }

    @Override
    public List<Labels> series(List<Matcher> matchers) {
      TreeSet<Labels> out = new TreeSet<>();
      for (Block b : blocks) {
        if (b.maxt >= mint && b.mint <= maxt) {
          b.series(matchers, mint, maxt, out);
        }
      }
      for (MemSeries s : head.select(matchers)) {
        if (s.overlaps(mint, maxt)) {
          out.add(s.labels);
        }
      }
      return new ArrayList<>(out);
    }

    @Override
    public List<String> labelNames(List<Matcher> matchers) {
      TreeSet<String> names = new TreeSet<>();
      for (Labels l : series(matchers)) {
        l.forEach((n, v) -> names.add(n));
      }
      return new ArrayList<>(names);
    }

    @Override
    public List<String> labelValues(String name, List<Matcher> matchers) {
      TreeSet<String> values = new TreeSet<>();
      for (Labels l : series(matchers)) {
        String v = l.get(name);
        if (!v.isEmpty()) {
          values.add(v);
        }
      }
      return new ArrayList<>(values);
    }
  }

  /** Statistics for benchmarks and the status page. */
  public record Stats(int headSeries, int blocks, long blockBytes, long blockSamples, long headBytes) {}

  public Stats stats() {
    long hb = 0;
    for (MemSeries s : head.all()) {
      hb += s.sizeBytes();
    }
    long bb = 0;
    long bs = 0;
    for (Block b : blocks) {
      bb += b.bytes();
      bs += b.samples();
    }
    return new Stats(head.numSeries(), blocks.size(), bb, bs, hb);
  }

  @Override
  public void close() {
    synchronized (commitLock) {
      if (wal != null) {
        wal.close();
      }
      for (Block b : blocks) {
        b.close();
      }
    }
  }
}
