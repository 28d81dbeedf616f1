package io.sluice.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The receiver a test runs in place of an outside service: an HTTP listener on loopback at {@code /hook} keeping every
 * notification the alert router posts to it, in the order they came.
 */
final class Webhook implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpServer server;
  private final List<JsonNode> received = new CopyOnWriteArrayList<>();

  private Webhook(HttpServer server) {
    this.server = server;
  }

  static Webhook start() throws IOException {
    Webhook w = new Webhook(HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0));
    w.server.createContext("/hook", exchange -> {
      w.received.add(JSON.readTree(exchange.getRequestBody().readAllBytes()));
      exchange.sendResponseHeaders(200, -1);
      exchange.close();
    });
    w.server.start();
    return w;
  }

  int port() {
    return server.getAddress().getPort();
  }

  /** The notifications so far, oldest first; the list grows as more arrive. */
  List<JsonNode> notifications() {
    return received;
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
