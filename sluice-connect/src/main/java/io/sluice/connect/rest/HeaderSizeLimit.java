package io.sluice.connect.rest;

import io.sluice.http.HeaderLimit;
import io.sluice.http.RefusedBody;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import java.net.URI;
import java.util.List;
import java.util.Map;

/**
 * Answers 431 to a request whose line and headers pass Jetty's usual 8 KiB, in Connect's error shape and after the
 * body is read, as Sluice's other surfaces do. The worker gives Jetty a larger header buffer ({@link
 * HeaderLimit#BUFFER}), so such requests get this far instead of being cut off mid-send. Pre-matching, so it runs
 * before the access check and the config additions.
 */
@PreMatching
final class HeaderSizeLimit implements ContainerRequestFilter {
  @Override
  public void filter(ContainerRequestContext request) {
    URI uri = request.getUriInfo().getRequestUri();
    String target = uri.getRawQuery() == null ? uri.getRawPath() : uri.getRawPath() + "?" + uri.getRawQuery();
    long n = HeaderLimit.requestLineBytes(request.getMethod(), target);
    for (Map.Entry<String, List<String>> field : request.getHeaders().entrySet()) {
      for (String value : field.getValue()) {
        n += HeaderLimit.fieldBytes(field.getKey(), value);
      }
    }
    if (n > HeaderLimit.REFUSED_PAST) {
      RefusedBody.drain(request.getEntityStream(), request.getLength());
      request.abortWith(ConnectError.builder(431, "Request Header Fields Too Large: the request line and headers "
          + "take more than " + HeaderLimit.REFUSED_PAST + " bytes").header("Connection", "close").build());
    }
  }
}
