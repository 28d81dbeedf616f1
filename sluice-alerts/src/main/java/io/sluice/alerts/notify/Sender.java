package io.sluice.alerts.notify;

import io.sluice.alerts.config.Config;
import io.sluice.alerts.types.Alert;
import io.sluice.client.ClientOptions;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** One integration of a receiver: renders the notification in its wire format and delivers it once. */
sealed interface Sender permits WebhookSender, SlackSender, PagerDutySender, EmailSender, DiscordSender,
    MsTeamsSender, MsTeamsV2Sender, OpsGenieSender, TelegramSender, WebexSender, PushoverSender, VictorOpsSender {
  Config.Integration conf();

  void send(TemplateData data, List<Alert> alerts) throws SendException;

  /**
   * POSTs JSON with the integration's {@code http_config} ({@code client} is the one made from it: TLS, redirects);
   * 5xx, 429 and I/O errors are retryable.
   */
  static void postJson(HttpClient client, String url, byte[] body, ClientOptions http, Duration timeout)
      throws SendException {
    new ServiceCall("POST", url, "application/json", body, Map.of())
        .send(client, http, timeout, Retry.SERVER_ERRORS_AND_RATE_LIMITS);
  }

  /** The sender of an integration; HTTP integrations share the client of their {@code http_config}. */
  static Sender of(Config.Integration i, Function<ClientOptions, HttpClient> clients,
      Duration timeout, Templates t) {
    Factory f = Factories.BY_RECORD.get(i.getClass());
    if (f == null) {
      throw new IllegalArgumentException("no sender for " + i.kind());
    }
    return f.make(i, clients, timeout, t);
  }

  /** Makes the sender of one integration. */
  @FunctionalInterface
  interface Factory {
    Sender make(Config.Integration i, Function<ClientOptions, HttpClient> clients, Duration timeout, Templates t);
  }

  /** Makes the sender of one HTTP integration, given the client of its {@code http_config}. */
  @FunctionalInterface
  interface HttpFactory<T extends Config.HttpIntegration> {
    Sender make(T conf, HttpClient client, Duration timeout, Templates t);
  }

  /** The sender of each integration, by the record the configuration parses it to: a new kind's is one entry. */
  final class Factories {
    static final Map<Class<? extends Config.Integration>, Factory> BY_RECORD = Map.ofEntries(
        http(Config.Webhook.class, (w, c, timeout, t) -> new WebhookSender(w, c, timeout)),
        http(Config.Slack.class, SlackSender::new),
        http(Config.PagerDuty.class, PagerDutySender::new),
        Map.entry(Config.Email.class, (i, clients, timeout, t) -> new EmailSender((Config.Email) i, timeout, t)),
        http(Config.Discord.class, DiscordSender::new),
        http(Config.MsTeams.class, MsTeamsSender::new),
        http(Config.MsTeamsV2.class, MsTeamsV2Sender::new),
        http(Config.OpsGenie.class, OpsGenieSender::new),
        http(Config.Telegram.class, TelegramSender::new),
        http(Config.Webex.class, WebexSender::new),
        http(Config.Pushover.class, PushoverSender::new),
        http(Config.VictorOps.class, VictorOpsSender::new));

    private Factories() {}

    private static <T extends Config.HttpIntegration> Map.Entry<Class<? extends Config.Integration>, Factory> http(
        Class<T> type, HttpFactory<T> f) {
      return Map.entry(type, (i, clients, timeout, t) -> {
        T conf = type.cast(i);
        return f.make(conf, clients.apply(conf.http()), timeout, t);
      });
    }
  }
}
