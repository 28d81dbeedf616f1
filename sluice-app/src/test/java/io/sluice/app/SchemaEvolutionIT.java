package io.sluice.app;

import static io.sluice.app.PackagedSluice.freePort;
import static io.sluice.app.PackagedSluice.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.app.TypeMatrix.Format;
import io.sluice.connect.client.ConnectRestClient;
import io.sluice.connect.testing.BinlogMariaDb;
import io.sluice.connect.testing.ConnectClient;
import io.sluice.connect.testing.Pipeline;
import io.sluice.connect.testing.PostgresSource;
import io.sluice.connect.testing.SharedPostgres;
import io.sluice.registry.client.SchemaRegistryClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Live schema evolution through the packaged {@code ./sluice up}, PostgreSQL and MariaDB both ways: while a load of
 * about 1,000 changes a second runs on a source table, six changes are made to it one after another ({@link
 * #CHANGES}), in PostgreSQL's DDL or MariaDB's; the load runs from {@link #BEFORE_CHANGE} before each change to {@link
 * #AFTER_CHANGE} after it, then waits until every sink has the change's rows. Each source table is read by four
 * pipelines side by side, one per format, whose subjects keep the registry's default mode (BACKWARD), each pipeline's
 * topic written by Sluice's JDBC sink ({@code schema.evolution=basic}) into a PostgreSQL database and into a MariaDB
 * database of its own: so every format (Connect JSON, Avro, Protobuf, JSON Schema) goes PostgreSQL → PostgreSQL,
 * PostgreSQL → MariaDB, MariaDB → PostgreSQL and MariaDB → MariaDB, 24 connectors. Three more PostgreSQL tables, one
 * per registered format (Avro, Protobuf, JSON Schema), each with a quarter of the load, are read by pipelines whose
 * subjects are FULL_TRANSITIVE, so that their refusals hold up no one else.
 *
 * <p>Per change, pipeline and sink it records what the registry did (a new version, or a refusal in the source task's
 * failure), what the sink did to its table (columns added, types widened, NOT NULL dropped) and the tasks' states. A
 * refused change stops only its own source: its failure names the subject, the versions and the rule, the bundled
 * ConnectConnectorDown rule fires for it (its {@code for:} shortened in this test's copy), and the operator's way
 * past it (the subject at NONE for a restart of the task, then its mode again) loses nothing. At the end every
 * source row is compared with its sink row, column by column. The table of outcomes goes to
 * {@code target/schema-evolution.md}.
 */
@Timeout(value = 25, unit = TimeUnit.MINUTES)
class SchemaEvolutionIT {
  /** A change to the source table, made while the load runs, in each database's DDL; {@code %s} is the table. */
  record Change(String name, String postgres, String mariaDb) {
    String ddl(Engine e) {
      return e == Engine.POSTGRES ? postgres : mariaDb;
    }
  }

  static final List<Change> CHANGES = List.of(
      new Change("add a nullable column", "ALTER TABLE public.%s ADD COLUMN extra text",
          "ALTER TABLE %s ADD COLUMN extra text"),
      new Change("add a NOT NULL column with a default",
          "ALTER TABLE public.%s ADD COLUMN region text NOT NULL DEFAULT 'eu'",
          "ALTER TABLE %s ADD COLUMN region text NOT NULL DEFAULT 'eu'"),
      new Change("drop a (NOT NULL) column", "ALTER TABLE public.%s DROP COLUMN legacy",
          "ALTER TABLE %s DROP COLUMN legacy"),
      // MariaDB's MODIFY restates the whole column: NOT NULL is said again, so that only the type changes.
      new Change("widen int to bigint", "ALTER TABLE public.%s ALTER COLUMN qty TYPE bigint",
          "ALTER TABLE %s MODIFY qty BIGINT NOT NULL"),
      new Change("widen varchar(20) to text", "ALTER TABLE public.%s ALTER COLUMN note TYPE text",
          "ALTER TABLE %s MODIFY note TEXT"),
      new Change("rename a column", "ALTER TABLE public.%s RENAME COLUMN label TO title",
          "ALTER TABLE %s RENAME COLUMN label TO title"));

  /**
   * The refusals under a pipeline's mode that the rules call for, as {@code format/mode/change number} (any source)
   * or {@code source/format/mode/change number} (one source's: {@code postgres} or {@code mariadb}) → why; every
   * other change must be accepted, and each of these refused. (FULL_TRANSITIVE: a version forced in past a refusal
   * stays among those every later one is checked against.)
   */
  static final Map<String, String> REFUSED = pairs(
      "jsonschema/BACKWARD/3", "Sluice's JSON Schema converter writes a struct as a closed content model (so that an"
          + " added column is compatible); a property removed from a closed model is not",
      "jsonschema/BACKWARD/6", "a rename is a property removed and another added: removed from a closed content model",
      "postgres/avro/FULL_TRANSITIVE/3", "Debezium first sends the dropped column as optional (its optionality"
          + " unknown once dropped), which an old reader cannot read (FORWARD), then without it, which has no default",
      "postgres/avro/FULL_TRANSITIVE/4", "an old reader of int cannot read long",
      "postgres/avro/FULL_TRANSITIVE/5", "version 1 (with the dropped field, no default) is still checked: transitive",
      "postgres/avro/FULL_TRANSITIVE/6", "version 1 (with the dropped field, no default) is still checked: transitive",
      "jsonschema/FULL_TRANSITIVE/1", "a closed content model: an old reader refuses the added property (FORWARD)",
      "jsonschema/FULL_TRANSITIVE/2", "a closed content model: an old reader refuses the added property (FORWARD)",
      "jsonschema/FULL_TRANSITIVE/3", "a property removed from a closed content model (BACKWARD)",
      "jsonschema/FULL_TRANSITIVE/4", "every earlier version is checked: each lacks the properties added since",
      "jsonschema/FULL_TRANSITIVE/5", "every earlier version is checked: each lacks the properties added since",
      "jsonschema/FULL_TRANSITIVE/6", "a property removed from a closed content model, and another added");

  /** A map of {@code key, value, key, value, …}, in that order. */
  private static Map<String, String> pairs(String... keysAndValues) {
    Map<String, String> out = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      out.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return Collections.unmodifiableMap(out);
  }

  /** The data plane's heap for the 30 connectors on its one worker (why 3 GB: {@link #start}). */
  private static final String DATA_PLANE_HEAP = "3g";

  /** The phase that follows each change (a row carries the phase it was last written in). */
  private static final int ADD_DEFAULT = 2;
  private static final int DROP = 3;
  private static final int RENAME = 6;

  /** Rows each round inserts, and updates (the round before's): with a delete, about 1,000 changes a second. */
  private static final int ROWS = 50;
  private static final Duration ROUND = Duration.ofMillis(100);
  /**
   * How long the load runs before each change and after it, before it pauses until every sink has the change's rows.
   * A load that never paused grew the sinks' lag for as long as the test ran wherever the machine gave the 30
   * connectors less than the load (on a quiet machine each change took about 80 s to reach the last sink; on a busier
   * one the six did not fit in 25 minutes): the change is made mid-stream all the same, with the rows before it in
   * flight at every stage, and the rows after it written at the full rate.
   */
  private static final Duration BEFORE_CHANGE = Duration.ofSeconds(3);
  private static final Duration AFTER_CHANGE = Duration.ofSeconds(7);
  /**
   * The whole test's patience, under its {@code @Timeout}: a wait that would run past it fails with the timeline so
   * far (which change, which pipeline, how long each took), where the timeout would say nothing.
   */
  private static final Duration PATIENCE = Duration.ofMinutes(21);
  private static long deadline = Long.MAX_VALUE;
  private static final long STARTED = System.nanoTime();
  /** What happened when, in seconds since the class was loaded: the report's and a failure's timeline. */
  private static final List<String> timeline = Collections.synchronizedList(new ArrayList<>());
  private static final int SNAPSHOT_ROWS = 2000;
  /** How long one wait may take: the machine may be shared, and a sink catching up on it is late, not lost. */
  private static final Duration SETTLE = Duration.ofSeconds(300);

  @TempDir static Path dir;
  private static PackagedSluice.Up up;
  private static BinlogMariaDb maria;
  private static ConnectRestClient connect;
  private static SchemaRegistryClient registry;
  private static String registryUrl;
  private static String alertsUrl;
  private static String[] cluster;
  private static String sourceDb;
  private static final List<Track> tracks = new ArrayList<>();
  /** change → sink → outcome, for the report's table. */
  private static final Map<Integer, Map<String, Outcome>> outcomes = new TreeMap<>();
  private static final Map<String, String> lostRows = Collections.synchronizedMap(new TreeMap<>());
  /** Per sink, the source rows last written in each phase, and of those the ones the sink does not equal. */
  private static final Map<String, Map<Integer, Integer>> rowsByPhase = new java.util.concurrent.ConcurrentHashMap<>();
  private static final Map<String, Map<Integer, Integer>> lostByPhase = new java.util.concurrent.ConcurrentHashMap<>();
  private static final List<String> notes = Collections.synchronizedList(new ArrayList<>());

  /** A database engine a pipeline reads from or writes into: the shared PostgreSQL, or this test's MariaDB. */
  enum Engine {
    POSTGRES("PostgreSQL", "pg"),
    MARIADB("MariaDB", "maria");

    final String title;
    final String tag;

    Engine(String title, String tag) {
      this.title = title;
      this.tag = tag;
    }

    /** A connection to {@code db}; a MariaDB one reads and writes timestamps in UTC. */
    Connection connect(String db) throws SQLException {
      if (this == POSTGRES) {
        return SharedPostgres.connect(db);
      }
      return java.sql.DriverManager.getConnection("jdbc:mariadb://127.0.0.1:" + maria.port() + "/" + db
          + "?user=root");
    }

    void createDatabase(String db) {
      if (this == POSTGRES) {
        SharedPostgres.createDatabase(db);
      } else {
        maria.execute("CREATE DATABASE " + db + " CHARACTER SET utf8mb4");
      }
    }

    void execute(String db, String sql) {
      try (Connection c = connect(db); Statement s = c.createStatement()) {
        s.execute(sql);
      } catch (SQLException e) {
        throw new IllegalStateException(sql, e);
      }
    }

    /** The number in the first column of the first row of {@code sql}. */
    long number(String db, String sql) {
      try (Connection c = connect(db); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
        return rs.next() ? rs.getLong(1) : -1;
      } catch (SQLException e) {
        throw new IllegalStateException(sql, e);
      }
    }

    /** The table's name in SQL: PostgreSQL's in {@code public}, MariaDB's in the connection's database. */
    String table(String table) {
      return this == POSTGRES ? "public." + table : table;
    }

    /** Column → "type [NOT NULL] [DEFAULT …]" of a table, in the order of its columns. */
    Map<String, String> columns(String db, String table) throws SQLException {
      String sql = this == POSTGRES
          ? "SELECT a.attname, format_type(a.atttypid, a.atttypmod)"
              + " || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END"
              + " || coalesce(' DEFAULT ' || pg_get_expr(d.adbin, d.adrelid), '')"
              + " FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum"
              + " WHERE a.attrelid = to_regclass('public." + table + "') AND a.attnum > 0 AND NOT a.attisdropped"
              + " ORDER BY a.attnum"
          // MariaDB writes a default of NULL as the text NULL, and no default as SQL's NULL: neither is shown.
          : "SELECT COLUMN_NAME, CONCAT(COLUMN_TYPE, IF(IS_NULLABLE = 'NO', ' NOT NULL', ''),"
              + " IF(COLUMN_DEFAULT IS NULL OR COLUMN_DEFAULT = 'NULL', '', CONCAT(' DEFAULT ', COLUMN_DEFAULT)))"
              + " FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = '" + db + "' AND TABLE_NAME = '" + table
              + "' ORDER BY ORDINAL_POSITION";
      Map<String, String> out = new LinkedHashMap<>();
      try (Connection c = connect(db); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
        while (rs.next()) {
          out.put(rs.getString(1), rs.getString(2));
        }
      }
      return out;
    }
  }

  /** Where a pipeline's topic is written: Sluice's JDBC sink into a database of its own. */
  record Sink(String name, Engine engine, String db) {}

  /** A pipeline: a source in one format reading a track's table, and Sluice's sinks of its topic. */
  record Lane(String name, Format format, String mode, Engine from, String sourceDb, String prefix, String table,
      List<Sink> sinks) {
    String source() {
      return name + "-source";
    }

    String topic() {
      return prefix + "." + (from == Engine.POSTGRES ? "public" : sourceDb) + "." + table;
    }

    String subject() {
      return topic() + "-value";
    }

    boolean registered() {
      return format.converter() != null;
    }

    String direction(Sink sink) {
      return from.title + " → " + sink.engine().title;
    }
  }

  /** What one change did in one pipeline, at one sink. */
  record Outcome(Lane lane, Sink sink, String registry, String sinkAction, String tasks, String message) {}

  @BeforeAll
  @Timeout(value = 15, unit = TimeUnit.MINUTES) // 30 connectors applied and snapshotted on a shared machine
  static void start() throws Exception {
    maria = BinlogMariaDb.start(Files.createDirectories(dir.resolve("mariadb")), "live schema evolution",
        // Four MariaDB sources, eight MariaDB sinks with a pool each, and the comparisons' connections.
        "--max-connections=500");
    maria.execute("CREATE USER sluice@'%' IDENTIFIED BY 'sluice'", "GRANT ALL ON *.* TO sluice@'%'",
        "CREATE USER sluice@localhost IDENTIFIED BY 'sluice'", "GRANT ALL ON *.* TO sluice@localhost");
    int kafka = freePort();
    int connectPort = freePort();
    int registryPort = freePort();
    int alerts = freePort();
    int exporter = freePort();
    registryUrl = "http://127.0.0.1:" + registryPort;
    alertsUrl = "http://127.0.0.1:" + alerts;
    Path prometheus = AlertRehearsal.prometheusConfig(dir, exporter, alerts);
    // Thirty connectors on the one worker: with the default 1 GB the data plane spent minutes in full collections
    // on a loaded machine, long enough for its group memberships to lapse; at 2 GB it kept about 600 MB live after
    // each full collection, made one every 20 s (28 in 645 s, up to 3.2 s each) and was paused 22% of the time. Its
    // collections are logged (the default options and -Xlog), so that the report says whether the heap held the load.
    Path config = Files.writeString(dir.resolve("sluice.yaml"), "dataplane.heap: " + DATA_PLANE_HEAP + "\n"
        + "dataplane.java.options: \"-XX:+UseParallelGC -XX:NewRatio=1 -XX:MetaspaceSize=192m -Xms64m -Xlog:gc:file="
        + gcLog() + ":uptime\"\n");
    up = PackagedSluice.up(dir, List.of("--config", config.toString(), "--data-dir", dir.resolve("data").toString(), "--kafka-port", "" + kafka,
        "--connect-port", "" + connectPort, "--registry-port", "" + registryPort, "--metrics-port", "" + freePort(),
        "--alerts-port", "" + alerts, "--exporter-port", "" + exporter, "--metrics-config", prometheus.toString()));
    connect = new ConnectRestClient("http://127.0.0.1:" + connectPort);
    registry = new SchemaRegistryClient(registryUrl);
    cluster = new String[] {"--connect-url", connect.baseUrl(), "--bootstrap", "127.0.0.1:" + kafka,
        "--registry", registryUrl};
    String run = "evo" + ProcessHandle.current().pid();
    sourceDb = run + "_src";
    SharedPostgres.createDatabase(sourceDb);
    Engine.MARIADB.createDatabase(sourceDb);
    Pipeline.ensureCdcUser();

    for (Engine source : Engine.values()) {
      List<Lane> backward = new ArrayList<>();
      for (Format f : TypeMatrix.FORMATS) {
        backward.add(lane(run, source, f, "BACKWARD", "evo", Engine.values()));
      }
      // From MariaDB the full load too: it runs only around each change (BEFORE_CHANGE, AFTER_CHANGE), so the sinks'
      // lag cannot grow for the length of the test as it did when the load never paused and MariaDB's ran at a quarter.
      tracks.add(new Track(source, "evo", backward, ROWS));
    }
    // A quarter of the load each: every table's changes are decoded by every PostgreSQL source's slot, and what these
    // measure is the registry's answers and nothing lost through a refusal, which any rate shows.
    for (Format f : TypeMatrix.FORMATS.subList(1, TypeMatrix.FORMATS.size())) {
      String table = "evo_ft_" + f.name();
      tracks.add(new Track(Engine.POSTGRES, table,
          List.of(lane(run, Engine.POSTGRES, f, "FULL_TRANSITIVE", table, Engine.POSTGRES)), ROWS / 4));
    }
    int serverId = 6101;
    Map<String, Map<String, String>> connectors = new LinkedHashMap<>();
    for (Track t : tracks) {
      t.source.execute(sourceDb, "CREATE TABLE " + t.source.table(t.table) + " (id int PRIMARY KEY, item text NOT"
          + " NULL, qty int NOT NULL, note varchar(20), legacy text NOT NULL, label text, phase int NOT NULL)"
          + (t.source == Engine.MARIADB ? " CHARACTER SET utf8mb4" : ""));
      t.source.execute(sourceDb, t.insert(1, SNAPSHOT_ROWS));
      t.next = SNAPSHOT_ROWS + 1;
      for (Lane l : t.lanes) {
        if (!l.mode().equals("BACKWARD")) {
          // Set before the subjects exist, as Confluent's API allows, so that their first version is checked too.
          registry.setCompatibility(l.subject(), l.mode());
          registry.setCompatibility(l.topic() + "-key", l.mode());
        }
        for (Sink k : l.sinks()) {
          k.engine().createDatabase(k.db());
          connectors.put(k.name(), TypeMatrix.converted(sinkConfig(l, k), l.format(), registryUrl));
        }
        Map<String, String> source;
        if (t.source == Engine.POSTGRES) {
          SharedPostgres.execute(sourceDb, "CREATE PUBLICATION " + l.prefix() + "_pub FOR TABLE public." + l.table());
          source = postgresSource(l);
        } else {
          source = mariaDbSource(l, serverId++);
        }
        connectors.put(l.source(), TypeMatrix.converted(source, l.format(), registryUrl));
      }
    }
    // One `sluice connectors apply` of all of them, which validates every one before it writes the first: a process
    // per connector took a minute for every three on a loaded machine (four ran at a time since), each paying for a
    // JVM's start. A create that meets the rebalance the one before started is answered "a rebalance is expected",
    // which the CLI asks again until Connect takes it.
    TypeMatrix.applyAll(dir, cluster, connectors);
    for (Track t : tracks) {
      for (Lane l : t.lanes) {
        for (Sink k : l.sinks()) {
          awaitSink(l, k, () -> k.engine().number(k.db(), "SELECT count(*) FROM " + k.engine().table(l.table()))
              >= SNAPSHOT_ROWS, "the snapshot of " + SNAPSHOT_ROWS + " rows at " + k.name());
        }
      }
    }
  }

  /** The data plane's GC log ({@code -Xlog:gc}), one line per collection. */
  private static Path gcLog() {
    return dir.resolve("dataplane-gc.log");
  }

  private static Lane lane(String run, Engine source, Format f, String mode, String table, Engine... sinks) {
    String ft = mode.equals("BACKWARD") ? "" : "-ft";
    String name = "evo-" + source.tag + "-" + f.name() + ft;
    String prefix = run + "_" + source.tag + "_" + f.name() + ft.replace('-', '_');
    List<Sink> out = new ArrayList<>();
    for (Engine e : sinks) {
      out.add(new Sink(name + "-" + e.tag + "-sink", e, prefix + "_" + e.tag + "_sink"));
    }
    return new Lane(name, f, mode, source, sourceDb, prefix, table, List.copyOf(out));
  }

  @AfterAll
  static void down() throws Exception {
    try {
      for (Track t : tracks) {
        t.stop();
      }
      if (Files.exists(gcLog())) {
        notes.add(GcPauses.of(Files.readAllLines(gcLog()))
            .summary("the data plane (dataplane.heap: " + DATA_PLANE_HEAP + ")"));
        Files.copy(gcLog(), Path.of("target", "schema-evolution-dataplane-gc.log"),
            java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      }
      writeReport();
      if (up != null) {
        Files.copy(up.stderr(), Path.of("target", "schema-evolution-up.stderr"),
            java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        assertEquals(0, PackagedSluice.down(up), () -> "./sluice up exit on SIGTERM; stderr " + read(up.stderr()));
      }
    } finally {
      if (maria != null) {
        maria.close();
      }
    }
  }

  @Test
  void sixChangesWhileStreaming() throws Exception {
    List<String> failures = Collections.synchronizedList(new ArrayList<>());
    deadline = System.nanoTime() + PATIENCE.toNanos();
    mark("the test starts, the loads begin");
    for (Track t : tracks) {
      t.start();
    }
    ConnectClient.sleep(5000);
    ExecutorService lanes = Executors.newFixedThreadPool(tracks.size());
    List<Future<?>> done = new ArrayList<>();
    for (Track t : tracks) {
      done.add(lanes.submit(() -> {
        evolve(t, failures);
        return null;
      }));
    }
    for (Future<?> f : done) {
      f.get();
    }
    lanes.shutdown();
    for (Track t : tracks) {
      t.stop();
      notes.add(String.format("load on %s's %s: %,d changes in the %.0f s it ran (%.0f changes/s), paused after each"
          + " change until every sink had its rows", t.source.title, t.table, t.changes.get(), t.seconds(),
          t.changes.get() / t.seconds()));
      if (t.failure.get() != null) {
        failures.add("the load on " + t.source.title + "'s " + t.table + " failed: " + t.failure.get());
      }
    }
    for (Track t : tracks) {
      for (Lane l : t.lanes) {
        for (Sink k : l.sinks()) {
          compare(t, l, k, failures);
        }
      }
    }
    if (!failures.isEmpty()) {
      fail(failures.size() + " failure(s):\n  " + String.join("\n  ", failures) + timelineText());
    }
  }

  /** The six changes on one track, each waited for at every sink of every pipeline before the next. */
  private static void evolve(Track t, List<String> failures) throws Exception {
    boolean alerted = false;
    for (int k = 0; k < CHANGES.size(); k++) {
      int phase = k + 1;
      Change change = CHANGES.get(k);
      Map<Lane, List<Integer>> versionsBefore = new LinkedHashMap<>();
      Map<Sink, Map<String, String>> columnsBefore = new LinkedHashMap<>();
      for (Lane l : t.lanes) {
        versionsBefore.put(l, l.registered() ? registry.versions(l.subject()) : List.of());
        for (Sink s : l.sinks()) {
          columnsBefore.put(s, s.engine().columns(s.db(), l.table()));
        }
      }
      t.resume();
      ConnectClient.sleep(BEFORE_CHANGE.toMillis());
      t.change(change.ddl(t.source).formatted(t.table), phase);
      long changed = System.nanoTime();
      mark(t.source.title + "'s " + t.table + ": change " + phase + " (" + change.name() + ") made");
      ConnectClient.sleep(AFTER_CHANGE.toMillis());
      t.pause();
      for (Lane l : t.lanes) {
        boolean[] refused = {false};
        for (Sink s : l.sinks()) {
          awaitSink(l, s, () -> {
            refused[0] = TypeMatrix.failed(connect, l.source());
            return refused[0] || TypeMatrix.failed(connect, s.name()) || reached(l, s, phase);
          }, "rows of phase " + phase + " at " + s.name() + " (" + change.name() + ")");
          if (refused[0]) {
            break;
          }
        }
        mark(l.name() + ": change " + phase + (refused[0] ? " refused" : " at every sink") + ", "
            + secondsSince(changed) + " s after it was made");
        String message = refused[0] ? refusal(l) : null;
        String registryAnswer;
        if (!l.registered()) {
          registryAnswer = "no registry: the schema travels in each record";
        } else if (refused[0]) {
          registryAnswer = "refused: " + rule(message);
        } else {
          List<Integer> after = registry.versions(l.subject());
          registryAnswer = after.equals(versionsBefore.get(l)) ? "no new version (same schema)"
              : "accepted as version" + newVersions(versionsBefore.get(l), after);
        }
        String alert = "";
        if (refused[0]) {
          checkRefusal(l, message, failures);
          checkOthersRun(l, failures);
          if (!alerted) {
            alert = awaitAlert(l, failures);
            alerted = true;
          }
          registryAnswer += forceIn(l, phase, failures);
          mark(l.name() + ": change " + phase + " let in, at every sink " + secondsSince(changed)
              + " s after it was made");
        }
        for (Sink s : l.sinks()) {
          String sinkAction = sinkAction(columnsBefore.get(s), s.engine().columns(s.db(), l.table()));
          String tasks = "source " + connect.status(l.source()).path("tasks").path(0).path("state").asText()
              + (refused[0] ? " again after the restart (FAILED before)" : "") + ", sink "
              + connect.status(s.name()).path("tasks").path(0).path("state").asText() + alert;
          record(phase, new Outcome(l, s, registryAnswer, sinkAction, tasks, message));
          if (TypeMatrix.failed(connect, s.name())) {
            failures.add(s.name() + ", " + change.name() + ": the sink task failed: "
                + TypeMatrix.sinkState(connect, "", s.name()));
          }
        }
        if (!refused[0] && TypeMatrix.failed(connect, l.source())) {
          failures.add(l.name() + ", " + change.name() + ": the source task failed: " + refusal(l));
        }
        String why = refusedBecause(l, phase);
        if (refused[0] && why == null) {
          failures.add(l.name() + ", " + change.name() + ": refused under " + l.mode() + ": " + message);
        } else if (!refused[0] && why != null) {
          failures.add(l.name() + ", " + change.name() + ": accepted, though refused until now (" + why
              + "); take it off REFUSED");
        }
      }
    }
  }

  /** Why the rules call for a refusal of change {@code phase} in this pipeline; null where they call for none. */
  private static String refusedBecause(Lane l, int phase) {
    String key = l.format().name() + "/" + l.mode() + "/" + phase;
    String why = REFUSED.get(key);
    return why != null ? why : REFUSED.get(l.from().name().toLowerCase(java.util.Locale.ROOT) + "/" + key);
  }

  /** " n" or "s n, m": the versions in {@code after} not in {@code before}. */
  private static String newVersions(List<Integer> before, List<Integer> after) {
    List<Integer> added = new ArrayList<>(after);
    added.removeAll(before);
    return (added.size() == 1 ? " " : "s ") + added.stream().map(String::valueOf)
        .collect(java.util.stream.Collectors.joining(", "));
  }

  /** Whether the sink holds a row written in {@code phase} (or later). */
  private static boolean reached(Lane l, Sink s, int phase) {
    return s.engine().number(s.db(), "SELECT coalesce(max(phase), -1) FROM " + s.engine().table(l.table())) >= phase;
  }

  /** A line of the timeline, printed as it happens so that a run's log shows where it is. */
  private static void mark(String event) {
    String line = String.format("%6.1f s  %s", (System.nanoTime() - STARTED) / 1e9, event);
    timeline.add(line);
    System.out.println("SchemaEvolutionIT " + line);
  }

  /** The timeline so far, as a failure's message ends. */
  private static String timelineText() {
    return "\ntimeline:\n  " + String.join("\n  ", timeline);
  }

  private static long secondsSince(long nanos) {
    return Math.round((System.nanoTime() - nanos) / 1e9);
  }

  private static synchronized void record(int phase, Outcome o) {
    outcomes.computeIfAbsent(phase, p -> new LinkedHashMap<>()).put(o.sink().name(), o);
  }

  /** The failed source task's message: the last {@code Caused by} of its trace, else its first line. */
  private static String refusal(Lane l) {
    String trace = connect.status(l.source()).path("tasks").path(0).path("trace").asText("");
    return trace.lines().filter(s -> s.startsWith("Caused by")).reduce((a, b) -> b)
        .orElse(trace.lines().findFirst().orElse("(no trace)"));
  }

  /** The rule a refusal names, as short as the report's table wants it. */
  private static String rule(String message) {
    java.util.regex.Matcher v = java.util.regex.Pattern.compile("with version (\\d+)").matcher(message);
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\b([A-Z]+(?:_[A-Z]+)+)\\b").matcher(message);
    List<String> rules = new ArrayList<>();
    while (m.find()) {
      if (!rules.contains(m.group(1)) && !m.group(1).endsWith("TRANSITIVE") && !m.group(1).startsWith("FULL")) {
        rules.add(m.group(1));
      }
    }
    return rules.isEmpty() ? TypeMatrix.abbreviate(message)
        : String.join(", ", rules) + (v.find() ? " against version " + v.group(1) : "");
  }

  /** A refusal's message names the subject, the versions it was checked against and the rule it broke. */
  private static void checkRefusal(Lane l, String message, List<String> failures) {
    List<String> missing = new ArrayList<>();
    if (!message.contains(l.subject())) {
      missing.add("the subject " + l.subject());
    }
    if (!message.matches("(?s).*[Vv]ersion.*\\d.*")) {
      missing.add("the version");
    }
    if (!message.contains(l.mode())) {
      missing.add("the mode " + l.mode());
    }
    if (!message.matches("(?s).*[A-Z]+_[A-Z_]+.*")) {
      missing.add("the rule");
    }
    if (!missing.isEmpty()) {
      failures.add(l.name() + ": the refusal does not name " + missing + ": " + message);
    }
  }

  /** While one source is stopped by a refusal, every sink runs, and every other source unless a refusal of its own. */
  private static void checkOthersRun(Lane refused, List<String> failures) {
    for (Track t : tracks) {
      for (Lane l : t.lanes) {
        for (Sink s : l.sinks()) {
          if (TypeMatrix.failed(connect, s.name())) {
            failures.add(s.name() + " failed while " + refused.source() + " was stopped by a refusal");
          }
        }
        if (l != refused && TypeMatrix.failed(connect, l.source()) && !refusal(l).contains(REFUSAL)) {
          failures.add(l.source() + " failed while " + refused.source() + " was stopped by a refusal: "
              + refusal(l));
        }
      }
    }
  }

  /** How a source stopped by the registry's refusal begins its message. */
  private static final String REFUSAL = "The schema registry refused the new";

  /** Waits for ConnectConnectorDown of the refused source at the alert router; what fired, and after how long. */
  private static String awaitAlert(Lane l, List<String> failures) {
    long start = System.nanoTime();
    long deadline = start + Duration.ofSeconds(90).toNanos();
    while (System.nanoTime() < deadline) {
      try {
        JsonNode alerts = SluiceNodes.get(alertsUrl + "/api/v2/alerts?filter=" + java.net.URLEncoder.encode(
            "alertname=\"ConnectConnectorDown\"", java.nio.charset.StandardCharsets.UTF_8));
        for (JsonNode a : alerts) {
          if (a.path("labels").path("connector").asText().equals(l.source())) {
            return "; ConnectConnectorDown (" + a.path("labels").path("severity").asText() + ") at the router "
                + Duration.ofNanos(System.nanoTime() - start).toSeconds() + " s after the refusal was seen: "
                + a.path("annotations").path("summary").asText();
          }
        }
      } catch (Exception notYet) {
        // asked again
      }
      ConnectClient.sleep(1000);
    }
    failures.add(l.name() + ": no ConnectConnectorDown for " + l.source() + " at the router within 90 s");
    return "; no alert within 90 s";
  }

  /**
   * The operator's way past a refusal they accept: the subject at NONE, the failed task restarted, the subject back
   * at its mode once the change's rows are at every sink (a change may bring more than one schema: Debezium sends a
   * dropped PostgreSQL column first as optional, its optionality no longer known, then without it). Nothing of the
   * load may be lost on the way.
   */
  private static String forceIn(Lane l, int phase, List<String> failures) {
    List<Integer> before = registry.versions(l.subject());
    registry.setCompatibility(l.subject(), "NONE");
    try {
      connect.restart(l.source(), true, true);
      Sink first = l.sinks().get(0);
      awaitSink(l, first, () -> !TypeMatrix.failed(connect, l.source()), "the restarted task of " + l.source());
      for (Sink s : l.sinks()) {
        awaitSink(l, s, () -> TypeMatrix.failed(connect, l.source()) || reached(l, s, phase),
            "rows of phase " + phase + " at " + s.name() + " after the restart");
      }
    } finally {
      registry.setCompatibility(l.subject(), l.mode());
    }
    if (TypeMatrix.failed(connect, l.source())) {
      failures.add(l.name() + ": the source failed again after its schema was let in: " + refusal(l));
    }
    return " (let in as version" + newVersions(before, registry.versions(l.subject())) + ": NONE for the task's"
        + " restart, " + l.mode() + " again after)";
  }

  /** What the sink did to its table: columns added, types changed, NOT NULL dropped; "nothing" if nothing. */
  private static String sinkAction(Map<String, String> before, Map<String, String> after) {
    List<String> done = new ArrayList<>();
    after.forEach((c, type) -> {
      String was = before.get(c);
      if (was == null) {
        done.add("added " + c + " " + type);
      } else if (!was.equals(type)) {
        done.add(c + " " + was + " → " + type);
      }
    });
    return done.isEmpty() ? "nothing" : String.join("; ", done);
  }

  /**
   * Every source row against its sink row, column by column, once the sink holds the source's last row: the same
   * ids, and each column's text equal. A row last written before the rename holds its value under the old name at
   * the sink (its change event named that column, and the rename made no event); a row inserted after the drop has
   * the dropped column NULL at the sink. The sink's columns at the end: {@code qty} a NOT NULL bigint, {@code note}
   * no longer a varchar(20), the dropped {@code legacy} nullable.
   */
  private static void compare(Track t, Lane l, Sink k, List<String> failures) throws Exception {
    int last = t.next - 1;
    String sinkTable = k.engine().table(l.table());
    awaitSink(l, k, () -> k.engine().number(k.db(), "SELECT count(*) FROM " + sinkTable + " WHERE id = " + last) == 1
        || TypeMatrix.failed(connect, k.name()), "the last row " + last + " at " + k.name());
    ConnectClient.sleep(2000); // the deletes of the last round, after its inserts
    // Each value read as text by the JDBC driver (getString), the same for an integer of either database.
    String columns = "item, qty, note, %s, phase, extra, region";
    Map<Integer, List<String>> source = rows(t.source, sourceDb, "SELECT id, " + columns.formatted("title") + " FROM "
        + t.source.table(l.table()));
    Map<Integer, List<String>> sink = rows(k.engine(), k.db(), "SELECT id, " + columns.formatted(
        "CASE WHEN phase < " + RENAME + " THEN label ELSE title END") + " FROM " + sinkTable);
    String[] names = {"item", "qty", "note", "title", "phase", "extra", "region"};
    Map<String, Integer> differing = new TreeMap<>();
    List<String> examples = new ArrayList<>();
    int missing = 0;
    for (Map.Entry<Integer, List<String>> row : source.entrySet()) {
      List<String> have = sink.get(row.getKey());
      int phase = Integer.parseInt(row.getValue().get(4));
      rowsByPhase.computeIfAbsent(k.name(), n -> new TreeMap<>()).merge(phase, 1, Integer::sum);
      if (have == null || !row.getValue().equals(have)) {
        lostByPhase.computeIfAbsent(k.name(), n -> new TreeMap<>()).merge(phase, 1, Integer::sum);
      }
      if (have == null) {
        missing++;
        if (examples.size() < 5) {
          examples.add("row " + row.getKey() + " missing");
        }
        continue;
      }
      for (int i = 0; i < names.length; i++) {
        if (!java.util.Objects.equals(row.getValue().get(i), have.get(i))) {
          differing.merge(names[i], 1, Integer::sum);
          if (examples.size() < 5) {
            examples.add("row " + row.getKey() + " " + names[i] + ": " + row.getValue().get(i) + " arrives as "
                + have.get(i));
          }
        }
      }
    }
    long extra = sink.keySet().stream().filter(id -> !source.containsKey(id)).count();
    long legacy = k.engine().number(k.db(), "SELECT count(*) FROM " + sinkTable + " WHERE legacy IS NOT NULL AND id >= "
        + t.firstIdOfPhase.get(DROP));
    long defaulted = k.engine().number(k.db(), "SELECT count(*) FROM " + sinkTable + " WHERE phase < " + ADD_DEFAULT
        + " AND region = 'eu'");
    String lost = String.format("%,d source rows: %d missing, %d extra, %s%s; rows inserted after the drop with"
        + " legacy set: %d; rows last written before the column with a default that the sink gave it: %,d",
        source.size(), missing, extra, differing.isEmpty() ? "every column equal" : "differing " + differing,
        examples.isEmpty() ? "" : " (" + String.join("; ", examples) + ")", legacy, defaulted);
    Map<String, String> types = k.engine().columns(k.db(), l.table());
    lostRows.put(k.name(), l.direction(k) + ", " + l.format().name() + ", " + l.mode() + ": " + lost
        + "; its columns at the end: " + types);
    if (missing > 0 || extra > 0 || !differing.isEmpty() || legacy > 0) {
      failures.add(k.name() + ": " + lost);
    }
    String qty = types.getOrDefault("qty", "(none)");
    String note = types.getOrDefault("note", "(none)");
    String legacyType = types.getOrDefault("legacy", "(none)");
    if (!qty.startsWith("bigint") || !qty.contains("NOT NULL")) {
      failures.add(k.name() + ": sink column qty is " + qty + ", not a NOT NULL bigint");
    }
    if (note.contains("(20)") || note.equals("(none)")) {
      failures.add(k.name() + ": sink column note is " + note + ", not widened");
    }
    if (legacyType.contains("NOT NULL") || legacyType.equals("(none)")) {
      failures.add(k.name() + ": sink column legacy is " + legacyType + ", not kept as a nullable column");
    }
  }

  private static Map<Integer, List<String>> rows(Engine e, String db, String sql) throws SQLException {
    Map<Integer, List<String>> out = new java.util.HashMap<>();
    try (Connection c = e.connect(db); Statement s = c.createStatement()) {
      s.setFetchSize(e == Engine.POSTGRES ? 5000 : 0);
      try (ResultSet rs = s.executeQuery(sql)) {
        int n = rs.getMetaData().getColumnCount();
        while (rs.next()) {
          List<String> row = new ArrayList<>(n - 1);
          for (int i = 2; i <= n; i++) {
            row.add(rs.getString(i));
          }
          out.put(rs.getInt(1), row);
        }
      }
    }
    return out;
  }

  /** Waits up to {@link #SETTLE} for {@code done}, which may fail on a table not there yet. */
  private static void awaitSink(Lane l, Sink k, java.util.function.BooleanSupplier done, String what) {
    long settle = System.nanoTime() + SETTLE.toNanos();
    long until = Math.min(settle, deadline);
    while (true) {
      try {
        if (done.getAsBoolean()) {
          return;
        }
      } catch (RuntimeException notYet) {
        // the table, subject or task is not there yet
      }
      if (System.nanoTime() > until) {
        throw new AssertionError(what + " did not come within " + (until == settle ? SETTLE.toSeconds() + " s"
            : "the test's " + PATIENCE.toMinutes() + " minutes") + "; " + TypeMatrix.sinkState(connect, "", k.name())
            + "source: " + connect.status(l.source()) + timelineText());
      }
      ConnectClient.sleep(250);
    }
  }

  private static Map<String, String> postgresSource(Lane l) {
    Map<String, String> c = PostgresSource.of(sourceDb, l.prefix(), l.prefix()).tables("public\\." + l.table())
        .config();
    // A publication of the lane's table, made beforehand: Debezium's `filtered` mode would read pg_publication_tables on
    // its replication connection at each start, which makes PostgreSQL's walsender decode rows written before a
    // column's type change with the table's later descriptor, and crash (docs/schemas.md).
    c.put("publication.name", l.prefix() + "_pub");
    c.put("publication.autocreate.mode", "disabled");
    return c;
  }

  /** Debezium's MariaDB source (binlog) of the lane's table, with Sluice's defaults. */
  private static Map<String, String> mariaDbSource(Lane l, int serverId) {
    Map<String, String> c = new LinkedHashMap<>(maria.sourceConfig(l.prefix(), String.valueOf(serverId)));
    c.put("database.user", "sluice");
    c.put("database.password", "sluice");
    c.put("database.include.list", sourceDb);
    c.put("table.include.list", sourceDb + "\\." + l.table());
    // The sinks' databases are on the same server, where the sinks change their tables while the sources read the
    // structure of every table of the server (Debezium's default).
    c.put("schema.history.internal.store.only.captured.tables.ddl", "true");
    return c;
  }

  private static Map<String, String> sinkConfig(Lane l, Sink k) {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("connector.class", "io.sluice.sink.jdbc.SluiceJdbcSinkConnector");
    if (k.engine() == Engine.POSTGRES) {
      c.put("connection.url", SharedPostgres.jdbcUrl(k.db()));
      c.put("connection.username", Pipeline.CDC_USER);
      c.put("connection.password", Pipeline.CDC_PASSWORD);
    } else {
      c.put("connection.url", "jdbc:mariadb://127.0.0.1:" + maria.port() + "/" + k.db());
      c.put("connection.username", "sluice");
      c.put("connection.password", "sluice");
    }
    c.put("insert.mode", "upsert");
    c.put("delete.enabled", "true");
    c.put("primary.key.mode", "record_key");
    c.put("schema.evolution", "basic");
    c.put("topics", l.topic());
    c.put("collection.name.format", "${source.table}");
    c.put("tasks.max", "1");
    return c;
  }

  /** The report: one table of outcomes (change × pipeline × sink), the rows compared, the refusals' messages. */
  private static void writeReport() throws java.io.IOException {
    StringBuilder md = new StringBuilder("# Live schema evolution: PostgreSQL and MariaDB, both ways\n\n");
    md.append("| change | direction | format | mode | registry | sink table | rows lost | tasks |\n"
        + "|---|---|---|---|---|---|---|---|\n");
    Map<String, String> messages = new LinkedHashMap<>();
    outcomes.forEach((phase, bySink) -> bySink.values().stream()
        .sorted(java.util.Comparator.comparing((Outcome o) -> o.lane().mode()).thenComparing(o -> o.lane().from())
            .thenComparing(o -> o.sink().engine()).thenComparing(o -> TypeMatrix.FORMATS.indexOf(o.lane().format())))
        .forEach(o -> {
          Lane l = o.lane();
          String sink = o.sink().name();
          md.append("| ").append(CHANGES.get(phase - 1).name()).append(" | ").append(l.direction(o.sink()))
              .append(" | ").append(l.format().name()).append(" | ").append(l.registered() ? l.mode() : "—")
              .append(" | ").append(TypeMatrix.cell(o.registry())).append(" | ")
              .append(TypeMatrix.cell(o.sinkAction())).append(" | ")
              .append(rowsByPhase.containsKey(sink) ? String.format("%,d of %,d",
                  lostByPhase.getOrDefault(sink, Map.of()).getOrDefault(phase, 0),
                  rowsByPhase.get(sink).getOrDefault(phase, 0)) : "not compared")
              .append(" | ").append(TypeMatrix.cell(o.tasks())).append(" |\n");
          if (o.message() != null) {
            messages.put(CHANGES.get(phase - 1).name() + ", " + l.name(), o.message());
          }
        }));
    md.append("\n## Rows at the end, source against sink\n\n");
    lostRows.forEach((sink, s) -> md.append("- ").append(sink).append(": ").append(s).append('\n'));
    md.append("\n## Refusals, as the source task's failure says them\n\n");
    messages.forEach((k, m) -> md.append("- ").append(k).append(": `").append(m.replace("`", "'")).append("`\n"));
    md.append("\n## Notes\n\n");
    notes.forEach(n -> md.append("- ").append(n).append('\n'));
    md.append("\n## Timeline\n\n```\n");
    timeline.forEach(n -> md.append(n).append('\n'));
    md.append("```\n");
    Path out = Path.of("target", "schema-evolution.md");
    Files.createDirectories(out.getParent());
    Files.writeString(out, md.toString());
    System.out.println(md);
  }

  /**
   * A source table, the pipelines reading it, and its load: every {@link #ROUND} {@link #ROWS} inserts, updates of
   * the round before's rows and a delete, each row written with the phase (changes made so far) it was written in.
   */
  private static final class Track {
    final Engine source;
    final String table;
    final List<Lane> lanes;
    /** Held through a round, and through a change, so that no round runs with the columns of the phase before. */
    private final Object round = new Object();
    private volatile int phase;
    volatile int next;
    final Map<Integer, Integer> firstIdOfPhase = new java.util.concurrent.ConcurrentHashMap<>();
    final AtomicLong changes = new AtomicLong();
    final AtomicReference<Exception> failure = new AtomicReference<>();
    private ScheduledExecutorService timer;
    private Connection connection;
    /** Paused, the rounds write nothing; the time the load ran is summed over its runs. */
    private volatile boolean paused;
    private long resumed;
    private long ran;

    /** Rows each round inserts and updates. */
    private final int rows;

    Track(Engine source, String table, List<Lane> lanes, int rows) {
      this.source = source;
      this.table = table;
      this.lanes = lanes;
      this.rows = rows;
    }

    /**
     * An insert of rows {@code from}..{@code to} with the columns of the current phase, its values written out (the
     * same SQL in either database).
     */
    String insert(int from, int to) {
      int p = phase;
      List<String> columns = new ArrayList<>(List.of("id", "item", "qty", "note"));
      if (p < DROP) {
        columns.add("legacy");
      }
      columns.add(p < RENAME ? "label" : "title");
      columns.add("phase");
      if (p >= 1) {
        columns.add("extra");
      }
      if (p >= ADD_DEFAULT) {
        columns.add("region");
      }
      StringBuilder sql = new StringBuilder("INSERT INTO ").append(source.table(table)).append(" (")
          .append(String.join(", ", columns)).append(") VALUES ");
      for (int g = from; g <= to; g++) {
        sql.append(g == from ? "(" : ", (").append(g).append(", 'item-").append(g).append("', ")
            .append(p >= 4 ? 3_000_000_000L + g : g).append(", '").append(p >= 5 ? "n".repeat(30) : "n").append(g)
            .append('\'');
        if (p < DROP) {
          sql.append(", 'legacy-").append(g).append('\'');
        }
        sql.append(", 'label-").append(g).append("', ").append(p);
        if (p >= 1) {
          sql.append(", 'extra-").append(g).append('\'');
        }
        if (p >= ADD_DEFAULT) {
          sql.append(", 'us'");
        }
        sql.append(')');
      }
      return sql.toString();
    }

    void start() throws SQLException {
      connection = source.connect(sourceDb);
      resumed = System.nanoTime();
      timer = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "load-" + source.tag + "-" + table));
      timer.scheduleAtFixedRate(this::round, 0, ROUND.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void round() {
      synchronized (round) {
        if (paused || failure.get() != null) {
          return;
        }
        int from = next;
        try (Statement s = connection.createStatement()) {
          long n = s.executeUpdate(insert(from, from + rows - 1));
          n += s.executeUpdate("UPDATE " + source.table(table) + " SET qty = qty + 1, phase = " + phase
              + " WHERE id BETWEEN " + (from - rows) + " AND " + (from - 1));
          n += s.executeUpdate("DELETE FROM " + source.table(table) + " WHERE id = " + (from - 20 * rows));
          changes.addAndGet(n);
          next = from + rows;
        } catch (SQLException e) {
          failure.set(e);
        }
      }
    }

    /** Makes a change between two rounds; the rounds after it write the columns of {@code newPhase}. */
    void change(String ddl, int newPhase) throws SQLException {
      synchronized (round) {
        try (Statement s = connection.createStatement()) {
          s.execute(ddl);
        }
        phase = newPhase;
        firstIdOfPhase.put(newPhase, next);
      }
    }

    /** Stops the rounds after the one under way, until {@link #resume}. */
    void pause() {
      synchronized (round) {
        if (!paused) {
          paused = true;
          ran += System.nanoTime() - resumed;
        }
      }
    }

    void resume() {
      synchronized (round) {
        if (paused) {
          paused = false;
          resumed = System.nanoTime();
        }
      }
    }

    /** How long the load ran, pauses left out. */
    double seconds() {
      synchronized (round) {
        return (ran + (paused ? 0 : System.nanoTime() - resumed)) / 1e9;
      }
    }

    void stop() throws Exception {
      if (timer == null) {
        return;
      }
      pause();
      timer.shutdown();
      timer.awaitTermination(30, TimeUnit.SECONDS);
      connection.close();
      timer = null;
    }
  }
}
