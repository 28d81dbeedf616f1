package io.sluice.metrics.scrape;

import io.sluice.client.ClientOptions;
import java.time.Duration;

/** Fetches a target's exposition; separate from the loop so tests can serve bodies without HTTP. */
@FunctionalInterface
public interface Scraper {
  record Response(byte[] body, String contentType) {}

  Response fetch(String url, Duration timeout) throws Exception;

  /** As {@link #fetch(String, Duration)}, reaching the target as its job's {@code http} config says. */
  default Response fetch(String url, Duration timeout, ClientOptions http) throws Exception {
    return fetch(url, timeout);
  }
}
