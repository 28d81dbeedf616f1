package io.sluice.alerts.notify;

import io.sluice.alerts.config.Config;
import io.sluice.alerts.types.Alert;
import io.sluice.http.client.HttpClientConfig;
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
  static void postJson(HttpClient client, String url, byte[] body, HttpClientConfig http, Duration timeout)
      throws SendException {
    new ServiceCall("POST", url, "application/json", body, Map.of())
        .send(client, http, timeout, Retry.SERVER_ERRORS_AND_RATE_LIMITS);
  }

  /** The sender of an integration; HTTP integrations share the client of their {@code http_config}. */
  static Sender of(Config.Integration i, Function<HttpClientConfig, HttpClient> clients,
      Duration timeout, Templates t) {
    if (i instanceof Config.Email e) {
      return new EmailSender(e, timeout, t);
    }
    Config.HttpIntegration h = (Config.HttpIntegration) i;
    HttpClient c = clients.apply(h.http());
    if (h instanceof Config.Webhook w) {
      return new WebhookSender(w, c, timeout);
    } else if (h instanceof Config.Slack s) {
      return new SlackSender(s, c, timeout, t);
    } else if (h instanceof Config.PagerDuty p) {
      return new PagerDutySender(p, c, timeout, t);
    } else if (h instanceof Config.Discord d) {
      return new DiscordSender(d, c, timeout, t);
    } else if (h instanceof Config.MsTeams m) {
      return new MsTeamsSender(m, c, timeout, t);
    } else if (h instanceof Config.MsTeamsV2 m) {
      return new MsTeamsV2Sender(m, c, timeout, t);
    } else if (h instanceof Config.OpsGenie o) {
      return new OpsGenieSender(o, c, timeout, t);
    } else if (h instanceof Config.Telegram tg) {
      return new TelegramSender(tg, c, timeout, t);
    } else if (h instanceof Config.Webex w) {
      return new WebexSender(w, c, timeout, t);
    } else if (h instanceof Config.Pushover p) {
      return new PushoverSender(p, c, timeout, t);
    } else if (h instanceof Config.VictorOps v) {
      return new VictorOpsSender(v, c, timeout, t);
    }
    throw new IllegalArgumentException("no sender for " + i.kind());
  }
}
