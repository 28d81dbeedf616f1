package io.sluice.app;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a failed cluster test keeps ({@link SluiceNodes#keepLogs}, run only on failure, so tested here): every start's
 * log of every node and every broker's, nothing of their data, and nothing of an earlier copy.
 */
class SluiceNodesLogsTest {
  @TempDir Path dir;

  @Test
  void keepsEveryStartsLogOfEveryNodeAndBrokerAndNothingElse() throws Exception {
    SluiceNodes nodes = new SluiceNodes(dir.resolve("run"), "127.0.0.1:1");
    Path a = Files.createDirectories(dir.resolve("run/a/data"));
    Files.writeString(a.resolveSibling("up.stderr.1"), "first start");
    Files.writeString(a.resolveSibling("up.stderr"), "second start");
    Files.writeString(a.resolve("wal"), "not a log");
    Files.writeString(Files.createDirectories(dir.resolve("run/broker-1")).resolve("out.log"), "broker");
    Path into = dir.resolve("kept");
    Files.writeString(Files.createDirectories(into.resolve("old")).resolve("up.stderr"), "an earlier copy");

    nodes.keepLogs(into);

    try (Stream<Path> kept = Files.walk(into)) {
      assertEquals(List.of("a/up.stderr", "a/up.stderr.1", "broker-1/out.log"), kept.filter(Files::isRegularFile)
          .map(p -> into.relativize(p).toString()).sorted().toList());
    }
    assertEquals("first start", Files.readString(into.resolve("a/up.stderr.1")));
  }
}
