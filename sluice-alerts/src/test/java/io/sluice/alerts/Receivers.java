package io.sluice.alerts;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.http.HttpResponse;
import io.sluice.http.HttpServer;
import io.sluice.http.Json;
import io.sluice.http.web.WebConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentLinkedQueue;

/** An in-test HTTP listener standing in for webhook, Slack and PagerDuty endpoints; records every request. */
final class Receivers implements AutoCloseable {
  record Received(String path, Map<String, String> headers, JsonNode body) {}

  private final ConcurrentLinkedQueue<Received> received = new ConcurrentLinkedQueue<>();
  /** Status codes to answer with, one per request, before falling back to 200. */
  final ConcurrentLinkedDeque<Integer> failures = new ConcurrentLinkedDeque<>();
  private final HttpServer server;

  Receivers() {
    this(WebConfig.none());
  }

  /**
   * Receivers served under {@code web} (TLS, client certificates); {@code POST /moved/{path}} answers 307 to
   * {@code /{path}}.
   */
  Receivers(WebConfig web) {
    server = HttpServer.builder("test-receivers").port(0).webConfig(web)
        .post("/moved/{path}", r -> HttpResponse.text(307, "text/plain", "moved").withHeader("Location",
            "/" + r.pathParam("path")))
        .post("/{path}", r -> {
          received.add(new Received(r.pathParam("path"), r.headers(), Json.read(r.body())));
          Integer status = failures.poll();
          return HttpResponse.text(status == null ? 200 : status, "text/plain", "ok");
        })
        .start();
  }

  String url(String path) {
    return server.url() + "/" + path;
  }

  /** Takes everything received so far at {@code path}. */
  List<Received> take(String path) {
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

  List<Received> takeAll() {
    List<Received> out = new ArrayList<>(received);
    received.clear();
    return out;
  }

  @Override
  public void close() {
    server.close();
  }
}
