package io.sluice.bench.platform;

import io.sluice.app.up.Platform;
import io.sluice.app.config.ConfigDefinitions;
import io.sluice.app.config.ConfigKey;
import io.sluice.app.config.SluiceConfig;
import io.sluice.bench.ProcessCpu;
import io.sluice.bench.reconcile.MariaDbProcess;
import io.sluice.ops.reconcile.ReconcileReport;
import io.sluice.ops.reconcile.Reconciler;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Change events per second, PostgreSQL → Debezium → Kafka (JSON converter), and rows per second end to end through
 * the JDBC sink into a second PostgreSQL. Each is measured twice in one process on the same machine minute: with the
 * engines' own defaults (the hand-assembled stack: Debezium's JDBC sink) and with Sluice's (Sluice's sink and its
 * settings), and reported as a ratio. After every run the sink table is reconciled with the source, every row.
 *
 * <p>Run: {@code bench/run PipelineThroughput [rows]}. To try other settings, {@code -Dbench.variants=tuned}
 * runs one variant, {@code -Dbench.sink=false} skips the sink, and {@code -Dbench.worker.KEY=V} /
 * {@code -Dbench.source.KEY=V} / {@code -Dbench.sink.config.KEY=V} override worker, source and sink settings,
 * {@code -Dbench.sink.urlSuffix=?k=v} extends the sink's
 * JDBC URL (pass them in {@code BENCH_JAVA_OPTS}). The sink then copies every row the source produced (the
 * measured rows plus a fifth more of warm-up). {@code -Dbench.sink.db=mariadb} writes into a MariaDB server (Debian's
 * {@code mariadbd}, started for the run) instead of PostgreSQL. With both variants, they run alternately, untuned,
 * tuned, untuned, tuned, and the report gives the means and the ratio for each order.
 *
 * <p>{@code -Dbench.variants=tuned,avro,protobuf} compares converters instead, in alternating rounds like any variants:
 * {@code avro}, {@code protobuf} and {@code jsonschema} are {@code tuned} with Sluice's converter of that format
 * (schemas in the platform's registry) on the source and the sink, against the JSON converter with its inlined
 * schema; bytes on the topic per event are reported beside the rates.
 *
 * <p>{@code -Dbench.table=wide} copies a table of the type matrix's column types instead of {@code orders}
 * ({@link WideTable}: numbers, money, texts, bytes, dates and times, intervals, uuid, json, xml, network addresses, bit
 * strings, an enum, a domain, arrays, ranges, geometric types, tsvector, hstore, ltree; PostgreSQL sinks only). The
 * engines' defaults cannot write every one of them (Debezium's sink fails its task on a {@code line} or a numeric
 * array, and writes others as other values), so the sink is measured like for like on the columns they can write:
 * the same rows without {@link WideTable#LEFT_OUT_FOR_ENGINES}, in a table of their own ({@link WideTable#COMMON}),
 * captured after the measured source window; the source part, and a second sink of Sluice's (after the first, into a
 * database of its own), copy every column.
 *
 * <p>{@code -Dbench.rounds=N} sets the alternating rounds (2; 3 for the wide table; 2 for variants, each round
 * in the other order); the report gives each round's
 * ratio, their median and spread, and the ratio of the means.
 *
 * <p>Every run prints its CPU per event by thread. To see where it goes, {@code -Dbench.jfr=DIR} records each measured
 * window (the source's, and each sink's as {@code LABEL-sink.jfr}) with JFR and {@code -Dbench.mbeans=PATTERN;...}
 * prints the broker's, Connect's and the clients' metrics after it (quote the value in {@code BENCH_JAVA_OPTS}).
 */
public final class PipelineThroughput {
  private static final String ROW_SQL = "INSERT INTO public.orders SELECT g, 'item-' || g, g %% 100, now() "
      + "FROM generate_series(%d, %d) g";

  /** Connect's, Kafka's and Debezium's own defaults, written out so Sluice's tuned ones are overridden. */
  private static final Map<String, String> UNTUNED_WORKER = Map.of(
      "connect.worker.producer.max.in.flight.requests.per.connection", "1",
      "connect.worker.producer.linger.ms", "5",
      "connect.worker.producer.batch.size", "16384",
      "connect.worker.producer.compression.type", "none",
      "connect.worker.producer.buffer.memory", "33554432",
      "connect.worker.key.converter", "org.apache.kafka.connect.json.JsonConverter",
      "connect.worker.value.converter", "org.apache.kafka.connect.json.JsonConverter");
  /**
   * Debezium's own queue and batches, and none of what Sluice adds to a PostgreSQL source: no column converter
   * ({@code converters=}, blank) and no source types in the schemas.
   */
  private static final Map<String, String> UNTUNED_SOURCE = Map.of(
      "max.batch.size", "2048", "max.queue.size", "8192", "poll.interval.ms", "500",
      "converters", "", "column.propagate.source.type", "");
  private static final Map<String, String> UNTUNED_SINK = Map.of(
      "batch.size", "500", "consumer.override.max.poll.records", "500", "use.reduction.buffer", "false",
      "header.converter", "org.apache.kafka.connect.storage.SimpleHeaderConverter");

  /** The label of {@link #compare}'s unmeasured first run, which stops after the source part. */
  private static final String WARM = "warm";

  /** {@code -Dbench.table=wide}: the type matrix's column types ({@link WideTable}) instead of the orders table. */
  private static final boolean WIDE = "wide".equals(System.getProperty("bench.table", "orders"));
  private static final String TABLE = WIDE ? WideTable.NAME : "orders";

  public static void main(String[] args) throws Exception {
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    Path plugins = Path.of(System.getProperty("sluice.plugin.path", "sluice-app/target/sluice/plugins"));
    boolean maria = "mariadb".equals(System.getProperty("bench.sink.db", "postgres"));
    if (WIDE && maria) {
      throw new IllegalArgumentException("the wide table's types are PostgreSQL's: a MariaDB sink takes the orders"
          + " table (leave out -Dbench.table=wide)");
    }
    try (BenchDatabase db = new BenchDatabase(); MariaDbProcess mariaDb = maria ? MariaDbProcess.start() : null) {
      SinkDatabase sinkDb = maria ? new SinkDatabase.MariaDb(mariaDb) : new SinkDatabase.Postgres(db);
      List<String> variants = List.of(System.getProperty("bench.variants", "untuned,tuned").split(","));
      if (!variants.equals(List.of("untuned", "tuned")) && variants.size() > 1) {
        compare(db, sinkDb, plugins, variants, rows);
        System.exit(0);
      }
      if (variants.size() == 1) {
        String only = variants.get(0);
        run(db, sinkDb, plugins, only, !only.equals("untuned"), converterOf(only), rows);
        System.exit(0);
      }
      // Untuned and tuned alternate (A B A B ...), so neither always runs on a colder or a warmer machine; the figures
      // are the means of the rounds, and each round's ratio is given beside them.
      int rounds = Integer.getInteger("bench.rounds", WIDE ? 3 : 2);
      Result[] untuned = new Result[rounds];
      Result[] tuned = new Result[rounds];
      for (int round = 0; round < rounds; round++) {
        untuned[round] = run(db, sinkDb, plugins, "untuned" + (round + 1), false, null, rows);
        tuned[round] = run(db, sinkDb, plugins, "tuned" + (round + 1), true, null, rows);
      }
      String table = WIDE ? "the wide table (" + WideTable.COLUMNS.size() + " columns)" : "orders";
      report("PostgreSQL -> Kafka, " + String.format(Locale.ROOT, "%,d", rows) + " rows of " + table
          + ", JSON converter, warm", "events/s", untuned, tuned, Result::eventsPerSecond);
      if (Boolean.parseBoolean(System.getProperty("bench.sink", "true"))) {
        String columns = WIDE ? String.format(Locale.ROOT, ", the %d columns the engines' defaults can write (%s left"
            + " out)", WideTable.comparable().size(), String.join(", ", WideTable.leftOutForEngines())) : "";
        report("PostgreSQL -> " + sinkDb.name() + " through the JDBC sink, " + String.format(Locale.ROOT, "%,d",
            untuned[0].sinkRows) + " rows" + columns, "rows/s", untuned, tuned, Result::sinkRowsPerSecond);
        // CPU time per row, which a busy machine inflates far less than it does wall-clock rates.
        double[] jvm = {mean(List.of(untuned)).sinkJvmMicrosPerRow, mean(List.of(tuned)).sinkJvmMicrosPerRow};
        double[] server = {mean(List.of(untuned)).sinkServerMicrosPerRow, mean(List.of(tuned)).sinkServerMicrosPerRow};
        double limit = (mean(List.of(untuned)).limitRowsPerSecond + mean(List.of(tuned)).limitRowsPerSecond) / 2;
        System.out.printf(Locale.ROOT, "The physical limit, the same rows loaded straight into %s (mean of %d): %,.0f"
            + " rows/s; Sluice's sink at %.2fx of it, the engines' defaults at %.2fx%n", sinkDb.name(), 2 * rounds,
            limit, mean(List.of(tuned)).sinkRowsPerSecond / limit, mean(List.of(untuned)).sinkRowsPerSecond / limit);
        System.out.printf(Locale.ROOT, "CPU per sink row (means of %d rounds): this JVM untuned %.1f µs, tuned %.1f µs"
            + " (%.2fx less); the %s server untuned %.1f µs, tuned %.1f µs (%.2fx less)%n", rounds, jvm[0], jvm[1],
            jvm[0] / jvm[1], sinkDb.name(), server[0], server[1], server[0] / server[1]);
        if (WIDE) {
          Result t = mean(List.of(tuned));
          System.out.printf(Locale.ROOT, "Sluice's sink with every column (%d), the same rows: %,.0f rows/s (rounds %s),"
              + " this JVM %.1f µs and %s %.1f µs of CPU per row; the physical limit %,.0f rows/s (%.2fx of it);"
              + " %.2fx its own rate on the %d columns above%n", WideTable.COLUMNS.size(), t.fullRowsPerSecond,
              figures(tuned, Result::fullRowsPerSecond), t.fullJvmMicrosPerRow, sinkDb.name(),
              t.fullServerMicrosPerRow, t.fullLimitRowsPerSecond, t.fullRowsPerSecond / t.fullLimitRowsPerSecond,
              t.fullRowsPerSecond / t.sinkRowsPerSecond, WideTable.comparable().size());
        }
      }
    }
    System.exit(0);
  }

  /**
   * The means of both variants and their ratio, and each round's ratio (tuned against the untuned run just before it)
   * with their median and spread: on a shared machine one round can run at another load than the next.
   */
  private static void report(String what, String unit, Result[] untuned, Result[] tuned,
      java.util.function.ToDoubleFunction<Result> figure) {
    double a = java.util.Arrays.stream(untuned).mapToDouble(figure).average().orElse(0);
    double b = java.util.Arrays.stream(tuned).mapToDouble(figure).average().orElse(0);
    double[] ratios = new double[untuned.length];
    for (int i = 0; i < ratios.length; i++) {
      ratios[i] = figure.applyAsDouble(tuned[i]) / figure.applyAsDouble(untuned[i]);
    }
    double[] sorted = ratios.clone();
    java.util.Arrays.sort(sorted);
    double median = sorted.length % 2 == 1 ? sorted[sorted.length / 2]
        : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
    System.out.printf(Locale.ROOT, "%n%s: untuned %,.0f %s (rounds %s), tuned %,.0f %s (rounds %s); ratio of the means"
        + " %.2fx; each round's ratio %s: median %.2fx, spread %.2fx-%.2fx%n", what, a, unit, figures(untuned, figure),
        b, unit, figures(tuned, figure), b / a, java.util.Arrays.stream(ratios)
            .mapToObj(r -> String.format(Locale.ROOT, "%.2fx", r)).toList(), median, sorted[0],
        sorted[sorted.length - 1]);
  }

  private static String figures(Result[] results, java.util.function.ToDoubleFunction<Result> figure) {
    return java.util.Arrays.stream(results).map(r -> String.format(Locale.ROOT, "%,.0f", figure.applyAsDouble(r)))
        .toList().toString();
  }

  /** Where the sink writes: the source's PostgreSQL, or a MariaDB server of its own. */
  sealed interface SinkDatabase {
    String name();

    void create(String db) throws Exception;

    Map<String, String> connection(String db);

    long count(String db, String table) throws Exception;

    /** A JDBC URL with credentials, for the reconciler. */
    String reconcileUrl(String db);

    /** The CPU time the database server has used, in nanoseconds. */
    long serverCpuNanos() throws IOException;

    /** The driver's own batch behaviour, written out where Sluice would set another. */
    default Map<String, String> untunedDriver() {
      return Map.of();
    }

    /**
     * The physical limit: the rows of {@code csv} (id, item, qty, created in UTC, as {@link #exportRows} writes them)
     * written by the database's fastest client path into an empty copy of the table the sink wrote, in rows/s.
     */
    double limitRowsPerSecond(String db, Path csv, long rows) throws Exception;

    record Postgres(BenchDatabase pg) implements SinkDatabase {
      public String name() {
        return "PostgreSQL";
      }

      public void create(String db) throws Exception {
        pg.createDatabase(db);
      }

      public Map<String, String> connection(String db) {
        return Map.of("connection.url", pg.url(db) + System.getProperty("bench.sink.urlSuffix", ""),
            "connection.username", "postgres", "connection.password", "postgres");
      }

      public long count(String db, String table) throws Exception {
        return pg.count(db, table);
      }

      public String reconcileUrl(String db) {
        return pg.url(db) + "?user=postgres&password=postgres";
      }

      /**
       * The postmaster's and its backends': the exited backends' time is in the postmaster's children's fields, the
       * live ones' in their own. The source's backends share the server, but sit idle while the sink runs.
       */
      public long serverCpuNanos() throws IOException {
        long postmaster = postmasterPid(pg.port());
        long ticks = 0;
        try (var procs = Files.list(Path.of("/proc"))) {
          for (Path proc : (Iterable<Path>) procs::iterator) {
            String[] stat = stat(proc);
            if (stat == null) {
              continue;
            }
            long pid = Long.parseLong(proc.getFileName().toString());
            if (pid == postmaster) {
              ticks += Long.parseLong(stat[13]) + Long.parseLong(stat[14]) + Long.parseLong(stat[15])
                  + Long.parseLong(stat[16]);
            } else if (Long.parseLong(stat[3]) == postmaster) {
              ticks += Long.parseLong(stat[13]) + Long.parseLong(stat[14]);
            }
          }
        }
        return ticks * 10_000_000L; // USER_HZ is 100 on Linux
      }

      @Override
      public Map<String, String> untunedDriver() {
        return Map.of("hibernate.agroal.jdbcProperties", "reWriteBatchedInserts=false");
      }

      /** COPY FROM STDIN, from a JDBC client, into a table made LIKE the sink's (its primary key included). */
      public double limitRowsPerSecond(String db, Path csv, long rows) throws Exception {
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(reconcileUrl(db));
            java.sql.Statement s = c.createStatement()) {
          s.execute("SET timezone = 'UTC'");
          s.execute("CREATE TABLE orders_limit (LIKE orders INCLUDING ALL)");
          var copy = c.unwrap(org.postgresql.PGConnection.class).getCopyAPI();
          long t = System.nanoTime();
          try (var in = Files.newBufferedReader(csv)) {
            copy.copyIn("COPY orders_limit (id, item, qty, created) FROM STDIN WITH (FORMAT csv)", in);
          }
          double rps = rows / ((System.nanoTime() - t) / 1e9);
          s.execute("DROP TABLE orders_limit");
          return rps;
        }
      }
    }

    record MariaDb(MariaDbProcess server) implements SinkDatabase {
      public String name() {
        return "MariaDB";
      }

      public void create(String db) throws Exception {
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(server.url(""));
            java.sql.Statement s = c.createStatement()) {
          s.execute("CREATE DATABASE " + db);
        }
      }

      public Map<String, String> connection(String db) {
        String url = server.url(db);
        return Map.of("connection.url", url.substring(0, url.indexOf('?')) + System.getProperty("bench.sink.urlSuffix",
            ""), "connection.username", "root");
      }

      public String reconcileUrl(String db) {
        return server.url(db);
      }

      public long serverCpuNanos() throws IOException {
        String[] stat = stat(Path.of("/proc", String.valueOf(server.pid())));
        return stat == null ? 0 : (Long.parseLong(stat[13]) + Long.parseLong(stat[14])) * 10_000_000L;
      }

      /** LOAD DATA LOCAL INFILE into a table made LIKE the sink's. */
      public double limitRowsPerSecond(String db, Path csv, long rows) throws Exception {
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(server.url(db) + "&allowLocalInfile=true");
            java.sql.Statement s = c.createStatement()) {
          s.execute("CREATE TABLE orders_limit LIKE orders");
          long t = System.nanoTime();
          s.execute("LOAD DATA LOCAL INFILE '" + csv.toAbsolutePath() + "' INTO TABLE orders_limit FIELDS TERMINATED BY"
              + " ',' OPTIONALLY ENCLOSED BY '\"' (id, item, qty, created)");
          double rps = rows / ((System.nanoTime() - t) / 1e9);
          s.execute("DROP TABLE orders_limit");
          return rps;
        }
      }

      public long count(String db, String table) throws Exception {
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(server.url(db));
            java.sql.Statement s = c.createStatement();
            java.sql.ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
          rs.next();
          return rs.getLong(1);
        } catch (java.sql.SQLException e) {
          if (e.getErrorCode() == 1146) { // no such table yet
            return 0;
          }
          throw e;
        }
      }
    }
  }

  /** The fields of /proc/PID/stat, counted from 0 after the command's parentheses as from the pid; null if gone. */
  static String[] stat(Path proc) {
    if (!proc.getFileName().toString().chars().allMatch(Character::isDigit)) {
      return null;
    }
    try {
      String line = Files.readString(proc.resolve("stat"));
      String rest = line.substring(line.lastIndexOf(')') + 2);
      String[] fields = rest.split(" ");
      String[] out = new String[fields.length + 2];
      out[0] = line.substring(0, line.indexOf(' '));
      out[1] = "";
      System.arraycopy(fields, 0, out, 2, fields.length);
      return out;
    } catch (IOException | RuntimeException gone) {
      return null;
    }
  }

  /** The PostgreSQL server listening on {@code port}: the process whose command line says so. */
  static long postmasterPid(int port) throws IOException {
    try (var procs = Files.list(Path.of("/proc"))) {
      for (Path proc : (Iterable<Path>) procs::iterator) {
        if (!proc.getFileName().toString().chars().allMatch(Character::isDigit)) {
          continue;
        }
        try {
          String cmd = Files.readString(proc.resolve("cmdline")).replace('\0', ' ');
          if (cmd.contains("postgres") && cmd.contains(" -p " + port + " ")) {
            return Long.parseLong(proc.getFileName().toString());
          }
        } catch (IOException gone) {
          // exited while listed
        }
      }
    }
    throw new IOException("no PostgreSQL process listening on port " + port);
  }

  /**
   * One run's figures. With the wide table the {@code sink…} figures and the limit are those of the columns the
   * engines' defaults can write, and the {@code full…} ones those of Sluice's second sink, every column (0 otherwise).
   */
  record Result(double eventsPerSecond, double bytesPerEvent, long sinkRows, double sinkRowsPerSecond,
      double sinkJvmMicrosPerRow, double sinkServerMicrosPerRow, double limitRowsPerSecond, double fullRowsPerSecond,
      double fullJvmMicrosPerRow, double fullServerMicrosPerRow, double fullLimitRowsPerSecond) {
    Result(double eventsPerSecond, double bytesPerEvent, long sinkRows, double sinkRowsPerSecond,
        double sinkJvmMicrosPerRow, double sinkServerMicrosPerRow, double limitRowsPerSecond) {
      this(eventsPerSecond, bytesPerEvent, sinkRows, sinkRowsPerSecond, sinkJvmMicrosPerRow, sinkServerMicrosPerRow,
          limitRowsPerSecond, 0, 0, 0, 0);
    }
  }

  /** One sink's measure: rows/s from its creation to its last row, and CPU per row of this JVM and of the server. */
  record SinkFigures(double rowsPerSecond, double jvmMicrosPerRow, double serverMicrosPerRow) {}

  /** The source table's rows as CSV in a file of the run's: what {@link SinkDatabase#limitRowsPerSecond} loads. */
  static Path exportRows(BenchDatabase db, String database, Path dir) throws Exception {
    Path csv = dir.resolve("orders.csv");
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(db.url(database), "postgres", "postgres");
        var out = Files.newBufferedWriter(csv)) {
      c.unwrap(org.postgresql.PGConnection.class).getCopyAPI().copyOut("COPY (SELECT id, item, qty, to_char(created"
          + " AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') FROM public.orders ORDER BY id) TO STDOUT WITH"
          + " (FORMAT csv)", out);
    }
    return csv;
  }

  /**
   * Variants of Sluice's settings against each other, in one JVM: {@code -Dbench.variants=tuned,nocopy} runs
   * {@code tuned}, then {@code nocopy} (Sluice's settings and the sink settings of
   * {@code -Dbench.variant.nocopy.sink.KEY=V}, the worker settings of {@code -Dbench.variant.nocopy.worker.KEY=V} and
   * the source settings of {@code -Dbench.variant.nocopy.source.KEY=V}), then the same again in reverse order, and
   * reports each variant's means, source and sink, against the first's. {@code untuned} is the engines' defaults, as
   * elsewhere. Exactly-once sources against at-least-once, for example: {@code -Dbench.variants=tuned,eosoff
   * -Dbench.variant.eosoff.worker.exactly.once.source.support=disabled}. An unmeasured source-only run of the first
   * variant comes before the rounds ({@code -Dbench.warmRun=false} leaves it out). Each run also prints its CPU per
   * event by thread: the JIT compiler's share there is the plugins' classes compiled again for every run (each run's
   * worker loads them anew), a cost of the benchmark, not of the pipeline.
   */
  private static void compare(BenchDatabase db, SinkDatabase sinkDb, Path plugins, List<String> variants, int rows)
      throws Exception {
    Map<String, List<Result>> results = new java.util.LinkedHashMap<>();
    variants.forEach(v -> results.put(v, new java.util.ArrayList<>()));
    if (Boolean.parseBoolean(System.getProperty("bench.warmRun", "true"))) {
      // The JVM's first run compiles the broker's, Connect's and the clients' code, which every later run finds
      // compiled: without this unmeasured run the first variant's first round runs colder than any other (session
      // 19's first exactly-once round did, at 0.77x). Each run still compiles its own plugin classes again.
      String v = variants.get(0);
      run(db, sinkDb, plugins, WARM, !v.equals("untuned"), converterOf(v), Math.max(rows / 5, 10_000),
          overrides("bench.variant." + v + ".sink.", ""), overrides("bench.variant." + v + ".worker.",
              "connect.worker."), overrides("bench.variant." + v + ".source.", ""));
    }
    int rounds = Integer.getInteger("bench.rounds", 2);
    for (int round = 0; round < rounds; round++) {
      List<String> order = new java.util.ArrayList<>(variants);
      if (round % 2 == 1) {
        java.util.Collections.reverse(order);
      }
      for (String v : order) {
        results.get(v).add(run(db, sinkDb, plugins, v + (round + 1), !v.equals("untuned"), converterOf(v), rows,
            overrides("bench.variant." + v + ".sink.", ""), overrides("bench.variant." + v + ".worker.",
                "connect.worker."), overrides("bench.variant." + v + ".source.", "")));
      }
    }
    Result base = mean(results.get(variants.get(0)));
    System.out.printf(Locale.ROOT, "%nPostgreSQL -> Kafka, %,d rows, means of %d rounds:%n", rows, rounds);
    results.forEach((v, rs) -> {
      Result m = mean(rs);
      // Each round's ratio against the first variant's run of the same round (run next to it), as report() gives.
      double[] ratios = new double[rs.size()];
      for (int i = 0; i < ratios.length; i++) {
        ratios[i] = rs.get(i).eventsPerSecond / results.get(variants.get(0)).get(i).eventsPerSecond;
      }
      double[] sorted = ratios.clone();
      java.util.Arrays.sort(sorted);
      double median = sorted.length % 2 == 1 ? sorted[sorted.length / 2]
          : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
      System.out.printf(Locale.ROOT, "  %-10s %,8.0f events/s, %,.0f bytes/event (%.2fx; rounds %s; each round's"
          + " ratio %s: median %.2fx)  %s %s%n", v, m.eventsPerSecond, m.bytesPerEvent, m.eventsPerSecond
          / base.eventsPerSecond, rs.stream()
              .map(r -> String.format(Locale.ROOT, "%,.0f", r.eventsPerSecond)).toList(), java.util.Arrays
              .stream(ratios).mapToObj(r -> String.format(Locale.ROOT, "%.2fx", r)).toList(), median,
          overrides("bench.variant." + v + ".worker.", ""), overrides("bench.variant." + v + ".source.", ""));
    });
    if (!Boolean.parseBoolean(System.getProperty("bench.sink", "true"))) {
      return;
    }
    System.out.printf(Locale.ROOT, "%nPostgreSQL -> %s through the JDBC sink, %,d rows, means of %d rounds:%n",
        sinkDb.name(), base.sinkRows, rounds);
    results.forEach((v, rs) -> {
      Result m = mean(rs);
      System.out.printf(Locale.ROOT, "  %-10s limit %,8.0f rows/s (sink at %.2fx of it)%n", v, m.limitRowsPerSecond,
          m.sinkRowsPerSecond / m.limitRowsPerSecond);
      System.out.printf(Locale.ROOT, "  %-10s %,8.0f rows/s (%.2fx)  JVM %6.1f CPU µs/row (%.2fx less)  server %6.1f CPU"
          + " µs/row (%.2fx less)  %s%n", v, m.sinkRowsPerSecond, m.sinkRowsPerSecond / base.sinkRowsPerSecond,
          m.sinkJvmMicrosPerRow, base.sinkJvmMicrosPerRow / m.sinkJvmMicrosPerRow, m.sinkServerMicrosPerRow,
          base.sinkServerMicrosPerRow / m.sinkServerMicrosPerRow, overrides("bench.variant." + v + ".sink.", ""));
    });
  }

  private static Result mean(List<Result> rs) {
    return new Result(rs.stream().mapToDouble(Result::eventsPerSecond).average().orElse(0),
        rs.stream().mapToDouble(Result::bytesPerEvent).average().orElse(0), rs.get(0).sinkRows,
        rs.stream().mapToDouble(Result::sinkRowsPerSecond).average().orElse(0),
        rs.stream().mapToDouble(Result::sinkJvmMicrosPerRow).average().orElse(0),
        rs.stream().mapToDouble(Result::sinkServerMicrosPerRow).average().orElse(0),
        rs.stream().mapToDouble(Result::limitRowsPerSecond).average().orElse(0),
        rs.stream().mapToDouble(Result::fullRowsPerSecond).average().orElse(0),
        rs.stream().mapToDouble(Result::fullJvmMicrosPerRow).average().orElse(0),
        rs.stream().mapToDouble(Result::fullServerMicrosPerRow).average().orElse(0),
        rs.stream().mapToDouble(Result::fullLimitRowsPerSecond).average().orElse(0));
  }

  private static Result run(BenchDatabase db, SinkDatabase sinkDb, Path plugins, String label, boolean tuned,
      String converter, int rows) throws Exception {
    return run(db, sinkDb, plugins, label, tuned, converter, rows, Map.of(), Map.of(), Map.of());
  }

  /** Sluice's converter of a format variant ({@code avro}, {@code protobuf}, {@code jsonschema}); null for JSON. */
  private static String converterOf(String variant) {
    return switch (variant) {
      case "avro" -> "io.sluice.serde.connect.AvroConverter";
      case "protobuf" -> "io.sluice.serde.connect.ProtobufConverter";
      case "jsonschema" -> "io.sluice.serde.connect.JsonSchemaConverter";
      default -> null;
    };
  }

  private static Result run(BenchDatabase db, SinkDatabase sinkDb, Path plugins, String label, boolean tuned,
      String converter, int rows, Map<String, String> sinkSettings, Map<String, String> workerSettings,
      Map<String, String> sourceSettings) throws Exception {
    Path dataDir = Files.createTempDirectory("sluice-bench-" + label);
    Map<String, String> flags = new HashMap<>(tuned ? Map.of() : UNTUNED_WORKER);
    flags.putAll(overrides("bench.worker.", "connect.worker."));
    flags.putAll(workerSettings);
    flags.put(ConfigDefinitions.DATA_DIR.name(), dataDir.toString());
    flags.put(ConfigDefinitions.KAFKA_PORT.name(), String.valueOf(freePort()));
    flags.put(ConfigDefinitions.CONNECT_PORT.name(), String.valueOf(freePort()));
    flags.put(ConfigDefinitions.REGISTRY_PORT.name(), String.valueOf(freePort()));
    // Every server on a port of its own: another Sluice on this machine must not make the run fail.
    for (ConfigKey<Integer> port : List.of(ConfigDefinitions.METRICS_PORT, ConfigDefinitions.ALERTS_PORT,
        ConfigDefinitions.EXPORTER_PORT, ConfigDefinitions.CONSOLE_PORT)) {
      flags.put(port.name(), String.valueOf(freePort()));
    }
    try (Platform platform = Platform.start(SluiceConfig.load(Optional.empty(), flags), plugins)) {
      Rest rest = new Rest(platform.connect().restUrl());
      String src = "src_" + label;
      String sink = "sink_" + label;
      db.createDatabase(src);
      if (WIDE) {
        for (String sql : WideTable.PREREQUISITES) {
          db.execute(src, sql);
        }
        db.execute(src, WideTable.create(TABLE, WideTable.COLUMNS));
        db.execute(src, WideTable.create(WideTable.COMMON, WideTable.comparable()));
      } else {
        db.execute(src, "CREATE TABLE public.orders (id bigint PRIMARY KEY, item text, qty int, created timestamptz)");
      }
      Map<String, String> source = db.sourceConfig(src, label);
      source.put("table.include.list", "public." + TABLE + (WIDE ? ",public." + WideTable.COMMON : ""));
      if (WIDE) {
        source.put("sluice.columns.accept.loss", WideTable.ACCEPTED_LOSS);
      }
      if (!tuned) {
        source.putAll(UNTUNED_SOURCE);
      }
      Map<String, String> converters = new HashMap<>();
      if (converter != null) {
        for (String side : List.of("key", "value")) {
          converters.put(side + ".converter", converter);
          converters.put(side + ".converter.schema.registry.url", platform.urls().get("registry"));
        }
      }
      source.putAll(converters);
      source.putAll(overrides("bench.source.", ""));
      source.putAll(sourceSettings);
      rest.create("source", source);
      rest.awaitRunning("source");
      String topic = label + ".public." + TABLE;

      // Warm-up: JIT, topic creation, producer connections.
      long next = 1;
      int warm = Integer.getInteger("bench.warmRows", Math.max(rows / 5, 10_000));
      insert(db, src, next, warm);
      next += warm;
      awaitEvents(platform.bootstrapServers(), topic, next - 1);

      long t0 = System.nanoTime();
      long cpu0 = processCpuNanos();
      Map<String, Long> threads0 = ProcessCpu.ticksByThread(ProcessHandle.current().pid());
      jdk.jfr.Recording jfr = startRecording();
      int batch = WIDE ? 10_000 : 50_000;
      for (int done = 0; done < rows; done += batch) {
        int n = Math.min(batch, rows - done);
        insert(db, src, next, n);
        next += n;
      }
      awaitEvents(platform.bootstrapServers(), topic, next - 1);
      double eps = rows / ((System.nanoTime() - t0) / 1e9);
      stopRecording(jfr, label);
      double bytes = bytesPerEvent(platform.bootstrapServers(), topic);
      System.out.printf(Locale.ROOT, "[%s] %,d change events in Kafka at %,.0f events/s (this JVM: %.1f CPU µs/event; "
          + "%.0f bytes/event)%n", label, rows, eps, (processCpuNanos() - cpu0) / 1e3 / rows, bytes);
      System.out.printf(Locale.ROOT, "[%s] CPU µs/event by thread: %s (load %s)%n", label,
          byThread(threads0, ProcessCpu.ticksByThread(ProcessHandle.current().pid()), rows),
          Files.readString(Path.of("/proc/loadavg")).strip());
      printMBeans(label);

      if (label.equals(WARM) || !Boolean.parseBoolean(System.getProperty("bench.sink", "true"))) {
        return new Result(eps, bytes, 0, 0, 0, 0, 0);
      }
      // Like for like (wide table): the same rows, with the columns the engines' defaults can copy, in a table of
      // their own, captured after the measured window. (Debezium's sink could leave columns out itself, by
      // field.exclude.list, but its filter splits its list again for every field of every record: tried, it took
      // half of either sink's time.)
      String likeTopic = topic;
      String likeTable = TABLE;
      if (WIDE) {
        likeTable = WideTable.COMMON;
        likeTopic = label + ".public." + likeTable;
        db.execute(src, "INSERT INTO public." + likeTable + " SELECT id, " + WideTable.comparable().stream()
            .map(WideTable.Column::name).collect(java.util.stream.Collectors.joining(", ")) + " FROM public." + TABLE);
        awaitEvents(platform.bootstrapServers(), likeTopic, next - 1);
      }
      // End to end: the sink starts from the beginning of the topic, which already holds every row.
      // The engines' defaults are Debezium's sink as it ships; Sluice's are Sluice's sink with Sluice's settings.
      Map<String, String> sinkConfig = new HashMap<>(Map.of(
          "connector.class", tuned ? "io.sluice.sink.jdbc.SluiceJdbcSinkConnector"
              : "io.debezium.connector.jdbc.JdbcSinkConnector",
          "insert.mode", "upsert", "primary.key.mode", "record_key", "schema.evolution", "basic",
          "topics", likeTopic, "collection.name.format", likeTable));
      if (!tuned) {
        sinkConfig.putAll(UNTUNED_SINK);
        sinkConfig.putAll(sinkDb.untunedDriver());
      }
      sinkConfig.putAll(converters);
      sinkConfig.putAll(overrides("bench.sink.config.", ""));
      sinkConfig.putAll(sinkSettings);
      Map<String, String> fullConfig = new HashMap<>(sinkConfig);
      fullConfig.putAll(Map.of("topics", topic, "collection.name.format", TABLE));
      long expectedSink = next - 1;
      String sourceUrl = db.url(src) + "?user=postgres&password=postgres";
      SinkFigures figures = sink(rest, sinkDb, "sink", sink, sinkConfig, expectedSink, label, sourceUrl, likeTable);
      SinkFigures full = null;
      String fullDb = "full_" + label;
      if (WIDE && tuned) {
        // Sluice's sink again, every column, into a database of its own, after the first (not beside it).
        full = sink(rest, sinkDb, "sinkfull", fullDb, fullConfig, expectedSink, label + "-full", sourceUrl, TABLE);
      }
      // Connect stopped first: the limit is the database's alone, with the machine to itself as the sink had it.
      platform.close();
      double limit;
      double fullLimit = 0;
      if (WIDE) {
        limit = wideLimitRowsPerSecond(db, src, sink, WideTable.comparable(), dataDir, expectedSink);
        if (full != null) {
          fullLimit = wideLimitRowsPerSecond(db, src, fullDb, WideTable.COLUMNS, dataDir, expectedSink);
        }
      } else {
        Path csv = exportRows(db, src, dataDir);
        limit = sinkDb.limitRowsPerSecond(sink, csv, expectedSink);
        Files.delete(csv);
      }
      System.out.printf(Locale.ROOT, "[%s] the same %,d rows loaded straight into %s (its fastest client path): "
          + "%,.0f rows/s; the sink at %.2fx of it%s%n", label, expectedSink, sinkDb.name(), limit,
          figures.rowsPerSecond() / limit, full == null ? "" : String.format(Locale.ROOT, "; every column: %,.0f"
              + " rows/s, the sink at %.2fx of it", fullLimit, full.rowsPerSecond() / fullLimit));
      return new Result(eps, bytes, expectedSink, figures.rowsPerSecond(), figures.jvmMicrosPerRow(),
          figures.serverMicrosPerRow(), limit, full == null ? 0 : full.rowsPerSecond(),
          full == null ? 0 : full.jvmMicrosPerRow(), full == null ? 0 : full.serverMicrosPerRow(), fullLimit);
    }
  }

  /**
   * Creates the sink connector {@code name} writing {@code table} into {@code database}, waits for its last row, and
   * reconciles every row and column with the source's table of that name; the run fails if the sink's task fails.
   */
  private static SinkFigures sink(Rest rest, SinkDatabase sinkDb, String name, String database,
      Map<String, String> config, long expected, String label, String sourceUrl, String table) throws Exception {
    sinkDb.create(database);
    if (WIDE) {
      // The sink database has the source's enum, domain and extensions, as the type matrix's have.
      for (String sql : WideTable.PREREQUISITES) {
        ((SinkDatabase.Postgres) sinkDb).pg().execute(database, sql);
      }
    }
    config.putAll(sinkDb.connection(database));
    long t1 = System.nanoTime();
    long cpu1 = processCpuNanos();
    long server1 = sinkDb.serverCpuNanos();
    Map<String, Long> threads1 = ProcessCpu.ticksByThread(ProcessHandle.current().pid());
    jdk.jfr.Recording jfr = startRecording();
    rest.create(name, config);
    long seen = 0;
    long polls = 0;
    while (seen < expected) {
      Thread.sleep(200);
      seen = sinkDb.count(database, table);
      if (++polls % 10 == 0) {
        java.util.Optional<String> failure = rest.taskFailure(name);
        if (failure.isPresent()) {
          throw new IllegalStateException("[" + label + "] the sink's task failed after " + seen + " of " + expected
              + " rows: " + failure.get());
        }
      }
      if ((System.nanoTime() - t1) / 1e9 > 1800) {
        throw new IllegalStateException("sink stalled at " + seen + " of " + expected);
      }
    }
    double rps = expected / ((System.nanoTime() - t1) / 1e9);
    double jvmMicros = (processCpuNanos() - cpu1) / 1e3 / expected;
    double serverMicros = (sinkDb.serverCpuNanos() - server1) / 1e3 / expected;
    stopRecording(jfr, label + "-sink");
    System.out.printf(Locale.ROOT, "[%s] %,d rows in the sink database at %,.0f rows/s (this JVM: %.1f CPU µs/row;"
        + " the %s server: %.1f CPU µs/row; load %s)%n", label, expected, rps, jvmMicros, sinkDb.name(),
        serverMicros, Files.readString(Path.of("/proc/loadavg")).strip());
    System.out.printf(Locale.ROOT, "[%s] sink CPU µs/row by thread: %s%n", label,
        byThread(threads1, ProcessCpu.ticksByThread(ProcessHandle.current().pid()), (int) expected));
    copyRows(name).ifPresent(copied -> System.out.printf(Locale.ROOT, "[%s] rows the sink wrote by COPY"
        + " (sink-copy-rows): %,.0f of %,d%n", label, copied, expected));
    rest.delete(name);
    reconcile(sourceUrl, sinkDb.reconcileUrl(database), label, table);
    return new SinkFigures(rps, jvmMicros, serverMicros);
  }

  /**
   * The physical limit for the wide table: {@code columns} of the source's rows, exported in PostgreSQL's text
   * format, loaded by {@code COPY … FROM STDIN} into a table of the source's types in {@code sinkDatabase}, in rows/s.
   */
  private static double wideLimitRowsPerSecond(BenchDatabase db, String src, String sinkDatabase,
      List<WideTable.Column> columns, Path dir, long rows) throws Exception {
    String names = "id, " + columns.stream().map(WideTable.Column::name)
        .collect(java.util.stream.Collectors.joining(", "));
    Path file = dir.resolve("wide.copy");
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(db.url(src), "postgres", "postgres");
        var out = Files.newBufferedWriter(file)) {
      c.unwrap(org.postgresql.PGConnection.class).getCopyAPI().copyOut("COPY (SELECT " + names + " FROM public."
          + TABLE + " ORDER BY id) TO STDOUT", out);
    }
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(db.url(sinkDatabase), "postgres", "postgres");
        java.sql.Statement s = c.createStatement()) {
      s.execute(WideTable.create(TABLE + "_limit", columns));
      var copy = c.unwrap(org.postgresql.PGConnection.class).getCopyAPI();
      long t = System.nanoTime();
      try (var in = Files.newBufferedReader(file)) {
        copy.copyIn("COPY public." + TABLE + "_limit (" + names + ") FROM STDIN", in);
      }
      double rps = rows / ((System.nanoTime() - t) / 1e9);
      s.execute("DROP TABLE public." + TABLE + "_limit");
      Files.delete(file);
      return rps;
    }
  }

  /**
   * Every row of the source table against the sink's, by Sluice's reconciler: a faster sink that wrote other values
   * is no faster sink. The run fails on any difference.
   */
  private static void reconcile(String sourceUrl, String sinkUrl, String label, String table) {
    ReconcileReport report = Reconciler.builder().source(sourceUrl).sink(sinkUrl).table("public." + table, table)
        .build().run();
    if (!report.equal()) {
      throw new IllegalStateException(String.format(Locale.ROOT, "[%s] the sink differs from the source: %d rows"
          + " missing, %d extra, %d changed (%s %s)", label, report.missing(), report.extra(), report.changed(),
          report.mismatchExamples(), report.missingExamples()));
    }
    // A column the sink did not make is not compared, and would hide a column the sink left out.
    if (!report.skipped().isEmpty()) {
      throw new IllegalStateException(String.format(Locale.ROOT, "[%s] columns not compared: %s", label,
          report.skipped()));
    }
    // Columns of one type on both sides that the reconciler has no canonical form for are compared as their text;
    // the casts worth reading are those between different types or precisions.
    List<String> casts = report.casts().stream()
        .filter(c -> !c.matches("[^:]*: (.*) vs \\1: compared as text")).toList();
    System.out.printf(Locale.ROOT, "[%s] reconciled: %,d rows equal in source and sink, %d columns (%s; %d compared as"
        + " text)%s%n", label, report.sourceRows(), report.columns().size(), report.checksumMethod(),
        report.casts().size() - casts.size(), casts.isEmpty() ? "" : "; compared with casts: " + casts);
  }

  /** System properties under {@code prefix}, renamed under {@code as}. */
  private static Map<String, String> overrides(String prefix, String as) {
    Map<String, String> out = new HashMap<>();
    System.getProperties().forEach((k, v) -> {
      if (k.toString().startsWith(prefix)) {
        out.put(as + k.toString().substring(prefix.length()), v.toString());
      }
    });
    return out;
  }

  private static void insert(BenchDatabase db, String database, long from, int n) throws Exception {
    db.execute(database, WIDE ? WideTable.insert(from, from + n - 1)
        : String.format(Locale.ROOT, ROW_SQL, from, from + n - 1));
  }

  /** Key and value bytes per record over the first 20,000 records of the topic (uncompressed, as a consumer sees). */
  private static double bytesPerEvent(String bootstrap, String topic) {
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(Map.of("bootstrap.servers", bootstrap,
        "max.poll.records", "5000"), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      TopicPartition tp = new TopicPartition(topic, 0);
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      long bytes = 0;
      long records = 0;
      while (records < 20_000) {
        var batch = c.poll(java.time.Duration.ofSeconds(2));
        if (batch.isEmpty()) {
          break;
        }
        for (var r : batch) {
          bytes += (r.key() == null ? 0 : r.key().length) + (r.value() == null ? 0 : r.value().length);
          records++;
        }
      }
      return records == 0 ? 0 : (double) bytes / records;
    }
  }

  /** Waits until the topic holds at least {@code n} records (one per inserted row). */
  private static void awaitEvents(String bootstrap, String topic, long n) throws Exception {
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(Map.of("bootstrap.servers", bootstrap),
        new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      long deadline = System.nanoTime() + 1800L * 1_000_000_000L;
      while (System.nanoTime() < deadline) {
        List<TopicPartition> parts = c.partitionsFor(topic).stream()
            .map(p -> new TopicPartition(topic, p.partition())).toList();
        long total = c.endOffsets(parts).values().stream().mapToLong(Long::longValue).sum();
        if (total >= n) {
          return;
        }
        Thread.sleep(50);
      }
      throw new IllegalStateException("topic " + topic + " never reached " + n + " records");
    }
  }

  /**
   * With {@code -Dbench.jfr=DIR}, a flight recording of the measured window alone (no start, no warm-up), Java
   * samples every 2 ms, written to {@code DIR/LABEL.jfr} ({@code jfr print --events jdk.ExecutionSample} reads it).
   */
  private static jdk.jfr.Recording startRecording() throws Exception {
    if (System.getProperty("bench.jfr") == null) {
      return null;
    }
    jdk.jfr.Recording r = new jdk.jfr.Recording(jdk.jfr.Configuration.getConfiguration("profile"));
    r.enable("jdk.ExecutionSample").withPeriod(java.time.Duration.ofMillis(2));
    r.start();
    return r;
  }

  private static void stopRecording(jdk.jfr.Recording r, String label) throws IOException {
    if (r != null) {
      r.stop();
      Path dir = Files.createDirectories(Path.of(System.getProperty("bench.jfr")));
      r.dump(dir.resolve(label + ".jfr"));
      r.close();
    }
  }

  /**
   * Sluice's sink's {@code sink-copy-rows} for the connector {@code name}, summed over its tasks, as the worker's JMX
   * reporter holds its tasks' plugin metrics; empty for a sink without it (Debezium's).
   */
  private static java.util.Optional<Double> copyRows(String name) throws Exception {
    javax.management.MBeanServer server = java.lang.management.ManagementFactory.getPlatformMBeanServer();
    double sum = 0;
    boolean found = false;
    for (javax.management.ObjectName bean : server.queryNames(new javax.management.ObjectName("kafka.connect:*"),
        null)) {
      if (!name.equals(bean.getKeyProperty("connector"))) {
        continue;
      }
      for (javax.management.MBeanAttributeInfo a : server.getMBeanInfo(bean).getAttributes()) {
        if (a.getName().equals("sink-copy-rows") && server.getAttribute(bean, a.getName()) instanceof Number n) {
          sum += n.doubleValue();
          found = true;
        }
      }
    }
    return found ? java.util.Optional.of(sum) : java.util.Optional.empty();
  }

  /**
   * With {@code -Dbench.mbeans=PATTERN;PATTERN}, the numeric attributes of this JVM's MBeans matching each
   * {@code ObjectName} pattern (the broker's, Connect's and the clients' metrics are all in this process), read once
   * after the measured window: {@code kafka.producer:type=producer-metrics,*} for a task's transactions, for example.
   */
  private static void printMBeans(String label) throws Exception {
    String patterns = System.getProperty("bench.mbeans");
    if (patterns == null) {
      return;
    }
    javax.management.MBeanServer server = java.lang.management.ManagementFactory.getPlatformMBeanServer();
    for (String pattern : patterns.split(";")) {
      for (javax.management.ObjectName name : new java.util.TreeSet<>(server.queryNames(
          new javax.management.ObjectName(pattern), null))) {
        StringBuilder line = new StringBuilder();
        for (javax.management.MBeanAttributeInfo a : server.getMBeanInfo(name).getAttributes()) {
          try {
            Object v = server.getAttribute(name, a.getName());
            if (v instanceof Number n && n.doubleValue() != 0 && !Double.isNaN(n.doubleValue())) {
              line.append(String.format(Locale.ROOT, " %s=%.4g", a.getName(), n.doubleValue()));
            }
          } catch (Exception unreadable) {
            // an attribute the bean cannot give now
          }
        }
        System.out.printf(Locale.ROOT, "[%s] %s:%s%n", label, name, line);
      }
    }
  }

  /**
   * Where the measured window's CPU went: the busiest thread names (digits folded, cut to the kernel's 15 characters:
   * the source task's conversion and sends in {@code task-thread-sou}, its producer's network thread and the send
   * callbacks in {@code kafka-producer-}, Debezium's reading in {@code debezium-postgr}, the broker's request handlers
   * in {@code data-plane-kafk}, the JIT in {@code C# CompilerThre}), in µs of CPU per event.
   */
  static String byThread(Map<String, Long> before, Map<String, Long> after, int events) {
    return after.entrySet().stream()
        .map(e -> Map.entry(e.getKey(), e.getValue() - before.getOrDefault(e.getKey(), 0L)))
        .filter(e -> e.getValue() > 0)
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(7)
        .map(e -> String.format(Locale.ROOT, "%s %.1f", e.getKey(),
            e.getValue() * ProcessCpu.SECONDS_PER_TICK * 1e6 / events))
        .collect(java.util.stream.Collectors.joining(", "));
  }

  /**
   * CPU time of this JVM (Connect, converters, broker; not PostgreSQL): on a shared machine it compares settings
   * where wall-clock rates cannot.
   */
  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
        .getOperatingSystemMXBean()).getProcessCpuTime();
  }

  static int freePort() throws java.io.IOException {
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
