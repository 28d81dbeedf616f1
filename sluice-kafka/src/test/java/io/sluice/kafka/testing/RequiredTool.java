package io.sluice.kafka.testing;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * The one policy of every test that needs an outside program (promtool, amtool, prometheus, mariadbd, node, npm,
 * chromium, ...): where the program is absent, the test fails under {@code CI} ({@code .ci/run} installs every such
 * program, so its absence there is a broken run, never a pass) and is skipped elsewhere, saying so on stderr. A test
 * never returns early as a pass because a program is missing.
 */
public final class RequiredTool {
  /** Searched after {@code PATH}: Debian puts servers in sbin folders a user's {@code PATH} often leaves out. */
  private static final List<String> SYSTEM = List.of("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin");

  private RequiredTool() {}

  /** Where {@code program} is: the first executable of that name on {@code PATH}, then in the system's bin folders. */
  public static Optional<Path> find(String program) {
    List<String> dirs = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)));
    dirs.addAll(SYSTEM);
    return dirs.stream().filter(d -> !d.isBlank()).map(d -> Path.of(d, program)).filter(Files::isExecutable)
        .findFirst();
  }

  /**
   * The path of {@code program}; where it is absent, the test fails under CI and is skipped elsewhere ({@link
   * #missing}). {@code from} names where the program comes from, e.g. {@code "Debian package prometheus"}.
   */
  public static Path require(String program, String from) {
    return find(program).orElseGet(() -> missing(program + " is not installed (" + from + ")"));
  }

  /** Whether a run is CI's: {@code CI} is set, and not to {@code false} or {@code 0}. */
  public static boolean underCi() {
    String ci = System.getenv("CI");
    return ci != null && !ci.isBlank() && !ci.equalsIgnoreCase("false") && !ci.equals("0");
  }

  /**
   * Ends the calling test because something it needs is absent ({@code what} says which): a failure under CI, where
   * {@code .ci/run} installs it; elsewhere a skip, printed on stderr so that it is never silent. Never returns.
   */
  public static <T> T missing(String what) {
    return missing(what, underCi());
  }

  static <T> T missing(String what, boolean ci) {
    if (ci) {
      return Assertions.fail(what + ", and CI is set: .ci/run installs it, so a CI run fails instead of skipping");
    }
    System.err.println("SKIPPED: " + what + " (under CI this fails)");
    return Assumptions.abort(what);
  }
}
