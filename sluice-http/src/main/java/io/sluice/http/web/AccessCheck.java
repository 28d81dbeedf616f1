package io.sluice.http.web;

import java.util.Optional;

/**
 * The 401/403 flow of every Sluice surface, Connect's REST API included: who a request's credentials prove, and
 * whether that user's role allows what the request needs. Each surface words the refusal in its own error shape.
 */
public final class AccessCheck {
  /** The challenge a 401 carries in {@code WWW-Authenticate}. */
  public static final String CHALLENGE = "Basic realm=\"sluice\"";

  private final WebConfig web;
  private final BasicAuth auth;

  public AccessCheck(WebConfig web) {
    this.web = web;
    this.auth = new BasicAuth(web.users());
  }

  /** Whether the web configuration asks for credentials at all; without users every request passes. */
  public boolean authenticates() {
    return web.authenticates();
  }

  /**
   * Who asks and whether they may.
   *
   * @param user the user the credentials prove, or null (none asked for, none given, or wrong)
   * @param role that user's role, or null without a user
   * @param status 401 (no valid credentials), 403 (a role short of the one needed), or 0 to go on
   */
  public record Verdict(String user, Role role, int status) {
    public boolean passes() {
      return status == 0;
    }
  }

  /**
   * The verdict on a request that needs {@code needed} (null: open to anyone, but the user is still told for the
   * audit line) with this {@code Authorization} header (null when absent).
   */
  public Verdict check(Role needed, String authorization) {
    if (!web.authenticates()) {
      return new Verdict(null, null, 0);
    }
    Optional<String> user = auth.user(authorization);
    Role role = user.map(web::roleOf).orElse(null);
    if (needed == null) {
      return new Verdict(user.orElse(null), role, 0);
    }
    if (user.isEmpty()) {
      return new Verdict(null, null, 401);
    }
    return new Verdict(user.get(), role, role.allows(needed) ? 0 : 403);
  }
}
