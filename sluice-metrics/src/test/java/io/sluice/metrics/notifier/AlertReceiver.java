package io.sluice.metrics.notifier;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.sluice.http.Json;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * A stand-in alert router for tests: records the bodies of {@code POST /api/v2/alerts} and answers 200, or 503 for
 * the first {@code failFirst} posts.
 */
public final class AlertReceiver implements AutoCloseable {
  private final HttpServer server;
  private final List<JsonNode> posts = new ArrayList<>();
  private final AtomicInteger failFirst = new AtomicInteger();
  private final AtomicInteger attempts = new AtomicInteger();

  public AlertReceiver() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/api/v2/alerts", ex -> {
      byte[] body = ex.getRequestBody().readAllBytes();
      attempts.incrementAndGet();
      int status;
      if (!ex.getRequestMethod().equals("POST")) {
        status = 405;
      } else if (failFirst.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        status = 503;
      } else {
        synchronized (posts) {
          posts.add(Json.read(body));
          posts.notifyAll();
        }
        status = 200;
      }
      ex.sendResponseHeaders(status, -1);
      ex.close();
    });
    server.start();
  }

  public String hostPort() {
    return "127.0.0.1:" + server.getAddress().getPort();
  }

  public String url() {
    return "http://" + hostPort();
  }

  public void failFirst(int n) {
    failFirst.set(n);
  }

  public int attempts() {
    return attempts.get();
  }

  /** Every accepted post so far, each a JSON array of alerts. */
  public List<JsonNode> posts() {
    synchronized (posts) {
      return List.copyOf(posts);
    }
  }

  /** Waits (generously: the machine is shared) for an accepted alert matching {@code p} and returns it. */
  public JsonNode awaitAlert(Predicate<JsonNode> p, long timeoutMillis) throws InterruptedException {
    long deadline = System.currentTimeMillis() + timeoutMillis;
    synchronized (posts) {
      while (true) {
        for (JsonNode post : posts) {
          for (JsonNode a : post) {
            if (p.test(a)) {
              return a;
            }
          }
        }
        long left = deadline - System.currentTimeMillis();
        if (left <= 0) {
          throw new AssertionError("no matching alert within " + timeoutMillis + " ms; received " + posts);
        }
        posts.wait(left);
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
