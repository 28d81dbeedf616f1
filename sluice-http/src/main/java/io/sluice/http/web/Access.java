package io.sluice.http.web;

/** The role a request needs, by method and path; null for what stays open (health and readiness, as in the tools). */
@FunctionalInterface
public interface Access {
  Role required(String method, String path);

  /** Reading is {@code read}, anything else {@code admin}; {@code /-/healthy} and {@code /-/ready} stay open. */
  Access BY_METHOD = (method, path) -> {
    if (path.equals("/-/healthy") || path.equals("/-/ready")) {
      return null;
    }
    return method.equals("GET") || method.equals("HEAD") || method.equals("OPTIONS") ? Role.READ : Role.ADMIN;
  };
}
