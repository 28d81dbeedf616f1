package io.sluice.connect.rest;

import io.sluice.http.Audit;
import io.sluice.http.web.AccessCheck;
import io.sluice.http.web.Role;
import io.sluice.http.web.WebConfig;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.PathSegment;
import java.util.List;

/**
 * Who may do what on Connect's REST API, by the same web configuration and roles as Sluice's other surfaces, and one
 * audit line per state-changing request. Runs inside Connect's own REST server (a {@link
 * org.apache.kafka.connect.rest.ConnectRestExtension}, as Kafka's basic-auth extension does), so the API keeps its
 * paths and error shape: 401 and 403 come as {@code {"error_code": …, "message": …}}.
 *
 * <p>Two kinds of request pass without credentials, as with Kafka's extension: the task configurations and fencing
 * calls one worker makes to another ({@code POST /connectors/{name}/tasks}, {@code PUT /connectors/{name}/fence}),
 * which Connect authenticates itself by signing them with the cluster's session key; and this worker's calls to
 * itself, marked with a token only this process knows. A user's request that Connect forwards to the leader carries
 * the user's own {@code Authorization} header, so it is checked again there with the same result.
 *
 * <p>Registered at {@code Priorities.AUTHENTICATION}, ahead of Sluice's config additions.
 */
final class RestAccess implements ContainerRequestFilter, ContainerResponseFilter {
  private static final String USER = "sluice.user";

  private final WebConfig web;
  private final AccessCheck check;
  private final String internalToken;
  @Context
  private HttpServletRequest servletRequest;

  RestAccess(WebConfig web, String internalToken) {
    this.web = web;
    this.check = new AccessCheck(web);
    this.internalToken = internalToken;
  }

  /** What a request needs, or null when it stays open (health) or Connect authenticates it itself. */
  static Role required(String method, List<String> path) {
    boolean reads = method.equals("GET") || method.equals("HEAD") || method.equals("OPTIONS");
    if (reads) {
      return path.equals(List.of("health")) ? null : Role.READ;
    }
    boolean connector = path.size() >= 3 && path.get(0).equals("connectors");
    if (connector && path.size() == 3 && ((method.equals("POST") && path.get(2).equals("tasks"))
        || (method.equals("PUT") && path.get(2).equals("fence")))) {
      return null;
    }
    if (connector && path.size() == 3 && method.equals("PUT")
        && List.of("pause", "resume", "stop").contains(path.get(2))) {
      return Role.OPERATE;
    }
    if (connector && method.equals("POST") && path.get(path.size() - 1).equals("restart")) {
      return Role.OPERATE;
    }
    if (connector && path.size() == 3 && path.get(2).equals("offsets")
        && (method.equals("PATCH") || method.equals("DELETE"))) {
      return Role.OPERATE;
    }
    return Role.ADMIN;
  }

  @Override
  public void filter(ContainerRequestContext request) {
    if (internalToken.equals(request.getHeaderString(ConnectorRequestFilter.INTERNAL))) {
      request.setProperty(USER, "sluice-worker");
      return;
    }
    if (!check.authenticates()) {
      return;
    }
    List<String> path = request.getUriInfo().getPathSegments(true).stream()
        .map(PathSegment::getPath).filter(s -> !s.isEmpty()).toList();
    Role needed = required(request.getMethod(), path);
    if (needed == null) {
      return;
    }
    AccessCheck.Verdict verdict = check.check(needed, request.getHeaderString("Authorization"));
    if (verdict.status() == 401) {
      request.abortWith(ConnectError.builder(401, "Unauthorized: valid credentials are required")
          .header("WWW-Authenticate", AccessCheck.CHALLENGE).build());
      return;
    }
    request.setProperty(USER, verdict.user());
    if (verdict.status() == 403) {
      request.abortWith(ConnectError.builder(403, "Forbidden: user " + verdict.user() + " has role "
          + verdict.role().configName() + "; this needs " + needed.configName()).build());
    }
  }

  /** The web configuration's response headers, and the {@link Audit} line of a state-changing request. */
  @Override
  public void filter(ContainerRequestContext request, ContainerResponseContext response) {
    web.headers().forEach((k, v) -> response.getHeaders().putSingle(k, v));
    String method = request.getMethod();
    if (!Audit.changes(method)) {
      return;
    }
    Object user = request.getProperty(USER);
    String address = servletRequest == null ? "-" : servletRequest.getRemoteAddr();
    Audit.record("connect", method, "/" + request.getUriInfo().getPath(false), user == null ? null : user.toString(),
        address, response.getStatus());
  }
}
