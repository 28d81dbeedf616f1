package io.sluice.http;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The audit log ({@code io.sluice.audit}) of every Sluice surface, Connect's REST API included: one line per
 * state-changing request, whatever its outcome (successful repeats counted, {@link #record}), with the surface, method,
 * path, user, address and status; never a body, a query string or a header, so no secret reaches the log. The
 * operator's own actions (the {@code sluice} commands that change state, the console's actions on connectors) also
 * go to {@code audit.log} in the data directory, one line each in one format ({@link #append}), whoever wrote them.
 */
public final class Audit {
  private static final Logger LOG = LoggerFactory.getLogger("io.sluice.audit");

  private Audit() {}

  /** Whether a request changes state, and so is audited: any method but GET, HEAD and OPTIONS. */
  public static boolean changes(String method) {
    return !method.equals("GET") && !method.equals("HEAD") && !method.equals("OPTIONS");
  }

  /**
   * One line; {@code user} null for no user, {@code status} the status code or why there is none. A request that
   * succeeded (2xx) just as one before it did, same surface, method, path, user and address, within the last
   * {@link #REPEAT_WINDOW}, is counted instead, and the count written as that line with {@code repeated=N} at the
   * window's end: machine traffic such as alert posts (a line cost about a quarter of the alert router's CPU per
   * request) keeps one line per sender and window, as syslog's "message repeated N times" does. Refusals and failures
   * are always written one by one.
   */
  public static void record(String surface, String method, String path, String user, String address, Object status) {
    if (!LOG.isInfoEnabled()) {
      return; // the audit logger turned off: neither the line nor its count is wanted
    }
    String line = surface + " " + method + " " + path + " user=" + (user == null ? "-" : user) + " address=" + address
        + " status=" + status;
    if (status instanceof Integer code && code / 100 == 2 && Repeats.counted(line)) {
      return;
    }
    LOG.info(line);
  }

  /** Writes the counts of repeated lines now, as the window's end would: for a server that stops. */
  public static void flushRepeats() {
    Repeats.flush(false);
  }

  /** How long a successful request's line stands for the same requests after it. */
  static final Duration REPEAT_WINDOW = Duration.ofSeconds(10);

  /** The lines written within the window and how many alike came since; bounded by {@link #MAX_REPEATED_LINES}. */
  private static final class Repeats {
    private static final Map<String, Long> SINCE = new ConcurrentHashMap<>();
    private static Thread writer;

    /** Whether {@code line} was counted; false when it is to be written (and counted from now on). */
    static boolean counted(String line) {
      boolean[] first = {false};
      if (SINCE.size() >= MAX_REPEATED_LINES && !SINCE.containsKey(line)) {
        return false;
      }
      SINCE.compute(line, (k, n) -> {
        first[0] = n == null;
        return n == null ? 0L : n + 1;
      });
      if (first[0]) {
        startWriter();
      }
      return !first[0];
    }

    /**
     * Writes each line's count since the last pass; a line with none is forgotten, so that the next request like it
     * is written again at once. {@code keep}: a pass of the window (a line counted goes on being counted), or the end.
     */
    static void flush(boolean keep) {
      for (String line : SINCE.keySet()) {
        long[] repeated = {0};
        SINCE.computeIfPresent(line, (k, n) -> {
          repeated[0] = n;
          return n > 0 && keep ? 0L : null;
        });
        if (repeated[0] > 0) {
          LOG.info("{} repeated={}", line, repeated[0]);
        }
      }
    }

    private static synchronized void startWriter() {
      if (writer != null) {
        return;
      }
      writer = new Thread(() -> {
        while (true) {
          try {
            Thread.sleep(REPEAT_WINDOW.toMillis());
          } catch (InterruptedException e) {
            return;
          }
          flush(true);
        }
      }, "sluice-audit-repeats");
      writer.setDaemon(true);
      writer.start();
    }
  }

  /** Distinct lines counted at once, at most: past that, lines are written one by one again. */
  static final int MAX_REPEATED_LINES = 10_000;

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
