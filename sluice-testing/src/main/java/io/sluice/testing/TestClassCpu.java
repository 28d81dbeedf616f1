package io.sluice.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;

/**
 * Each test class's (and each test method's) wall time and CPU time, appended to {@code target/test-cpu.tsv} of the
 * module under test (class, or class#method, then seconds of wall time and of CPU): the test
 * run is CPU-bound on two cores, so what a class costs is its CPU, which the reports' wall times hide behind whatever
 * ran beside it. CPU is this JVM's and that of every process it started and waited for (a {@code sluice up}, its
 * planes, the CLI commands), read from {@code /proc/self/stat}; databases started as daemons are not counted. Found by
 * the JUnit launcher through {@code META-INF/services}, in every module that takes this one in test scope.
 */
public final class TestClassCpu implements TestExecutionListener {
  private static final Path REPORT = Path.of("target", "test-cpu.tsv");
  private static final Path STAT = Path.of("/proc/self/stat");
  /** Clock ticks per second of /proc's times: USER_HZ, 100 on every Linux this runs on. */
  private static final double TICKS = 100.0;

  private record Start(long nanos, long ticks) {}

  private final Map<String, Start> started = new ConcurrentHashMap<>();

  @Override
  public void executionStarted(TestIdentifier test) {
    name(test).ifPresent(c -> cpuTicks().ifPresent(t -> started.put(test.getUniqueId(),
        new Start(System.nanoTime(), t))));
  }

  @Override
  public void executionFinished(TestIdentifier test, TestExecutionResult result) {
    Start start = started.remove(test.getUniqueId());
    if (start == null) {
      return;
    }
    Optional<Long> ticks = cpuTicks();
    if (ticks.isEmpty() || !Files.isDirectory(REPORT.getParent())) {
      return;
    }
    String line = String.format(java.util.Locale.ROOT, "%s\t%.1f\t%.1f%n", name(test).orElseThrow(),
        (System.nanoTime() - start.nanos()) / 1e9, (ticks.get() - start.ticks()) / TICKS);
    try {
      // One short append per class: forks of one module write the same file, and O_APPEND keeps lines whole.
      Files.writeString(REPORT, line, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      // A figure for the record only: never a reason for a test run to fail.
    }
  }

  private static Optional<String> name(TestIdentifier test) {
    return test.getSource().map(s -> s instanceof ClassSource c ? c.getClassName()
        : s instanceof MethodSource m ? m.getClassName() + "#" + m.getMethodName() : null);
  }

  /** utime + stime + cutime + cstime of this process; nothing where there is no /proc. */
  private static Optional<Long> cpuTicks() {
    try {
      String stat = Files.readString(STAT);
      // The command name (field 2) is in parentheses and may hold spaces: count fields after its closing one.
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Optional.of(Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13])
          + Long.parseLong(f[14]));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }
}
