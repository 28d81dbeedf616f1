package io.sluice.app.schema;

import io.sluice.app.Main;
import io.sluice.app.cli.ExitCode;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.kafka.testing.SharedKafka;
import io.sluice.registry.SchemaRegistry;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code sluice schema check} against a real registry: output, exit codes 0/1/2. */
class SchemaCheckCommandTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static SchemaRegistry registry;
  private static String subject;

  static final String V1 = "syntax = \"proto3\";\npackage shop;\nmessage Order {\n  string id = 1;\n  int32 qty = 2;\n}\n";

  @BeforeAll
  static void start() throws Exception {
    registry = SchemaRegistry.builder().bootstrapServers(SharedKafka.bootstrapServers())
        .topic(SharedKafka.unique("_schemas")).port(0).start();
    subject = SharedKafka.unique("orders-value");
    HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            URI.create(registry.url() + "/subjects/" + subject + "/versions"))
        .header("Content-Type", "application/vnd.schemaregistry.v1+json")
        .POST(HttpRequest.BodyPublishers.ofString(MAPPER.writeValueAsString(Map.of("schema", V1,
            "schemaType", "PROTOBUF")))).build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), r.body());
  }

  @AfterAll
  static void stop() {
    registry.close();
  }

  record Run(int exit, String out, String err) {}

  private static Run run(String... args) {
    String[] line = new String[args.length + 1];
    line[0] = "schema";
    System.arraycopy(args, 0, line, 1, args.length);
    CommandLine cli = Main.commandLine(line);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    int exit = cli.execute(line);
    return new Run(exit, out.toString(), err.toString());
  }

  @Test
  void compatibleChangeExitsZeroWithRolloutAndWarnings(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("order.proto"),
        "syntax = \"proto3\";\npackage shop;\nmessage Order {\n  string id = 1;\n  string note = 3;\n}\n");
    Run r = run("check", "--subject", subject, "--file", file.toString(), "--registry", registry.url());
    assertEquals(0, r.exit(), r.out() + r.err());
    assertTrue(r.out().contains("BACKWARD (subject)"), r.out());
    assertTrue(r.out().contains("Rollout: any order"), r.out());
    assertTrue(r.out().contains("Order.qty (= 2): field removed without an earlier version marking it"), r.out());
    assertTrue(r.out().contains("Result: compatible under BACKWARD"), r.out());
  }

  @Test
  void incompatibleChangeExitsOneAndNamesThePath(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("order.proto"),
        "syntax = \"proto3\";\npackage shop;\nmessage Order {\n  string id = 1;\n  double qty = 2;\n}\n");
    Run r = run("check", "--subject", subject, "--file", file.toString(), "--registry", registry.url());
    assertEquals(1, r.exit(), r.out() + r.err());
    assertTrue(r.out().contains("#/Order/2: a field's scalar type changed to one with another wire encoding"),
        r.out());
    assertTrue(r.out().contains("Result: INCOMPATIBLE under BACKWARD"), r.out());

    Run json = run("check", "--subject", subject, "--file", file.toString(), "--registry", registry.url(),
        "-o", "json");
    assertEquals(1, json.exit());
    JsonNode report = MAPPER.readTree(json.out());
    assertEquals(false, report.get("compatible").asBoolean());
    assertEquals("FIELD_SCALAR_KIND_CHANGED",
        report.get("modes").get("FULL").get("incompatibilities").get(0).get("kind").asText());
    assertEquals(true, report.get("modes").get("NONE").get("compatible").asBoolean());
  }

  @Test
  void errorsExitWithTheirKindOnStderr(@TempDir Path dir) throws Exception {
    Path broken = Files.writeString(dir.resolve("broken.proto"), "syntax = \"proto3\";\nmessage {");
    Run invalid = run("check", "--subject", subject, "--file", broken.toString(), "--registry", registry.url());
    assertEquals(2, invalid.exit());
    assertTrue(invalid.err().contains("not a valid schema"), invalid.err());
    assertEquals("", invalid.out());

    Path unknown = Files.writeString(dir.resolve("schema.txt"), "x");
    assertEquals(2, run("check", "--subject", subject, "--file", unknown.toString(), "--registry",
        registry.url()).exit());
    Path ok = Files.writeString(dir.resolve("ok.proto"), V1);
    Run down = run("check", "--subject", subject, "--file", ok.toString(), "--registry", "http://127.0.0.1:1");
    assertEquals(ExitCode.UNREACHABLE.code(), down.exit(), "the registry out of reach, not a bad file");
    assertTrue(down.err().contains("not reachable"), down.err());
  }
}
