package io.sluice.app.alerts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.alerts.AlertRouter;
import io.sluice.app.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AlertsCommandTest {
  @TempDir Path dir;

  private record Run(int exit, String out) {}

  private static Run run(String... args) {
    PrintStream old = System.out;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    try {
      int exit = Main.commandLine(args).execute(args);
      return new Run(exit, bytes.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(old);
    }
  }

  @Test
  void checkConfigAcceptsTheBundledFileAndRefusesABrokenOne() throws Exception {
    Path good = Files.writeString(dir.resolve("good.yml"), AlertRouter.defaultConfig());
    Path broken = Files.writeString(dir.resolve("broken.yml"), """
        route:
          receiver: nobody
        receivers:
          - name: somebody
        """);
    Run ok = run("alerts", "check-config", good.toString());
    assertEquals(0, ok.exit(), ok.out());
    assertTrue(ok.out().contains("Checking '" + good + "'\n  SUCCESS"), ok.out());

    Run bad = run("alerts", "check-config", good.toString(), broken.toString());
    assertEquals(1, bad.exit(), bad.out());
    assertTrue(bad.out().contains("  FAILED: ") && bad.out().contains("nobody"), bad.out());

    Path sns = Files.writeString(dir.resolve("sns.yml"), """
        route:
          receiver: oncall
        receivers:
          - name: oncall
            sns_configs: [{topic_arn: 'arn:aws:sns:eu-west-1:1:x'}]
        """);
    Run unsupported = run("alerts", "check-config", sns.toString());
    assertEquals(1, unsupported.exit(), unsupported.out());
    assertTrue(unsupported.out().contains("receiver \"oncall\": sns_configs is not supported by Sluice (supported: "
        + "discord_configs, email_configs, msteams_configs, msteamsv2_configs, opsgenie_configs, pagerduty_configs, "
        + "pushover_configs, slack_configs, telegram_configs, victorops_configs, webex_configs, webhook_configs)"),
        unsupported.out());

    Run missing = run("alerts", "check-config", dir.resolve("absent.yml").toString());
    assertEquals(1, missing.exit());
    assertTrue(missing.out().contains("no such file"), missing.out());
  }
}
