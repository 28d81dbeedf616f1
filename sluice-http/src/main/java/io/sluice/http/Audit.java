package io.sluice.http;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The audit log ({@code io.sluice.audit}) of every Sluice surface, Connect's REST API included: one line per
 * state-changing request, whatever its outcome, with the surface, method, path, user, address and status; never a
 * body, a query string or a header, so no secret reaches the log.
 */
public final class Audit {
  private static final Logger LOG = LoggerFactory.getLogger("io.sluice.audit");

  private Audit() {}

  /** Whether a request changes state, and so is audited: any method but GET, HEAD and OPTIONS. */
  public static boolean changes(String method) {
    return !method.equals("GET") && !method.equals("HEAD") && !method.equals("OPTIONS");
  }

  /** One line; {@code user} null for no user, {@code status} the status code or why there is none. */
  public static void record(String surface, String method, String path, String user, String address, Object status) {
    LOG.info("{} {} {} user={} address={} status={}", surface, method, path, user == null ? "-" : user, address,
        status);
  }
}
