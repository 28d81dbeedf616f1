package io.sluice.http;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The audit log ({@code io.sluice.audit}) of every Sluice surface, Connect's REST API included: one line per
 * state-changing request, whatever its outcome, with the surface, method, path, user, address and status; never a
 * body, a query string or a header, so no secret reaches the log. The operator's own actions (the {@code sluice}
 * commands that change state, the console's actions on connectors) also go to {@code audit.log} in the data
 * directory, one line each in one format ({@link #append}), whoever wrote them.
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

  /** The file of {@link #append} in a data directory. */
  public static final String FILE = "audit.log";

  /**
   * Appends {@code <time> <source> <action> user=<user> address=<address> status=<status>} to {@code audit.log} in
   * {@code dataDir}: {@code source} is {@code cli} or {@code console}, {@code action} the command and its operands
   * ({@code connectors pause orders-sink}), never an option's value, so no secret.
   */
  public static synchronized void append(Path dataDir, String source, String action, String user, String address,
      String status) throws IOException {
    String line = Instant.now() + " " + source + " " + action.replace('\n', ' ') + " user=" + (user == null ? "-"
        : user) + " address=" + address + " status=" + status + "\n";
    Files.createDirectories(dataDir);
    Files.writeString(dataDir.resolve(FILE), line, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
  }
}
