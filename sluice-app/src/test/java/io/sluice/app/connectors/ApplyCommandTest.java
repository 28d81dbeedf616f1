package io.sluice.app.connectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.sluice.app.Main;
import io.sluice.app.cli.ExitCode;
import io.sluice.ops.connectors.ConfigChange;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
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

  @Test
  void aRefusalNamesEachColumnOnALineOfItsOwn() {
    List<String> lines = ApplyCommand.refusal("orders-source", List.of(
        new ConfigChange.Problem("tasks.max", "Invalid value 0"),
        new ConfigChange.Problem("column.exclude.list", "Column at_local of table public.events (time with time zone)"
            + " is not carried faithfully: …"),
        new ConfigChange.Problem("column.exclude.list", "Column cost of table public.events (price) is not carried "
            + "faithfully: …")));
    assertEquals(List.of(
        "error: Kafka Connect refused the config of orders-source (3 error(s)); nothing was changed:",
        "  tasks.max: Invalid value 0",
        "  column.exclude.list (2 errors):",
        "    Column at_local of table public.events (time with time zone) is not carried faithfully: …",
        "    Column cost of table public.events (price) is not carried faithfully: …"), lines);
  }

  @Test
  void aFolderIsItsConnectorFilesInNameOrderAndANameTwiceIsRefused(@TempDir Path dir) throws Exception {
    Path set = Files.createDirectories(dir.resolve("set"));
    Files.writeString(set.resolve("b.yml"), "name: second\nconnector.class: " + SINK + "\n");
    Files.writeString(set.resolve("a.JSON"), "{\"name\":\"first\",\"config\":{\"connector.class\":\"" + SINK + "\"}}");
    Files.writeString(set.resolve("c.yaml"), "name: third\nconnector.class: " + SINK + "\n");
    Files.writeString(set.resolve("notes.txt"), "not a connector");
    Files.createDirectories(set.resolve("nested.yaml"));
    Path alone = Files.writeString(dir.resolve("alone.yaml"), "name: fourth\nconnector.class: " + SINK + "\n");
    assertEquals(List.of("first", "second", "third", "fourth"),
        ApplyCommand.readAll(List.of(set, alone)).stream().map(ApplyCommand.Wanted::name).toList());

    Path again = Files.writeString(dir.resolve("again.yaml"), "name: second\nconnector.class: " + SINK + "\n");
    String twice = assertThrows(IllegalArgumentException.class, () -> ApplyCommand.readAll(List.of(set, again)))
        .getMessage();
    assertTrue(twice.contains("connector second is in both") && twice.contains("b.yml") && twice.contains("again.yaml"),
        twice);
    Path empty = Files.createDirectories(dir.resolve("empty"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> ApplyCommand.readAll(List.of(empty))).getMessage()
        .contains("holds no connector file"));
  }

  /**
   * A worker on loopback that validates everything, knows no connector and creates the first one asked for but refuses
   * the second with a 500: the apply ends part way (exit 6), naming what it wrote, and wrote nothing after.
   */
  @Test
  void aWriteThatFailsAfterAnotherEndsPartWayNamingWhatWasWritten(@TempDir Path dir) throws Exception {
    HttpServer worker = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    List<String> created = new CopyOnWriteArrayList<>();
    worker.createContext("/", x -> {
      String path = x.getRequestURI().getPath();
      String body = new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
      int status;
      String answer;
      if (path.endsWith("/config/validate")) {
        status = 200;
        answer = "{\"name\":\"" + SINK + "\",\"error_count\":0,\"groups\":[],\"configs\":[]}";
      } else if ("POST".equals(x.getRequestMethod()) && created.isEmpty()) {
        created.add(body);
        status = 201;
        answer = "{\"name\":\"first\",\"config\":{},\"tasks\":[]}";
      } else if ("POST".equals(x.getRequestMethod())) {
        status = 500;
        answer = "{\"error_code\":500,\"message\":\"the worker broke\"}";
      } else {
        status = 404;
        answer = "{\"error_code\":404,\"message\":\"Connector not found\"}";
      }
      byte[] bytes = answer.getBytes(StandardCharsets.UTF_8);
      x.getResponseHeaders().set("Content-Type", "application/json");
      x.sendResponseHeaders(status, bytes.length);
      x.getResponseBody().write(bytes);
      x.close();
    });
    worker.start();
    try {
      for (String name : List.of("first", "second", "third")) {
        Files.writeString(dir.resolve(name + ".yaml"), "name: " + name + "\nconnector.class: " + SINK + "\n");
      }
      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      CommandLine line = Main.commandLine("connectors");
      line.setOut(new PrintWriter(out));
      line.setErr(new PrintWriter(err));
      int exit = line.execute("connectors", "apply", "-f", dir.resolve("first.yaml").toString(),
          "-f", dir.resolve("second.yaml").toString(), "-f", dir.resolve("third.yaml").toString(),
          "--connect-url", "http://127.0.0.1:" + worker.getAddress().getPort());
      assertEquals(ExitCode.PARTIAL.code(), exit, out + "\n" + err);
      assertTrue(err.toString().contains("second was not applied") && err.toString().contains("after first created"),
          err.toString());
      assertEquals(1, created.size(), "third was not written after second failed: " + created);
    } finally {
      worker.stop(0);
    }
  }
}
