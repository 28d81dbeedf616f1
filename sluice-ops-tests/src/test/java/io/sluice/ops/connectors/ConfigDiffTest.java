package io.sluice.ops.connectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigDiffTest {
  private static final String SINK = "io.debezium.connector.jdbc.JdbcSinkConnector";
  private static final String SOURCE = "io.debezium.connector.postgresql.PostgresConnector";

  @Test
  void reportsAddedChangedAndRemovedKeysButNotWhatTheWorkerFillsIn() {
    Map<String, String> current = Map.of("connector.class", SINK, "topics", "a", "batch.size", "2000",
        "errors.log.enable", "true", "consumer.override.max.poll.records", "2000", "delete.enabled", "true");
    Map<String, String> wanted = Map.of("connector.class", SINK, "topics", "a,b", "insert.mode", "upsert");
    List<String> lines = ConfigDiff.between(current, wanted).lines().stream().map(ConfigDiff.Line::render).toList();
    assertEquals(List.of("  - delete.enabled: true", "  + insert.mode: upsert", "  ~ topics: a -> a,b"), lines);
  }

  @Test
  void theDerivedSnapshotModeIsNotARemoval() {
    Map<String, String> current = Map.of("connector.class", SOURCE, "initial.snapshot.mode", "never",
        "snapshot.mode", "no_data", "max.batch.size", "4096", "max.queue.size", "8192", "poll.interval.ms", "50",
        "errors.log.enable", "true");
    Map<String, String> wanted = Map.of("connector.class", SOURCE, "initial.snapshot.mode", "never");
    assertTrue(ConfigDiff.between(current, wanted).isEmpty());
  }

  @Test
  void theSignalChannelTheWorkerAddsIsNotARemoval() {
    Map<String, String> current = new java.util.HashMap<>(Map.of("connector.class", SOURCE, "topic.prefix", "shop",
        "max.batch.size", "4096", "max.queue.size", "8192", "poll.interval.ms", "50", "errors.log.enable", "true"));
    current.putAll(Map.of("signal.enabled.channels", "source,kafka", "signal.kafka.topic", "shop-signal",
        "signal.kafka.bootstrap.servers", "${sluice-kafka:bootstrap.servers}",
        "signal.consumer.security.protocol", "${sluice-kafka:security.protocol}"));
    assertTrue(ConfigDiff.between(current, Map.of("connector.class", SOURCE, "topic.prefix", "shop")).isEmpty());
  }

  @Test
  void secretsAreMaskedAndAStoredReferenceCountsAsSentAgain() {
    ConfigDiff d = ConfigDiff.between(Map.of("connector.class", SINK, "connection.password",
        "${sluice:s:connection.password}"), Map.of("connector.class", SINK, "connection.password", "hunter2"));
    assertEquals(List.of("  ~ connection.password: (secret, sent again)"),
        d.lines().stream().map(ConfigDiff.Line::render).toList());
    assertTrue(d.onlyResent());
    ConfigDiff created = ConfigDiff.between(Map.of(), Map.of("connector.class", SINK, "connection.password", "hunter2"));
    assertTrue(created.lines().stream().map(ConfigDiff.Line::render).toList()
        .contains("  + connection.password: ********"));
  }
}
