package io.sluice.alerts.notify;

import io.sluice.http.Json;
import io.sluice.client.ClientOptions;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

/**
 * One HTTP request of a notification to the service behind an integration, made with the integration's
 * {@code http_config} (its client: TLS, redirects; its credentials and headers). Headers of the call replace the
 * {@code http_config}'s: Opsgenie's key is its own {@code Authorization}, and Alertmanager's {@code http_config} adds
 * one only to a request that has none.
 *
 * @param contentType null for none
 * @param body null for an empty body
 */
record ServiceCall(String method, String url, String contentType, byte[] body, Map<String, String> headers) {
  static final String USER_AGENT = "Alertmanager/0.25.0 (Sluice)";

  static ServiceCall postJson(String url, Object payload) {
    return new ServiceCall("POST", url, "application/json", Json.write(payload), Map.of());
  }

  /** The service's answer. */
  record Answer(int status, String body) {
    boolean ok() {
      return status / 100 == 2;
    }
  }

  /** Sends the call and returns the answer's body when it is a 2xx; other answers fail, retried as {@code retry} says. */
  String send(HttpClient client, ClientOptions http, Duration timeout, Retry retry) throws SendException {
    Answer a = exchange(client, http, timeout);
    if (!a.ok()) {
      throw new SendException("unexpected status code " + a.status(), retry.retries(a.status()), null);
    }
    return a.body();
  }

  /** Sends the call and returns whatever the service answered; only a request that got no answer fails. */
  Answer exchange(HttpClient client, ClientOptions http, Duration timeout) throws SendException {
    HttpRequest.Builder b;
    URI uri;
    try {
      uri = URI.create(url);
      b = HttpRequest.newBuilder(uri).timeout(timeout)
          .header("User-Agent", USER_AGENT)
          .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
              : HttpRequest.BodyPublishers.ofByteArray(body));
    } catch (IllegalArgumentException e) {
      // The parser's message quotes the URL, which may hold the secret (a webhook URL, a bot token, an API key).
      throw new SendException("invalid URL", false, null);
    }
    if ("http".equalsIgnoreCase(uri.getScheme())) {
      // Alertmanager's Go client speaks HTTP/2 only over TLS (enable_http2 is about ALPN); the JDK client asked for
      // HTTP/2 on a plain URL sends an h2c upgrade request (Connection: Upgrade, HTTP2-Settings) with every
      // notification, headers Alertmanager never sends, and a receiver that supports h2c would switch protocols.
      b.version(HttpClient.Version.HTTP_1_1);
    }
    if (contentType != null) {
      b.header("Content-Type", contentType);
    }
    http.apply(b);
    headers.forEach(b::setHeader);
    HttpResponse<String> resp;
    try {
      resp = client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      // The message may carry the URL, a secret for most integrations: keep only the exception type.
      throw new SendException("request failed: " + e.getClass().getSimpleName(), true, null);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SendException("interrupted", false, null);
    }
    return new Answer(resp.statusCode(), resp.body());
  }
}
