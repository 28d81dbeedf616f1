package io.sluice.app;

import static io.sluice.app.PackagedSluice.freePort;
import static io.sluice.app.PackagedSluice.read;
import static io.sluice.connect.testing.SharedPostgres.execute;
import static io.sluice.connect.testing.SharedPostgres.number;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.app.TypeMatrix.Format;
import io.sluice.connect.client.ConnectRestClient;
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
 * Live schema evolution, PostgreSQL to PostgreSQL through the packaged {@code ./sluice up}: while a load of about
 * 1,000 changes a second runs on a source table, six changes are made to it one after another ({@link #CHANGES}),
 * each read by four pipelines side by side, one per format, whose subjects keep the registry's default mode
 * (BACKWARD), and by a fifth, Avro, whose subjects are FULL_TRANSITIVE, on a table of its own with the same load and
 * the same changes, so that its refusals hold up no one else. Sluice's JDBC sink writes each into a database of its
 * own with {@code schema.evolution=basic}.
 *
 * <p>Per change and pipeline it records what the registry did (a new version, or a refusal in the source task's
 * failure), what the sink did to its table (columns added, types widened, NOT NULL dropped) and the tasks' states. A
 * refused change stops only its own source: its failure names the subject, the versions and the rule, the bundled
 * ConnectConnectorDown rule fires for it (its {@code for:} shortened in this test's copy), and the operator's way
 * past it (the subject at NONE for a restart of the task, then FULL_TRANSITIVE again) loses nothing. At the end every
 * source row is compared with its sink row, column by column. The table of outcomes goes to
 * {@code target/schema-evolution.md}.
 */
@Timeout(value = 20, unit = TimeUnit.MINUTES)
class SchemaEvolutionIT {
  /** A change to the source table, made while the load runs; {@code %s} is the table. */
  record Change(String name, String ddl) {}

  static final List<Change> CHANGES = List.of(
      new Change("add a nullable column", "ALTER TABLE public.%s ADD COLUMN extra text"),
      new Change("add a NOT NULL column with a default",
          "ALTER TABLE public.%s ADD COLUMN region text NOT NULL DEFAULT 'eu'"),
      new Change("drop a (NOT NULL) column", "ALTER TABLE public.%s DROP COLUMN legacy"),
      new Change("widen int to bigint", "ALTER TABLE public.%s ALTER COLUMN qty TYPE bigint"),
      new Change("widen varchar(20) to text", "ALTER TABLE public.%s ALTER COLUMN note TYPE text"),
      new Change("rename a column", "ALTER TABLE public.%s RENAME COLUMN label TO title"));

  /**
   * The refusals under a pipeline's mode that the rules call for, as {@code format/mode/change number} → why; every
   * other change must be accepted, and each of these refused. (FULL_TRANSITIVE: a version forced in past a refusal
   * stays among those every later one is checked against.)
   */
  static final Map<String, String> REFUSED = Map.of(
      "jsonschema/BACKWARD/3", "Sluice's JSON Schema converter writes a struct as a closed content model (so that an"
          + " added column is compatible); a property removed from a closed model is not",
      "jsonschema/BACKWARD/6", "a rename is a property removed and another added: removed from a closed content model",
      "avro/FULL_TRANSITIVE/3", "Debezium first sends the dropped column as optional (its optionality unknown once"
          + " dropped), which an old reader cannot read (FORWARD), then without it, which has no default",
      "avro/FULL_TRANSITIVE/4", "an old reader of int cannot read long",
      "avro/FULL_TRANSITIVE/5", "version 1 (with the dropped field, no default) is still checked: transitive",
      "avro/FULL_TRANSITIVE/6", "version 1 (with the dropped field, no default) is still checked: transitive");

  /** The phase that follows each change (a row carries the phase it was last written in). */
  private static final int ADD_DEFAULT = 2;
  private static final int DROP = 3;
  private static final int RENAME = 6;

  /** Rows each round inserts, and updates (the round before's): with a delete, about 1,000 changes a second. */
  private static final int ROWS = 50;
  private static final Duration ROUND = Duration.ofMillis(100);
  private static final int SNAPSHOT_ROWS = 2000;
  /** How long one wait may take: the machine may be shared, and a sink catching up on it is late, not lost. */
  private static final Duration SETTLE = Duration.ofSeconds(240);

  @TempDir static Path dir;
  private static PackagedSluice.Up up;
  private static ConnectRestClient connect;
  private static SchemaRegistryClient registry;
  private static String registryUrl;
  private static String alertsUrl;
  private static String[] cluster;
  private static String sourceDb;
  private static final List<Track> tracks = new ArrayList<>();
  /** change → pipeline → outcome, for the report's table. */
  private static final Map<Integer, Map<String, Outcome>> outcomes = new TreeMap<>();
  private static final Map<String, String> lostRows = Collections.synchronizedMap(new TreeMap<>());
  /** Per pipeline, the source rows last written in each phase, and of those the ones the sink does not equal. */
  private static final Map<String, Map<Integer, Integer>> rowsByPhase = new java.util.concurrent.ConcurrentHashMap<>();
  private static final Map<String, Map<Integer, Integer>> lostByPhase = new java.util.concurrent.ConcurrentHashMap<>();
  private static final List<String> notes = Collections.synchronizedList(new ArrayList<>());

  /** A pipeline: a source in one format reading a track's table, and Sluice's sink into a database of its own. */
  record Lane(String name, Format format, String mode, String sinkDb, String prefix, String table) {
    String source() {
      return name + "-source";
    }

    String sink() {
      return name + "-sink";
    }

    String subject() {
      return prefix + ".public." + table + "-value";
    }

    boolean registered() {
      return format.converter() != null;
    }
  }

  /** What one change did in one pipeline. */
  record Outcome(String registry, String sink, String tasks, boolean refused, String message) {}

  @BeforeAll
  static void start() throws Exception {
    int kafka = freePort();
    int connectPort = freePort();
    int registryPort = freePort();
    int alerts = freePort();
    int exporter = freePort();
    registryUrl = "http://127.0.0.1:" + registryPort;
    alertsUrl = "http://127.0.0.1:" + alerts;
    Path prometheus = AlertRehearsal.prometheusConfig(dir, exporter, alerts);
    up = PackagedSluice.up(dir, List.of("--data-dir", dir.resolve("data").toString(), "--kafka-port", "" + kafka,
        "--connect-port", "" + connectPort, "--registry-port", "" + registryPort, "--metrics-port", "" + freePort(),
        "--alerts-port", "" + alerts, "--exporter-port", "" + exporter, "--metrics-config", prometheus.toString()));
    connect = new ConnectRestClient("http://127.0.0.1:" + connectPort);
    registry = new SchemaRegistryClient(registryUrl);
    cluster = new String[] {"--connect-url", connect.baseUrl(), "--bootstrap", "127.0.0.1:" + kafka,
        "--registry", registryUrl};
    String run = "evo" + ProcessHandle.current().pid();
    sourceDb = run + "_src";
    SharedPostgres.createDatabase(sourceDb);
    Pipeline.ensureCdcUser();

    List<Lane> backward = new ArrayList<>();
    for (Format f : TypeMatrix.FORMATS) {
      backward.add(lane(run, f, "BACKWARD", "evo"));
    }
    tracks.add(new Track("evo", backward, ROWS));
    Format avro = TypeMatrix.FORMATS.get(1);
    // A quarter of the load: its table's changes are decoded by every source's slot, and what it measures is the
    // registry's answers and nothing lost through a refusal, which any rate shows.
    tracks.add(new Track("evo_ft", List.of(lane(run, avro, "FULL_TRANSITIVE", "evo_ft")), ROWS / 4));
    for (Track t : tracks) {
      execute(sourceDb, "CREATE TABLE public." + t.table + " (id int PRIMARY KEY, item text NOT NULL, qty int NOT NULL,"
          + " note varchar(20), legacy text NOT NULL, label text, phase int NOT NULL)");
      execute(sourceDb, t.insert(1, SNAPSHOT_ROWS));
      t.next = SNAPSHOT_ROWS + 1;
      for (Lane l : t.lanes) {
        SharedPostgres.createDatabase(l.sinkDb());
        if (!l.mode().equals("BACKWARD")) {
          // Set before the subjects exist, as Confluent's API allows, so that their first version is checked too.
          registry.setCompatibility(l.subject(), l.mode());
          registry.setCompatibility(l.prefix() + ".public." + l.table() + "-key", l.mode());
        }
        TypeMatrix.apply(dir, cluster, l.sink(), TypeMatrix.converted(sinkConfig(l), l.format(), registryUrl));
        execute(sourceDb, "CREATE PUBLICATION " + l.prefix() + "_pub FOR TABLE public." + l.table());
        TypeMatrix.apply(dir, cluster, l.source(), TypeMatrix.converted(sourceConfig(l), l.format(), registryUrl));
      }
    }
    for (Track t : tracks) {
      for (Lane l : t.lanes) {
        awaitSink(l, () -> number(l.sinkDb(), "SELECT count(*) FROM public." + l.table()) >= SNAPSHOT_ROWS,
            "the snapshot of " + SNAPSHOT_ROWS + " rows at " + l.sink());
      }
    }
  }

  private static Lane lane(String run, Format f, String mode, String table) {
    String name = "evo-" + f.name() + (mode.equals("BACKWARD") ? "" : "-ft");
    String prefix = run + "_" + f.name() + (mode.equals("BACKWARD") ? "" : "_ft");
    return new Lane(name, f, mode, prefix + "_sink", prefix, table);
  }

  @AfterAll
  static void down() throws Exception {
    for (Track t : tracks) {
      t.stop();
    }
    writeReport();
    if (up != null) {
      Files.copy(up.stderr(), Path.of("target", "schema-evolution-up.stderr"),
          java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      assertEquals(0, PackagedSluice.down(up), () -> "./sluice up exit on SIGTERM; stderr " + read(up.stderr()));
    }
  }

  @Test
  void sixChangesWhileStreaming() throws Exception {
    List<String> failures = Collections.synchronizedList(new ArrayList<>());
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
      notes.add(String.format("load on %s: %,d changes in %.0f s, %.0f changes/s", t.table, t.changes.get(),
          t.seconds(), t.changes.get() / t.seconds()));
      if (t.failure.get() != null) {
        failures.add("the load on " + t.table + " failed: " + t.failure.get());
      }
    }
    for (Track t : tracks) {
      for (Lane l : t.lanes) {
        compare(t, l, failures);
      }
    }
    if (!failures.isEmpty()) {
      fail(failures.size() + " failure(s):\n  " + String.join("\n  ", failures));
    }
  }

  /** The six changes on one track, each waited for at every pipeline before the next. */
  private static void evolve(Track t, List<String> failures) throws Exception {
    boolean alerted = false;
    for (int k = 0; k < CHANGES.size(); k++) {
      int phase = k + 1;
      Change change = CHANGES.get(k);
      Map<Lane, List<Integer>> versionsBefore = new LinkedHashMap<>();
      Map<Lane, Map<String, String>> columnsBefore = new LinkedHashMap<>();
      for (Lane l : t.lanes) {
        versionsBefore.put(l, l.registered() ? registry.versions(l.subject()) : List.of());
        columnsBefore.put(l, columns(l.sinkDb(), l.table()));
      }
      t.change(change.ddl().formatted(t.table), phase);
      for (Lane l : t.lanes) {
        boolean[] refused = {false};
        awaitSink(l, () -> {
          refused[0] = TypeMatrix.failed(connect, l.source());
          return refused[0] || TypeMatrix.failed(connect, l.sink())
              || number(l.sinkDb(), "SELECT coalesce(max(phase), -1) FROM public." + l.table()) >= phase;
        }, "rows of phase " + phase + " at " + l.sink() + " (" + change.name() + ")");
        String message = refused[0] ? refusal(l) : null;
        String registryAnswer;
        if (!l.registered()) {
          registryAnswer = "no registry: the schema travels in each record";
        } else if (refused[0]) {
          registryAnswer = "refused: " + rule(message);
        } else {
          List<Integer> after = registry.versions(l.subject());
          registryAnswer = after.equals(versionsBefore.get(l)) ? "no new version (same schema)"
              : "accepted as version " + after.get(after.size() - 1);
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
        }
        String sinkAction = sinkAction(columnsBefore.get(l), columns(l.sinkDb(), l.table()));
        String tasks = "source " + connect.status(l.source()).path("tasks").path(0).path("state").asText()
            + (refused[0] ? " again after the restart (FAILED before)" : "") + ", sink "
            + connect.status(l.sink()).path("tasks").path(0).path("state").asText() + alert;
        record(phase, l, new Outcome(registryAnswer, sinkAction, tasks, refused[0], message));
        if (!refused[0] && TypeMatrix.failed(connect, l.source())) {
          failures.add(l.name() + ", " + change.name() + ": the source task failed: " + refusal(l));
        }
        if (TypeMatrix.failed(connect, l.sink())) {
          failures.add(l.name() + ", " + change.name() + ": the sink task failed: "
              + TypeMatrix.sinkState(connect, "", l.sink()));
        }
        String key = l.format().name() + "/" + l.mode() + "/" + phase;
        if (refused[0] && !REFUSED.containsKey(key)) {
          failures.add(l.name() + ", " + change.name() + ": refused under " + l.mode() + ": " + message);
        } else if (!refused[0] && REFUSED.containsKey(key)) {
          failures.add(l.name() + ", " + change.name() + ": accepted, though refused until now ("
              + REFUSED.get(key) + "); take it off REFUSED");
        }
      }
      ConnectClient.sleep(3000); // rows of the new schema, before the next change
    }
  }

  private static synchronized void record(int phase, Lane l, Outcome o) {
    outcomes.computeIfAbsent(phase, p -> new LinkedHashMap<>()).put(l.name(), o);
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
        if (TypeMatrix.failed(connect, l.sink())) {
          failures.add(l.sink() + " failed while " + refused.source() + " was stopped by a refusal");
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
   * at its mode once the change's rows are at the sink (a change may bring more than one schema: Debezium sends a
   * dropped column first as optional, its optionality no longer known, then without it). Nothing of the load may be
   * lost on the way.
   */
  private static String forceIn(Lane l, int phase, List<String> failures) {
    List<Integer> before = registry.versions(l.subject());
    registry.setCompatibility(l.subject(), "NONE");
    try {
      connect.restart(l.source(), true, true);
      awaitSink(l, () -> !TypeMatrix.failed(connect, l.source()), "the restarted task of " + l.source());
      awaitSink(l, () -> TypeMatrix.failed(connect, l.source())
          || number(l.sinkDb(), "SELECT coalesce(max(phase), -1) FROM public." + l.table()) >= phase,
          "rows of phase " + phase + " at " + l.sink() + " after the restart");
    } finally {
      registry.setCompatibility(l.subject(), l.mode());
    }
    if (TypeMatrix.failed(connect, l.source())) {
      failures.add(l.name() + ": the source failed again after its schema was let in: " + refusal(l));
    }
    List<Integer> forced = new ArrayList<>(registry.versions(l.subject()));
    forced.removeAll(before);
    return " (let in as version" + (forced.size() == 1 ? " " : "s ") + forced.stream().map(String::valueOf)
        .collect(java.util.stream.Collectors.joining(", ")) + ": NONE for the task's restart, " + l.mode()
        + " again after)";
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

  /** Column → "type [NOT NULL] [DEFAULT …]" of a table. */
  private static Map<String, String> columns(String db, String table) throws SQLException {
    Map<String, String> out = new LinkedHashMap<>();
    try (Connection c = SharedPostgres.connect(db); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT a.attname, format_type(a.atttypid, a.atttypmod)"
            + " || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END"
            + " || coalesce(' DEFAULT ' || pg_get_expr(d.adbin, d.adrelid), '')"
            + " FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum"
            + " WHERE a.attrelid = to_regclass('public." + table + "') AND a.attnum > 0 AND NOT a.attisdropped"
            + " ORDER BY a.attnum")) {
      while (rs.next()) {
        out.put(rs.getString(1), rs.getString(2));
      }
    }
    return out;
  }

  /**
   * Every source row against its sink row, column by column, once the sink holds the source's last row: the same
   * ids, and each column's text equal. A row last written before the rename holds its value under the old name at
   * the sink (its change event named that column, and the rename made no event); a row inserted after the drop has
   * the dropped column NULL at the sink.
   */
  private static void compare(Track t, Lane l, List<String> failures) throws Exception {
    int last = t.next - 1;
    awaitSink(l, () -> number(l.sinkDb(), "SELECT count(*) FROM public." + l.table() + " WHERE id = " + last) == 1
        || TypeMatrix.failed(connect, l.sink()), "the last row " + last + " at " + l.sink());
    ConnectClient.sleep(2000); // the deletes of the last round, after its inserts
    String columns = "item, qty::text, note, %s, phase::text, extra, region";
    Map<Integer, List<String>> source = rows(sourceDb, "SELECT id, " + columns.formatted("title") + " FROM public."
        + l.table());
    Map<Integer, List<String>> sink = rows(l.sinkDb(), "SELECT id, " + columns.formatted(
        "CASE WHEN phase < " + RENAME + " THEN label ELSE title END") + " FROM public." + l.table());
    String[] names = {"item", "qty", "note", "title", "phase", "extra", "region"};
    Map<String, Integer> differing = new TreeMap<>();
    List<String> examples = new ArrayList<>();
    int missing = 0;
    for (Map.Entry<Integer, List<String>> row : source.entrySet()) {
      List<String> have = sink.get(row.getKey());
      int phase = Integer.parseInt(row.getValue().get(4));
      rowsByPhase.computeIfAbsent(l.name(), n -> new TreeMap<>()).merge(phase, 1, Integer::sum);
      if (have == null || !row.getValue().equals(have)) {
        lostByPhase.computeIfAbsent(l.name(), n -> new TreeMap<>()).merge(phase, 1, Integer::sum);
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
    long legacy = number(l.sinkDb(), "SELECT count(*) FROM public." + l.table() + " WHERE legacy IS NOT NULL AND id >= "
        + t.firstIdOfPhase.get(DROP));
    long defaulted = number(l.sinkDb(), "SELECT count(*) FROM public." + l.table() + " WHERE phase < " + ADD_DEFAULT
        + " AND region = 'eu'");
    String lost = String.format("%,d source rows: %d missing, %d extra, %s%s; rows inserted after the drop with"
        + " legacy set: %d; rows last written before the column with a default that the sink gave it: %,d",
        source.size(), missing, extra, differing.isEmpty() ? "every column equal" : "differing " + differing,
        examples.isEmpty() ? "" : " (" + String.join("; ", examples) + ")", legacy, defaulted);
    lostRows.put(l.name(), lost);
    if (missing > 0 || extra > 0 || !differing.isEmpty() || legacy > 0) {
      failures.add(l.name() + ": " + lost);
    }
    Map<String, String> types = columns(l.sinkDb(), l.table());
    for (String[] want : new String[][] {{"qty", "bigint NOT NULL"}, {"note", "text"}, {"legacy", "text"}}) {
      if (!types.getOrDefault(want[0], "(none)").equals(want[1])) {
        failures.add(l.name() + ": sink column " + want[0] + " is " + types.get(want[0]) + ", not " + want[1]);
      }
    }
  }

  private static Map<Integer, List<String>> rows(String db, String sql) throws SQLException {
    Map<Integer, List<String>> out = new java.util.HashMap<>();
    try (Connection c = SharedPostgres.connect(db); Statement s = c.createStatement()) {
      s.setFetchSize(5000);
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
  private static void awaitSink(Lane l, java.util.function.BooleanSupplier done, String what) {
    long deadline = System.nanoTime() + SETTLE.toNanos();
    while (true) {
      try {
        if (done.getAsBoolean()) {
          return;
        }
      } catch (RuntimeException notYet) {
        // the table, subject or task is not there yet
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(what + " did not come within " + SETTLE.toSeconds() + " s; "
            + TypeMatrix.sinkState(connect, "", l.sink()) + "source: " + connect.status(l.source()));
      }
      ConnectClient.sleep(250);
    }
  }

  private static Map<String, String> sourceConfig(Lane l) {
    Map<String, String> c = PostgresSource.of(sourceDb, l.prefix(), l.prefix()).tables("public\\." + l.table())
        .config();
    // A publication of the lane's table, made beforehand: Debezium's `filtered` mode would read pg_publication_tables on
    // its replication connection at each start, which makes PostgreSQL's walsender decode rows written before a
    // column's type change with the table's later descriptor, and crash (docs/schemas.md).
    c.put("publication.name", l.prefix() + "_pub");
    c.put("publication.autocreate.mode", "disabled");
    return c;
  }

  private static Map<String, String> sinkConfig(Lane l) {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("connector.class", "io.sluice.sink.jdbc.SluiceJdbcSinkConnector");
    c.put("connection.url", SharedPostgres.jdbcUrl(l.sinkDb()));
    c.put("connection.username", Pipeline.CDC_USER);
    c.put("connection.password", Pipeline.CDC_PASSWORD);
    c.put("insert.mode", "upsert");
    c.put("delete.enabled", "true");
    c.put("primary.key.mode", "record_key");
    c.put("schema.evolution", "basic");
    c.put("topics", l.prefix() + ".public." + l.table());
    c.put("collection.name.format", "${source.table}");
    c.put("tasks.max", "1");
    return c;
  }

  /** The report: one table of outcomes (change × pipeline), the rows compared, the refusals' messages. */
  private static void writeReport() throws java.io.IOException {
    StringBuilder md = new StringBuilder("# Live schema evolution: PostgreSQL to PostgreSQL\n\n");
    md.append("| change | format | mode | registry | sink | rows lost | tasks |\n|---|---|---|---|---|---|---|\n");
    Map<String, String> messages = new LinkedHashMap<>();
    outcomes.forEach((phase, byLane) -> byLane.forEach((lane, o) -> {
      Lane l = tracks.stream().flatMap(t -> t.lanes.stream()).filter(x -> x.name().equals(lane)).findFirst()
          .orElseThrow();
      md.append("| ").append(CHANGES.get(phase - 1).name()).append(" | ").append(l.format().name()).append(" | ")
          .append(l.registered() ? l.mode() : "—").append(" | ").append(TypeMatrix.cell(o.registry())).append(" | ")
          .append(TypeMatrix.cell(o.sink())).append(" | ")
          .append(rowsByPhase.containsKey(lane) ? String.format("%,d of %,d",
              lostByPhase.getOrDefault(lane, Map.of()).getOrDefault(phase, 0),
              rowsByPhase.get(lane).getOrDefault(phase, 0)) : "not compared")
          .append(" | ").append(TypeMatrix.cell(o.tasks())).append(" |\n");
      if (o.message() != null) {
        messages.put(CHANGES.get(phase - 1).name() + ", " + lane, o.message());
      }
    }));
    md.append("\n## Rows at the end, source against sink\n\n");
    lostRows.forEach((lane, s) -> md.append("- ").append(lane).append(": ").append(s).append('\n'));
    md.append("\n## Refusals, as the source task's failure says them\n\n");
    messages.forEach((k, m) -> md.append("- ").append(k).append(": `").append(m.replace("`", "'")).append("`\n"));
    md.append("\n## Notes\n\n");
    notes.forEach(n -> md.append("- ").append(n).append('\n'));
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
    private long started;
    private long stopped;

    /** Rows each round inserts and updates. */
    private final int rows;

    Track(String table, List<Lane> lanes, int rows) {
      this.table = table;
      this.lanes = lanes;
      this.rows = rows;
    }

    /** The columns and values of rows {@code from}..{@code to} as inserted in the current phase. */
    String insert(int from, int to) {
      int p = phase;
      Map<String, String> v = new LinkedHashMap<>();
      v.put("id", "g");
      v.put("item", "'item-' || g");
      v.put("qty", p >= 4 ? "3000000000 + g" : "g");
      v.put("note", p >= 5 ? "repeat('n', 30) || g" : "'n' || g");
      if (p < DROP) {
        v.put("legacy", "'legacy-' || g");
      }
      v.put(p < RENAME ? "label" : "title", "'label-' || g");
      v.put("phase", String.valueOf(p));
      if (p >= 1) {
        v.put("extra", "'extra-' || g");
      }
      if (p >= ADD_DEFAULT) {
        v.put("region", "'us'");
      }
      return "INSERT INTO public." + table + " (" + String.join(", ", v.keySet()) + ") SELECT "
          + String.join(", ", v.values()) + " FROM generate_series(" + from + ", " + to + ") g";
    }

    void start() throws SQLException {
      connection = SharedPostgres.connect(sourceDb);
      started = System.nanoTime();
      timer = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "load-" + table));
      timer.scheduleAtFixedRate(this::round, 0, ROUND.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void round() {
      synchronized (round) {
        if (failure.get() != null) {
          return;
        }
        int from = next;
        try (Statement s = connection.createStatement()) {
          long n = s.executeUpdate(insert(from, from + rows - 1));
          n += s.executeUpdate("UPDATE public." + table + " SET qty = qty + 1, phase = " + phase
              + " WHERE id BETWEEN " + (from - rows) + " AND " + (from - 1));
          n += s.executeUpdate("DELETE FROM public." + table + " WHERE id = " + (from - 20 * rows));
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

    double seconds() {
      return ((stopped == 0 ? System.nanoTime() : stopped) - started) / 1e9;
    }

    void stop() throws Exception {
      if (timer == null) {
        return;
      }
      timer.shutdown();
      timer.awaitTermination(30, TimeUnit.SECONDS);
      if (stopped == 0) {
        stopped = System.nanoTime();
      }
      connection.close();
      timer = null;
    }
  }
}
