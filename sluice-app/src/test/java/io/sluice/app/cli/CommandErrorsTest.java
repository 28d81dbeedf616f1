package io.sluice.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.app.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class CommandErrorsTest {
  @Test
  void everyCodeIsOneKindAndHelpListsThemAll() {
    assertEquals(ExitCode.values().length,
        Arrays.stream(ExitCode.values()).map(ExitCode::code).collect(Collectors.toSet()).size(), "one code, one kind");
    StringWriter out = new StringWriter();
    Main.commandLine("--help").setOut(new PrintWriter(out)).execute("--help");
    String help = out.toString();
    assertTrue(help.contains("Exit codes (the same for every command):"), help);
    for (ExitCode c : ExitCode.values()) {
      assertTrue(java.util.regex.Pattern.compile("\n  " + c.code() + " +" + java.util.regex.Pattern.quote(
          c.meaning().substring(0, 20))).matcher(help).find(), c + " in:\n" + help);
    }
  }

  @Test
  void scriptsKeepTheirCodes() {
    // Codes scripts test: changing one is a release note (docs/release-notes.md), not a refactoring.
    assertEquals(Set.of("OK=0", "NO=1", "USAGE=2", "REFUSED=3", "UNREACHABLE=4", "BUSY=5", "PARTIAL=6",
        "INTERNAL=7", "INTERRUPTED=130"), Arrays.stream(ExitCode.values()).map(c -> c + "=" + c.code())
        .collect(Collectors.toSet()));
  }

  @Test
  void anErrorsTypeDecidesItsCode() {
    assertEquals(ExitCode.BUSY, CommandErrors.classify(CommandError.busy("another one")));
    assertEquals(ExitCode.REFUSED, CommandErrors.classify(new IllegalArgumentException("bad value")));
    assertEquals(ExitCode.UNREACHABLE, CommandErrors.classify(
        new IllegalStateException("wrapped", new java.net.ConnectException("refused"))));
    assertEquals(ExitCode.UNREACHABLE, CommandErrors.classify(new java.sql.SQLException("no route", "08001")));
    assertEquals(ExitCode.INTERNAL, CommandErrors.classify(new NullPointerException()));
  }

  @Test
  void connectStillRebalancingIsBusyAndAConnectorThatExistsIsRefused() throws Exception {
    // A worker that answers every create as Connect does mid-rebalance, and anything else with a plain 409.
    com.sun.net.httpserver.HttpServer server = com.sun.net.httpserver.HttpServer.create(
        new java.net.InetSocketAddress("127.0.0.1", 0), 0);
    java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();
    server.createContext("/connectors", x -> {
      boolean exists = !"POST".equals(x.getRequestMethod());
      if (!exists) {
        asked.incrementAndGet();
      }
      byte[] body = (exists ? "{\"error_code\":409,\"message\":\"Connector a already exists\"}"
          : "{\"error_code\":500,\"message\":\"Request cannot be completed because a rebalance is expected\"}")
          .getBytes(java.nio.charset.StandardCharsets.UTF_8);
      x.sendResponseHeaders(exists ? 409 : 500, body.length);
      x.getResponseBody().write(body);
      x.close();
    });
    server.start();
    try {
      String url = "http://127.0.0.1:" + server.getAddress().getPort();
      io.sluice.client.ClientOptions options = io.sluice.client.ClientOptions.defaults()
          .withRequestTimeout(java.time.Duration.ofSeconds(3));
      com.fasterxml.jackson.databind.node.ObjectNode config =
          com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode().put("connector.class", "X");
      RuntimeException rebalancing = org.junit.jupiter.api.Assertions.assertThrows(RuntimeException.class,
          () -> new io.sluice.connect.client.ConnectRestClient(url, options).create("a", config));
      assertEquals(ExitCode.BUSY, CommandErrors.classify(rebalancing), rebalancing.toString());
      assertTrue(asked.get() >= 3, "asked again while it rebalanced: " + asked.get());
      RuntimeException exists = org.junit.jupiter.api.Assertions.assertThrows(RuntimeException.class,
          () -> new io.sluice.connect.client.ConnectRestClient(url, options).connectorNames());
      assertEquals(ExitCode.REFUSED, CommandErrors.classify(exists), exists.toString());
    } finally {
      server.stop(0);
    }
  }

  @Test
  void aCommandsErrorIsPrintedOnceWithItsKind() {
    StringWriter err = new StringWriter();
    int exit = Main.commandLine("cluster", "targets", "nothing").setErr(new PrintWriter(err))
        .execute("cluster", "targets", "nothing");
    assertEquals(ExitCode.USAGE.code(), exit);
    assertTrue(err.toString().startsWith("error: unknown component nothing"), err.toString());
  }
}
