package io.sluice.app.connectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ApplyCommandTest {
  private static final String SINK = "io.debezium.connector.jdbc.JdbcSinkConnector";

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
