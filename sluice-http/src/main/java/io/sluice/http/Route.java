package io.sluice.http;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A method and a path pattern such as {@code /subjects/{subject}/versions/{version}}; {@code nonBlocking} routes are
 * answered on the selector thread (see {@link HttpServer.Builder#nonBlocking}).
 */
record Route(String method, List<String> segments, HttpHandler handler, boolean nonBlocking) {

  static Route of(String method, String pattern, HttpHandler handler, boolean nonBlocking) {
    return new Route(method, split(pattern), handler, nonBlocking);
  }

  static List<String> split(String path) {
    String trimmed = path.startsWith("/") ? path.substring(1) : path;
    if (trimmed.isEmpty()) {
      return List.of();
    }
    // Keep a trailing empty segment out: "/a/" and "/a" are the same route.
    if (trimmed.endsWith("/")) {
      trimmed = trimmed.substring(0, trimmed.length() - 1);
    }
    return List.of(trimmed.split("/", -1));
  }

  /** Path parameters when {@code rawSegments} (still percent-encoded) match this pattern. */
  Optional<Map<String, String>> match(List<String> rawSegments) {
    if (rawSegments.size() != segments.size()) {
      return Optional.empty();
    }
    Map<String, String> params = new HashMap<>();
    for (int i = 0; i < segments.size(); i++) {
      String pattern = segments.get(i);
      String actual = rawSegments.get(i);
      if (pattern.startsWith("{") && pattern.endsWith("}")) {
        params.put(pattern.substring(1, pattern.length() - 1), PathDecoder.decode(actual));
      } else if (!pattern.equals(actual)) {
        return Optional.empty();
      }
    }
    return Optional.of(params);
  }
}
