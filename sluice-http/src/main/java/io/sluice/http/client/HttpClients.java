package io.sluice.http.client;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One {@link HttpClient} per distinct {@link HttpClientConfig}: TLS, redirects and the HTTP version belong to a
 * client, and a client (its connection pool, its selector thread) is too costly to make per request. Most setups
 * have one or two.
 */
public final class HttpClients {
  private final Map<HttpClientConfig, HttpClient> clients = new ConcurrentHashMap<>();
  private final Duration connectTimeout;

  public HttpClients(Duration connectTimeout) {
    this.connectTimeout = connectTimeout;
  }

  /**
   * The client of {@code config}, made on first use.
   *
   * @throws IllegalArgumentException where its {@code tls_config} files cannot be read
   */
  public HttpClient of(HttpClientConfig config) {
    return clients.computeIfAbsent(config, c -> c.builder().connectTimeout(connectTimeout).build());
  }
}
