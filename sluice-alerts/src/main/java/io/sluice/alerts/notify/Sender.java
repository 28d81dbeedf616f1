package io.sluice.alerts.notify;

import io.sluice.alerts.config.Config;
import io.sluice.alerts.types.Alert;
import io.sluice.http.client.HttpClientConfig;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

/** One integration of a receiver: renders the notification in its wire format and delivers it once. */
sealed interface Sender permits WebhookSender, SlackSender, PagerDutySender, EmailSender {
  Config.Integration conf();

  void send(TemplateData data, List<Alert> alerts) throws SendException;

  /**
   * POSTs JSON with the integration's {@code http_config} ({@code client} is the one made from it: TLS, redirects);
   * 5xx, 429 and I/O errors are retryable.
   */
  static void postJson(HttpClient client, String url, byte[] body, HttpClientConfig http, Duration timeout)
      throws SendException {
    HttpRequest.Builder b;
    try {
      b = HttpRequest.newBuilder(URI.create(url)).timeout(timeout)
          .header("Content-Type", "application/json")
          .header("User-Agent", "Alertmanager/0.25.0 (Sluice)")
          .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    } catch (IllegalArgumentException e) {
      // The parser's message quotes the URL, which may be the secret itself.
      throw new SendException("invalid URL", false, null);
    }
    http.apply(b);
    HttpResponse<String> resp;
    try {
      resp = client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      // The message may carry the URL, which is a secret for webhooks and Slack: keep only the exception type.
      throw new SendException("request failed: " + e.getClass().getSimpleName(), true, null);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SendException("interrupted", false, null);
    }
    int code = resp.statusCode();
    if (code / 100 != 2) {
      throw new SendException("unexpected status code " + code, code / 100 == 5 || code == 429, null);
    }
  }
}
