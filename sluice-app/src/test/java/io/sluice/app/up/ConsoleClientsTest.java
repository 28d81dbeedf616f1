package io.sluice.app.up;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.app.ConsoleLogin;
import io.sluice.app.config.SluiceConfig;
import io.sluice.client.testing.RecordingServer;
import io.sluice.client.testing.SecuredServer;
import io.sluice.console.ConsoleServer;
import io.sluice.console.auth.Accounts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console as the control plane configures it reaches an Alertmanager of the operator's ({@code console.alerts.url})
 * with everything its {@code http_config} file says, on the page that reads alerts and on the one that reads and makes
 * silences alike: a bearer token from its file, a header and a client certificate reach a server of the test's own.
 * The silences path once kept only the basic credentials and the CA of the file.
 */
class ConsoleClientsTest {
  @TempDir Path dir;

  @Test
  void anAlertmanagerOfTheOperatorsGetsEverySettingOfItsHttpConfigForAlertsAndSilences() throws Exception {
    try (SecuredServer alertmanager = SecuredServer.start(dir, "sluice-console", "[]")) {
      Path sluiceYaml = Files.writeString(dir.resolve("sluice.yaml"), String.join("\n",
          "console.alerts.url: " + alertmanager.url(),
          "console.alerts.http.config.file: " + alertmanager.httpConfig(), ""));
      SluiceConfig config = SluiceConfig.load(Optional.of(sluiceYaml), Map.of());
      Accounts.in(dir.resolve("ui")).add("ops", "ops-password-1");
      ConsoleServer.Builder builder = ControlPlane.console(config, WebSurfaces.load(config), "127.0.0.1", dir,
          "http://127.0.0.1:9", "http://127.0.0.1:9");
      try (ConsoleServer console = builder.port(0).start()) {
        HttpClient browser = HttpClient.newHttpClient();
        String session = ConsoleLogin.session(ConsoleLogin.login(browser, console.url(), "ops", "ops-password-1"));
        for (String page : List.of("/api/alerts", "/api/silences")) {
          HttpResponse<String> r = browser.send(HttpRequest.newBuilder(URI.create(console.url() + page))
              .header("Cookie", session).build(), HttpResponse.BodyHandlers.ofString());
          assertEquals(200, r.statusCode(), page + ": " + r.body());
        }
      }
      List<RecordingServer.Seen> seen = alertmanager.seen();
      assertEquals(List.of("/api/v2/alerts", "/api/v2/silences"),
          seen.stream().map(s -> URI.create(s.path()).getPath()).toList());
      seen.forEach(s -> alertmanager.assertReached(s, true));
    }
  }
}
