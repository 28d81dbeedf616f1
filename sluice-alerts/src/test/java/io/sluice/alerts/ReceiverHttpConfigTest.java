package io.sluice.alerts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.alerts.config.ConfigException;
import io.sluice.alerts.config.ConfigLoader;
import io.sluice.client.testing.HttpConfigRefusals;
import io.sluice.http.web.WebConfig;
import io.sluice.testing.TestCa;
import io.sluice.testing.TestClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A receiver's {@code http_config} is the one every client in Sluice reads (sluice-client's HttpConfig): its
 * {@code tls_config} reaches a webhook behind a private CA that requires a client certificate, {@code follow_redirects}
 * is honoured, and what it refuses it refuses with the words it does everywhere.
 */
class ReceiverHttpConfigTest {
  static final Instant T0 = Instant.parse("2026-11-18T12:00:00Z");

  @TempDir Path dir;
  final TestClock clock = new TestClock(T0);
  AlertRouter router;
  Receivers hooks;

  @AfterEach
  void stop() {
    if (router != null) {
      router.close();
    }
    if (hooks != null) {
      hooks.close();
    }
  }

  private void start(String yaml) {
    router = AlertRouter.builder().port(0).configYaml(yaml).dataDir(dir).clock(clock)
        .externalUrl("http://sluice.test:9093").manualTicks().retrySleeper(d -> {}).start();
  }

  private void fireAndFlush() {
    var r = Http.post(router.url() + "/api/v2/alerts", "[{\"labels\":{\"alertname\":\"ConnectHighLag\"},"
        + "\"startsAt\":\"" + T0 + "\",\"endsAt\":\"" + T0.plus(Duration.ofMinutes(20)) + "\"}]");
    assertEquals(200, r.statusCode(), r.body());
    clock.advance(Duration.ofSeconds(10));
    router.tick();
  }

  @Test
  void aWebhookBehindAPrivateCaThatRequiresAClientCertificateIsReachedWithItsTlsConfig() throws Exception {
    TestCa ca = TestCa.create(dir, "hooks-ca");
    ca.server("hooks");
    ca.client("router");
    Path web = Files.writeString(dir.resolve("web.yml"), """
        tls_server_config:
          cert_file: hooks.crt
          key_file: hooks.key
          client_auth_type: RequireAndVerifyClientCert
          client_ca_file: hooks-ca.crt
        """);
    hooks = new Receivers(WebConfig.load(web));
    assertTrue(hooks.url("x").startsWith("https://"), hooks.url("x"));
    start("""
        route: {receiver: hooks, group_wait: 10s}
        receivers:
          - name: hooks
            webhook_configs:
              - url: %s
                http_config:
                  tls_config: {ca_file: hooks-ca.crt, cert_file: router.crt, key_file: router.key}
              - url: %s
                http_config:
                  tls_config: {ca_file: hooks-ca.crt}
              - url: %s
        """.formatted(hooks.url("with-certificate"), hooks.url("without-certificate"), hooks.url("no-tls-config")));
    fireAndFlush();
    assertEquals("4", hooks.take("with-certificate").get(0).body().get("version").asText());
    assertEquals(List.of(), hooks.take("without-certificate"), "the server requires a client certificate");
    assertEquals(List.of(), hooks.take("no-tls-config"), "the JVM does not trust a private CA");
    assertEquals(2, router.metrics().get("alertmanager_notifications_failed_total", "integration", "webhook"));
  }

  @Test
  void followRedirectsIsHonoured() throws Exception {
    hooks = new Receivers();
    start("""
        route: {receiver: hooks, group_wait: 10s}
        receivers:
          - name: hooks
            webhook_configs:
              - url: %s
              - url: %s
                http_config: {follow_redirects: false}
        """.formatted(hooks.url("moved/followed"), hooks.url("moved/not-followed")));
    fireAndFlush();
    assertEquals(1, hooks.take("followed").size(), "redirects are followed unless follow_redirects is false");
    assertEquals(List.of(), hooks.take("not-followed"));
    assertEquals(1, router.metrics().get("alertmanager_notifications_failed_total", "integration", "webhook"));
  }

  /** Every refusal of sluice-client's http_config, word for word, in a receiver's and in the global http_config. */
  @Test
  void refusalsAreTheSameAsEveryOtherClients() {
    for (Map.Entry<String, String> c : HttpConfigRefusals.CASES.entrySet()) {
      for (String yaml : List.of("""
          route: {receiver: r}
          receivers:
            - name: r
              webhook_configs: [{url: 'http://127.0.0.1:9/hook', http_config: %s}]
          """, """
          global: {http_config: %s}
          route: {receiver: r}
          receivers: [{name: r}]
          """)) {
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse(yaml.formatted(c.getKey()),
            dir, Map.of()), c.getKey());
        assertEquals(List.of(c.getValue()), e.errors(), c.getKey());
      }
    }
  }

  /** A tls_config file that cannot be read makes the configuration unusable when it is loaded, not at first send. */
  @Test
  void anUnreadableTlsFileIsFoundWhenTheConfigurationIsChecked() throws Exception {
    Path file = Files.writeString(dir.resolve("am.yml"), """
        route: {receiver: r}
        receivers:
          - name: r
            webhook_configs:
              - url: 'https://127.0.0.1:9/hook'
                http_config: {tls_config: {ca_file: missing-ca.crt}}
            telegram_configs:
              - {bot_token: t, chat_id: 1, http_config: {tls_config: {ca_file: missing-ca.crt}}}
        """);
    List<String> problems = AlertRouter.checkConfig(file);
    assertEquals(2, problems.size(), problems.toString());
    assertTrue(problems.get(0).startsWith("receiver \"r\": webhook: cannot load the TLS files")
        && problems.get(0).contains("missing-ca.crt"), problems.get(0));
    assertTrue(problems.get(1).startsWith("receiver \"r\": telegram: cannot load the TLS files"), problems.get(1));
  }
}
