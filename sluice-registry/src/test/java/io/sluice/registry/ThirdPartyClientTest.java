package io.sluice.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.kafka.testing.RequiredTool;
import io.sluice.kafka.testing.SharedKafka;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The npm package {@code @kafkajs/confluent-schema-registry}, unchanged, registers, encodes, decodes and fetches
 * against Sluice. Its dependencies are installed with {@code npm ci} from the lock file in {@code src/test/node} on
 * first run; the test is skipped only on a developer machine without Node (in CI, where {@code .ci/run} installs
 * Node, its absence fails the test).
 */
class ThirdPartyClientTest {
  private static final Path DIR = Path.of("src/test/node");

  @Test
  void kafkajsConfluentSchemaRegistryClient() throws Exception {
    RequiredTool.require("node", "Debian package nodejs");
    RequiredTool.require("npm", "Debian package npm");
    if (!Files.isDirectory(DIR.resolve("node_modules/@kafkajs/confluent-schema-registry"))) {
      Result install = run(List.of("npm", "ci", "--no-audit", "--no-fund"), 240);
      assertEquals(0, install.code, "npm ci failed: " + install.output);
    }
    try (SchemaRegistry registry = ClusterTest.start(SharedKafka.unique("_schemas"))) {
      Result r = run(List.of("node", "client-test.js", registry.url(), "orders-value"), 120);
      assertEquals(0, r.code, r.output);
      String line = r.output.lines().filter(l -> l.startsWith("{")).reduce((a, b) -> b).orElseThrow();
      JsonNode seen = Http.MAPPER.readTree(line);
      int id1 = seen.get("id1").asInt();
      int id2 = seen.get("id2").asInt();
      assertEquals(id1, seen.get("again").asInt());
      assertNotEquals(id1, id2);
      assertEquals(id2, seen.get("latest").asInt());
      assertEquals(id1, seen.get("byVersion").asInt());
      assertEquals(7, seen.at("/decoded/id").asInt());
      assertEquals("tea", seen.at("/decoded/item").asText());
      assertEquals("sluice.test.Order", seen.get("fetchedName").asText());
      assertNotNull(seen.get("incompatible").textValue(), "an incompatible schema must be refused");
      assertTrue(seen.get("incompatible").asText().contains("incompatible"), seen.get("incompatible").asText());
      // Protobuf and JSON Schema through the same client: registered, encoded, decoded, checked.
      assertEquals("A-1", seen.at("/protoDecoded/sku").asText(), line);
      assertEquals(3, seen.at("/protoDecoded/qty").asInt(), line);
      assertTrue(seen.get("protoIncompatible").asText().contains("incompatible"), line);
      assertEquals("B-2", seen.at("/jsonDecoded/sku").asText(), line);
      assertEquals(4, seen.at("/jsonDecoded/qty").asInt(), line);
      assertFalse(seen.get("jsonInvalid").isNull(), "the client's validator must refuse an invalid payload: " + line);
    }
  }

  private record Result(int code, String output) {}

  private static Result run(List<String> command, int timeoutSeconds) throws IOException, InterruptedException {
    Path log = Files.createTempFile("sluice-node", ".log");
    Process p = new ProcessBuilder(command).directory(DIR.toFile()).redirectErrorStream(true)
        .redirectOutput(log.toFile()).start();
    if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      return new Result(-1, "timed out: " + command);
    }
    String out = Files.readString(log, StandardCharsets.UTF_8);
    Files.deleteIfExists(log);
    return new Result(p.exitValue(), out);
  }
}
