package io.sluice.alerts;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.http.HttpHandler;
import io.sluice.http.HttpResponse;
import io.sluice.http.HttpServer;
import io.sluice.http.Json;
import io.sluice.http.web.WebConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * An in-test HTTP listener standing in for the services receivers send to (webhooks, Slack, PagerDuty, Opsgenie,
 * Telegram, ...); records every request, whatever its method and path.
 */
public final class Receivers implements AutoCloseable {
  /**
   * One request; {@code path} is the request's path without its leading slash, {@code body} the JSON of a JSON body
   * and null for any other.
   */
  public record Received(String method, String path, Map<String, List<String>> query, Map<String, String> headers,
      String text, JsonNode body) {}

  private final ConcurrentLinkedQueue<Received> received = new ConcurrentLinkedQueue<>();
  /** Status codes to answer with, one per request, before falling back to 200. */
  public final ConcurrentLinkedDeque<Integer> failures = new ConcurrentLinkedDeque<>();
  /** Bodies to answer with, one per request, before falling back to {@link #reply}. */
  public final ConcurrentLinkedDeque<String> replies = new ConcurrentLinkedDeque<>();
  /** The body of every other answer (a service's own, such as Telegram's {@code {"ok":true}}). */
  public volatile String reply = "ok";
  private final HttpServer server;

  public Receivers() {
    this(WebConfig.none());
  }

  /**
   * Receivers served under {@code web} (TLS, client certificates); {@code POST /moved/{path}} answers 307 to
   * {@code /{path}}.
   */
  Receivers(WebConfig web) {
    HttpHandler record = r -> {
      boolean json = r.contentType().filter("application/json"::equals).isPresent();
      received.add(new Received(r.method(), r.path().substring(1), r.query(), r.headers(), r.bodyText(),
          json ? Json.read(r.body()) : null));
      Integer status = failures.poll();
      String body = replies.isEmpty() ? reply : replies.poll();
      return HttpResponse.text(status == null ? 200 : status, body.startsWith("{") ? "application/json"
          : "text/plain", body);
    };
    server = HttpServer.builder("test-receivers").port(0).webConfig(web)
        .post("/moved/{path}", r -> HttpResponse.text(307, "text/plain", "moved").withHeader("Location",
            "/" + r.pathParam("path")))
        .notFound(record)
        .methodNotAllowed(record)
        .start();
  }

  public String url(String path) {
    return server.url() + "/" + path;
  }

  /** Takes everything received so far at {@code path}. */
  public List<Received> take(String path) {
    List<Received> out = new ArrayList<>();
    received.removeIf(r -> {
      if (r.path().equals(path)) {
        out.add(r);
        return true;
      }
      return false;
    });
    return out;
  }

  /** A JSON object of strings as a map. */
  public static Map<String, String> strings(JsonNode object) {
    Map<String, String> out = new java.util.TreeMap<>();
    object.fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue().asText()));
    return out;
  }

  public List<Received> takeAll() {
    List<Received> out = new ArrayList<>(received);
    received.clear();
    return out;
  }

  @Override
  public void close() {
    server.close();
  }
}
