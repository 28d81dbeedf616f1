package io.sluice.app;

import static io.sluice.app.PackagedSluice.freePort;
import static io.sluice.app.PackagedSluice.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.sluice.app.TypeMatrix.Format;
import io.sluice.connect.client.ConnectRestClient;
import io.sluice.connect.testing.BinlogMariaDb;
import io.sluice.connect.testing.Pipeline;
import io.sluice.connect.testing.PostgresSource;
import io.sluice.connect.testing.SharedPostgres;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The type matrix's directions with MariaDB, through the packaged {@code ./sluice up}: PostgreSQL to MariaDB (the
 * families of {@link PostgresTypes}), MariaDB to PostgreSQL and MariaDB to MariaDB (those of {@link MariaDbTypes}),
 * each captured with Sluice's defaults in the four formats and written by Sluice's JDBC sink into tables made
 * beforehand with the same or the nearest type ({@code pre}) and into tables the sink makes ({@code made}); one
 * PostgreSQL, one MariaDB, every pipeline side by side. After a snapshot, streamed inserts, updates of every column and
 * a delete, each column's value at the sink is read back as the source's type, in the source's database (PostgreSQL's
 * cast; for MariaDB, a temporary table of the source column's type), and its text compared with the source's; from
 * MariaDB to MariaDB into a table the sink made, the column's type must be the source's too. Debezium's own
 * JdbcSinkConnector is measured the same way in one format ({@link #debeziumsOwnSink}) and reported beside Sluice's.
 * The scores go to {@code target/type-matrix-mariadb.md}.
 *
 * <p>Part of the fault matrix's run (the Maven profile {@code cluster-faults}, {@code bench/cluster-faults}, run by
 * {@code .ci/run}), not of {@code ./mvnw verify}. A column either arrives exactly, or is one of {@link #KNOWN}, with
 * why (a known loss that arrives exactly fails the test too, so that the list only shrinks), or is one of
 * {@link #REFUSED}: values the target has no room for, which must be refused with the column named in the sink's dead
 * letter queue, never written changed.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MariaDbTypeMatrixIT {
  private static final Duration SETTLE = Duration.ofSeconds(300);
  /** The row written last, after every other change: once it is at a sink, the rest is too. */
  private static final int LAST = 1000;

  /** A direction of the matrix: where from, where to. */
  enum Direction {
    PG_MARIA("pm", "PostgreSQL → MariaDB", false, true),
    MARIA_PG("mp", "MariaDB → PostgreSQL", true, false),
    MARIA_MARIA("mm", "MariaDB → MariaDB", true, true);

    final String tag;
    final String title;
    final boolean fromMaria;
    final boolean toMaria;

    Direction(String tag, String title, boolean fromMaria, boolean toMaria) {
      this.tag = tag;
      this.title = title;
      this.fromMaria = fromMaria;
      this.toMaria = toMaria;
    }
  }

  /** Sluice's sink into tables made beforehand and into tables it makes, in every format. */
  static final List<String> TARGETS = List.of("pre", "made");

  /**
   * Debezium's own JdbcSinkConnector the same two ways, in one format, fed by sources with Debezium's own defaults (no
   * column types carried, no converter of Sluice's, unsigned bigints as Debezium's long), as the benchmarks' baselines
   * are: its score is reported beside Sluice's, never held to the matrix.
   */
  static final List<String> DEBEZIUM_TARGETS = List.of("dbzpre", "dbzmade");

  private static final Format DEBEZIUM_FORMAT = TypeMatrix.FORMATS.get(0);
  private static final String DEBEZIUM_SINK = "io.debezium.connector.jdbc.JdbcSinkConnector";

  private static boolean debeziums(String target) {
    return target.startsWith("dbz");
  }

  private static boolean madeBeforehand(String target) {
    return target.endsWith("pre");
  }

  /**
   * Losses not yet mended or not mendable, as {@code direction/format/target/column} (a {@code *} matching any) → what
   * happens to the value. Each must still differ; mend one and remove it here.
   */
  static final Map<String, String> KNOWN = new LinkedHashMap<>();

  private static void known(String direction, String target, String columns, String why) {
    for (String c : columns.split(" ")) {
      KNOWN.put(direction + "/*/" + target + "/" + c, why);
    }
  }

  static {
    // Measured 2026-12-02 (every format alike unless a format is named); see docs/pipelines.md. A row the database
    // refuses is missing in every column of its table: the values no target holds (MariaDB's time outside a day, the
    // year 0000, the widest decimal) have tables of their own, so each costs its own column only.
    known("*", "*", "c_zero_date c_zero_dt", "Debezium's binlog source carries a zero date, or one with a zero month"
        + " or day, as NULL (PostgreSQL has no zero date at all)");
    known("pm", "*", "c_timetz", "Debezium's pgoutput decoding normalises it to UTC before any converter sees it: the"
        + " instant is kept, the offset is not; refused before data flows unless accepted, as here");
    known("pm", "pre", "c_num", "the nearest MariaDB type of a numeric without scale, decimal(65,30), has a fixed"
        + " scale: a value arrives with 30 fractional digits, a 31st and later rounded by MariaDB (a table the sink"
        + " makes holds numeric's text)");
    known("mp", "*", "c_zero_ts", "Debezium's binlog source reads a zero timestamp as the epoch when streaming (it"
        + " arrives as 1970-01-01 00:00:00, in silence) and as NULL in a snapshot");
    known("mm", "*", "c_zero_ts", "Debezium's binlog source reads a zero timestamp as the epoch when streaming, which"
        + " a MariaDB timestamp cannot hold (the row is refused, to the dead letter queue), and as NULL in a snapshot");
    known("pm", "*", "c_int_2d", "a two-dimensional array value: Debezium's PostgreSQL connector reads arrays of one"
        + " dimension ({{9}} arrives as {NULL})");
  }

  /**
   * Values a target has no room for, refused by design, as {@code direction/format/target/column} → why: each such
   * column must differ (its rows holding such a value are not written) and the sink's dead letter queue must hold a
   * refusal that names the column. Counted apart from the exact ones: refused by name, not changed in silence.
   */
  static final Map<String, String> REFUSED = new LinkedHashMap<>();

  private static void refused(String direction, String target, String columns, String why) {
    for (String c : columns.split(" ")) {
      REFUSED.put(direction + "/*/" + target + "/" + c, why);
    }
  }

  static {
    refused("pm", "*", "c_real_special c_double_special", "NaN and ±Infinity: MariaDB has no such value in any numeric"
        + " type; Sluice's sink refuses the record itself, naming column, source type and value");
    refused("pm", "*", "c_date_inf c_ts_inf c_tstz_inf", "infinity and -infinity: MariaDB's dates and times hold the"
        + " years 1 to 9999; Sluice's sink refuses the record itself, naming column, source type and value");
    refused("pm", "pre", "c_num_special c_num_inf", "NaN, ±Infinity and 1e300 in the nearest type, decimal(65,30):"
        + " MariaDB refuses the value, naming the column (a table the sink makes holds numeric's text)");
  }

  @TempDir static Path dir;
  private static PackagedSluice.Up up;
  private static BinlogMariaDb maria;
  private static String registryUrl;
  private static String bootstrap;
  private static ConnectRestClient connect;
  private static String[] cluster;
  private static String run;
  private static final Map<String, String> scores = new TreeMap<>();
  private static final Map<String, String> report = new TreeMap<>();

  @BeforeAll
  @org.junit.jupiter.api.Timeout(value = 8, unit = java.util.concurrent.TimeUnit.MINUTES)
  static void startPipelines() throws Exception {
    maria = BinlogMariaDb.start(Files.createDirectories(dir.resolve("mariadb")), "the MariaDB type matrix",
        // Twenty-four sinks of Sluice's (then six of Debezium's) and ten sources, each with a pool of its own.
        "--max-connections=1000");
    int kafkaPort = freePort();
    int connectPort = freePort();
    int registryPort = freePort();
    registryUrl = "http://127.0.0.1:" + registryPort;
    bootstrap = "127.0.0.1:" + kafkaPort;
    up = PackagedSluice.up(dir, List.of("--data-dir", dir.resolve("data").toString(), "--kafka-port", "" + kafkaPort,
        "--connect-port", "" + connectPort, "--registry-port", "" + registryPort, "--metrics-port", "" + freePort(),
        "--alerts-port", "" + freePort(), "--exporter-port", "" + freePort()));
    connect = new ConnectRestClient("http://127.0.0.1:" + connectPort);
    cluster = new String[] {"--connect-url", connect.baseUrl(), "--bootstrap", bootstrap, "--registry", registryUrl};
    run = "mt" + ProcessHandle.current().pid();
    maria.execute("CREATE USER sluice@'%' IDENTIFIED BY 'sluice'", "GRANT ALL ON *.* TO sluice@'%'",
        "CREATE USER sluice@localhost IDENTIFIED BY 'sluice'", "GRANT ALL ON *.* TO sluice@localhost");

    // The sources' tables and their first five rows (read by each source's snapshot).
    SharedPostgres.createDatabase(src());
    Pipeline.ensureCdcUser();
    PostgresTypes.PREREQUISITES.forEach(sql -> SharedPostgres.execute(src(), sql));
    for (PostgresTypes.Family f : PostgresTypes.FAMILIES) {
      SharedPostgres.execute(src(), PostgresTypes.create(f));
      for (int row = 0; row < 5; row++) {
        SharedPostgres.execute(src(), PostgresTypes.insert(f, row + 1, row));
      }
    }
    mariaDb(null, "CREATE DATABASE " + src() + " CHARACTER SET utf8mb4");
    for (MariaDbTypes.Family f : MariaDbTypes.FAMILIES) {
      mariaDb(src(), MariaDbTypes.create(f));
      for (int row = 0; row < 5; row++) {
        mariaDb(src(), MariaDbTypes.insert(f, row + 1, row));
      }
    }

    // Every connector in one `sluice connectors apply`, each format's sinks before its sources, as before.
    Map<String, Map<String, String>> connectors = new LinkedHashMap<>();
    List<String> mariaSources = new ArrayList<>();
    int serverId = 5901;
    for (Format format : TypeMatrix.FORMATS) {
      for (Direction d : Direction.values()) {
        for (String target : TARGETS) {
          connectors.put(sinkName(format, d, target), sink(format, d, target));
        }
      }
      connectors.put(format.name() + "-pg-source",
          TypeMatrix.converted(postgresSource(format, false), format, registryUrl));
      mariaSources.add(format.name() + "-maria-source");
      connectors.put(format.name() + "-maria-source",
          TypeMatrix.converted(mariaSource(format, serverId++, false), format, registryUrl));
    }
    connectors.put(DEBEZIUM_FORMAT.name() + "-pg-engines-source",
        TypeMatrix.converted(postgresSource(DEBEZIUM_FORMAT, true), DEBEZIUM_FORMAT, registryUrl));
    connectors.put(DEBEZIUM_FORMAT.name() + "-maria-engines-source",
        TypeMatrix.converted(mariaSource(DEBEZIUM_FORMAT, serverId++, true), DEBEZIUM_FORMAT, registryUrl));
    PackagedSluice.Run applied = TypeMatrix.applyAll(dir, cluster, connectors);
    mariaSources.forEach(name -> assertZeroDatesNamed(applied, name));
    // Every source has read its snapshot, so the changes below are streamed.
    awaitSnapshots();
    for (PostgresTypes.Family f : PostgresTypes.FAMILIES) {
      SharedPostgres.execute(src(), PostgresTypes.insert(f, 6, 0));
      SharedPostgres.execute(src(), PostgresTypes.insert(f, 7, 2));
      SharedPostgres.execute(src(), PostgresTypes.update(f, 1, PostgresTypes.Column::update));
      SharedPostgres.execute(src(), PostgresTypes.update(f, 4, col -> "NULL"));
      SharedPostgres.execute(src(), PostgresTypes.update(f, 5, col -> col.rows().get(1)));
      SharedPostgres.execute(src(), "DELETE FROM public." + f.table() + " WHERE id = 2");
    }
    for (MariaDbTypes.Family f : MariaDbTypes.FAMILIES) {
      mariaDb(src(), MariaDbTypes.insert(f, 6, 0));
      mariaDb(src(), MariaDbTypes.insert(f, 7, 2));
      mariaDb(src(), MariaDbTypes.update(f, 1, MariaDbTypes.Column::update));
      mariaDb(src(), MariaDbTypes.update(f, 4, col -> "NULL"));
      mariaDb(src(), MariaDbTypes.update(f, 5, col -> col.rows().get(1)));
      mariaDb(src(), "DELETE FROM " + f.table() + " WHERE id = 2");
    }
    PostgresTypes.FAMILIES.forEach(f -> SharedPostgres.execute(src(), PostgresTypes.insert(f, LAST, 3)));
    MariaDbTypes.FAMILIES.forEach(f -> mariaDb(src(), MariaDbTypes.insert(f, LAST, 3)));
  }

  /** Makes the sink's database (with the tables made beforehand, for those targets); returns the sink's config. */
  private static Map<String, String> sink(Format format, Direction d, String target) throws Exception {
    String db = sinkDb(format, d, target);
    if (d.toMaria) {
      mariaDb(null, "CREATE DATABASE " + db + " CHARACTER SET utf8mb4");
    } else {
      SharedPostgres.createDatabase(db);
      PostgresTypes.PREREQUISITES.forEach(sql -> SharedPostgres.execute(db, sql));
    }
    if (madeBeforehand(target)) {
      if (d == Direction.PG_MARIA) {
        PostgresTypes.FAMILIES.forEach(f -> mariaDb(db, MariaDbTypes.createInMariaDb(f)));
      } else if (d == Direction.MARIA_MARIA) {
        MariaDbTypes.FAMILIES.forEach(f -> mariaDb(db, MariaDbTypes.create(f)));
      } else {
        MariaDbTypes.FAMILIES.forEach(f -> SharedPostgres.execute(db, MariaDbTypes.createInPostgres(f)));
      }
    }
    return TypeMatrix.converted(sinkConfig(format, d, db, debeziums(target)), format, registryUrl);
  }

  @AfterAll
  static void down() throws Exception {
    try {
      TypeMatrix.writeReport("type-matrix-mariadb", "Type matrix: the directions with MariaDB",
          "| direction | sink | format | exact |\n|---|---|---|---|\n", scores, report, up);
      if (up != null) {
        assertEquals(0, PackagedSluice.down(up), () -> "./sluice up exit on SIGTERM; stderr " + read(up.stderr()));
      }
    } finally {
      if (maria != null) {
        maria.close();
      }
    }
  }

  /**
   * What the pipeline cannot carry is named before data flows, as {@code sluice connectors apply --dry-run} prints it
   * (nothing is changed): a MariaDB source capturing an enum with a comma in a member is refused, naming it; a sink
   * into MariaDB fed by the PostgreSQL source, validated again now that the source's schemas are in the registry (it
   * was made before they were, so it was not warned then), is warned about the fields that can hold NaN, ±Infinity or
   * an infinite date, and where such a record goes.
   */
  @Test
  @Order(0)
  void whatCannotBeCarriedIsNamedBeforeDataFlows() throws Exception {
    String db = run + "_enum";
    mariaDb(null, "CREATE DATABASE " + db + " CHARACTER SET utf8mb4");
    mariaDb(db, "CREATE TABLE moods (id int PRIMARY KEY, mood enum('ok','so, so'))");
    Map<String, String> source = new LinkedHashMap<>(maria.sourceConfig(run + "_enum", "5999"));
    source.put("database.user", "sluice");
    source.put("database.password", "sluice");
    source.put("database.include.list", db);
    source.remove("table.include.list");
    Path file = Files.writeString(dir.resolve("enum-source.json"), new com.fasterxml.jackson.databind.ObjectMapper()
        .writeValueAsString(Map.of("name", "enum-source", "config", source)));
    List<String> args = new ArrayList<>(List.of("connectors", "apply", "-f", file.toString(), "--dry-run"));
    args.addAll(List.of(cluster));
    PackagedSluice.Run refused = PackagedSluice.run(dir, args.toArray(String[]::new));
    assertEquals(3, refused.exit(), refused::toString);
    assertTrue(refused.err().contains("Column mood of table " + db + ".moods (enum('ok','so, so'))")
        && refused.err().contains("the member 'so, so' reads as 'so' and ' so'"), refused::toString);

    Format avro = TypeMatrix.FORMATS.get(1);
    String sink = sinkName(avro, Direction.PG_MARIA, "made");
    file = Files.writeString(dir.resolve(sink + "-again.json"), new com.fasterxml.jackson.databind.ObjectMapper()
        .writeValueAsString(Map.of("name", sink, "config", TypeMatrix.converted(sinkConfig(avro, Direction.PG_MARIA,
            sinkDb(avro, Direction.PG_MARIA, "made"), false), avro, registryUrl))));
    args = new ArrayList<>(List.of("connectors", "apply", "-f", file.toString(), "--dry-run"));
    args.addAll(List.of(cluster));
    PackagedSluice.Run warned = PackagedSluice.run(dir, args.toArray(String[]::new));
    assertEquals(0, warned.exit(), warned::toString);
    assertTrue(warned.err().contains("warning: values MariaDB and MySQL cannot hold: ")
        && warned.err().contains("come from PostgreSQL columns that can hold NaN and ±Infinity")
        && warned.err().contains("and infinity and -infinity")
        && warned.err().contains("it goes to the dead letter queue " + sink + ".dlq"), warned::toString);
  }

  @Test
  @Order(1)
  void json() throws Exception {
    check(TypeMatrix.FORMATS.get(0));
  }

  @Test
  @Order(2)
  void avro() throws Exception {
    check(TypeMatrix.FORMATS.get(1));
  }

  @Test
  @Order(3)
  void protobuf() throws Exception {
    check(TypeMatrix.FORMATS.get(2));
  }

  @Test
  @Order(4)
  void jsonSchema() throws Exception {
    check(TypeMatrix.FORMATS.get(3));
  }

  /**
   * Debezium's own sink, each direction in {@link #DEBEZIUM_FORMAT}, once Sluice's sinks are measured and stopped.
   * Debezium's column types are shared by every sink of the plugin's class loader, and Debezium's sink, unlike
   * Sluice's, points them at its own dialect as it starts and writes with whatever they answer for then: beside sinks
   * of another database it writes with their types, which would measure that sharing, not its types. So its sinks run
   * one kind of database at a time, with no sink of Sluice's live, each reading its topics from their start.
   */
  @Test
  @Order(5)
  void debeziumsOwnSink() throws Exception {
    settleAll();
    for (Format format : TypeMatrix.FORMATS) {
      for (Direction d : Direction.values()) {
        for (String target : TARGETS) {
          connect.stop(sinkName(format, d, target), Duration.ofSeconds(60));
        }
      }
    }
    for (boolean toMaria : List.of(true, false)) {
      List<TypeMatrix.Settling> sinks = new ArrayList<>();
      List<Direction> directions = java.util.Arrays.stream(Direction.values()).filter(d -> d.toMaria == toMaria)
          .toList();
      Map<String, Map<String, String>> debeziums = new LinkedHashMap<>();
      for (Direction d : directions) {
        for (String target : DEBEZIUM_TARGETS) {
          debeziums.put(sinkName(DEBEZIUM_FORMAT, d, target), sink(DEBEZIUM_FORMAT, d, target));
          sinks.add(settling(DEBEZIUM_FORMAT, d, target));
        }
      }
      TypeMatrix.applyAll(dir, cluster, debeziums);
      TypeMatrix.awaitSettled(sinks, SETTLE);
      for (Direction d : directions) {
        for (String target : DEBEZIUM_TARGETS) {
          measure(DEBEZIUM_FORMAT, d, target, new ArrayList<>());
          connect.stop(sinkName(DEBEZIUM_FORMAT, d, target), Duration.ofSeconds(60));
        }
      }
    }
  }

  /** One column as the comparison sees it: its family's table, its name and its type at the source. */
  private record Probe(String table, String column, String type) {}

  private static List<Probe> columns(Direction d) {
    List<Probe> out = new ArrayList<>();
    if (d.fromMaria) {
      MariaDbTypes.FAMILIES.forEach(f -> f.columns().forEach(c -> out.add(new Probe(f.table(), c.name(), c.type()))));
    } else {
      PostgresTypes.FAMILIES.forEach(f -> f.columns().forEach(c -> out.add(new Probe(f.table(), c.name(),
          c.readAs()))));
    }
    return out;
  }

  private static List<String> tables(Direction d) {
    return d.fromMaria ? MariaDbTypes.FAMILIES.stream().map(MariaDbTypes.Family::table).toList()
        : PostgresTypes.FAMILIES.stream().map(PostgresTypes.Family::table).toList();
  }

  /** Compares every column of each of a format's sinks with its source; fails naming each column not as expected. */
  private static void check(Format format) throws Exception {
    settleAll();
    List<String> failures = new ArrayList<>();
    for (Direction d : Direction.values()) {
      for (String target : TARGETS) {
        measure(format, d, target, failures);
      }
    }
    if (!failures.isEmpty()) {
      fail(failures.size() + " column(s) of " + format.name() + " not as expected:\n  "
          + String.join("\n  ", failures));
    }
  }

  /**
   * Compares every column of one sink with its source, reports them, and adds to {@code failures} each column of
   * Sluice's sink not as expected.
   */
  private static void measure(Format format, Direction d, String target, List<String> failures) {
    String db = sinkDb(format, d, target);
    int exact = 0;
    int total = 0;
    int refusedByName = 0;
    java.util.Set<String> deadLetters = TypeMatrix.deadLetters(bootstrap, sinkName(format, d, target)).keySet();
    StringBuilder table = new StringBuilder("| column | type | made as | outcome |\n|---|---|---|---|\n");
    for (Probe col : columns(d)) {
      total++;
      String key = d.tag + "/" + format.name() + "/" + target + "/" + col.column();
      String made = sinkType(d, db, col);
      String difference = difference(d, db, col);
      if (difference == null && d == Direction.MARIA_MARIA && !madeBeforehand(target)
          && !made.equals(sourceType(col))) {
        difference = "values equal, but the column is " + made + ", not " + sourceType(col);
      }
      String known = debeziums(target) ? null : TypeMatrix.known(KNOWN, key);
      String refusal = debeziums(target) ? null : TypeMatrix.known(REFUSED, key);
      table.append("| ").append(col.column()).append(" | ").append(TypeMatrix.cell(col.type())).append(" | ")
          .append(TypeMatrix.cell(made)).append(" | ");
      if (refusal != null) {
        boolean named = deadLetters.stream().anyMatch(reason -> reason.contains(col.column()));
        if (difference == null) {
          failures.add(key + ": arrives exactly, yet should be refused (" + refusal + ")");
        } else if (!named) {
          failures.add(key + ": " + difference + ", and no record of the sink's dead letter queue names the column"
              + " (" + refusal + ")");
        } else {
          refusedByName++;
        }
        table.append(difference == null ? "exact" : TypeMatrix.cell((named ? "refused, named in the dead letter"
            + " queue: " : "not named in the dead letter queue: ") + difference)).append(" |\n");
        continue;
      }
      if (difference == null) {
        exact++;
        table.append("exact |\n");
        if (known != null) {
          failures.add(key + ": arrives exactly now; remove it from KNOWN (" + known + ")");
        }
      } else {
        table.append(TypeMatrix.cell(difference)).append(" |\n");
        if (known == null && !debeziums(target)) {
          failures.add(key + ": " + difference);
        }
      }
    }
    String sink = debeziums(target) ? "Debezium's JdbcSinkConnector" : "Sluice's sink";
    String into = madeBeforehand(target) ? "tables made beforehand" : "tables the sink made";
    String state = TypeMatrix.sinkState(connect, bootstrap, sinkName(format, d, target));
    String refusedText = refusedByName == 0 ? "" : " (+" + refusedByName + " refused by name)";
    report.put(d.title + ", " + format.name() + ", " + sink + " into " + into,
        "Exact: " + exact + " of " + total + refusedText + "\n\n" + table + "\n" + state);
    scores.put(d.title + " | " + sink + " into " + into + " | " + format.name(), exact + " / " + total + refusedText);
    System.out.printf("type matrix %s/%s/%s: %d of %d columns exact%s%n", d.tag, format.name(), target, exact,
        total, refusedText);
  }

  /**
   * Why a column's values at the sink are not the source's, or null where every row's are: the sink's value read as
   * the source's type in the source's database, in that type's text form, against the source's own.
   */
  private static String difference(Direction d, String db, Probe col) {
    Map<Integer, String> want;
    Map<Integer, Object> sink;
    try {
      want = d.fromMaria ? mariaValues(src(), "SELECT id, " + mariaColumn(col).text(col.column()) + " FROM "
          + col.table(), rs -> rs.getString(2)) : pgValues(src(), "SELECT id, " + col.column() + " FROM public."
          + col.table(), rs -> rs.getString(2));
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    try {
      sink = sinkValues(d, db, col);
    } catch (SQLException e) {
      return "not readable: " + e.getMessage().lines().findFirst().orElse("");
    }
    Map<Integer, String> have;
    try {
      have = d.fromMaria ? asMariaType(col, sink) : asPostgresType(col, sink);
    } catch (SQLException e) {
      return "not readable as " + col.type() + ": " + e.getMessage().lines().findFirst().orElse("");
    }
    return TypeMatrix.difference(want, have);
  }

  private static MariaDbTypes.Column mariaColumn(Probe col) {
    return MariaDbTypes.FAMILIES.stream().filter(f -> f.table().equals(col.table())).flatMap(f -> f.columns().stream())
        .filter(c -> c.name().equals(col.column())).findFirst().orElseThrow();
  }

  /**
   * The sink's values of a column, each as the source's database takes it: bytes where the sink holds bytes (or, from
   * MariaDB, a bit string), else text.
   */
  private static Map<Integer, Object> sinkValues(Direction d, String db, Probe col) throws SQLException {
    String type = sinkType(d, db, col);
    String c = col.column();
    if (d.toMaria) {
      boolean bytes = type.contains("binary") || type.contains("blob") || (type.startsWith("bit") && d.fromMaria);
      if (bytes) {
        return mariaValues(db, "SELECT id, " + c + " FROM " + col.table(), rs -> rs.getBytes(2));
      }
      if (type.startsWith("bit(")) {
        String width = type.substring(4, type.indexOf(')'));
        return mariaValues(db, "SELECT id, LPAD(BIN(" + c + "), " + width + ", '0') FROM " + col.table(),
            rs -> rs.getString(2));
      }
      String expr = type.startsWith("float") ? "CAST(CAST(" + c + " AS DOUBLE) AS CHAR)" : "CAST(" + c + " AS CHAR)";
      return mariaValues(db, "SELECT id, " + expr + " FROM " + col.table(), rs -> rs.getString(2));
    }
    if (type.equals("bytea")) {
      return pgValues(db, "SELECT id, " + c + " FROM public." + col.table(), rs -> rs.getBytes(2));
    }
    if (type.equals("boolean")) {
      return pgValues(db, "SELECT id, " + c + "::int::text FROM public." + col.table(), rs -> rs.getString(2));
    }
    if (type.startsWith("bit")) {
      return pgValues(db, "SELECT id, " + c + "::text FROM public." + col.table(),
          rs -> rs.getString(2) == null ? null : rs.getString(2).isEmpty() ? BigInteger.ZERO
              : new BigInteger(rs.getString(2), 2));
    }
    return pgValues(db, "SELECT id, " + c + "::text FROM public." + col.table(),
        rs -> rs.getString(2) == null || !type.contains("with time zone") ? rs.getString(2)
            : rs.getString(2).replaceFirst("\\+00$", ""));
  }

  /**
   * The sink's values read as the PostgreSQL source's type: cast by PostgreSQL from their text (or bytes), and read as
   * the source's are (its output function's text). Never server-prepared: the driver makes a statement run five times
   * on a connection a server-prepared one, whose results come in binary, and reads some types' binary as a Java
   * object's text (a point's 1e+300 as 1.0E300, an array's numbers quoted, bytea as {@code [B@…}).
   */
  private static Map<Integer, String> asPostgresType(Probe col, Map<Integer, Object> sink) throws SQLException {
    Map<Integer, String> out = new TreeMap<>();
    try (Connection c = java.sql.DriverManager.getConnection(SharedPostgres.jdbcUrl(src()) + "?prepareThreshold=0",
        SharedPostgres.USER, SharedPostgres.PASSWORD)) {
      for (Map.Entry<Integer, Object> v : sink.entrySet()) {
        try (PreparedStatement s = c.prepareStatement("SELECT CAST(? AS " + col.type() + ")")) {
          if (v.getValue() instanceof byte[] b) {
            s.setBytes(1, b);
          } else {
            s.setString(1, (String) v.getValue());
          }
          try (ResultSet rs = s.executeQuery()) {
            rs.next();
            out.put(v.getKey(), rs.getString(1));
          }
        }
      }
    }
    return out;
  }

  /**
   * The sink's values read as the MariaDB source's type: written into a temporary table whose column has that type
   * (in MariaDB's strict mode, so a value it does not take is refused, not changed), then read as the source is.
   */
  private static Map<Integer, String> asMariaType(Probe col, Map<Integer, Object> sink) throws SQLException {
    MariaDbTypes.Column source = mariaColumn(col);
    try (Connection c = mariaConnect(src()); Statement s = c.createStatement()) {
      s.execute("CREATE TEMPORARY TABLE probe (id int PRIMARY KEY, v " + source.type() + ")");
      try (PreparedStatement insert = c.prepareStatement("INSERT INTO probe VALUES (?, ?)")) {
        for (Map.Entry<Integer, Object> v : sink.entrySet()) {
          insert.setInt(1, v.getKey());
          if (v.getValue() instanceof byte[] b) {
            insert.setBytes(2, b);
          } else if (v.getValue() instanceof BigInteger n) {
            insert.setBigDecimal(2, new BigDecimal(n));
          } else if (v.getValue() != null && (source.type().startsWith("bit") || source.type().equals("year"))) {
            // A number, as a bit string's or a year's value (the string '0' is the year 2000, the number 0 is 0000).
            insert.setBigDecimal(2, new BigDecimal((String) v.getValue()));
          } else {
            insert.setString(2, (String) v.getValue());
          }
          try {
            insert.execute();
          } catch (SQLException e) {
            throw new SQLException("the sink's value " + TypeMatrix.abbreviate(String.valueOf(v.getValue()))
                + " of row " + v.getKey() + ": " + e.getMessage().lines().findFirst().orElse(""), e);
          }
        }
      }
      Map<Integer, String> out = new TreeMap<>();
      try (ResultSet rs = s.executeQuery("SELECT id, " + source.text("v") + " FROM probe")) {
        while (rs.next()) {
          out.put(rs.getInt(1), rs.getString(2));
        }
      }
      return out;
    }
  }

  /** The column's type in the sink's table ({@code (none)} where there is none). */
  private static String sinkType(Direction d, String db, Probe col) {
    try {
      Map<Integer, Object> t = d.toMaria
          ? mariaValues(db, "SELECT 0, COLUMN_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = '" + db
              + "' AND TABLE_NAME = '" + col.table() + "' AND COLUMN_NAME = '" + col.column() + "'",
              rs -> rs.getString(2))
          : pgValues(db, "SELECT 0, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'public."
              + col.table() + "'::regclass AND attname = '" + col.column() + "'", rs -> rs.getString(2));
      return (String) t.getOrDefault(0, "(none)");
    } catch (SQLException e) {
      return "(none)";
    }
  }

  /** The MariaDB source column's type as information_schema writes it. */
  private static String sourceType(Probe col) {
    try {
      return (String) mariaValues(src(), "SELECT 0, COLUMN_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = '"
          + src() + "' AND TABLE_NAME = '" + col.table() + "' AND COLUMN_NAME = '" + col.column() + "'",
          rs -> rs.getString(2)).get(0);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static boolean settled;

  /** Waits for every sink of every format at once (the first format's check does), so their quiet periods overlap. */
  private static synchronized void settleAll() {
    if (settled) {
      return;
    }
    List<TypeMatrix.Settling> sinks = new ArrayList<>();
    for (Format format : TypeMatrix.FORMATS) {
      for (Direction d : Direction.values()) {
        for (String target : TARGETS) {
          sinks.add(settling(format, d, target));
        }
      }
    }
    TypeMatrix.awaitSettled(sinks, SETTLE);
    settled = true;
  }

  private static TypeMatrix.Settling settling(Format format, Direction d, String target) {
    String db = sinkDb(format, d, target);
    String last = d.fromMaria ? "" : "public.";
    return new TypeMatrix.Settling(sinkName(format, d, target), () -> {
      if (d.toMaria) {
        try (Connection c = mariaConnect(db); Statement s = c.createStatement();
            ResultSet rs = s.executeQuery("CHECKSUM TABLE " + String.join(", ", tables(d)))) {
          StringBuilder seen = new StringBuilder();
          boolean any = false;
          while (rs.next()) {
            seen.append(rs.getString(2)).append(';');
            any |= rs.getString(2) != null;
          }
          return any ? seen.toString() : null;
        } catch (SQLException notYet) {
          return null;
        }
      }
      StringBuilder seen = new StringBuilder();
      boolean any = false;
      for (String t : tables(d)) {
        try {
          seen.append(pgValues(db, "SELECT count(*)::int, coalesce(sum(hashtext(t::text)), 0)::text FROM public." + t
              + " t", rs -> rs.getString(2))).append(';');
          any = true;
        } catch (SQLException notYet) {
          seen.append("-;");
        }
      }
      return any ? seen.toString() : null;
    }, () -> tables(d).stream().allMatch(t -> {
      try {
        return d.toMaria ? !mariaValues(db, "SELECT id, 'x' FROM " + t + " WHERE id = " + LAST, rs -> "x").isEmpty()
            : !pgValues(db, "SELECT id, 'x' FROM " + last + t + " WHERE id = " + LAST, rs -> "x").isEmpty();
      } catch (SQLException notYet) {
        return false;
      }
    }), () -> TypeMatrix.failed(connect, sinkName(format, d, target)));
  }

  /**
   * Waits until every source's topics hold the snapshot's five rows of each table, so that the changes made after are
   * streamed, not read by a snapshot.
   */
  private static void awaitSnapshots() {
    List<String> topics = new ArrayList<>();
    for (Format format : TypeMatrix.FORMATS) {
      for (boolean engines : format == DEBEZIUM_FORMAT ? List.of(false, true) : List.of(false)) {
        PostgresTypes.FAMILIES.forEach(f -> topics.add(pgPrefix(format, engines) + ".public." + f.table()));
        MariaDbTypes.FAMILIES.forEach(f -> topics.add(mariaPrefix(format, engines) + "." + src() + "." + f.table()));
      }
    }
    long deadline = System.nanoTime() + Duration.ofSeconds(240).toNanos();
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(Map.of("bootstrap.servers", bootstrap),
        new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      while (true) {
        List<TopicPartition> parts = topics.stream().map(t -> new TopicPartition(t, 0)).toList();
        Map<String, List<org.apache.kafka.common.PartitionInfo>> existing = c.listTopics(Duration.ofSeconds(10));
        List<String> waiting = new ArrayList<>(topics.stream().filter(t -> !existing.containsKey(t)).toList());
        if (waiting.isEmpty()) {
          Map<TopicPartition, Long> end = c.endOffsets(parts);
          end.forEach((tp, n) -> {
            if (n < 5) {
              waiting.add(tp.topic());
            }
          });
        }
        if (waiting.isEmpty()) {
          return;
        }
        if (System.nanoTime() > deadline) {
          fail("the sources' snapshots did not all come in 240 s; waiting for " + waiting);
        }
        io.sluice.connect.testing.ConnectClient.sleep(500);
      }
    }
  }

  private static String src() {
    return run + "_src";
  }

  private static String sinkDb(Format format, Direction d, String target) {
    return run + "_" + format.name() + "_" + d.tag + "_" + target;
  }

  private static String sinkName(Format format, Direction d, String target) {
    return format.name() + "-" + d.tag + "-" + target + "-sink";
  }

  private static String pgPrefix(Format format, boolean engines) {
    return run + "_pg_" + format.name() + (engines ? "_dbz" : "");
  }

  private static String mariaPrefix(Format format, boolean engines) {
    return run + "_maria_" + format.name() + (engines ? "_dbz" : "");
  }

  /**
   * The PostgreSQL source in {@code format}: with Sluice's defaults, or ({@code engines}) with Debezium's own, no
   * column types carried and no converter of Sluice's.
   */
  private static Map<String, String> postgresSource(Format format, boolean engines) {
    Map<String, String> c = PostgresSource.of(src(), pgPrefix(format, engines), pgPrefix(format, engines))
        .tables("public\\.t_.*").config();
    if (engines) {
      c.put("converters", "");
      c.put("column.propagate.source.type", "");
    }
    c.put("publication.name", src() + "_pub");
    // The matrix measures every column, so it accepts the losses Sluice would otherwise refuse before data flows.
    c.put("sluice.columns.accept.loss", "public\\.t_time\\.c_timetz,public\\.t_arrays\\.c_int_2d");
    return c;
  }

  /**
   * The zero dates this matrix's MariaDB holds (its default sql_mode lets them in) are named before data flows: the
   * apply of the MariaDB source {@code source} prints the preflight's warning, counting every captured date, datetime
   * and timestamp, on a line of its own that names the source (the apply writes several connectors).
   */
  private static void assertZeroDatesNamed(PackagedSluice.Run apply, String source) {
    long dates = MariaDbTypes.FAMILIES.stream().flatMap(f -> f.columns().stream())
        .filter(c -> c.type().matches("(date|datetime|timestamp)\\b.*")).count();
    String warning = apply.err().lines().filter(l -> l.startsWith("warning: " + source + ": zero dates: the MariaDB "
        + "server's sql_mode")).findFirst().orElse("");
    assertTrue(warning.contains("lets " + dates + " captured columns hold a zero date")
        && warning.contains("sluice.columns.accept.loss"), apply::toString);
  }

  /**
   * The MariaDB source in {@code format}: with Sluice's defaults, or ({@code engines}) with Debezium's own, no column
   * types carried and a {@code bigint unsigned} as a long.
   */
  private static Map<String, String> mariaSource(Format format, int serverId, boolean engines) {
    Map<String, String> c = new LinkedHashMap<>(maria.sourceConfig(mariaPrefix(format, engines),
        String.valueOf(serverId)));
    if (engines) {
      c.put("column.propagate.source.type", "");
      c.put("bigint.unsigned.handling.mode", "long");
    }
    c.put("database.user", "sluice");
    c.put("database.password", "sluice");
    c.put("database.include.list", src());
    c.put("table.include.list", src() + "\\.t_.*");
    // The sinks' databases are on the same server, where the sinks make and drop their snapshot tables while the
    // sources read the structure of every table of the server (Debezium's default): a table dropped between the two
    // reads stops the snapshot ("Table … doesn't exist").
    c.put("schema.history.internal.store.only.captured.tables.ddl", "true");
    return c;
  }

  /** Sluice's sink into {@code db}, or ({@code engines}) Debezium's, fed by the source with Debezium's defaults. */
  private static Map<String, String> sinkConfig(Format format, Direction d, String db, boolean engines) {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("connector.class", engines ? DEBEZIUM_SINK : "io.sluice.sink.jdbc.SluiceJdbcSinkConnector");
    if (engines && !d.toMaria) {
      // As Debezium's sink binds, not with the untyped text Sluice's defaults give a PostgreSQL sink. A MariaDB sink
      // keeps Sluice's nullDatabaseMeansCurrent: without it, a sink finds the table of another sink's database on
      // the one server (a thing of this test, not of Debezium's types) and never makes its own.
      c.put("hibernate.agroal.jdbcProperties", "");
    }
    if (d.toMaria) {
      c.put("connection.url", "jdbc:mariadb://127.0.0.1:" + maria.port() + "/" + db);
      c.put("connection.username", "sluice");
      c.put("connection.password", "sluice");
    } else {
      c.put("connection.url", SharedPostgres.jdbcUrl(db));
      c.put("connection.username", Pipeline.CDC_USER);
      c.put("connection.password", Pipeline.CDC_PASSWORD);
    }
    c.put("insert.mode", "upsert");
    c.put("delete.enabled", "true");
    c.put("primary.key.mode", "record_key");
    c.put("schema.evolution", "basic");
    c.put("topics.regex", d.fromMaria ? mariaPrefix(format, engines) + "\\." + src() + "\\.t_.*"
        : pgPrefix(format, engines) + "\\.public\\.t_.*");
    c.put("collection.name.format", "${source.table}");
    c.put("tasks.max", "1");
    return c;
  }

  /** A reader of one column of a result row. */
  private interface Cell<T> {
    T read(ResultSet rs) throws SQLException;
  }

  private static <T> Map<Integer, T> pgValues(String db, String sql, Cell<T> cell) throws SQLException {
    try (Connection c = SharedPostgres.connect(db); Statement s = c.createStatement()) {
      s.execute("SET TimeZone = 'UTC'");
      return collect(s, sql, cell);
    }
  }

  private static <T> Map<Integer, T> mariaValues(String db, String sql, Cell<T> cell) throws SQLException {
    try (Connection c = mariaConnect(db); Statement s = c.createStatement()) {
      return collect(s, sql, cell);
    }
  }

  private static <T> Map<Integer, T> collect(Statement s, String sql, Cell<T> cell) throws SQLException {
    Map<Integer, T> out = new TreeMap<>();
    try (ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        out.put(rs.getInt(1), cell.read(rs));
      }
    }
    return out;
  }

  /** A connection to MariaDB's {@code db} (none for null) whose session reads and writes timestamps in UTC. */
  private static Connection mariaConnect(String db) throws SQLException {
    Connection c = java.sql.DriverManager.getConnection("jdbc:mariadb://127.0.0.1:" + maria.port() + "/"
        + (db == null ? "" : db) + "?user=root");
    try (Statement s = c.createStatement()) {
      s.execute("SET time_zone = '+00:00'");
    }
    return c;
  }

  private static void mariaDb(String db, String sql) {
    try (Connection c = mariaConnect(db); Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }
}
