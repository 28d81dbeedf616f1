package io.sluice.metrics.scrape;

import io.sluice.client.ClientOptions;
import io.sluice.client.HttpConfig;
import io.sluice.client.HttpClients;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.zip.GZIPInputStream;

/** Scrapes over HTTP with the same Accept header as Prometheus 2.x, so exporters can pick OpenMetrics. */
final class HttpScraper implements Scraper {
  static final String ACCEPT = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
      + "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";

  private final HttpClients clients = new HttpClients(Duration.ofSeconds(10));

  @Override
  public Response fetch(String url, Duration timeout) throws Exception {
    return fetch(url, timeout, HttpConfig.none());
  }

  @Override
  public Response fetch(String url, Duration timeout, ClientOptions http) throws Exception {
    HttpClient client = clients.of(http);
    HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(url)).timeout(timeout).header("Accept", ACCEPT)
        .header("Accept-Encoding", "gzip")
        .header("X-Prometheus-Scrape-Timeout-Seconds", String.valueOf(timeout.toMillis() / 1000.0))
        .header("User-Agent", "Sluice-Metrics/0.1").GET();
    http.apply(req);
    HttpResponse<byte[]> resp = client.send(req.build(), HttpResponse.BodyHandlers.ofByteArray());
    if (resp.statusCode() != 200) {
      throw new IOException("server returned HTTP status " + resp.statusCode() + " " + reason(resp.statusCode()));
    }
    byte[] body = resp.body();
    if (resp.headers().firstValue("Content-Encoding").filter("gzip"::equalsIgnoreCase).isPresent()) {
      try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(body))) {
        body = in.readAllBytes();
      }
    }
    return new Response(body, resp.headers().firstValue("Content-Type").orElse("text/plain"));
  }

  private static String reason(int status) {
    return switch (status) {
      case 401 -> "Unauthorized";
      case 403 -> "Forbidden";
      case 404 -> "Not Found";
      case 500 -> "Internal Server Error";
      case 503 -> "Service Unavailable";
      default -> "";
    };
  }
}
