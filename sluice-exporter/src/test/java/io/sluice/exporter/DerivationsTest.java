package io.sluice.exporter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.exporter.ConnectorCatalog.Connector;
import io.sluice.exporter.ConnectorCatalog.Kind;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the exporter derives from records and configs, on the exact shapes Connect and Debezium write. */
class DerivationsTest {

  private static byte[] status(String state, String worker, int generation) {
    return ("{\"state\":\"" + state + "\",\"trace\":null,\"worker_id\":\"" + worker + "\",\"generation\":"
        + generation + "}").getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void restartsCountMovesIntoRunningButNotResumes() {
    RestartCounter.Tally tally = new RestartCounter.Tally();
    String key = "status-task-orders-sink-0";
    tally.apply(key, status("RUNNING", "w1:8083", 1));
    tally.apply(key, status("PAUSED", "w1:8083", 1));
    tally.apply(key, status("RUNNING", "w1:8083", 1));
    RestartCounter.Key k = new RestartCounter.Key("orders-sink", "0");
    assertEquals(0, tally.restarts().get(k), "a resume is not a restart");
    tally.apply(key, status("RESTARTING", "w1:8083", 1));
    tally.apply(key, status("RUNNING", "w1:8083", 1));
    tally.apply(key, status("UNASSIGNED", "w1:8083", 2));
    tally.apply(key, status("RUNNING", "w1:8083", 3));
    tally.apply(key, status("FAILED", "w1:8083", 3));
    tally.apply(key, status("RUNNING", "w1:8083", 3));
    assertEquals(3, tally.restarts().get(k));
    // The worker died without a word; the task turns up RUNNING on another one.
    tally.apply(key, status("RUNNING", "w2:8083", 4));
    assertEquals(4, tally.restarts().get(k));
    // A rewrite of the same status is not a restart.
    tally.apply(key, status("RUNNING", "w2:8083", 4));
    assertEquals(4, tally.restarts().get(k));

    tally.apply("status-connector-orders-sink", status("RUNNING", "w1:8083", 1));
    tally.apply("status-connector-orders-sink", status("UNASSIGNED", "w1:8083", 1));
    tally.apply("status-connector-orders-sink", status("RUNNING", "w1:8083", 1));
    assertEquals(1, tally.restarts().get(new RestartCounter.Key("orders-sink", RestartCounter.CONNECTOR_TASK)));

    // Deleting the connector writes tombstones: a connector recreated under the name starts at 0.
    tally.apply(key, null);
    tally.apply(key, status("RUNNING", "w1:8083", 5));
    assertEquals(0, tally.restarts().get(k));
    tally.apply("status-topic-orders:orders-sink", status("RUNNING", "w1:8083", 5));
    assertEquals(2, tally.restarts().size(), "topic keys are not connectors");
  }

  @Test
  void statusKeysNameConnectorAndTask() {
    assertEquals(new RestartCounter.Key("a-b-c", "12"), RestartCounter.parseKey("status-task-a-b-c-12"));
    assertEquals(new RestartCounter.Key("a-b-c", "connector"), RestartCounter.parseKey("status-connector-a-b-c"));
    assertNull(RestartCounter.parseKey("status-task-nonumber"));
    assertNull(RestartCounter.parseKey("session-key"));
  }

  @Test
  void commitTimeComesFromTheSourceBlockElseTheEnvelope() {
    String withSchema = "{\"schema\":{\"type\":\"struct\",\"fields\":[{\"field\":\"ts_ms\",\"type\":\"int64\"}]},"
        + "\"payload\":{\"before\":null,\"after\":{\"id\":1},\"source\":{\"db\":\"x\",\"ts_ms\":1700000000123,"
        + "\"lsn\":5},\"op\":\"c\",\"ts_ms\":1700000000999}}";
    assertEquals(1700000000123L, FreshnessInterceptor.commitTimeMillis(bytes(withSchema)));
    String plain = "{\"after\":{\"id\":1},\"op\":\"c\",\"ts_ms\":1700000000999}";
    assertEquals(1700000000999L, FreshnessInterceptor.commitTimeMillis(bytes(plain)));
    assertEquals(0, FreshnessInterceptor.commitTimeMillis(bytes("not json")));
    assertEquals(0, FreshnessInterceptor.commitTimeMillis(new byte[] {0, 0, 0, 0, 1, 2}));
    assertEquals(0, FreshnessInterceptor.commitTimeMillis(null));
    assertEquals(0, FreshnessInterceptor.commitTimeMillis(bytes("{\"payload\":{\"op\":\"c\"}}")));
  }

  @Test
  void binlogProbesUseTheDriverTheirPluginCarries() {
    // The URL the probes connect with is the source's own (sluice-source): MariaDB's plugin has MariaDB's driver only.
    String mariaDb = "io.debezium.connector.mariadb.MariaDbConnector";
    assertEquals("jdbc:mariadb://h:3307/", io.sluice.source.SourceConnection.of(Map.of("connector.class", mariaDb,
        "database.hostname", "h", "database.port", "3307"), io.sluice.source.SourceConnection.Secrets.AS_GIVEN)
        .jdbcUrl());
    assertTrue(SourceRetention.forClass("io.debezium.connector.mysql.MySqlConnector",
        java.time.Clock.systemUTC()) instanceof SourceRetention.MySqlBinlog);
    assertTrue(SourceRetention.forClass(mariaDb, java.time.Clock.systemUTC()) instanceof SourceRetention.MySqlBinlog);
    assertTrue(SourceRetention.forClass("io.debezium.connector.postgresql.PostgresConnector",
        java.time.Clock.systemUTC()) instanceof SourceRetention.PostgresSlot);
    assertNull(SourceRetention.forClass("io.debezium.connector.sqlserver.SqlServerConnector",
        java.time.Clock.systemUTC()));
    assertNull(SourceRetention.forClass("io.debezium.connector.jdbc.JdbcSinkConnector", java.time.Clock.systemUTC()));
  }

  @Test
  void theByteSearchFindsTheEnvelopesSourceBlockOnly() {
    // A struct column named "source" and a string holding the pattern come before the envelope's own source block.
    String tricky = "{\"schema\":{\"type\":\"struct\",\"fields\":[{\"field\":\"source\",\"type\":\"struct\"}]},"
        + "\"payload\":{\"before\":null,\"after\":{\"source\":{\"ts_ms\":1},\"note\":\"x\\\"source\\\":{\\\"ts_ms\\\":2\"},"
        + "\"source\":{\"version\":\"3.7.0.Final\",\"connector\":\"postgresql\",\"name\":\"p\",\"ts_ms\":1700000000123,"
        + "\"snapshot\":\"false\"},\"transaction\":null,\"op\":\"c\",\"ts_ms\":1700000000999}}";
    assertEquals(1700000000123L, FreshnessInterceptor.debeziumSourceTime(bytes(tricky)));
    assertEquals(1700000000123L, FreshnessInterceptor.commitTimeMillis(bytes(tricky)));
    // A source block without ts_ms before its end leaves the decision to the full parse.
    String noTs = "{\"payload\":{\"source\":{\"db\":\"x\"},\"op\":\"c\",\"ts_ms\":1700000000999}}";
    assertEquals(0, FreshnessInterceptor.debeziumSourceTime(bytes(noTs)));
    assertEquals(1700000000999L, FreshnessInterceptor.commitTimeMillis(bytes(noTs)));
    assertEquals(0, FreshnessInterceptor.debeziumSourceTime(bytes("{\"source\":{\"ts_ms\":abc}}")));
  }

  @Test
  void sinkConsumersAreNamedAfterTheirConnector() {
    assertEquals("orders-sink", FreshnessInterceptor.connectorOf("connector-consumer-orders-sink-0"));
    assertEquals("a", FreshnessInterceptor.connectorOf("connector-consumer-a-11"));
    assertNull(FreshnessInterceptor.connectorOf("consumer-connect-1"));
  }

  private static Connector connector(String name, Kind kind, Map<String, String> config, List<String> active) {
    return new Connector(name, kind, config, "RUNNING", List.of(), null, active);
  }

  @Test
  void theLagJoinLabelIsTheSourceWhoseTopicsTheSinkReads() {
    Map<String, String> sources = Map.of("shop", "shop-source", "crm", "crm-source");
    assertEquals("shop-source", ConnectorCatalog.pipelineOf(connector("s", Kind.SINK,
        Map.of("topics", "other, shop.public.orders"), List.of()), sources));
    assertEquals("crm-source", ConnectorCatalog.pipelineOf(connector("s", Kind.SINK,
        Map.of("topics.regex", "crm\\..*"), List.of("crm.public.people")), sources));
    assertEquals("billing", ConnectorCatalog.pipelineOf(connector("s", Kind.SINK,
        Map.of("topics", "shopping.x", "sluice.pipeline", "billing"), List.of()), sources),
        "a prefix only counts up to a dot");
    assertEquals("s", ConnectorCatalog.pipelineOf(connector("s", Kind.SINK, Map.of("topics", "x"), List.of()),
        sources));
    assertEquals("shop-source", ConnectorCatalog.pipelineOf(connector("shop-source", Kind.SOURCE,
        Map.of("topic.prefix", "shop"), List.of()), sources));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
