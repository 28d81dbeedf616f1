package io.sluice.http.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An http_config in a file of its own, as the dashboard reads one for a secured Prometheus or Alertmanager. */
class HttpClientConfigTest {
  @TempDir Path dir;

  @Test
  void aFileOfItsOwnResolvesItsPathsAgainstItsFolderAndReadsThePasswordWhenUsed() throws Exception {
    Files.writeString(dir.resolve("reader.pw"), "first-pw\n");
    Path file = Files.writeString(dir.resolve("ui-metrics.yml"),
        "basic_auth:\n  username: reader\n  password_file: reader.pw\ntls_config:\n  ca_file: ca.crt\n");
    HttpClientConfig c = HttpClientConfig.load(file);
    assertEquals(dir.resolve("ca.crt").toAbsolutePath(), c.tls().caFile().toAbsolutePath());
    assertEquals("Basic " + Base64.getEncoder().encodeToString("reader:first-pw".getBytes(StandardCharsets.UTF_8)),
        c.authorization().orElseThrow());
    Files.writeString(dir.resolve("reader.pw"), "rotated-pw\n");
    assertTrue(c.authorization().orElseThrow().endsWith(Base64.getEncoder().encodeToString(
        "reader:rotated-pw".getBytes(StandardCharsets.UTF_8))), "a rotated password file is read at its next use");
    assertTrue(HttpClientConfig.load(Files.writeString(dir.resolve("empty.yml"), "")).authorization().isEmpty());
  }

  @Test
  void aBrokenFileIsRefusedWithoutQuotingAValue() throws Exception {
    Path unknown = Files.writeString(dir.resolve("a.yml"), "basic_auth:\n  username: u\n  password: hunter2\n"
        + "scheme: https\n");
    String why = assertThrows(IllegalArgumentException.class, () -> HttpClientConfig.load(unknown)).getMessage();
    assertTrue(why.contains("unknown field scheme"), why);
    assertFalse(why.contains("hunter2"), why);
    Path list = Files.writeString(dir.resolve("b.yml"), "- basic_auth\n");
    assertTrue(assertThrows(IllegalArgumentException.class, () -> HttpClientConfig.load(list)).getMessage()
        .contains("an http_config is a mapping"));
    Path halfTls = Files.writeString(dir.resolve("c.yml"), "tls_config:\n  cert_file: client.crt\n");
    assertTrue(assertThrows(IllegalArgumentException.class, () -> HttpClientConfig.load(halfTls)).getMessage()
        .contains("needs both cert_file and key_file"));
  }
}
