package io.sluice.exporter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.connect.ConnectRuntime;
import io.sluice.connect.testing.ConnectClient;
import io.sluice.connect.testing.Eventually;
import io.sluice.connect.testing.Pipeline;
import io.sluice.connect.testing.PostgresSource;
import io.sluice.connect.testing.SharedPostgres;
import io.sluice.connect.testing.TestWorkers;
import io.sluice.exporter.SlowReadings.Timed;
import io.sluice.exporter.SourceRetention.PostgresReading;
import io.sluice.kafka.EmbeddedKafka;
import io.sluice.kafka.ExitControl;
import io.sluice.kafka.testing.CheckedSends;
import io.sluice.kafka.testing.SharedKafka;
import io.sluice.testing.TestClock;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One refresh pass at a time over connectors a real worker holds (created stopped: their configs and statuses are
 * what the pass reads, no task needs to run): every sink's lag from one request, the sources of a database sharing one
 * session that outlives the pass, and that session coming back after the server or its backend goes away. The broker
 * is this test's own, with an authorizer that refuses one consumer group: a real per-group failure in a batched
 * request. PostgreSQL is the shared server, and one of the test's own that it restarts.
 */
class SlowReadingsTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  @TempDir static Path dataDir;
  private static final String REFUSED_GROUP = "sluice-refused-group";
  private static EmbeddedKafka kafka;
  private static ConnectRuntime worker;
  private static ConnectClient rest;
  private static Admin admin;

  @BeforeAll
  static void start() throws Exception {
    ExitControl.install((code, message) -> { });
    // Everything allowed but what an ACL names: here only the refused group.
    kafka = EmbeddedKafka.builder().dataDir(dataDir.resolve("kafka")).port(0)
        .brokerProperty("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
        .brokerProperty("allow.everyone.if.no.acl.found", "true").start();
    admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()));
    admin.createAcls(List.of(new AclBinding(new ResourcePattern(ResourceType.GROUP, REFUSED_GROUP, PatternType.LITERAL),
        new AccessControlEntry("User:*", "*", AclOperation.ALL, AclPermissionType.DENY)))).all()
        .get(30, TimeUnit.SECONDS);
    String cluster = SharedKafka.unique("slow");
    worker = ConnectRuntime.builder().bootstrapServers(kafka.bootstrapServers()).restPort(TestWorkers.freePort())
        .groupId(cluster).topics(cluster + "-offsets", cluster + "-configs", cluster + "-status", cluster + "-secrets")
        .pluginPath(TestWorkers.pluginPath()).dataDir(dataDir).start();
    rest = new ConnectClient(worker.restUrl());
  }

  @AfterAll
  static void stop() {
    if (admin != null) {
      admin.close();
    }
    if (worker != null) {
      worker.close();
    }
    if (kafka != null) {
      kafka.close();
    }
  }

  @Test
  void everySinksLagInOnePassAndAGroupThatFailsKeepsItsReading() throws Exception {
    String topic = SharedKafka.unique("slow-lag");
    admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of("bootstrap.servers",
        kafka.bootstrapServers()), new StringSerializer(), new StringSerializer());
        CheckedSends<String, String> sends = CheckedSends.through(producer)) {
      for (int i = 0; i < 10; i++) {
        sends.send(new ProducerRecord<>(topic, "k" + i, "v" + i));
      }
    }
    TopicPartition tp = new TopicPartition(topic, 0);
    String behind = topic + "-behind";
    String caughtUp = topic + "-caught-up";
    String neverCommitted = topic + "-never";
    for (String sink : List.of(behind, caughtUp, neverCommitted)) {
      createStopped(sink, sinkConfig(topic, Map.of()));
    }
    admin.alterConsumerGroupOffsets("connect-" + behind, Map.of(tp, new OffsetAndMetadata(4))).all()
        .get(30, TimeUnit.SECONDS);
    admin.alterConsumerGroupOffsets("connect-" + caughtUp, Map.of(tp, new OffsetAndMetadata(10))).all()
        .get(30, TimeUnit.SECONDS);

    TestClock clock = new TestClock(Instant.parse("2026-01-01T00:00:00Z"));
    try (SlowReadings slow = slowReadings(clock)) {
      slow.refresh();
      SlowReadings.Readings first = slow.last();
      assertEquals(10L, first.endOffsets().value().get(tp));
      assertEquals(Map.of(tp, 6L), first.sinkLag().get(behind).value());
      assertEquals(Map.of(tp, 0L), first.sinkLag().get(caughtUp).value());
      // A group with no commits has nothing to report, and takes nothing from the others.
      assertEquals(Map.of(), first.sinkLag().get(neverCommitted).value());

      // The sink moves to a group the broker refuses to answer for: it keeps its last reading, the others move on.
      assertEquals(200, rest.call("PUT", "/connectors/" + behind + "/config",
          sinkConfig(topic, Map.of("name", behind, "consumer.override.group.id", REFUSED_GROUP))).status());
      Eventually.await("the new group in the worker's config", WAIT, () -> worker.herder().connectorInfo(behind)
          .config().get("consumer.override.group.id"), REFUSED_GROUP::equals);
      admin.alterConsumerGroupOffsets("connect-" + caughtUp, Map.of(tp, new OffsetAndMetadata(7))).all()
          .get(30, TimeUnit.SECONDS);
      clock.advance(Duration.ofSeconds(10));
      slow.refresh();
      SlowReadings.Readings second = slow.last();
      assertEquals(first.sinkLag().get(behind), second.sinkLag().get(behind));
      assertEquals(new Timed<>(Map.of(tp, 3L), first.sinkLag().get(caughtUp).readAt() + 10),
          second.sinkLag().get(caughtUp));
    } finally {
      for (String sink : List.of(behind, caughtUp, neverCommitted)) {
        delete(sink);
      }
    }
  }

  @Test
  void sourcesOfOneDatabaseShareASessionAndEachGetsItsOwnSlot() throws Exception {
    String db = SharedKafka.unique("slow_share").replace('-', '_');
    SharedPostgres.createDatabase(db);
    String slotA = db + "_a";
    String slotB = db + "_b";
    execute(SharedPostgres.jdbcUrl(db), "SELECT pg_create_logical_replication_slot('" + slotA + "', 'pgoutput')");
    // WAL between the two slots' starts, so that their readings differ.
    execute(SharedPostgres.jdbcUrl(db), "SELECT pg_logical_emit_message(false, 'sluice', repeat('x', 100000))");
    execute(SharedPostgres.jdbcUrl(db), "SELECT pg_create_logical_replication_slot('" + slotB + "', 'pgoutput')");
    String a = db + "-a";
    String b = db + "-b";
    String noSlot = db + "-no-slot";
    String otherDb = db + "-other-db";
    createStopped(a, sourceConfig(SharedPostgres.port(), db, slotA));
    createStopped(b, sourceConfig(SharedPostgres.port(), db, slotB));
    createStopped(noSlot, sourceConfig(SharedPostgres.port(), db, db + "_missing"));
    createStopped(otherDb, sourceConfig(SharedPostgres.port(), "postgres", slotA));

    TestClock clock = new TestClock(Instant.parse("2026-01-01T00:00:00Z"));
    SlowReadings slow = slowReadings(clock);
    try {
      // Equal to what the server says before and after the pass, once no write fell between (the WAL position moves
      // with any write on the server).
      Eventually.await("each slot's retained WAL as the server computes it", WAIT, () -> {
        long beforeA = MetricsExporterTest.retainedWal(slotA);
        long beforeB = MetricsExporterTest.retainedWal(slotB);
        slow.refresh();
        return beforeA == MetricsExporterTest.retainedWal(slotA) && beforeB == MetricsExporterTest.retainedWal(slotB)
            && retention(slow, a).retainedBytes() == beforeA && retention(slow, b).retainedBytes() == beforeB;
      }, Boolean::booleanValue);
      assertTrue(retention(slow, a).retainedBytes() > retention(slow, b).retainedBytes() + 100_000);
      assertEquals(new PostgresReading(slotA, retention(slow, a).retainedBytes(), "reserved", -1), retention(slow, a));
      assertEquals(new PostgresReading(slotB, retention(slow, b).retainedBytes(), "reserved", -1), retention(slow, b));
      assertEquals(new PostgresReading(db + "_missing", 0, "lost", -1), retention(slow, noSlot));
      // The slots are the server's: the source on another database reads the same slot through its own session.
      assertEquals(slotA, retention(slow, otherDb).slot());
      assertEquals(List.of(1, 1), List.of(sessions(db).size(), sessions("postgres").size()));

      // The backend goes away: the next pass opens another session and reads fresh values.
      int killed = sessions(db).get(0);
      execute(SharedPostgres.jdbcUrl("postgres"), "SELECT pg_terminate_backend(" + killed + ")");
      clock.advance(Duration.ofSeconds(10));
      slow.refresh();
      assertEquals(clock.millis() / 1000.0, slow.last().retention().get(a).readAt());
      assertEquals(clock.millis() / 1000.0, slow.last().retention().get(b).readAt());
      assertEquals(1, sessions(db).size());
      assertNotEquals(killed, sessions(db).get(0));

      // Connectors that go take their session with them once none of the database's are left.
      delete(a);
      delete(otherDb);
      slow.refresh();
      assertEquals(1, sessions(db).size(), "the other sources of the database still use it");
      awaitSessions("postgres", 0);
      delete(b);
      delete(noSlot);
      slow.refresh();
      awaitSessions(db, 0);
      assertNull(slow.last().retention().get(b));
    } finally {
      slow.close();
      for (String c : List.of(a, b, noSlot, otherDb)) {
        delete(c);
      }
      execute(SharedPostgres.jdbcUrl(db), "SELECT pg_drop_replication_slot('" + slotA + "')");
      execute(SharedPostgres.jdbcUrl(db), "SELECT pg_drop_replication_slot('" + slotB + "')");
    }
    awaitSessions(db, 0);
  }

  @Test
  void aServerThatRestartsIsReadAgainAndADownOneLeavesTheOthers(@TempDir Path pgData) throws Exception {
    int port = TestWorkers.freePort();
    String down = SharedKafka.unique("slow-down");
    String up = SharedKafka.unique("slow-up");
    String upDb = up.replace('-', '_');
    SharedPostgres.createDatabase(upDb);
    execute(SharedPostgres.jdbcUrl(upDb), "SELECT pg_create_logical_replication_slot('" + upDb + "', 'pgoutput')");
    TestClock clock = new TestClock(Instant.parse("2026-01-01T00:00:00Z"));
    EmbeddedPostgres pg = ownServer(pgData, port);
    SlowReadings slow = slowReadings(clock);
    try {
      execute(url(port, "postgres"), "SELECT pg_create_logical_replication_slot('restarts', 'pgoutput')");
      createStopped(down, sourceConfig(port, "postgres", "restarts"));
      createStopped(up, sourceConfig(SharedPostgres.port(), upDb, upDb));
      slow.refresh();
      Timed<SourceRetention.Reading> before = slow.last().retention().get(down);
      assertEquals("reserved", ((PostgresReading) before.value()).walStatus());

      pg.close();
      clock.advance(Duration.ofSeconds(10));
      slow.refresh();
      assertEquals(before, slow.last().retention().get(down), "a server that is down keeps its last reading");
      assertEquals(clock.millis() / 1000.0, slow.last().retention().get(up).readAt(), "and others are read");

      pg = ownServer(pgData, port);
      clock.advance(SourceConnections.RETRY_AFTER);
      slow.refresh();
      Timed<SourceRetention.Reading> after = slow.last().retention().get(down);
      assertEquals(clock.millis() / 1000.0, after.readAt());
      assertEquals("reserved", ((PostgresReading) after.value()).walStatus());
    } finally {
      slow.close();
      delete(down);
      delete(up);
      pg.close();
      execute(SharedPostgres.jdbcUrl(upDb), "SELECT pg_drop_replication_slot('" + upDb + "')");
    }
  }

  private static SlowReadings slowReadings(TestClock clock) {
    return new SlowReadings(new ConnectorCatalog(worker.herder()), worker.herder(), worker.workerConfig(), clock);
  }

  /** A PostgreSQL server of this test alone, on a port and data folder that a restart keeps. */
  private static EmbeddedPostgres ownServer(Path data, int port) throws Exception {
    return EmbeddedPostgres.builder().setDataDirectory(data).setCleanDataDirectory(false).setPort(port)
        .setServerConfig("wal_level", "logical").start();
  }

  private static String url(int port, String db) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + db;
  }

  private static Map<String, String> sinkConfig(String topic, Map<String, String> extra) {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("connector.class", "io.debezium.connector.jdbc.JdbcSinkConnector");
    c.put("connection.url", "jdbc:postgresql://127.0.0.1:1/none");
    c.put("topics", topic);
    c.put("tasks.max", "1");
    c.putAll(extra);
    return c;
  }

  private static Map<String, String> sourceConfig(int port, String db, String slot) {
    return PostgresSource.of(db, slot + "_" + db, slot).at(port, SharedPostgres.USER, SharedPostgres.PASSWORD)
        .config();
  }

  /** Creates the connector stopped, and waits until the worker has its status (the pass skips it before that). */
  private static void createStopped(String name, Map<String, String> config) {
    ConnectClient.Reply r = rest.call("POST", "/connectors", Map.of("name", name, "initial_state", "STOPPED",
        "config", config));
    assertEquals(201, r.status(), r.body());
    rest.awaitState(name, "STOPPED");
  }

  private static void delete(String name) {
    if (rest.call("DELETE", "/connectors/" + name, null).status() == 204) {
      Eventually.await(name + " gone from the worker", WAIT, () -> worker.herder().connectors().contains(name),
          present -> !present);
    }
  }

  private static PostgresReading retention(SlowReadings slow, String connector) {
    return (PostgresReading) slow.last().retention().get(connector).value();
  }

  /** The backends of the exporter's sessions on a database of the shared server. */
  private static List<Integer> sessions(String db) {
    try (Connection c = SharedPostgres.connect("postgres");
        PreparedStatement s = c.prepareStatement("SELECT pid FROM pg_stat_activity"
            + " WHERE application_name = 'sluice-exporter' AND datname = ? ORDER BY pid")) {
      s.setString(1, db);
      List<Integer> out = new ArrayList<>();
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getInt(1));
        }
      }
      return out;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A closed session's backend leaves pg_stat_activity once it has exited, a moment after the close. */
  private static void awaitSessions(String db, int count) {
    Eventually.await(count + " exporter sessions on " + db, WAIT, () -> sessions(db).size(), n -> n == count);
  }

  private static void execute(String url, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(url, SharedPostgres.USER, SharedPostgres.PASSWORD);
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
