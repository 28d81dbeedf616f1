package io.sluice.ops.reconcile;

import io.sluice.ops.progress.Progress;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.Executors;

/**
 * Proves that a source table and its sink table hold the same rows, or says exactly how they differ, reading both
 * databases only. PostgreSQL, MySQL and MariaDB on either side.
 *
 * <pre>{@code
 * ReconcileReport report = Reconciler.builder()
 *     .source("jdbc:postgresql://db1/app?user=ro&password=...")
 *     .sink("jdbc:mariadb://db2/app?user=ro&password=...")
 *     .table("public.orders", "orders")
 *     .lagWindow(Duration.ofSeconds(30))
 *     .build()
 *     .run();
 * }</pre>
 *
 * <p>Both databases compute a row count and an order-independent checksum per segment of the key space in one
 * grouped scan each; only differing segments are examined further (see {@link Differ}).
 */
public final class Reconciler {
  private final Builder b;

  private Reconciler(Builder b) {
    this.b = b;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Compares the tables; throws {@link ReconcileException} when they cannot be read. */
  public ReconcileReport run() {
    long started = System.nanoTime();
    ExecutorService pool = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "reconcile-source");
      t.setDaemon(true);
      return t;
    });
    dialect("source", b.sourceUrl);
    dialect("sink", b.sinkUrl);
    // Both connections are opened and read in parallel: on a busy server each round trip counts.
    Future<Side> opening = pool.submit(() -> open("source", b.sourceUrl, b.sourceProperties, b.sourceTable));
    Side sinkSide;
    try {
      sinkSide = open("sink", b.sinkUrl, b.sinkProperties, b.sinkTable);
    } catch (RuntimeException sinkFailure) {
      RuntimeException sourceFailure = closeWhenOpened(opening);
      pool.shutdownNow();
      if (sourceFailure != null) {
        ReconcileException both = new ReconcileException(sourceFailure.getMessage() + "; and "
            + sinkFailure.getMessage(), sinkFailure);
        both.addSuppressed(sourceFailure);
        throw both;
      }
      throw sinkFailure;
    }
    Side sourceSide;
    try {
      sourceSide = opening.get();
    } catch (InterruptedException | ExecutionException e) {
      sinkSide.close();
      pool.shutdownNow();
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new ReconcileException("cannot connect to the source: " + e.getMessage(), e);
    }
    try (Side source = sourceSide; Side sink = sinkSide) {
      Differ differ = new Differ(source, sink, pool, b.leafRows, b.maxRowsInMemory, b.progress, b.verbose);
      Comparison comparison = plan(source, sink, differ);
      long estimate = differ.onBoth(Reconciler::estimate).stream().mapToLong(Long::longValue).max().orElse(0);
      long[] bounds = comparison.integerKey() ? keyBounds(differ) : null;
      source.endTransaction();
      sink.endTransaction();
      Segmenter.Pass top = new Segmenter(b.segmentRows, b.bucketRows, b.maxSegments).top(estimate, bounds);
      int chunks = (int) Math.max(1, Math.min(64, Segmenter.ceilDiv(Math.max(1, estimate), b.rowsPerChunk)));
      List<String> keyNames = comparison.keys().stream().map(Comparison.Column::name).toList();
      List<String> valueNames = comparison.values().stream().map(Comparison.Column::name).toList();
      boolean recheck = !b.lagWindow.isZero();
      Findings findings;
      long settled = 0;
      try (DifferingKeys differed = recheck ? DifferingKeys.create() : null) {
        Findings first = new Findings(keyNames, valueNames, b.limitRows, differed, null);
        differ.run(top, estimate, chunks, bounds, first);
        Instant observed = b.clock.instant();
        findings = first;
        if (recheck && first.any()) {
          // A pipeline that is merely behind has applied these changes by the end of the window.
          sleepUntil(observed.plus(b.lagWindow));
          Findings again = new Findings(keyNames, valueNames, b.limitRows, null, differed);
          for (int i = 0; i < differ.differing.size(); i++) {
            differ.compareRows(i, differ.differing.get(i), again);
          }
          settled = (first.missing + first.extra + first.changed) - (again.missing + again.extra + again.changed);
          findings = again;
        }
      }
      b.progress.finish();
      return new ReconcileReport(source.table.toString(), sink.table.toString(), source.dialect.engine(),
          sink.dialect.engine(), keyNames, valueNames, differ.sourceRows, differ.sinkRows,
          findings.missing, findings.extra, findings.changed, Differ.hex(differ.sourceSum), Differ.hex(differ.sinkSum),
          List.copyOf(findings.missingExamples), List.copyOf(findings.extraExamples),
          List.copyOf(findings.mismatchExamples), comparison.checksumMethod(), comparison.casts(), comparison.skipped(),
          settled,
          List.copyOf(differ.segments),
          new ReconcileReport.Stats(source.queries() + sink.queries(), differ.segmentsCompared, differ.rowsFetched,
              (System.nanoTime() - started) / 1_000_000));
    } finally {
      b.progress.finish();
      pool.shutdownNow();
    }
  }

  /**
   * The plain SQL an operator could run by hand for the same checks, per side: row count, table checksum and, when
   * both tables are reachable from one connection, the anti-joins and the column-mismatch join.
   */
  public List<Explained> explain() {
    try (Side source = open("source", b.sourceUrl, b.sourceProperties, b.sourceTable);
         Side sink = open("sink", b.sinkUrl, b.sinkProperties, b.sinkTable)) {
      ExecutorService pool = Executors.newSingleThreadExecutor();
      try {
        Differ differ = new Differ(source, sink, pool, b.leafRows, b.maxRowsInMemory, Progress.NONE, false);
        return Explanation.of(plan(source, sink, differ), source, sink, b.sourceUrl.equals(b.sinkUrl));
      } finally {
        pool.shutdownNow();
      }
    }
  }

  /** One step of {@link #explain()}: what it checks, and the SQL. */
  public record Explained(String title, String sql) {}

  /** Closes the source once it opened; returns why it did not open, or null when it did (or this thread stops). */
  private static RuntimeException closeWhenOpened(Future<Side> opening) {
    try {
      opening.get().close();
      return null;
    } catch (ExecutionException e) {
      return e.getCause() instanceof RuntimeException r ? r
          : new ReconcileException("cannot connect to the source: " + e.getCause(), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  private Comparison plan(Side source, Side sink, Differ differ) {
    try {
      List<List<ColumnType>> both = differ.onBoth(side -> {
        try {
          return side.dialect.columns(side.connection, side.table);
        } catch (SQLException e) {
          throw new ReconcileException("cannot read the definition of " + side.role + " table " + side.table
              + ": " + e.getMessage(), e);
        }
      });
      List<ColumnType> sourceColumns = both.get(0);
      List<ColumnType> sinkColumns = both.get(1);
      if (sourceColumns.isEmpty()) {
        throw new ReconcileException("source table " + source.table + " not found");
      }
      if (sinkColumns.isEmpty()) {
        throw new ReconcileException("sink table " + sink.table + " not found");
      }
      List<String> key = b.key;
      if (key.isEmpty()) {
        key = source.dialect.primaryKey(source.connection, source.table);
        if (key.isEmpty()) {
          throw new ReconcileException("source table " + source.table + " has no primary key: give --key");
        }
      }
      Comparison comparison = Comparison.plan(sourceColumns, sinkColumns, key, b.columns, b.exclude,
          source.dialect, sink.dialect);
      source.plan(comparison);
      sink.plan(comparison);
      return comparison;
    } catch (SQLException e) {
      throw new ReconcileException("cannot read the table definitions: " + e.getMessage(), e);
    } catch (IllegalArgumentException e) {
      throw new ReconcileException(e.getMessage(), e);
    }
  }

  private static Dialect dialect(String role, String url) {
    try {
      return Dialect.forUrl(url);
    } catch (IllegalArgumentException e) {
      throw new ReconcileException(role + ": " + e.getMessage(), e);
    }
  }

  private Side open(String role, String url, Properties properties, TableName table) {
    Dialect dialect = dialect(role, url);
    try {
      return new Side(role, dialect, dialect.open(url, properties), table, b.where);
    } catch (SQLException e) {
      throw new ReconcileException("cannot connect to the " + role + " (" + redact(url) + "): " + e.getMessage(), e);
    }
  }

  private static long estimate(Side side) {
    try {
      return side.dialect.estimateRows(side.connection, side.table);
    } catch (SQLException e) {
      throw new ReconcileException(side.role + ": cannot estimate rows: " + e.getMessage(), e);
    }
  }

  /** The smallest and one past the largest integer key on either side, or null when keys would overflow. */
  private long[] keyBounds(Differ differ) {
    List<long[]> both = differ.onBoth(side -> side.query("SELECT min(" + side.integerKey() + "), max("
        + side.integerKey() + ")" + side.from() + side.where(null), Reconciler::bounds));
    long[] a = both.get(0);
    long[] c = both.get(1);
    if (a == null && c == null) {
      return new long[] {0, 1};
    }
    long min = a == null ? c[0] : c == null ? a[0] : Math.min(a[0], c[0]);
    long max = a == null ? c[1] : c == null ? a[1] : Math.max(a[1], c[1]);
    try {
      Math.subtractExact(Math.addExact(max, 1), min);
      return new long[] {min, max + 1};
    } catch (ArithmeticException e) {
      return null;
    }
  }

  private static long[] bounds(ResultSet rs) {
    try {
      rs.next();
      return rs.getObject(1) == null ? null : new long[] {rs.getLong(1), rs.getLong(2)};
    } catch (SQLException e) {
      throw new ReconcileException(e.getMessage(), e);
    }
  }

  private void sleepUntil(Instant deadline) {
    Duration left = Duration.between(b.clock.instant(), deadline);
    while (!left.isNegative() && !left.isZero()) {
      try {
        Thread.sleep(Math.max(1, Math.min(left.toMillis(), 1_000)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ReconcileException("interrupted while waiting for the lag window", e);
      }
      left = Duration.between(b.clock.instant(), deadline);
    }
  }

  /** Hides a password given in the URL. */
  static String redact(String url) {
    return url.replaceAll("(?i)(password=)[^&;]*", "$1***");
  }

  /** Configures one table pair. */
  public static final class Builder {
    private String sourceUrl;
    private String sinkUrl;
    private Properties sourceProperties = new Properties();
    private Properties sinkProperties = new Properties();
    private TableName sourceTable;
    private TableName sinkTable;
    private List<String> key = List.of();
    private List<String> columns = List.of();
    private List<String> exclude = List.of();
    private String where;
    private int limitRows = 100;
    private Duration lagWindow = Duration.ZERO;
    private boolean verbose;
    private Progress progress = Progress.NONE;
    private Clock clock = Clock.systemUTC();
    private int segmentRows = 256;
    private int bucketRows = 100;
    private int maxSegments = 65_536;
    private int leafRows = 64;
    private int maxRowsInMemory = 10_000;
    private long rowsPerChunk = 1_000_000;

    private Builder() {}

    /** The source's JDBC URL, as given: what a repair reads the source's rows from. */
    public String sourceUrl() {
      return sourceUrl;
    }

    public String sinkUrl() {
      return sinkUrl;
    }

    public Properties sourceProperties() {
      return sourceProperties;
    }

    public Properties sinkProperties() {
      return sinkProperties;
    }

    /** The source database (JDBC URL; credentials in the URL or in {@link #source(String, Properties)}). */
    public Builder source(String jdbcUrl) {
      return source(jdbcUrl, new Properties());
    }

    public Builder source(String jdbcUrl, Properties properties) {
      this.sourceUrl = Objects.requireNonNull(jdbcUrl);
      this.sourceProperties = properties;
      return this;
    }

    public Builder sink(String jdbcUrl) {
      return sink(jdbcUrl, new Properties());
    }

    public Builder sink(String jdbcUrl, Properties properties) {
      this.sinkUrl = Objects.requireNonNull(jdbcUrl);
      this.sinkProperties = properties;
      return this;
    }

    /** The same table name on both sides. */
    public Builder table(String table) {
      return table(table, table);
    }

    public Builder table(String sourceTable, String sinkTable) {
      this.sourceTable = TableName.parse(sourceTable);
      this.sinkTable = TableName.parse(sinkTable);
      return this;
    }

    /** Key columns; default: the source table's primary key. */
    public Builder key(List<String> key) {
      this.key = List.copyOf(key);
      return this;
    }

    /** Only these value columns (the key is always compared); default: every column present on both sides. */
    public Builder columns(List<String> columns) {
      this.columns = List.copyOf(columns);
      return this;
    }

    public Builder exclude(List<String> exclude) {
      this.exclude = List.copyOf(exclude);
      return this;
    }

    /** A SQL condition applied on both sides, e.g. {@code created_at < '2024-01-01'}. */
    public Builder where(String where) {
      this.where = where;
      return this;
    }

    /** Examples reported per kind of difference (counts are always exact). */
    public Builder limitRows(int limitRows) {
      this.limitRows = limitRows;
      return this;
    }

    /** Differing rows are compared again this long after they were seen; only rows still differing are reported. */
    public Builder lagWindow(Duration lagWindow) {
      this.lagWindow = lagWindow;
      return this;
    }

    /** Report every first-level segment's checksums. */
    public Builder verbose(boolean verbose) {
      this.verbose = verbose;
      return this;
    }

    public Builder progress(Progress progress) {
      this.progress = progress;
      return this;
    }

    public Builder clock(Clock clock) {
      this.clock = clock;
      return this;
    }

    /**
     * Target rows per first-level segment: key ranges (default 256; differing ranges are split further, down to
     * {@code leafRows}) and, a tenth of it, hash buckets (default 100; splitting those costs a scan).
     */
    public Builder segmentRows(int segmentRows) {
      this.segmentRows = segmentRows;
      this.bucketRows = Math.max(1, segmentRows / 10);
      return this;
    }

    /** Rows per piece of the first scan (default 1,000,000): progress is reported after each piece. */
    public Builder rowsPerChunk(long rowsPerChunk) {
      this.rowsPerChunk = rowsPerChunk;
      return this;
    }

    /** Differing key ranges are split until they hold at most this many rows, then read (default 64). */
    public Builder leafRows(int leafRows) {
      this.leafRows = leafRows;
      return this;
    }

    /** Largest segment compared row by row; larger differing segments are split again (default 10,000). */
    public Builder maxRowsInMemory(int maxRowsInMemory) {
      this.maxRowsInMemory = maxRowsInMemory;
      return this;
    }

    public Reconciler build() {
      if (sourceUrl == null || sinkUrl == null || sourceTable == null) {
        throw new IllegalStateException("source, sink and table are required");
      }
      return new Reconciler(this);
    }
  }
}
