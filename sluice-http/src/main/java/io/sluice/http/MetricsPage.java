package io.sluice.http;

import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * A server's {@code /metrics} page, written by the official Prometheus client: the text format (0.0.4), or OpenMetrics
 * when the scraper's {@code Accept} asks for it. One writer for every Sluice server, so names, help, label escaping and
 * number formatting are the client's, never hand-built strings.
 *
 * <pre>{@code
 * routes.get("/metrics", MetricsPage.serving(registry));
 * }</pre>
 */
public final class MetricsPage {
  private static final ExpositionFormats FORMATS = ExpositionFormats.init();

  private MetricsPage() {}

  public static HttpHandler serving(PrometheusRegistry registry) {
    return request -> render(registry, request.header("accept").orElse(""));
  }

  /** The registry's metrics in the format {@code accept} prefers. */
  public static HttpResponse render(PrometheusRegistry registry, String accept) {
    ExpositionFormatWriter writer = FORMATS.findWriter(accept);
    ByteArrayOutputStream out = new ByteArrayOutputStream(16 * 1024);
    try {
      writer.write(out, registry.scrape());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return HttpResponse.of(200, writer.getContentType(), out.toByteArray());
  }
}
