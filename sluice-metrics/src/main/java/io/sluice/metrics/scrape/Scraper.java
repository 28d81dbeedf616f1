package io.sluice.metrics.scrape;

import java.time.Duration;

/** Fetches a target's exposition; separate from the loop so tests can serve bodies without HTTP. */
@FunctionalInterface
public interface Scraper {
  record Response(byte[] body, String contentType) {}

  Response fetch(String url, Duration timeout) throws Exception;
}
