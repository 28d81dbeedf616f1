package io.sluice.http;

import io.sluice.http.web.Access;
import io.sluice.http.web.AccessCheck;
import io.sluice.http.web.Role;
import io.sluice.http.web.TlsContext;
import io.sluice.http.web.WebConfig;

import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.UriCompliance;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An HTTP server with a flat route table. Each of Sluice's servers (registry, metrics, alerts, dashboard) builds one,
 * supplying its own error shape through {@link Builder#notFound} and {@link Builder#onError}.
 *
 * <pre>{@code
 * HttpServer server = HttpServer.builder("registry")
 *     .port(8081)
 *     .get("/subjects", req -> ...)
 *     .onError(e -> HttpResponse.json(500, Map.of("error_code", 500, "message", e.getMessage())))
 *     .start();
 * }</pre>
 */
public final class HttpServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(HttpServer.class);

  private final String name;
  private final Server jetty;
  private final ServerConnector connector;
  private final TlsContext tls;

  private HttpServer(Builder b, ServerOptions options) {
    this.name = b.name;
    QueuedThreadPool pool = new QueuedThreadPool(b.maxThreads, 2);
    pool.setName("sluice-http-" + b.name);
    this.jetty = new Server(pool);
    // Non-blocking routes run on the selector threads, so a server with any has as many selectors as cores (Jetty's
    // default is half as many) and such requests can use every core.
    boolean anyNonBlocking = b.routes.stream().anyMatch(Route::nonBlocking);
    int selectors = anyNonBlocking ? Math.min(8, Runtime.getRuntime().availableProcessors()) : -1;
    // An encoded slash inside one segment is data, not a separator: Confluent's clients name a Protobuf import's
    // subject by its path ("shop/common.proto") and send it as shop%2Fcommon.proto; Jetty refuses that by default.
    // The router splits the raw path before it decodes a segment, so the slash stays inside its parameter.
    HttpConfiguration http = new HttpConfiguration();
    // The handler answers 431 itself, after draining (see HeaderLimit).
    http.setRequestHeaderSize(HeaderLimit.BUFFER);
    http.setUriCompliance(UriCompliance.DEFAULT.with("sluice", UriCompliance.Violation.AMBIGUOUS_PATH_SEPARATOR));
    if (options.web().tls() != null) {
      this.tls = new TlsContext(options.web().tls());
      // Certificates name a host the loopback address rarely is; the name check is the client's to make.
      http.addCustomizer(new SecureRequestCustomizer(false));
      this.connector = new ServerConnector(jetty, -1, selectors, new SslConnectionFactory(tls.factory(), "http/1.1"),
          new HttpConnectionFactory(http));
    } else {
      this.tls = null;
      this.connector = new ServerConnector(jetty, -1, selectors, new HttpConnectionFactory(http));
    }
    connector.setHost(options.host());
    connector.setPort(options.port());
    jetty.addConnector(connector);
    jetty.setHandler(new Router(List.copyOf(b.routes), b.notFound, b.methodNotAllowed, b.onError, pool,
        options.maxRequestBytes(), b.refuseUndecodableQuery, new Guard(options.web(), b.access, b.refusal), b.name));
  }

  /** A builder on 127.0.0.1, port 0 (a free one), reading request bodies up to 8 MiB, with no web configuration. */
  public static Builder builder(String name) {
    return new Builder(name, ServerOptions.loopback(0, 8L << 20));
  }

  /**
   * The start path of Sluice's servers: a builder listening as {@code options} say, to which the server adds its
   * routes (and its access rules, error shape and thread count).
   */
  public static Builder builder(String name, ServerOptions options) {
    return new Builder(name, options);
  }

  /** The bound port; useful when the builder asked for port 0. */
  public int port() {
    return connector.getLocalPort();
  }

  public InetSocketAddress address() {
    return new InetSocketAddress(connector.getHost(), port());
  }

  public String url() {
    return scheme() + "://" + connector.getHost() + ":" + port();
  }

  @Override
  public void close() {
    try {
      jetty.stop();
    } catch (Exception e) {
      log.warn("stopping HTTP server {} failed", name, e);
    }
    // The requests counted since the last repeat line, written before the process that stops this server ends.
    Audit.flushRepeats();
    if (tls != null) {
      tls.close();
    }
  }

  /** {@code https} when the web configuration serves TLS, else {@code http}. */
  public String scheme() {
    return tls != null ? "https" : "http";
  }

  /**
   * Collects routes; {@link #start()} binds and returns the running server. A request body past
   * {@link #maxRequestBytes} is refused with a {@link MalformedRequestException} (413) before it is read, by its
   * Content-Length or, when chunked, as soon as the count passes the limit, so one request cannot fill the heap the
   * servers share.
   */
  public static final class Builder extends ServerOptions.Settings<Builder> {
    private final String name;
    private int maxThreads = 32;
    private final List<Route> routes = new ArrayList<>();
    private HttpHandler notFound = req -> HttpResponse.text(404, "text/plain", "404 page not found\n");
    private HttpHandler methodNotAllowed = req -> HttpResponse.text(405, "text/plain", "405 method not allowed\n");
    private Function<Throwable, HttpResponse> onError = e -> e instanceof MalformedRequestException m
        ? HttpResponse.text(m.status(), "text/plain", m.getMessage() + "\n")
        : HttpResponse.text(500, "text/plain", String.valueOf(e.getMessage()));
    private boolean refuseUndecodableQuery;
    private Access access = Access.BY_METHOD;
    private BiFunction<Integer, String, HttpResponse> refusal = (status, message) ->
        HttpResponse.text(status, "text/plain; charset=utf-8", message + "\n");

    private Builder(String name, ServerOptions options) {
      super(options);
      this.name = name;
    }

    public Builder maxThreads(int maxThreads) {
      this.maxThreads = maxThreads;
      return this;
    }

    public Builder route(String method, String pattern, HttpHandler handler) {
      routes.add(Route.of(method.toUpperCase(Locale.ROOT), pattern, handler, false));
      return this;
    }

    /**
     * A route whose handler neither blocks (no I/O, no waiting on anything but short locks) nor runs long: it is
     * answered on the thread that read the request, which saves a thread hand-off per request. For hot endpoints that
     * take many small requests, such as alert ingestion; a handler that blocks here stalls every connection that
     * shares its selector.
     */
    public Builder nonBlocking(String method, String pattern, HttpHandler handler) {
      routes.add(Route.of(method.toUpperCase(Locale.ROOT), pattern, handler, true));
      return this;
    }

    public Builder get(String pattern, HttpHandler handler) {
      return route("GET", pattern, handler);
    }

    public Builder post(String pattern, HttpHandler handler) {
      return route("POST", pattern, handler);
    }

    public Builder put(String pattern, HttpHandler handler) {
      return route("PUT", pattern, handler);
    }

    public Builder delete(String pattern, HttpHandler handler) {
      return route("DELETE", pattern, handler);
    }

    /** Answer for a path no route matches. */
    public Builder notFound(HttpHandler handler) {
      this.notFound = handler;
      return this;
    }

    /** Answer for a path some route matches, but with another method. */
    public Builder methodNotAllowed(HttpHandler handler) {
      this.methodNotAllowed = handler;
      return this;
    }

    /** The role each request needs (default {@link Access#BY_METHOD}). */
    public Builder access(Access access) {
      this.access = access;
      return this;
    }

    /** How this API words a 401 or 403, in its own error shape (status, message → response). */
    public Builder refusal(BiFunction<Integer, String, HttpResponse> refusal) {
      this.refusal = refusal;
      return this;
    }

    /**
     * Refuses a query string with a pair that does not decode (400, {@link MalformedRequestException}) instead of
     * leaving the pair out, as Go's servers do: for APIs imitating a server that refuses them (Jersey's).
     */
    public Builder refuseUndecodableQuery() {
      this.refuseUndecodableQuery = true;
      return this;
    }

    /** Maps any exception a handler throws to the server's error shape. */
    public Builder onError(Function<Throwable, HttpResponse> onError) {
      this.onError = onError;
      return this;
    }

    public HttpServer start() {
      ServerOptions options = serverOptions();
      if (options.maxRequestBytes() <= 0) {
        throw new IllegalArgumentException("maxRequestBytes must be positive: " + options.maxRequestBytes());
      }
      HttpServer server = new HttpServer(this, options);
      try {
        server.jetty.start();
      } catch (Exception e) {
        server.close();
        throw new IllegalStateException("cannot start " + name + " on " + options.host() + ":" + options.port() + ": "
            + e.getMessage(), e);
      }
      log.info("{} listening on {}", name, server.url());
      return server;
    }
  }

  /** The web configuration's checks, before a request is routed: who asks, and whether their role suffices. */
  private record Guard(WebConfig web, Access access, BiFunction<Integer, String, HttpResponse> refusal,
      AccessCheck check) {
    Guard(WebConfig web, Access access, BiFunction<Integer, String, HttpResponse> refusal) {
      this(web, access, refusal, new AccessCheck(web));
    }

    Map<String, String> headers() {
      return web.headers();
    }

    /** Who asks (null when no credentials are asked for or given) and the refusal to send (null to go on). */
    record Verdict(String user, HttpResponse refusal) {}

    Verdict check(String method, String path, String authorization) {
      if (!check.authenticates()) {
        return new Verdict(null, null);
      }
      Role needed = access.required(method, path);
      AccessCheck.Verdict v = check.check(needed, authorization);
      return new Verdict(v.user(), switch (v.status()) {
        case 401 -> refusal.apply(401, "Unauthorized").withHeader("WWW-Authenticate", AccessCheck.CHALLENGE);
        case 403 -> refusal.apply(403, "User " + v.user() + " (role " + v.role().configName() + ") may not " + method
            + " " + path + ": it needs the role " + needed.configName());
        default -> null;
      });
    }
  }

  private static final class Router extends Handler.Abstract {
    private static final byte[] NO_BODY = new byte[0];
    private final List<Route> routes;
    private final HttpHandler notFound;
    private final HttpHandler methodNotAllowed;
    private final Function<Throwable, HttpResponse> onError;
    private final Executor pool;
    private final long maxRequestBytes;
    private final boolean refuseUndecodableQuery;
    private final Guard guard;
    private final String serverName;

    Router(List<Route> routes, HttpHandler notFound, HttpHandler methodNotAllowed,
        Function<Throwable, HttpResponse> onError, Executor pool, long maxRequestBytes,
        boolean refuseUndecodableQuery, Guard guard, String serverName) {
      this.guard = guard;
      this.serverName = serverName;
      this.maxRequestBytes = maxRequestBytes;
      this.refuseUndecodableQuery = refuseUndecodableQuery;
      this.routes = routes;
      this.notFound = notFound;
      this.methodNotAllowed = methodNotAllowed;
      this.onError = onError;
      this.pool = pool;
    }

    /**
     * Declares itself non-blocking to Jetty so that a request reaches it on the selector thread that parsed it. A
     * non-blocking route is answered right there, its body read without blocking (usually already in the buffer that
     * held the headers): no hand-off to another thread, which for a small request costs more than the work itself.
     * Every other request is handed to the pool, where its handler may block.
     */
    @Override
    public InvocationType getInvocationType() {
      return InvocationType.NON_BLOCKING;
    }

    /** Where a request goes: a route and its path parameters, or no route (then whether another method has one). */
    private record Target(String method, String rawPath, Route route, Map<String, String> params, boolean pathMatched) {
      HttpHandler handler(HttpHandler notFound, HttpHandler methodNotAllowed) {
        return route != null ? route.handler() : pathMatched ? methodNotAllowed : notFound;
      }
    }

    @Override
    public boolean handle(Request request, Response response, Callback given) {
      guard.headers().forEach((k, v) -> response.getHeaders().put(k, v));
      if (headerSize(request).refused()) {
        return refuseAfterDraining(request, response, given, HttpResponse.text(431, "text/plain; charset=utf-8",
            "Request Header Fields Too Large\n").withHeader("Connection", "close"));
      }
      String method = request.getMethod().toUpperCase(Locale.ROOT);
      String path = request.getHttpURI().getPath() == null ? "/" : request.getHttpURI().getPath();
      Guard.Verdict verdict = guard.check(method, path, request.getHeaders().get(HttpHeader.AUTHORIZATION));
      Callback callback = Audit.changes(method)
          ? audited(given, response, method, path, verdict.user(), Request.getRemoteAddr(request)) : given;
      HttpResponse refused = verdict.refusal();
      if (refused != null) {
        // The body is left unread: say the connection ends here, so a client does not send its next request on it.
        write(refused.withHeader("Connection", "close"), response, callback);
        return true;
      }
      Target target;
      try {
        target = target(request);
      } catch (Throwable e) {
        write(mapError(e), response, callback);
        return true;
      }
      if (request.getLength() > maxRequestBytes) {
        return refuseAfterDraining(request, response, callback, tooLarge());
      }
      int limit = (int) Math.min(Integer.MAX_VALUE - 8, maxRequestBytes);
      if (target.route != null && target.route.nonBlocking()) {
        if (withoutBody(request)) {
          // A lookup (GET): nothing to accumulate, so no accumulator and no completion stage per request.
          write(answer(request, target, NO_BODY), response, callback);
          return true;
        }
        Content.Source.asByteArrayAsync(request, limit).whenComplete((body, failure) -> {
          // Jetty ends an accumulation past its maximum with an IOException saying so.
          if (failure != null && String.valueOf(failure.getMessage()).contains("too large")) {
            refuseAfterDraining(request, response, callback, tooLarge());
          } else {
            write(failure != null ? mapError(failure) : answer(request, target, body), response, callback);
          }
        });
        return true;
      }
      try {
        pool.execute(() -> {
          HttpResponse out;
          try (InputStream in = Content.Source.asInputStream(request)) {
            // One byte past the limit tells a body at the limit from a larger one without reading the rest.
            byte[] body = in.readNBytes(limit + 1);
            if (body.length > limit) {
              RefusedBody.drain(in, -1);
              out = tooLarge();
            } else {
              out = answer(request, target, body);
            }
          } catch (Throwable e) {
            out = mapError(e);
          }
          write(out, response, callback);
        });
      } catch (RejectedExecutionException e) {
        callback.failed(e);
      }
      return true;
    }

    /**
     * A request that says it has no body: a length of 0, or (HTTP/1.1 over this connector) neither a length nor a
     * transfer coding, which for a request means no body at all (RFC 9112, 6.3).
     */
    private static boolean withoutBody(Request request) {
      long length = request.getLength();
      return length == 0 || (length < 0 && !request.getHeaders().contains(HttpHeader.TRANSFER_ENCODING));
    }

    /** Writes the request's audit line once its answer is out (or failed). */
    private Callback audited(Callback callback, Response response, String method, String path, String user,
        String address) {
      return Callback.from(() -> {
        Audit.record(serverName, method, path, user, address, response.getStatus());
        callback.succeeded();
      }, failure -> {
        Audit.record(serverName, method, path, user, address, "failed (" + failure.getClass().getSimpleName() + ")");
        callback.failed(failure);
      });
    }

    /** The request line and header fields as sent, near enough: what Jetty's header buffer would have held. */
    private static HeaderLimit.Tally headerSize(Request request) {
      HeaderLimit.Tally size = new HeaderLimit.Tally(request.getMethod(), String.valueOf(request.getHttpURI()));
      request.getHeaders().forEach(f -> size.field(f.getName(), f.getValue()));
      return size;
    }

    /**
     * Answers a refusal (413, 431) once the rest of the body has been read and dropped ({@link RefusedBody}).
     */
    private boolean refuseAfterDraining(Request request, Response response, Callback callback, HttpResponse answer) {
      try {
        pool.execute(() -> {
          try (InputStream in = Content.Source.asInputStream(request)) {
            RefusedBody.drain(in, request.getLength());
          } catch (Throwable ignored) {
            // The answer goes out all the same.
          }
          write(answer, response, callback);
        });
      } catch (RejectedExecutionException e) {
        callback.failed(e);
      }
      return true;
    }


    private HttpResponse tooLarge() {
      HttpResponse out = mapError(MalformedRequestException.tooLarge(maxRequestBytes));
      return out.withHeader("Connection", "close");
    }

    private Target target(Request request) {
      String method = request.getMethod().toUpperCase(Locale.ROOT);
      String rawPath = request.getHttpURI().getPath();
      if (rawPath == null) {
        rawPath = "/";
      }
      List<String> segments = Route.split(rawPath);
      boolean pathMatched = false;
      for (Route r : routes) {
        Optional<Map<String, String>> params = r.match(segments);
        if (params.isEmpty()) {
          continue;
        }
        pathMatched = true;
        if (r.method().equals(method) || (method.equals("HEAD") && r.method().equals("GET"))) {
          return new Target(method, rawPath, r, params.get(), true);
        }
      }
      return new Target(method, rawPath, null, Map.of(), pathMatched);
    }

    private HttpResponse answer(Request request, Target target, byte[] body) {
      try {
        HttpRequest.Form query = HttpRequest.parse(request.getHttpURI().getQuery());
        if (refuseUndecodableQuery && query.error().isPresent()) {
          return mapError(MalformedRequestException.badQuery(query.error().get()));
        }
        Map<String, String> headers = new LinkedHashMap<>();
        for (HttpField f : request.getHeaders()) {
          headers.merge(f.getLowerCaseName(), f.getValue(), (a, b) -> a + ", " + b);
        }
        HttpRequest r = new HttpRequest(target.method, PathDecoder.decode(target.rawPath), target.params,
            query.values(), query.error(), headers, body, Request.getRemoteAddr(request));
        return target.handler(notFound, methodNotAllowed).handle(r);
      } catch (Throwable e) {
        return mapError(e);
      }
    }

    private HttpResponse mapError(Throwable e) {
      try {
        return onError.apply(e);
      } catch (Throwable inner) {
        log.error("error mapper failed", inner);
        return HttpResponse.text(500, "text/plain", "internal error\n");
      }
    }

    private static void write(HttpResponse out, Response response, Callback callback) {
      response.setStatus(out.status());
      if (out.contentType() != null) {
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, out.contentType());
      }
      out.headers().forEach((k, v) -> response.getHeaders().put(k, v));
      response.getHeaders().put(HttpHeader.CONTENT_LENGTH, out.body().length);
      response.write(true, ByteBuffer.wrap(out.body()), callback);
    }
  }
}
