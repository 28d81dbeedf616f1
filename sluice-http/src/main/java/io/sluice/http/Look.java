package io.sluice.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Optional;

/**
 * What every page of Sluice shares, so the console, the metrics server's pages and the alert router's page have one
 * look and one header: {@code sluice.css} (colours, the top bar and its navigation, tables, badges, buttons) and
 * {@code axis.js} (uPlot y axes as wide as their labels). Each server answers them under its own {@code /static/}.
 */
public final class Look {
  private static final Map<String, String> FILES = Map.of(
      "sluice.css", "io/sluice/http/look/sluice.css",
      "axis.js", "io/sluice/http/look/axis.js");

  private Look() {}

  /** The shared file of this name ({@code sluice.css}, {@code axis.js}), cached by browsers for an hour. */
  public static Optional<HttpResponse> asset(String file) {
    String resource = FILES.get(file);
    if (resource == null) {
      return Optional.empty();
    }
    String type = file.endsWith(".css") ? "text/css; charset=utf-8" : "text/javascript; charset=utf-8";
    return Optional.of(HttpResponse.of(200, type, bytes(resource)).withHeader("Cache-Control", "max-age=3600"));
  }

  private static byte[] bytes(String resource) {
    try (InputStream in = Look.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + resource);
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
