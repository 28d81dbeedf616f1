package io.sluice.app.demo;

import io.sluice.app.cli.CommandError;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.app.up.Platform;
import io.sluice.app.cli.ClusterOptions;
import io.sluice.app.reconcile.ReconcileCommand;
import io.sluice.client.HttpTransport;
import io.sluice.connect.client.ConnectRestClient;
import io.sluice.kafka.ExitControl;
import io.sluice.serde.SerdeConfig;
import io.sluice.serde.connect.AvroConverter;
import io.sluice.serde.connect.JsonSchemaConverter;
import io.sluice.serde.connect.ProtobufConverter;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import io.sluice.topics.KafkaCluster;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code sluice demo}: a live pipeline on a running {@code sluice up} with nothing installed. A shop database (its
 * own PostgreSQL, from Maven-provided binaries) with a steady load, a Debezium source and a JDBC sink into a second
 * PostgreSQL. Runs until Ctrl-C or {@code sluice demo stop}, which remove the connectors and the replication slot;
 * the databases stay under the data directory for the next run.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = "A live CDC pipeline to look at: a shop database under load, a Debezium source, a JDBC sink.",
    subcommands = {DemoCommand.Stop.class, DemoCommand.Fault.class})
public final class DemoCommand implements Callable<Integer> {
  static final String SOURCE = "demo-shop-source";
  static final String SINK = "demo-shop-sink";
  static final String SLOT = "demo_shop";
  private static final ObjectMapper JSON = new ObjectMapper();

  @Mixin ClusterOptions cluster;

  @Option(names = "--rate", paramLabel = "CHANGES/S", defaultValue = "200",
      description = "changes per second the load writes (default ${DEFAULT-VALUE})")
  int rate;

  @Option(names = "--source-port", defaultValue = "15432", description = "the shop PostgreSQL's port (default ${DEFAULT-VALUE})")
  int sourcePort;

  @Option(names = "--sink-port", defaultValue = "15433", description = "the copy PostgreSQL's port (default ${DEFAULT-VALUE})")
  int sinkPort;

  /** How change events travel: Connect's JSON with the schema inlined, or framed with their schema in the registry. */
  static final Map<String, String> FORMATS = Map.of(
      "avro", AvroConverter.class.getName(),
      "json-schema", JsonSchemaConverter.class.getName(),
      "protobuf", ProtobufConverter.class.getName());

  @Option(names = "--format", defaultValue = "json", paramLabel = "FORMAT",
      description = "change events as json (the schema inlined in every record), or avro, json-schema or protobuf "
          + "(schemas in the registry, Sluice's converter on both connectors) (default ${DEFAULT-VALUE})")
  String format;

  @Option(names = "--check", description = "beside a running demo: hold the load, wait for the sink, reconcile the "
      + "tables (exit 0 when equal), let the load go on")
  boolean check;

  @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "180",
      description = "with --check: how long the sink may take to catch up (default ${DEFAULT-VALUE})")
  int timeoutSeconds;

  PrintStream out = System.out;
  PrintStream err = System.err;

  Path demoDir() {
    return cluster.dataDir().resolve("demo");
  }

  @Override
  public Integer call() throws Exception {
    return check ? check() : run();
  }

  private int run() throws Exception {
    if (!format.equals("json") && !FORMATS.containsKey(format)) {
      err.println("error: unknown --format " + format + " (json, avro, json-schema, protobuf)");
      return 2;
    }
    Path dir = Files.createDirectories(demoDir());
    Optional<DemoState> already = DemoState.running(dir);
    if (already.isPresent()) {
      throw CommandError.busy("a demo is already running (pid " + already.get().pid() + "); sluice demo --check "
          + "compares it, sluice demo stop ends it");
    }
    ConnectRestClient connect = new ConnectRestClient(cluster.connectUrl());
    Platform platform = null;
    try {
      connect.connectorNames();
    } catch (HttpTransport.UnreachableException e) {
      if (cluster.connectUrlGiven()) {
        throw CommandError.unreachable("no Kafka Connect at " + cluster.connectUrl() + " (start it, or leave out "
            + "--connect-url and the demo starts a sluice up of its own)", e);
      }
      out.println("no sluice up at " + cluster.connectUrl() + ": starting one in this process; it stops with the demo");
      out.flush();
      // Embedded engines may not end this JVM; one that asks to is reported, and the demo goes on stopping in order.
      ExitControl.install((code, message) -> err.println("an embedded engine asked to exit (" + code + "): " + message));
      platform = Platform.start(cluster.platformConfig(), Platform.bundledPlugins());
      out.println(platform.readyLine());
    }
    Platform started = platform;
    KafkaCluster bootstrap = started != null ? started.cluster() : cluster.cluster();
    Files.deleteIfExists(dir.resolve("hold"));
    out.println("starting the shop databases under " + dir + " ...");
    ShopDatabases dbs = ShopDatabases.start(dir, sourcePort, sinkPort);
    DemoState state = new DemoState(ProcessHandle.current().pid(), cluster.connectUrl(), dbs.sourceUrl(),
        dbs.sinkUrl(), SOURCE, SINK, SLOT);
    ShopLoad load = new ShopLoad(dbs, rate, dir, line -> err.println(line));
    Thread loader = new Thread(load, "demo-load");
    CountDownLatch ended = new CountDownLatch(1);
    Thread cleanup = new Thread(() -> {
      load.stop();
      loader.interrupt();
      out.println("stopping the demo: deleting " + SOURCE + " and " + SINK + " ...");
      for (String name : List.of(SINK, SOURCE)) {
        try {
          if (connect.config(name).isPresent()) {
            connect.delete(name);
          }
        } catch (RuntimeException e) {
          err.println("could not delete " + name + ": " + e.getMessage());
        }
      }
      try {
        awaitSlotReleased(dbs);
        dbs.dropSlot(SLOT);
        dbs.close();
        Files.deleteIfExists(DemoState.file(dir));
      } catch (IOException | RuntimeException e) {
        err.println("stopping the demo: " + e.getMessage());
      }
      if (started != null) {
        out.println("stopping the sluice up the demo started ...");
        started.close();
      }
      out.println("demo stopped; its databases stay under " + dir + " for the next run");
      out.flush();
      ended.countDown();
    }, "demo-stop");
    Runtime.getRuntime().addShutdownHook(cleanup);

    apply(connect, SOURCE, withFormat(sourceConfig(dbs)));
    apply(connect, SINK, withFormat(sinkConfig(dbs)));
    state.write(dir);
    loader.start();
    // One write, so that a reader of the output (or a log line from the in-process sluice up) never sees half of it.
    String guide = String.join(System.lineSeparator(), "",
        "sluice demo: a shop under load (" + rate + " changes/s) flowing into its copy",
        "  source database    " + dbs.sourceUrl() + "?user=postgres   (tables customers, orders, order_lines)",
        "  sink database      " + dbs.sinkUrl() + "?user=postgres",
        "  connectors         ./sluice connectors list   (" + SOURCE + ", " + SINK + ")",
        "  Connect            " + cluster.connectUrl() + "/connectors/" + SOURCE + "/status",
        "  topics             demo.public.customers, demo.public.orders, demo.public.order_lines   ("
            + format + ")",
        "  schema registry    " + cluster.registryUrl() + "/subjects",
        "  metrics            " + cluster.metricsUrl() + "/graph  (svc_connect_source_connector_metrics_"
            + "source_record_poll_total)",
        "  alerts             " + cluster.alertsUrl() + "/#/alerts",
        "  compare            ./sluice demo --check   (holds the load, waits for the sink, reconciles)",
        "  rehearse a fault   ./sluice demo fault sink-down|lag|poison, then ./sluice demo fault recover;",
        "                     ./sluice demo fault poison --no-dlq, then ./sluice offsets skip (the fault says how)",
        "  stop               Ctrl-C, or ./sluice demo stop", "");
    out.print(guide);
    out.flush();
    long last = -1;
    long reported = System.nanoTime();
    while (ended.getCount() > 0) {
      Thread.sleep(500);
      Path fault = dir.resolve("fault");
      if (Files.exists(fault) && ended.getCount() > 0) {
        String kind = Files.readString(fault).trim();
        String said;
        try {
          said = applyFault(kind, dbs, connect, bootstrap, dir);
        } catch (IOException | RuntimeException e) {
          said = "could not apply " + kind + ": " + e.getMessage();
        }
        publish(dir.resolve("fault-done"), said);
        Files.deleteIfExists(fault);
        out.println("demo fault " + kind + ": " + said);
        out.flush();
      }
      long now = load.changes();
      if (System.nanoTime() - reported > 30_000_000_000L && now != last && ended.getCount() > 0) {
        out.println("demo: " + now + " changes written");
        out.flush();
        last = now;
        reported = System.nanoTime();
      }
    }
    return 0;
  }

  /**
   * Writes {@code text} to {@code file} whole or not at all: the demo and {@code demo fault} each poll for the other's
   * file, and one written in place was once read between its creation and its text (the fault "" was unknown).
   */
  static void publish(Path file, String text) throws IOException {
    Path partial = file.resolveSibling(file.getFileName() + ".partial");
    Files.writeString(partial, text);
    Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING,
        StandardCopyOption.ATOMIC_MOVE);
  }

  /** Applies a fault the demo owns the means of; returns what happens next and how to recover. */
  private static String applyFault(String kind, ShopDatabases dbs, ConnectRestClient connect, KafkaCluster bootstrap,
      Path dir) throws IOException {
    return switch (kind) {
      case "poison --no-dlq" -> {
        try {
          yield new ConstraintPoison(dbs, connect, bootstrap, dir).apply();
        } catch (SQLException e) {
          throw new IOException(e.getMessage(), e);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted", e);
        }
      }
      case "poison" -> {
        try {
          poisonRecord(bootstrap);
        } catch (Exception e) {
          throw new IOException("could not write to " + POISON_TOPIC + " at " + bootstrap.bootstrapServers() + ": " + e.getMessage(), e);
        }
        yield "a record the sink cannot read (plain JSON, key {\"id\": -1}, in no format its converter reads) is on "
            + POISON_TOPIC + ". " + SINK + " keeps running: Sluice gave it a dead letter queue, so the record goes to "
            + SINK + ".dlq with Connect's error headers, and CdcCompletenessRisk (after 5 minutes) and "
            + "ConnectDlqVolumeSpike (on a spike) fire for it. Look: ./sluice dlq inspect " + SINK + ".dlq. Recover: "
            + "nothing from the shop was lost; a record whose cause is fixed goes back with ./sluice dlq replay "
            + SINK + ".dlq (this one would fail again: leave it). A sink without a dead letter queue would fail its "
            + "task instead (ConnectConnectorDown): ./sluice demo fault poison --no-dlq rehearses that.";
      }
      case "sink-down" -> {
        dbs.stopSink();
        yield "the copy's PostgreSQL (port " + dbs.sinkPort() + ") is stopped while the load goes on: " + SINK
            + "'s task fails at its next write, ConnectConnectorDown fires for it after 2 minutes and reaches the alert"
            + " router; its pipeline's lag alerts are inhibited meanwhile. Recover: ./sluice demo fault recover";
      }
      case "lag" -> {
        connect.pause(SINK, Duration.ofSeconds(60));
        yield SINK + " is paused while the load goes on: ConnectConnectorDown fires for it after 2 minutes; the "
            + "pipeline falls behind, and its ConnectLowThroughput (after 15 minutes) and ConnectHighLag (300,000 "
            + "records behind for 5 minutes) are inhibited while the sink is down. Silence planned pauses with "
            + "./sluice connectors pause --silence. Recover: ./sluice demo fault recover";
      }
      case "recover" -> {
        boolean started = dbs.startSink();
        if ("PAUSED".equals(connect.state(SINK))) {
          connect.resume(SINK);
        }
        connect.restart(SINK, true);
        yield (started ? "the copy's PostgreSQL is running again; " : "") + SINK + " and its tasks restarted: it "
            + "catches up from its committed offsets (./sluice demo --check compares once it has)";
      }
      default -> throw new IllegalArgumentException("unknown fault " + kind);
    };
  }

  private static void apply(ConnectRestClient connect, String name, ObjectNode config) {
    if (connect.config(name).isPresent()) {
      connect.putConfig(name, config);
    } else {
      connect.create(name, config);
    }
  }

  /** The converters of {@code --format} on both sides; json leaves the worker's own (JSON with schemas). */
  private ObjectNode withFormat(ObjectNode config) {
    String converter = FORMATS.get(format);
    if (converter != null) {
      for (String side : List.of("key", "value")) {
        config.put(side + ".converter", converter);
        config.put(side + ".converter." + SerdeConfig.REGISTRY_URL, cluster.registryUrl());
      }
    }
    return config;
  }

  private static ObjectNode sourceConfig(ShopDatabases dbs) {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
    c.put("plugin.name", "pgoutput");
    c.put("database.hostname", "127.0.0.1");
    c.put("database.port", String.valueOf(dbs.sourcePort()));
    c.put("database.user", ShopDatabases.USER);
    c.put("database.password", ShopDatabases.USER);
    c.put("database.dbname", ShopDatabases.SOURCE_DB);
    c.put("topic.prefix", "demo");
    c.put("slot.name", SLOT);
    c.put("table.include.list", "public.customers,public.orders,public.order_lines");
    c.put("heartbeat.interval.ms", "10000");
    // Watermarks from PostgreSQL's transaction snapshots: `sluice snapshot start demo-shop-source public.orders`
    // works as a reader of the README tries it, with nothing written to the shop's database.
    c.put("read.only", "true");
    return JSON.valueToTree(c);
  }

  private static ObjectNode sinkConfig(ShopDatabases dbs) {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("connector.class", io.sluice.connect.defaults.ConnectorDefaults.SLUICE_JDBC_SINK);
    c.put("connection.url", dbs.sinkUrl());
    c.put("connection.username", ShopDatabases.USER);
    c.put("connection.password", ShopDatabases.USER);
    // Named, not a pattern: a pattern subscription sees topics created after it only at its next metadata refresh
    // (5 minutes by default), and the source creates them with its first change.
    c.put("topics", String.join(",", ShopDatabases.TABLES.stream().map(t -> "demo.public." + t).toList()));
    c.put("insert.mode", "upsert");
    c.put("delete.enabled", "true");
    c.put("primary.key.mode", "record_key");
    c.put("schema.evolution", "basic");
    // demo.public.orders → table orders in the copy.
    c.put("transforms", "table");
    c.put("transforms.table.type", "org.apache.kafka.connect.transforms.RegexRouter");
    c.put("transforms.table.regex", "demo\\.public\\.(.*)");
    c.put("transforms.table.replacement", "$1");
    c.put("tasks.max", "1");
    return JSON.valueToTree(c);
  }

  private static void awaitSlotReleased(ShopDatabases dbs) {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (System.nanoTime() < deadline) {
      try (Connection c = dbs.source(); var s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + SLOT
              + "' AND active")) {
        rs.next();
        if (rs.getInt(1) == 0) {
          return;
        }
        Thread.sleep(200);
      } catch (SQLException | InterruptedException e) {
        return;
      }
    }
  }

  // ---------------------------------------------------------------------------------------------------- check

  private int check() throws Exception {
    Path dir = demoDir();
    Optional<DemoState> running = DemoState.running(dir);
    if (running.isEmpty()) {
      throw CommandError.refused("no demo is running under " + dir + " (start one with ./sluice demo)");
    }
    DemoState s = running.get();
    Path hold = dir.resolve("hold");
    Path held = dir.resolve("held");
    Files.deleteIfExists(held);
    Files.writeString(hold, "sluice demo --check, pid " + ProcessHandle.current().pid());
    try {
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (!Files.exists(held)) {
        if (System.nanoTime() > deadline) {
          err.println("error: the demo's load did not hold within 30 s");
          return 1;
        }
        Thread.sleep(100);
      }
      out.println("load held after " + Files.readString(held).trim() + " changes; waiting for the sink to catch up ...");
      out.flush();
      if (!awaitCaughtUp(s, Duration.ofSeconds(timeoutSeconds))) {
        err.println("the sink did not catch up within " + timeoutSeconds + " s; reconciling anyway");
      }
      List<String> args = new ArrayList<>(List.of("--source", s.sourceUrl() + "?user=postgres",
          "--sink", s.sinkUrl() + "?user=postgres"));
      for (String t : ShopDatabases.TABLES) {
        args.addAll(List.of("--table", "public." + t + ":public." + t));
      }
      ReconcileCommand reconcile = new ReconcileCommand();
      CommandLine cl = new CommandLine(reconcile);
      cl.setOut(new java.io.PrintWriter(out, true));
      cl.setErr(new java.io.PrintWriter(err, true));
      int exit = cl.execute(args.toArray(String[]::new));
      out.println(exit == 0 ? "demo check: source and sink are equal" : "demo check: source and sink differ (exit "
          + exit + ")");
      return exit;
    } finally {
      Files.deleteIfExists(hold);
      out.println("load resumed");
      out.flush();
    }
  }

  /** True once every table has the same row count on both sides, twice in a row a second apart. */
  private static boolean awaitCaughtUp(DemoState s, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    int agreed = 0;
    while (System.nanoTime() < deadline) {
      try (Connection src = java.sql.DriverManager.getConnection(s.sourceUrl(), ShopDatabases.USER, "");
          Connection dst = java.sql.DriverManager.getConnection(s.sinkUrl(), ShopDatabases.USER, "")) {
        boolean same = true;
        for (String t : ShopDatabases.TABLES) {
          same &= count(src, t) == count(dst, t);
        }
        agreed = same ? agreed + 1 : 0;
        if (agreed >= 2) {
          return true;
        }
      } catch (SQLException notYet) {
        // The sink creates its tables with the first change to each: not there yet.
        agreed = 0;
      }
      Thread.sleep(1000);
    }
    return false;
  }

  private static long count(Connection c, String table) throws SQLException {
    try (var st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT count(*) FROM public." + table)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  // ---------------------------------------------------------------------------------------------------- fault

  @Command(name = "fault", mixinStandardHelpOptions = true,
      description = "Rehearse a fault on the running demo: sink-down (the copy's database stops), lag (the sink "
          + "pauses while the load goes on), poison (a record the sink cannot read, kept in its dead letter queue); "
          + "recover undoes these. poison --no-dlq: a change the copy's SQL refuses, with the sink set to fail on "
          + "such a record rather than keep it in its dead letter queue: the sink fails until the record is skipped "
          + "with sluice offsets skip.")
  static final class Fault implements Callable<Integer> {
    @Mixin ClusterOptions cluster;

    @CommandLine.Parameters(index = "0", paramLabel = "sink-down|lag|poison|recover")
    String kind;

    @Option(names = "--no-dlq", description = "with poison: a change the copy refuses, which fails the sink as one "
        + "without a dead letter queue fails")
    boolean noDlq;

    @Override
    public Integer call() throws Exception {
      if (!List.of("sink-down", "lag", "poison", "recover").contains(kind)) {
        System.err.println("error: unknown fault '" + kind + "' (sink-down, lag, poison, recover)");
        return 2;
      }
      if (noDlq && !kind.equals("poison")) {
        System.err.println("error: --no-dlq goes with poison only");
        return 2;
      }
      Path dir = cluster.dataDir().resolve("demo");
      if (DemoState.running(dir).isEmpty()) {
        throw CommandError.refused("no demo is running under " + dir + " (start one with ./sluice demo)");
      }

      String applied = noDlq ? kind + " --no-dlq" : kind;
      Path done = dir.resolve("fault-done");
      Files.deleteIfExists(done);
      publish(dir.resolve("fault"), applied);
      // poison --no-dlq waits for the sink to catch up and then to fail, up to a minute each.
      long deadline = System.nanoTime() + Duration.ofSeconds(180).toNanos();
      while (!Files.exists(done)) {
        if (System.nanoTime() > deadline) {
          System.err.println("error: the demo did not apply the fault within 180 s");
          return 1;
        }
        Thread.sleep(200);
      }
      String said = Files.readString(done);
      Files.deleteIfExists(done);
      if (said.startsWith("could not")) {
        System.err.println("error: " + said);
        return 1;
      }
      System.out.println(applied + ": " + said);
      return 0;
    }
  }

  /**
   * A record written by hand onto the demo's orders topic, in no format the sink reads (plain JSON, without the
   * envelope or registry framing its converter expects): the sink cannot turn it into a row.
   */
  static int poisonRecord(KafkaCluster cluster) throws Exception {
    try (org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]> producer =
        new org.apache.kafka.clients.producer.KafkaProducer<>(cluster.clientConfig(),
            new org.apache.kafka.common.serialization.ByteArraySerializer(),
            new org.apache.kafka.common.serialization.ByteArraySerializer())) {
      producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(POISON_TOPIC,
          "{\"id\": -1}".getBytes(java.nio.charset.StandardCharsets.UTF_8),
          "{\"order\": \"written by hand, in no format the sink reads\"}"
              .getBytes(java.nio.charset.StandardCharsets.UTF_8))).get(30, java.util.concurrent.TimeUnit.SECONDS);
    }
    return 0;
  }

  static final String POISON_TOPIC = "demo.public.orders";

  // ----------------------------------------------------------------------------------------------------- stop

  @Command(name = "stop", mixinStandardHelpOptions = true,
      description = "End a running demo: its connectors and replication slot are removed, its databases kept.")
  static final class Stop implements Callable<Integer> {
    @Mixin ClusterOptions cluster;

    @Override
    public Integer call() throws Exception {
      Path dir = cluster.dataDir().resolve("demo");
      Optional<DemoState> running = DemoState.running(dir);
      if (running.isPresent()) {
        ProcessHandle p = ProcessHandle.of(running.get().pid()).orElseThrow();
        p.destroy();
        try {
          p.onExit().get(120, java.util.concurrent.TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
          System.err.println("error: the demo (pid " + p.pid() + ") did not stop within 120 s");
          return 1;
        }
        System.out.println("demo stopped (pid " + p.pid() + ")");
        return 0;
      }
      // No demo process: remove what a killed one may have left.
      ConnectRestClient connect = new ConnectRestClient(cluster.connectUrl());
      int removed = 0;
      for (String name : List.of(SINK, SOURCE)) {
        if (connect.config(name).isPresent()) {
          connect.delete(name);
          removed++;
        }
      }
      Files.deleteIfExists(DemoState.file(dir));
      System.out.println(removed == 0 ? "no demo is running" : "removed " + removed + " connector(s) a stopped demo left");
      return 0;
    }
  }
}
