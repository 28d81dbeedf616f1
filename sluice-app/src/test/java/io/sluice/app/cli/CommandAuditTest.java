package io.sluice.app.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.app.Main;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CommandAuditTest {
  @TempDir Path dir;

  private int run(String... args) {
    return Main.commandLine(args).setExecutionStrategy(new CommandAudit()).execute(args);
  }

  @Test
  void aStateChangingCommandIsOneLineWithItsOperandsButNoOptionValues() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Path secret = Files.writeString(dir.resolve("pw"), "audit-secret-pw");
    run("connectors", "delete", "orders-sink", "--connect-url", "http://127.0.0.1:" + port, "--data-dir",
        dir.toString(), "--user", "ops", "--password-file", secret.toString());
    run("connectors", "list", "--connect-url", "http://127.0.0.1:" + port, "--data-dir", dir.toString());
    String audit = Files.readString(dir.resolve("audit.log"));
    assertTrue(audit.matches("(?s)\\S+ cli connectors delete orders-sink user=ops address=\\S+ status=exit \\d+\n"),
        audit);
    assertFalse(audit.contains("audit-secret-pw") || audit.contains(secret.toString()), audit);
  }
}
