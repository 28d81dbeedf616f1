package io.sluice.alerts.notify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.sluice.alerts.config.Config;
import io.sluice.alerts.config.ConfigLoader;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SenderTest {
  /** Every record the configuration parses an integration to has a sender, so a parsed kind is never dropped. */
  @Test
  void everyIntegrationRecordHasASender() {
    List<String> records = new ArrayList<>();
    for (Class<?> c : Config.Integration.class.getPermittedSubclasses()) {
      for (Class<?> r : c.isInterface() ? c.getPermittedSubclasses() : new Class<?>[] {c}) {
        records.add(r.getSimpleName());
      }
    }
    assertEquals(records.stream().sorted().toList(),
        Sender.Factories.BY_RECORD.keySet().stream().map(Class::getSimpleName).sorted().toList());
  }

  @Test
  void theFourOldestKindsGetTheirSenders() throws Exception {
    Config c = ConfigLoader.parse("""
        route: {receiver: r}
        receivers:
          - name: r
            webhook_configs: [{url: 'https://hook.example.com/x'}]
            slack_configs: [{api_url: 'https://hooks.slack.com/x', channel: '#cdc'}]
            pagerduty_configs: [{routing_key: k}]
            email_configs: [{to: ops@example.com, from: am@example.com, smarthost: 'mail:25'}]
        """, null, Map.of());
    List<Class<?>> senders = List.of(WebhookSender.class, SlackSender.class, PagerDutySender.class,
        EmailSender.class);
    List<Config.Integration> integrations = c.receiver("r").orElseThrow().integrations();
    HttpClient client = HttpClient.newHttpClient();
    for (int i = 0; i < senders.size(); i++) {
      Sender s = Sender.of(integrations.get(i), http -> client, Duration.ofSeconds(1), Templates.load(List.of()));
      assertEquals(senders.get(i), s.getClass());
      assertSame(integrations.get(i), s.conf());
    }
  }
}
