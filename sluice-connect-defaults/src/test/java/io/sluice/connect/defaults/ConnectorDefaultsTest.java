package io.sluice.connect.defaults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConnectorDefaultsTest {
  private static final String SINK = "io.debezium.connector.jdbc.JdbcSinkConnector";

  @Test
  void aSinkGetsADeadLetterQueueNamedAfterIt() {
    Map<String, String> filled = ConnectorDefaults.missing("orders-sink", Map.of("connector.class", SINK,
        "batch.size", "100"));
    assertEquals("all", filled.get("errors.tolerance"));
    assertEquals("orders-sink.dlq", filled.get("errors.deadletterqueue.topic.name"));
    assertEquals("true", filled.get("errors.deadletterqueue.context.headers.enable"));
    assertEquals("-1", filled.get("errors.deadletterqueue.topic.replication.factor"));
    assertFalse(filled.containsKey("batch.size"), "an explicit value wins");
    assertEquals("2000", filled.get("consumer.override.max.poll.records"));
  }

  @Test
  void sluicesJdbcSinkIsTunedAsDebeziumsIs() {
    Map<String, String> filled = ConnectorDefaults.missing("s", Map.of("connector.class",
        ConnectorDefaults.SLUICE_JDBC_SINK));
    assertEquals("2000", filled.get("batch.size"));
    assertEquals("s.dlq", filled.get("errors.deadletterqueue.topic.name"));
    assertFalse(filled.containsKey("max.queue.size"), "not a source");
  }

  /**
   * Debezium refuses a queue no bigger than a batch; more than two batches stand full while an exactly-once task
   * commits, and cost the collector more than they smooth (bench/ PipelineThroughput, issue #41).
   */
  @Test
  void aDebeziumSourceQueuesTwoBatches() {
    Map<String, String> filled = ConnectorDefaults.missing("s", Map.of("connector.class",
        "io.debezium.connector.postgresql.PostgresConnector"));
    assertEquals(2 * Integer.parseInt(filled.get("max.batch.size")), Integer.parseInt(filled.get("max.queue.size")));
  }

  @Test
  void aPostgresSourceCarriesItsColumnTypesAndSluicesConverter() {
    String postgres = "io.debezium.connector.postgresql.PostgresConnector";
    Map<String, String> filled = ConnectorDefaults.missing("s", Map.of("connector.class", postgres));
    assertEquals(".*", filled.get("column.propagate.source.type"));
    assertEquals("sluice", filled.get("converters"));
    assertEquals("io.sluice.source.postgres.PostgresTextConverter", filled.get("sluice.type"));
    assertEquals("epoch.days", filled.get("sluice.dates"), "dates as Debezium's day numbers, infinity kept");
    // The converter's dates have the schema of Debezium's default time.precision.mode: not for another mode.
    assertFalse(ConnectorDefaults.missing("s", Map.of("connector.class", postgres, "time.precision.mode", "connect"))
        .containsKey("sluice.dates"));
    assertEquals("epoch.days", ConnectorDefaults.missing("s", Map.of("connector.class", postgres,
        "time.precision.mode", "adaptive_time_microseconds")).get("sluice.dates"));
    // A source's own choice of converters or of which types travel stays its own.
    Map<String, String> own = ConnectorDefaults.missing("s", Map.of("connector.class", postgres,
        "converters", "mine", "datatype.propagate.source.type", ".+\\.NUMERIC"));
    assertFalse(own.containsKey("converters") || own.containsKey("sluice.type")
        || own.containsKey("column.propagate.source.type"), own.toString());
    // A blank list of converters says "none": neither Sluice's nor one Debezium would fail to find.
    Map<String, String> none = Map.of("connector.class", postgres, "converters", "");
    assertFalse(ConnectorDefaults.missing("s", none).containsKey("converters"));
    assertEquals(java.util.Set.of("converters"), ConnectorDefaults.cleared(none));
    assertEquals(java.util.Set.of(), ConnectorDefaults.cleared(Map.of("connector.class", postgres, "converters", "x")));
    // Other sources are Debezium's as they were.
    assertFalse(ConnectorDefaults.missing("s", Map.of("connector.class",
        "io.debezium.connector.mysql.MySqlConnector")).containsKey("converters"));
  }

  @Test
  void aBinlogSourceCarriesUnsignedBigintsWhole() {
    for (String binlog : List.of("io.debezium.connector.mariadb.MariaDbConnector",
        "io.debezium.connector.mysql.MySqlConnector")) {
      assertEquals("precise", ConnectorDefaults.missing("s", Map.of("connector.class", binlog))
          .get("bigint.unsigned.handling.mode"), binlog);
      assertEquals(".*", ConnectorDefaults.missing("s", Map.of("connector.class", binlog))
          .get("column.propagate.source.type"), binlog);
      assertEquals("5000", ConnectorDefaults.missing("s", Map.of("connector.class", binlog))
          .get("connect.keep.alive.interval.ms"), binlog + " reconnects within 5 s of a server restart");
      assertFalse(ConnectorDefaults.missing("s", Map.of("connector.class", binlog, "bigint.unsigned.handling.mode",
          "long")).containsKey("bigint.unsigned.handling.mode"), "the source's own choice stays");
    }
    assertFalse(ConnectorDefaults.missing("s", Map.of("connector.class",
        "io.debezium.connector.postgresql.PostgresConnector")).containsKey("bigint.unsigned.handling.mode"));
  }

  @Test
  void aSinkSubscribedByPatternFindsNewTopicsInSeconds() {
    assertEquals("5000", ConnectorDefaults.missing("s", Map.of("connector.class", SINK, "topics.regex", "shop\\..*"))
        .get("consumer.override.metadata.max.age.ms"));
    assertFalse(ConnectorDefaults.missing("s", Map.of("connector.class", SINK, "topics", "a"))
        .containsKey("consumer.override.metadata.max.age.ms"));
  }

  @Test
  void aSinkThatSaysAnythingAboutErrorsKeepsItsOwnChoice() {
    for (Map<String, String> own : java.util.List.of(Map.of("errors.tolerance", "none"),
        Map.of("errors.deadletterqueue.topic.name", "mine"))) {
      Map<String, String> config = new java.util.HashMap<>(own);
      config.put("connector.class", SINK);
      Map<String, String> filled = ConnectorDefaults.missing("s", config);
      assertTrue(filled.keySet().stream().noneMatch(k -> k.startsWith("errors.") && !k.equals("errors.log.enable")),
          filled.toString());
    }
  }

  @Test
  void aKeyedJdbcSinkWritesManyRowsAStatementAndOneChangeAKeyABatch() {
    Map<String, String> postgres = ConnectorDefaults.missing("s", Map.of("connector.class", SINK,
        "connection.url", "jdbc:postgresql://db:5432/shop", "primary.key.mode", "record_key"));
    assertEquals("true", postgres.get("use.reduction.buffer"));
    assertEquals("reWriteBatchedInserts=true;stringtype=unspecified", postgres.get(ConnectorDefaults.DRIVER_PROPERTIES));
    Map<String, String> mysql = ConnectorDefaults.missing("s", Map.of("connector.class",
        ConnectorDefaults.SLUICE_JDBC_SINK, "connection.url", "jdbc:mysql://db/shop", "primary.key.mode", "record_value"));
    assertEquals("rewriteBatchedStatements=true;nullDatabaseMeansCurrent=true",
        mysql.get(ConnectorDefaults.DRIVER_PROPERTIES));
    Map<String, String> mariadb = ConnectorDefaults.missing("s", Map.of("connector.class", SINK,
        "connection.url", "jdbc:mariadb://db/shop", "primary.key.mode", "none"));
    assertEquals("nullDatabaseMeansCurrent=true", mariadb.get(ConnectorDefaults.DRIVER_PROPERTIES),
        "a MySQL or MariaDB sink looks its table up in its own database, keyed or not");
    assertFalse(mariadb.containsKey("use.reduction.buffer"));
    Map<String, String> secret = ConnectorDefaults.missing("s", Map.of("connector.class", SINK,
        "connection.url", "${secrets:shop-url}", "primary.key.mode", "record_key"));
    assertEquals("true", secret.get("use.reduction.buffer"));
    assertFalse(secret.containsKey(ConnectorDefaults.DRIVER_PROPERTIES), "a URL Sluice cannot read is left alone");
    Map<String, String> own = ConnectorDefaults.missing("s", Map.of("connector.class", SINK,
        "connection.url", "jdbc:postgresql://db/shop", "primary.key.mode", "record_key",
        ConnectorDefaults.DRIVER_PROPERTIES, "ssl=true", "use.reduction.buffer", "false"));
    assertFalse(own.containsKey(ConnectorDefaults.DRIVER_PROPERTIES), "an explicit value wins");
    assertFalse(own.containsKey("use.reduction.buffer"), "an explicit value wins");
    for (String mode : new String[] {"none", "kafka"}) {
      Map<String, String> keyless = ConnectorDefaults.missing("s", Map.of("connector.class", SINK,
          "connection.url", "jdbc:postgresql://db/shop", "primary.key.mode", mode));
      assertFalse(keyless.containsKey("use.reduction.buffer"), mode);
      assertEquals("stringtype=unspecified", keyless.get(ConnectorDefaults.DRIVER_PROPERTIES),
          mode + ": one row a statement, text bound untyped");
    }
  }

  @Test
  void aJdbcSinkReadsHeadersAsTextUnlessItsKeyIsInThem() {
    Map<String, String> keyed = ConnectorDefaults.missing("s", Map.of("connector.class", SINK,
        "connection.url", "jdbc:postgresql://db/shop", "primary.key.mode", "record_key"));
    assertEquals("org.apache.kafka.connect.storage.StringConverter", keyed.get("header.converter"));
    Map<String, String> fromHeaders = ConnectorDefaults.missing("s", Map.of("connector.class", SINK,
        "connection.url", "jdbc:postgresql://db/shop", "primary.key.mode", "record_header"));
    assertFalse(fromHeaders.containsKey("header.converter"), "its key's types come from the headers");
  }

  @Test
  void sourcesGetNoDeadLetterQueue() {
    Map<String, String> filled = ConnectorDefaults.missing("src", Map.of("connector.class",
        "io.debezium.connector.postgresql.PostgresConnector"));
    assertFalse(filled.containsKey("errors.tolerance"));
    assertEquals("4096", filled.get("max.batch.size"));
    assertTrue(ConnectorDefaults.missing("x", Map.of()).isEmpty());
  }
}
