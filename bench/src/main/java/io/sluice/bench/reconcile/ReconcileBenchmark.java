package io.sluice.bench.reconcile;

import io.sluice.ops.reconcile.ReconcileReport;
import io.sluice.ops.reconcile.Reconciler;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * {@code sluice reconcile} against its two baselines, on tables of N rows x 10 columns with 100 scattered
 * differences (30 missing, 30 extra, 40 changed):
 *
 * <ol>
 *   <li>floor: one full checksum scan of each side, in parallel (the SQL of {@code --explain}'s table checksum);
 *       reconcile cannot be faster than this and should stay within 1.5x of it,
 *   <li>naive: stream both tables ordered by key and compare every row in Java; reconcile should be 5x faster.
 * </ol>
 *
 * Also the old-generation peak while reconciling, to show memory stays flat as rows grow. PostgreSQL to PostgreSQL
 * (embedded), and PostgreSQL to MariaDB when Debian's mariadb-server is installed.
 *
 * <p>Run: {@code bench/run io.sluice.bench.reconcile.ReconcileBenchmark 1000000 2000000}
 * ({@code BENCH_JAVA_OPTS="-Xmx1g -Dengines=pg"} for PostgreSQL only).
 */
public final class ReconcileBenchmark {
  private ReconcileBenchmark() {}

  public static void main(String[] args) throws Exception {
    List<Long> sizes = new ArrayList<>();
    for (String a : args.length == 0 ? new String[] {"1000000"} : args) {
      sizes.add(Long.parseLong(a.replace("_", "")));
    }
    String engines = System.getProperty("engines", "pg,mariadb");
    try (EmbeddedPostgres pg = EmbeddedPostgres.builder()
        .setServerConfig("shared_buffers", "512MB")
        .setServerConfig("max_parallel_workers_per_gather", "0")
        .setServerConfig("synchronous_commit", "off")
        .start()) {
      MariaDbProcess maria = engines.contains("mariadb") && MariaDbProcess.installed() ? MariaDbProcess.start() : null;
      if (engines.contains("mariadb") && maria == null) {
        System.out.println("MariaDB: not installed (Debian package mariadb-server), PostgreSQL only");
      }
      for (long rows : sizes) {
        String src = pgUrl(pg, "src" + rows);
        String snk = pgUrl(pg, "snk" + rows);
        execute(pgUrl(pg, "postgres"), "CREATE DATABASE src" + rows, "CREATE DATABASE snk" + rows);
        long t0 = System.nanoTime();
        CompletableFuture.allOf(
            CompletableFuture.runAsync(() -> fillPostgres(src, rows)),
            CompletableFuture.runAsync(() -> fillPostgres(snk, rows))).join();
        execute(snk, seedDifferences(rows, false));
        execute(src, "VACUUM ANALYZE items");
        execute(snk, "VACUUM ANALYZE items");
        System.out.printf(Locale.ROOT, "%n== %,d rows x 10 columns, PostgreSQL -> PostgreSQL (loaded in %.0f s)%n",
            rows, (System.nanoTime() - t0) / 1e9);
        compare(src, snk, rows, true);
        if (maria != null) {
          String my = maria.url("bench" + rows);
          execute(maria.url(""), "CREATE DATABASE bench" + rows);
          t0 = System.nanoTime();
          fillMariaDb(my, rows);
          execute(my, seedDifferences(rows, true));
          execute(my, "ANALYZE TABLE items");
          System.out.printf(Locale.ROOT, "%n== %,d rows x 10 columns, PostgreSQL -> MariaDB (loaded in %.0f s)%n",
              rows, (System.nanoTime() - t0) / 1e9);
          compare(src, my, rows, false);
        }
      }
      if (maria != null) {
        maria.close();
      }
    }
  }

  private static void compare(String src, String snk, long rows, boolean naive) throws Exception {
    Reconciler reconciler = Reconciler.builder().source(withUser(src)).sink(withUser(snk)).table("items").build();
    List<Reconciler.Explained> steps = reconciler.explain();
    String floorSource = sql(steps, "table checksum (source)");
    String floorSink = sql(steps, "table checksum (sink)");
    floor(src, floorSource, snk, floorSink);                     // warm both caches
    // Alternating runs, medians of three: the machine is shared, so single runs say little.
    double[] floors = new double[3];
    double[] reconciles = new double[3];
    ReconcileReport report = null;
    long oldPeak = 0;
    for (int i = 0; i < 3; i++) {
      floors[i] = floor(src, floorSource, snk, floorSink);
      resetPeaks();
      long start = System.nanoTime();
      report = reconciler.run();
      reconciles[i] = (System.nanoTime() - start) / 1e9;
      oldPeak = Math.max(oldPeak, oldGenerationPeak());
    }
    double floor = median(floors);
    double reconcile = median(reconciles);
    System.out.printf(Locale.ROOT, "floor (one checksum scan per side, parallel): median %.2f s of %s%n", floor,
        java.util.Arrays.toString(floors));
    System.out.printf(Locale.ROOT, "reconcile: median %.2f s of %s = %.2fx the floor; found missing %d, extra %d,"
            + " changed %d (seeded 30/30/40); %d rows read into memory, %d queries%n", reconcile,
        java.util.Arrays.toString(reconciles), reconcile / floor, report.missing(), report.extra(), report.changed(),
        report.stats().rowsFetched(), report.stats().queries());
    System.out.printf(Locale.ROOT, "old-generation peak during reconcile: %.1f MB (heap max %.0f MB)%n",
        oldPeak / 1e6, Runtime.getRuntime().maxMemory() / 1e6);
    if (naive) {
      long start = System.nanoTime();
      long differing = naive(src, snk);
      double naiveSeconds = (System.nanoTime() - start) / 1e9;
      System.out.printf(Locale.ROOT, "naive (stream both ordered by key, compare in Java): %.2f s, %d differing rows;"
          + " reconcile is %.1fx faster%n", naiveSeconds, differing, naiveSeconds / reconcile);
    }
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    java.util.Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  private static String sql(List<Reconciler.Explained> steps, String title) {
    return steps.stream().filter(s -> s.title().startsWith(title)).findFirst().orElseThrow().sql().replace(";", "");
  }

  private static double floor(String src, String srcSql, String snk, String snkSql) {
    long start = System.nanoTime();
    CompletableFuture.allOf(
        CompletableFuture.runAsync(() -> scalar(src, srcSql)),
        CompletableFuture.runAsync(() -> scalar(snk, snkSql))).join();
    return (System.nanoTime() - start) / 1e9;
  }

  /** Both tables in key order, every column compared as text: what a hand-written Java comparison does. */
  private static long naive(String src, String snk) throws SQLException {
    long differing = 0;
    try (Connection a = connect(src); Connection b = connect(snk)) {
      a.setAutoCommit(false);
      b.setAutoCommit(false);
      try (Statement sa = a.createStatement(); Statement sb = b.createStatement()) {
        sa.setFetchSize(10_000);
        sb.setFetchSize(10_000);
        try (ResultSet ra = sa.executeQuery("SELECT * FROM items ORDER BY id");
             ResultSet rb = sb.executeQuery("SELECT * FROM items ORDER BY id")) {
          int columns = ra.getMetaData().getColumnCount();
          boolean hasA = ra.next();
          boolean hasB = rb.next();
          while (hasA || hasB) {
            long ka = hasA ? ra.getLong(1) : Long.MAX_VALUE;
            long kb = hasB ? rb.getLong(1) : Long.MAX_VALUE;
            if (ka < kb) {
              differing++;
              hasA = ra.next();
            } else if (kb < ka) {
              differing++;
              hasB = rb.next();
            } else {
              for (int c = 2; c <= columns; c++) {
                if (!Objects.equals(ra.getString(c), rb.getString(c))) {
                  differing++;
                  break;
                }
              }
              hasA = ra.next();
              hasB = rb.next();
            }
          }
        }
      }
    }
    return differing;
  }

  private static void fillPostgres(String url, long rows) {
    try {
      execute(url, "CREATE TABLE items (id bigint PRIMARY KEY, name text, amount numeric(12,2), ratio double precision,"
              + " flag boolean, born date, seen timestamp(6), note varchar(100), payload bytea, ref uuid)",
          "INSERT INTO items SELECT i, 'name ' || i, (i % 100000) / 100.0, i::float8 / 7, i % 2 = 0,"
              + " date '2020-01-01' + (i % 2000)::int, timestamp '2024-01-01' + i * interval '61 seconds'"
              + " + ((i * 7919) % 1000000) * interval '1 microsecond', 'note ' || (i % 1000),"
              + " convert_to('p' || i, 'UTF8'), md5(i::text)::uuid FROM generate_series(1::bigint, " + rows + ") i");
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void fillMariaDb(String url, long rows) throws SQLException {
    execute(url, "CREATE TABLE items (id bigint PRIMARY KEY, name varchar(100), amount decimal(12,2), ratio double,"
            + " flag boolean, born date, seen datetime(6), note varchar(100), payload varbinary(64), ref char(36))"
            + " CHARACTER SET utf8mb4",
        "INSERT INTO items SELECT seq, CONCAT('name ', seq), (seq % 100000) / 100.0, seq / 7e0, seq % 2 = 0,"
            + " DATE '2020-01-01' + INTERVAL (seq % 2000) DAY, TIMESTAMP '2024-01-01 00:00:00' + INTERVAL (seq * 61)"
            + " SECOND + INTERVAL ((seq * 7919) % 1000000) MICROSECOND, CONCAT('note ', seq % 1000),"
            + " CONCAT('p', seq), INSERT(INSERT(INSERT(INSERT(MD5(seq), 9, 0, '-'), 14, 0, '-'), 19, 0, '-'), 24, 0, '-')"
            + " FROM seq_1_to_" + rows);
  }

  /** 30 missing, 30 extra and 40 changed rows spread over the key range. */
  private static String[] seedDifferences(long rows, boolean mariadb) {
    List<String> sql = new ArrayList<>();
    long step = rows / 101;
    for (int i = 0; i < 30; i++) {
      sql.add("DELETE FROM items WHERE id = " + (1 + step * (i * 3 + 1)));
      sql.add("INSERT INTO items (id, name) VALUES (" + (rows + 1 + i * 7919L) + ", 'extra')");
    }
    for (int i = 0; i < 40; i++) {
      long id = 2 + step * (i * 2 + 5) + i;
      sql.add(i % 2 == 0
          ? "UPDATE items SET name = 'changed' WHERE id = " + id
          : "UPDATE items SET amount = amount + 1 WHERE id = " + id);
    }
    return sql.toArray(String[]::new);
  }

  private static void resetPeaks() {
    System.gc();
    ManagementFactory.getMemoryPoolMXBeans().forEach(MemoryPoolMXBean::resetPeakUsage);
  }

  private static long oldGenerationPeak() {
    return ManagementFactory.getMemoryPoolMXBeans().stream()
        .filter(p -> p.getType() == MemoryType.HEAP && (p.getName().contains("Old") || p.getName().contains("Tenured")))
        .mapToLong(p -> p.getPeakUsage().getUsed()).sum();
  }

  private static String pgUrl(EmbeddedPostgres pg, String db) {
    return "jdbc:postgresql://127.0.0.1:" + pg.getPort() + "/" + db;
  }

  private static String withUser(String url) {
    return url.startsWith("jdbc:postgresql:") ? url + "?user=postgres&password=postgres" : url;
  }

  private static Connection connect(String url) throws SQLException {
    return DriverManager.getConnection(withUser(url));
  }

  private static void execute(String url, String... sql) throws SQLException {
    try (Connection c = connect(url); Statement s = c.createStatement()) {
      for (String q : sql) {
        s.execute(q);
      }
    }
  }

  private static void scalar(String url, String sql) {
    try (Connection c = connect(url); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
