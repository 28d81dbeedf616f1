package io.sluice.client;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * How a Sluice client reaches a server: timeouts, how often an idempotent request is tried, and the credentials and
 * CA it presents. Every client (Connect, registry, metrics, alerts) takes one, so authentication and TLS are added
 * here once. The password is a supplier, read when a request is made, so it never sits in a string that an error
 * message or a log line could print.
 *
 * <pre>{@code
 * ClientOptions options = ClientOptions.defaults().withBasicAuth("ops", () -> System.getenv("SLUICE_PASSWORD"));
 * }</pre>
 */
public record ClientOptions(Duration connectTimeout, Duration requestTimeout, int attempts, Duration retryBackoff,
    Optional<String> user, Supplier<String> password, Optional<Path> caFile, Map<String, String> headers) {

  public ClientOptions {
    Objects.requireNonNull(connectTimeout);
    Objects.requireNonNull(requestTimeout);
    Objects.requireNonNull(retryBackoff);
    Objects.requireNonNull(user);
    Objects.requireNonNull(password);
    Objects.requireNonNull(caFile);
    headers = Map.copyOf(headers);
    if (attempts < 1) {
      throw new IllegalArgumentException("attempts must be at least 1: " + attempts);
    }
  }

  /** 10 s to connect, 60 s per request, three attempts 500 ms apart, no credentials, the JDK's trusted CAs. */
  public static ClientOptions defaults() {
    return new ClientOptions(Duration.ofSeconds(10), Duration.ofSeconds(60), 3, Duration.ofMillis(500),
        Optional.empty(), () -> null, Optional.empty(), Map.of());
  }

  public ClientOptions withRequestTimeout(Duration timeout) {
    return new ClientOptions(connectTimeout, timeout, attempts, retryBackoff, user, password, caFile, headers);
  }

  public ClientOptions withAttempts(int attempts, Duration backoff) {
    return new ClientOptions(connectTimeout, requestTimeout, attempts, backoff, user, password, caFile, headers);
  }

  public ClientOptions withBasicAuth(String user, Supplier<String> password) {
    return new ClientOptions(connectTimeout, requestTimeout, attempts, retryBackoff, Optional.of(user), password,
        caFile, headers);
  }

  public ClientOptions withCaFile(Path caFile) {
    return new ClientOptions(connectTimeout, requestTimeout, attempts, retryBackoff, user, password,
        Optional.of(caFile), headers);
  }

  /** A header sent with every request (its value is never printed). */
  public ClientOptions withHeader(String name, String value) {
    Map<String, String> more = new java.util.HashMap<>(headers);
    more.put(name, value);
    return new ClientOptions(connectTimeout, requestTimeout, attempts, retryBackoff, user, password, caFile, more);
  }

  /** Never prints the password. */
  @Override
  public String toString() {
    return "ClientOptions[connectTimeout=" + connectTimeout + ", requestTimeout=" + requestTimeout + ", attempts="
        + attempts + ", user=" + user.orElse("<none>") + ", caFile=" + caFile.map(Path::toString).orElse("<default>")
        + ", headers=" + headers.keySet() + "]";
  }
}
