package io.sluice.alerts;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.http.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/** Plain HTTP calls against a router under test. */
final class Http {
  private static final HttpClient CLIENT = HttpClient.newHttpClient();

  private Http() {}

  static HttpResponse<String> send(String method, String url, String body) {
    try {
      HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url))
          .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
      if (body != null) {
        b.header("Content-Type", "application/json");
      }
      return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  static HttpResponse<String> post(String url, String body) {
    return send("POST", url, body);
  }

  static HttpResponse<String> get(String url) {
    return send("GET", url, null);
  }

  static JsonNode json(HttpResponse<String> r) {
    return Json.read(r.body().getBytes());
  }
}
