package io.sluice.metrics.web;

import io.sluice.http.HttpResponse;
import io.sluice.http.HttpServer;
import io.sluice.http.Look;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * The expression browser, where Prometheus users go first: {@code /} leads to {@code /graph}, a PromQL box with
 * metric-name completion, the instant result as a table and a range as a graph (uPlot, from its WebJar). The page
 * reads the server's own HTTP API, so errors read as Prometheus words them. Its look, header and chart axes are
 * Sluice's shared ones ({@link Look}), as are those of {@code /alerts} and {@code /targets} ({@link #header}).
 */
final class GraphPage {
  private static final String UPLOT = "META-INF/resources/webjars/uplot/1.6.30/dist/";
  private static final Map<String, String> ASSETS = Map.of(
      "graph.js", "io/sluice/metrics/web/graph.js",
      "graph.css", "io/sluice/metrics/web/graph.css",
      "uPlot.min.css", UPLOT + "uPlot.min.css",
      "uPlot.iife.min.js", UPLOT + "uPlot.iife.min.js");

  private GraphPage() {}

  static HttpServer.Builder register(HttpServer.Builder b) {
    return b.get("/", r -> HttpResponse.empty(302).withHeader("Location", "/graph"))
        .get("/graph", r -> HttpResponse.of(200, "text/html; charset=utf-8", bytes("io/sluice/metrics/web/graph.html"))
            .withHeader("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'"))
        .get("/static/{file}", r -> {
          String resource = ASSETS.get(r.pathParam("file"));
          if (resource == null) {
            return Look.asset(r.pathParam("file"))
                .orElseGet(() -> HttpResponse.text(404, "text/plain; charset=utf-8", "404 page not found\n"));
          }
          return HttpResponse.of(200, resource.endsWith(".css") ? "text/css; charset=utf-8"
              : "text/javascript; charset=utf-8", bytes(resource)).withHeader("Cache-Control", "max-age=3600");
        });
  }

  private static byte[] bytes(String resource) {
    try (InputStream in = GraphPage.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + resource);
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The top of the server's HTML pages ({@code /alerts}, {@code /targets}; {@code graph.html} has the same markup): the
   * shared style sheet and header, with {@code current} the page shown.
   */
  static String header(String title, String current) {
    StringBuilder sb = new StringBuilder("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>")
        .append(title).append(" · Sluice metrics</title>\n<link rel=\"stylesheet\" href=\"/static/sluice.css\">\n"
            + "<link rel=\"stylesheet\" href=\"/static/graph.css\">\n</head><body>\n<header class=\"top\">"
            + "<span class=\"brand\">Sluice</span><span class=\"surface\">metrics</span><nav>");
    for (String page : new String[] {"Graph", "Alerts", "Targets"}) {
      sb.append("<a href=\"/").append(page.toLowerCase(java.util.Locale.ROOT)).append('"')
          .append(page.equals(current) ? " class=\"current\"" : "").append('>').append(page).append("</a>");
    }
    return sb.append("</nav></header>\n<main>\n<h1>").append(title).append("</h1>\n").toString();
  }

  static final String FOOTER = "</main></body></html>\n";
}
