package io.sluice.app.connectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
        "snapshot.mode", "no_data", "max.batch.size", "4096", "max.queue.size", "16384", "poll.interval.ms", "50",
        "errors.log.enable", "true");
    Map<String, String> wanted = Map.of("connector.class", SOURCE, "initial.snapshot.mode", "never");
    assertTrue(ConfigDiff.between(current, wanted).isEmpty());
  }

  @Test
  void theSignalChannelTheWorkerAddsIsNotARemoval() {
    Map<String, String> current = new java.util.HashMap<>(Map.of("connector.class", SOURCE, "topic.prefix", "shop",
        "max.batch.size", "4096", "max.queue.size", "16384", "poll.interval.ms", "50", "errors.log.enable", "true"));
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

  @Test
  void filesInBothShapesAndClearRefusals(@TempDir Path dir) throws Exception {
    Path body = Files.writeString(dir.resolve("c.json"),
        "{\"name\":\"s\",\"config\":{\"connector.class\":\"" + SINK + "\",\"tasks.max\":2}}");
    ApplyCommand.Wanted w = ApplyCommand.read(body);
    assertEquals("s", w.name());
    assertEquals("2", w.config().get("tasks.max"));
    assertEquals("s", w.config().get("name"));
    Path flat = Files.writeString(dir.resolve("c.yaml"), "name: t\nconnector.class: " + SINK + "\nbatch.size: 100\n");
    assertEquals("100", ApplyCommand.read(flat).config().get("batch.size"));

    Path noName = Files.writeString(dir.resolve("n.yaml"), "connector.class: " + SINK + "\n");
    assertTrue(assertThrows(IllegalArgumentException.class, () -> ApplyCommand.read(noName)).getMessage()
        .contains("needs a name"));
    Path broken = Files.writeString(dir.resolve("b.json"), "{\"name\":");
    assertTrue(assertThrows(IllegalArgumentException.class, () -> ApplyCommand.read(broken)).getMessage()
        .contains("is not valid JSON"));
    Path nested = Files.writeString(dir.resolve("l.yaml"), "name: t\nconnector.class: x\ntopics: [a, b]\n");
    assertTrue(assertThrows(IllegalArgumentException.class, () -> ApplyCommand.read(nested)).getMessage()
        .contains("topics must be a single value"));
  }
}
