package io.sluice.connect.rest;

import io.sluice.http.HeaderLimit;
import io.sluice.http.RefusedBody;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import java.net.URI;

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
    HeaderLimit.Tally size = new HeaderLimit.Tally(request.getMethod(), target);
    request.getHeaders().forEach((name, values) -> values.forEach(value -> size.field(name, value)));
    if (size.refused()) {
      RefusedBody.drain(request.getEntityStream(), request.getLength());
      request.abortWith(ConnectError.builder(431, "Request Header Fields Too Large: the request line and headers "
          + "take more than " + HeaderLimit.REFUSED_PAST + " bytes").header("Connection", "close").build());
    }
  }
}
