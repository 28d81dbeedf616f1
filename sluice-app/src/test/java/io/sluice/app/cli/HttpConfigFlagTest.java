package io.sluice.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.app.Main;
import io.sluice.client.testing.RecordingServer;
import io.sluice.client.testing.SecuredServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A command reaches a secured API with everything {@code --http-config} says, as the console reaches one with its
 * {@code http_config} file: a bearer token read from its file, a header of the operator's and a client certificate all
 * reach a server of the test's own (HTTPS, a private CA, client certificates required).
 */
class HttpConfigFlagTest {
  @TempDir Path dir;

  private record Run(int exit, String out, String err) {}

  private static Run run(String... args) {
    PrintStream old = System.out;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    StringWriter err = new StringWriter();
    System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    try {
      int exit = Main.commandLine(args).setErr(new PrintWriter(err)).execute(args);
      return new Run(exit, bytes.toString(StandardCharsets.UTF_8), err.toString());
    } finally {
      System.setOut(old);
    }
  }

  @Test
  void everySettingOfTheFileReachesTheServerAndTheFlagsTakeThePlaceOfItsCredentials() throws Exception {
    try (SecuredServer connect = SecuredServer.start(dir, "sluice-cli", "{}")) {
      Path httpConfig = connect.httpConfig();
      Run listed = run("connectors", "list", "--connect-url", connect.url(), "--http-config", httpConfig.toString());
      assertEquals(0, listed.exit(), listed.toString());
      assertTrue(listed.out().contains("no connectors on " + connect.url()), listed.out());
      connect.assertReached(connect.seen().get(0), true);

      Path pw = Files.writeString(dir.resolve("ops.pw"), "ops-pw\n");
      Run asOps = run("connectors", "list", "--connect-url", connect.url(), "--http-config", httpConfig.toString(),
          "--user", "ops", "--password-file", pw.toString());
      assertEquals(0, asOps.exit(), asOps.toString());
      RecordingServer.Seen flagged = connect.seen().get(1);
      assertEquals("Basic " + Base64.getEncoder().encodeToString("ops:ops-pw".getBytes(StandardCharsets.UTF_8)),
          flagged.header("Authorization").orElseThrow());
      connect.assertReached(flagged, false);
    }
  }

  @Test
  void aFileThatIsNoHttpConfigIsAUsageError() throws Exception {
    Path bad = Files.writeString(dir.resolve("bad.yml"), "bearer_token: a\nbearer_token_file: b\n");
    Run r = run("connectors", "list", "--connect-url", "http://127.0.0.1:9", "--http-config", bad.toString());
    assertEquals(ExitCode.USAGE.code(), r.exit(), r.toString());
    assertTrue(r.err().contains("--http-config: " + bad + ": at most one of bearer_token & bearer_token_file must be "
        + "configured"), r.err());
  }
}
