package io.sluice.http;

import io.sluice.http.web.WebConfig;

/**
 * Where one of Sluice's servers listens and what it accepts: the interface, the port (0 picks a free one), the largest
 * request body (a larger one is answered 413) and the web configuration (users, roles, TLS, response headers). Each
 * server's builder takes them through {@link Settings}; {@link HttpServer#builder(String, ServerOptions)} is the one
 * start path, to which the server adds its routes.
 */
public record ServerOptions(String host, int port, long maxRequestBytes, WebConfig web) {

  /** On 127.0.0.1 with no web configuration: the defaults of a server with this port and body limit. */
  public static ServerOptions loopback(int port, long maxRequestBytes) {
    return new ServerOptions("127.0.0.1", port, maxRequestBytes, WebConfig.none());
  }

  /** The same options with another web configuration. */
  public ServerOptions withWeb(WebConfig web) {
    return new ServerOptions(host, port, maxRequestBytes, web);
  }

  /**
   * The listening settings of a server's builder, which extends this with settings of its own; {@code B} is that
   * builder, so that the setters chain. The server's defaults are given to the constructor.
   */
  public abstract static class Settings<B extends Settings<B>> {
    private String host;
    private int port;
    private long maxRequestBytes;
    private WebConfig web;

    protected Settings(ServerOptions defaults) {
      this.host = defaults.host();
      this.port = defaults.port();
      this.maxRequestBytes = defaults.maxRequestBytes();
      this.web = defaults.web();
    }

    /** The interface to listen on. */
    public B host(String host) {
      this.host = host;
      return self();
    }

    /** The port to listen on; 0 picks a free port. */
    public B port(int port) {
      this.port = port;
      return self();
    }

    /** The largest request body the server reads; a larger one is answered 413. */
    public B maxRequestBytes(long maxRequestBytes) {
      this.maxRequestBytes = maxRequestBytes;
      return self();
    }

    /** Authentication, roles, TLS and headers of a web configuration file (the Prometheus tools' format). */
    public B webConfig(WebConfig web) {
      this.web = web;
      return self();
    }

    /** The listening options as set so far. */
    public ServerOptions serverOptions() {
      return new ServerOptions(host, port, maxRequestBytes, web);
    }

    @SuppressWarnings("unchecked")
    private B self() {
      return (B) this;
    }
  }
}
