package io.sluice.http;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * One request as a route handler sees it: immutable, body fully read.
 *
 * <p>Header names are lower-cased. {@link #param(String)} looks at the query string first and then at an
 * {@code application/x-www-form-urlencoded} body, which is how the Prometheus API accepts POSTed queries.
 *
 * <p>A query pair whose escapes do not decode ({@code a=%zz}) is left out of {@link #query()}, as Go's
 * {@code url.ParseQuery} leaves it out, and named in {@link #queryError()}: an API that refuses such a query (as
 * Prometheus' {@code ParseForm} callers do) says so, one that ignores it goes on with the pairs that did decode.
 */
public record HttpRequest(
    String method,
    String path,
    Map<String, String> pathParams,
    Map<String, List<String>> query,
    Optional<String> queryError,
    Map<String, String> headers,
    byte[] body,
    String remoteAddress) {

  public HttpRequest {
    pathParams = Map.copyOf(pathParams);
    query = Map.copyOf(query);
    headers = Map.copyOf(headers);
  }

  public String pathParam(String name) {
    String v = pathParams.get(name);
    if (v == null) {
      throw new IllegalArgumentException("route has no path parameter " + name);
    }
    return v;
  }

  public Optional<String> header(String name) {
    return Optional.ofNullable(headers.get(name.toLowerCase(Locale.ROOT)));
  }

  public Optional<String> contentType() {
    return header("content-type").map(v -> {
      int semi = v.indexOf(';');
      return (semi < 0 ? v : v.substring(0, semi)).trim().toLowerCase(Locale.ROOT);
    });
  }

  /** First value of a query (or form) parameter. */
  public Optional<String> param(String name) {
    List<String> all = params(name);
    return all.isEmpty() ? Optional.empty() : Optional.of(all.get(0));
  }

  /** Every value of a query parameter, then of the same form parameter, in order. */
  public List<String> params(String name) {
    List<String> out = new ArrayList<>(query.getOrDefault(name, List.of()));
    if (contentType().filter("application/x-www-form-urlencoded"::equals).isPresent()) {
      out.addAll(parseForm(bodyText()).getOrDefault(name, List.of()));
    }
    return out;
  }

  public boolean flag(String name) {
    return param(name).map(v -> v.isEmpty() || Boolean.parseBoolean(v)).orElse(false);
  }

  public String bodyText() {
    return new String(body, StandardCharsets.UTF_8);
  }

  /** Parses {@code a=1&b=2&a=3} into ordered multi-values; used for query strings and form bodies alike. */
  public static Map<String, List<String>> parseForm(String encoded) {
    return parse(encoded).values();
  }

  /** The decoded pairs and, when any pair did not decode, the first such error in Go's words. */
  record Form(Map<String, List<String>> values, Optional<String> error) {}

  static Form parse(String encoded) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    String error = null;
    if (encoded == null || encoded.isEmpty()) {
      return new Form(out, Optional.empty());
    }
    for (String pair : encoded.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      try {
        String k = decode(eq < 0 ? pair : pair.substring(0, eq));
        String v = eq < 0 ? "" : decode(pair.substring(eq + 1));
        out.computeIfAbsent(k, x -> new ArrayList<>()).add(v);
      } catch (IllegalArgumentException e) {
        if (error == null) {
          error = "invalid URL escape " + firstBadEscape(pair);
        }
      }
    }
    return new Form(out, Optional.ofNullable(error));
  }

  private static String firstBadEscape(String pair) {
    for (int i = 0; i < pair.length(); i++) {
      if (pair.charAt(i) == '%') {
        String esc = pair.substring(i, Math.min(pair.length(), i + 3));
        if (esc.length() < 3 || Character.digit(esc.charAt(1), 16) < 0 || Character.digit(esc.charAt(2), 16) < 0) {
          return "\"" + esc + "\"";
        }
      }
    }
    return "\"" + pair + "\"";
  }

  private static String decode(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }
}
