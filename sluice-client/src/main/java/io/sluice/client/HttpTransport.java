package io.sluice.client;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * One base URL reached the way {@link ClientOptions} says: the JDK HTTP client with its timeouts, credentials,
 * headers and TLS, and retries. A request is tried again, after the backoff, when the connection fails or the server
 * answers 5xx, and only when the caller says the request is safe to repeat; every
 * other answer, 4xx included, is returned as it came for the API's own client to read its error body.
 *
 * <pre>{@code
 * HttpTransport connect = new HttpTransport("http://127.0.0.1:8083", ClientOptions.defaults(), "Kafka Connect");
 * HttpTransport.Reply r = connect.send("GET", "/connectors", null, true);
 * }</pre>
 */
public final class HttpTransport {
  private final String baseUrl;
  private final ClientOptions options;
  private final String what;
  private final HttpClient http;

  /**
   * The answer of a server: status and body, whatever the status, and the text of each HTTP {@code Warning} header
   * (RFC 9111: {@code code agent "text"}), which a Sluice worker sends for a risk it does not refuse.
   */
  public record Reply(int status, String body, List<String> warnings) {
    public Reply {
      warnings = List.copyOf(warnings);
    }

    public Reply(int status, String body) {
      this(status, body, List.of());
    }

    public boolean ok() {
      return status >= 200 && status < 300;
    }
  }

  /** The server could not be reached (after every attempt), or the wait was interrupted. */
  public static final class UnreachableException extends IllegalStateException {
    UnreachableException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** {@code what} names the server in errors: "Kafka Connect", "schema registry". */
  public HttpTransport(String baseUrl, ClientOptions options, String what) {
    this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
    this.options = options;
    this.what = what;
    HttpClient.Builder b = options.clientBuilder();
    if (options.tls() == null && !options.followRedirects() && this.baseUrl.startsWith("http://")) {
      // Plain HTTP, and the client follows no redirect: left to itself the JDK client would still build the JVM's
      // default TLS context (providers, the trust store read), 60-100 ms of CPU in a command or a plane's start.
      b.sslContext(unusedTls()).sslParameters(new SSLParameters());
    }
    this.http = b.build();
  }

  /** A TLS context never initialised: only a client that makes no TLS connection may hold it. */
  private static SSLContext unusedTls() {
    try {
      return SSLContext.getInstance("TLS");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("no TLS in this JVM", e);
    }
  }

  public String baseUrl() {
    return baseUrl;
  }

  /**
   * The text of a {@code Warning} header value, {@code 299 sluice "text"} (a backslash escapes the next character);
   * a value not of that shape as it is.
   */
  static String warningText(String value) {
    int open = value.indexOf('"');
    if (open < 0 || !value.substring(0, open).trim().matches("\\d{3} \\S+")) {
      return value;
    }
    StringBuilder out = new StringBuilder();
    for (int i = open + 1; i < value.length(); i++) {
      char ch = value.charAt(i);
      if (ch == '"') {
        return out.toString();
      }
      if (ch == '\\' && i + 1 < value.length()) {
        ch = value.charAt(++i);
      }
      out.append(ch);
    }
    return value;
  }

  /** A path segment with everything but unreserved characters escaped ({@code a b/c} becomes {@code a%20b%2Fc}). */
  public static String segment(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
  }

  /** Sends a request with a JSON body (or none); {@code idempotent} allows retrying it. */
  public Reply send(String method, String path, String jsonBody, boolean idempotent) {
    return attempts(method, path, jsonBody, idempotent, r -> false);
  }

  /**
   * As {@link #send(String, String, String, boolean)}; an answer {@code busy} accepts (Connect's "a rebalance is
   * expected") is asked again, the backoff doubling up to two seconds, until the request timeout has passed since the first try: a
   * server that says it is busy has done nothing, and its state (a group rebalancing, tasks stopping) outlasts the
   * few attempts a failed connection gets. {@code busy} sees every answer, so it can also take a request that is not
   * otherwise safe to repeat, when the answer proves nothing happened.
   */
  public Reply send(String method, String path, String jsonBody, boolean idempotent, Predicate<Reply> busy) {
    long deadline = System.nanoTime() + options.requestTimeout().toNanos();
    long backoff = Math.max(1, options.retryBackoff().toMillis());
    while (true) {
      Reply r = attempts(method, path, jsonBody, idempotent, busy);
      long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
      if (!busy.test(r) || left <= 0) {
        return r;
      }
      // Jittered and capped low: clients waiting out the same rebalance (several `connectors apply` at once) each
      // start one when they win, so a client asleep for seconds at a time loses every race to the fresh ones.
      sleep(Math.min(ThreadLocalRandom.current().nextLong(backoff / 2, backoff + 1), left));
      backoff = Math.min(backoff * 2, 2_000);
    }
  }

  /** One request, tried again on a failed connection or a 5xx that is not {@code busy}, where repeating it is safe. */
  private Reply attempts(String method, String path, String jsonBody, boolean idempotent, Predicate<Reply> busy) {
    int attempts = idempotent ? options.attempts() : 1;
    IOException lastFailure = null;
    Reply last = null;
    for (int attempt = 1; attempt <= attempts; attempt++) {
      if (attempt > 1) {
        sleep(options.retryBackoff().toMillis());
      }
      try {
        HttpResponse<String> r = http.send(request(method, path, jsonBody), HttpResponse.BodyHandlers.ofString());
        last = new Reply(r.statusCode(), r.body(), r.headers().allValues("Warning").stream()
            .map(HttpTransport::warningText).toList());
        if (r.statusCode() < 500 || busy.test(last)) {
          return last;
        }
      } catch (javax.net.ssl.SSLException e) {
        // An untrusted certificate stays untrusted: trying again only hides the reason.
        throw new UnreachableException("cannot reach " + what + " at " + baseUrl + ": TLS refused (" + method + " "
            + path + "): " + describe(e), e);
      } catch (IOException e) {
        lastFailure = e;
        last = null;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new UnreachableException("interrupted calling " + what + " (" + method + " " + path + ")", e);
      }
    }
    if (last != null) {
      return last;
    }
    throw new UnreachableException("cannot reach " + what + " at " + baseUrl + ": unreachable after " + attempts
        + (attempts == 1 ? " attempt" : " attempts") + " (" + method + " " + path + "): " + describe(lastFailure),
        lastFailure);
  }

  private static String describe(IOException e) {
    return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
  }

  private HttpRequest request(String method, String path, String jsonBody) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(options.requestTimeout())
        .method(method, jsonBody == null ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(jsonBody));
    b.header("Accept", "application/json");
    if (jsonBody != null) {
      b.header("Content-Type", "application/json");
    }
    return options.apply(b).build();
  }

  private void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UnreachableException("interrupted between attempts to reach " + what, e);
    }
  }

}
