package io.sluice.alerts.ui;

import io.sluice.http.HttpResponse;
import io.sluice.http.HttpServer;
import io.sluice.http.Look;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** The web UI: one static page that renders groups, silences and status from the v2 API, in Sluice's shared look. */
public final class Ui {
  private Ui() {}

  public static HttpServer.Builder routes(HttpServer.Builder s) {
    byte[] page;
    try (InputStream in = Ui.class.getResourceAsStream("/io/sluice/alerts/ui/index.html")) {
      page = in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return s.get("/", r -> HttpResponse.of(200, "text/html; charset=utf-8", page))
        .get("/static/{file}", r -> Look.asset(r.pathParam("file"))
            .orElseGet(() -> HttpResponse.text(404, "text/plain; charset=utf-8", "404 page not found\n")));
  }
}
