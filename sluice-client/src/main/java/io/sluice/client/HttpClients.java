package io.sluice.client;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

/**
 * One {@link HttpClient} per distinct {@link ClientOptions}, for a server that sends to many URLs (scrape targets, alert
 * receivers, routers): TLS, redirects and the HTTP version belong to a client, and a client (its connection pool, its
 * selector thread) is too costly to make per request. Most setups have one or two. Every client made here connects
 * within the one connect timeout given, whatever the options say.
 */
public final class HttpClients {
  private final Map<ClientOptions, HttpClient> clients = new ConcurrentHashMap<>();
  private final Duration connectTimeout;
  private final Executor executor;

  public HttpClients(Duration connectTimeout) {
    this(connectTimeout, null);
  }

  /**
   * Clients that run their own steps (starting a request, completing its answer) on {@code executor}; null for the
   * JDK's default, a pool of its own.
   */
  public HttpClients(Duration connectTimeout, Executor executor) {
    this.connectTimeout = connectTimeout;
    this.executor = executor;
  }

  /**
   * The client of {@code options}, made on first use.
   *
   * @throws IllegalArgumentException where its TLS files cannot be read
   */
  public HttpClient of(ClientOptions options) {
    return clients.computeIfAbsent(options, o -> {
      HttpClient.Builder b = o.clientBuilder().connectTimeout(connectTimeout);
      if (executor != null) {
        b.executor(executor);
      }
      return b.build();
    });
  }
}
