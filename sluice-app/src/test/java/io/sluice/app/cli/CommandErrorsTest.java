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
  void aCommandsErrorIsPrintedOnceWithItsKind() {
    StringWriter err = new StringWriter();
    int exit = Main.commandLine("cluster", "targets", "nothing").setErr(new PrintWriter(err))
        .execute("cluster", "targets", "nothing");
    assertEquals(ExitCode.USAGE.code(), exit);
    assertTrue(err.toString().startsWith("error: unknown component nothing"), err.toString());
  }
}
