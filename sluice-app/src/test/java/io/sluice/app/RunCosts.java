package io.sluice.app;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * What the distribution's processes cost the ITs, beside {@code target/test-cpu.tsv}'s per-class figures: each CLI
 * command a test ran ({@code target/cli-cpu.tsv}: test, command, wall and CPU seconds) and, when a {@code sluice up}
 * is stopped, the CPU each of its processes used over its life ({@code target/up-cpu.tsv}: test class, process,
 * seconds alive, CPU seconds). For the record only: a figure that cannot be read is left out, never a failure.
 */
final class RunCosts {
  private static final Path TARGET = PackagedSluice.root().resolve("sluice-app/target");
  private static final Path STAT = Path.of("/proc/self/stat");

  private RunCosts() {}

  /** A command started by a test; its CPU is what this JVM's reaped children gained while it ran. */
  record Command(String test, String words, long startNanos, long startTicks) {
    void ended() {
      long ticks = childTicks();
      if (ticks < 0 || startTicks < 0) {
        return;
      }
      append("cli-cpu.tsv", String.format(Locale.ROOT, "%s\t%s\t%.2f\t%.2f%n", test, words,
          (System.nanoTime() - startNanos) / 1e9, (ticks - startTicks) / 100.0));
    }
  }

  static Command command(String... args) {
    // The subcommand's words, not its flags' values (URLs, paths).
    String words = Arrays.stream(args).takeWhile(a -> !a.startsWith("-")).limit(3).collect(Collectors.joining(" "));
    return new Command(caller(), words, System.nanoTime(), childTicks());
  }

  /** The CPU so far of a {@code sluice up} and of each process under it, read just before it is stopped. */
  static void planes(Process up) {
    StringBuilder lines = new StringBuilder();
    String test = caller();
    lines.append(line(test, "supervisor", up.toHandle()));
    up.descendants().forEach(h -> lines.append(line(test, kind(h), h)));
    append("up-cpu.tsv", lines.toString());
  }

  private static String line(String test, String kind, ProcessHandle h) {
    ProcessHandle.Info info = h.info();
    double alive = info.startInstant().map(s -> Duration.between(s, java.time.Instant.now()).toMillis() / 1e3)
        .orElse(-1.0);
    double cpu = info.totalCpuDuration().map(d -> d.toMillis() / 1e3).orElse(-1.0);
    return String.format(Locale.ROOT, "%s\t%s\t%.0f\t%.1f%n", test, kind, alive, cpu);
  }

  private static String kind(ProcessHandle h) {
    return h.info().arguments().map(a -> a.length >= 2 && a[a.length - 2].equals("plane")
        ? a[a.length - 1] + " plane" : a.length > 0 ? a[a.length - 1] : "?").orElse("?");
  }

  /**
   * The test class and method on the stack: the outermost frame of a class named as a test, the method JUnit called
   * (the frames above it are the class's own helpers).
   */
  private static String caller() {
    return StackWalker.getInstance().walk(frames -> frames
        .filter(f -> f.getClassName().endsWith("IT") || f.getClassName().endsWith("Test"))
        .map(f -> f.getClassName().substring(f.getClassName().lastIndexOf('.') + 1) + "#" + f.getMethodName())
        .reduce((inner, outer) -> outer).orElse("?"));
  }

  /** cutime + cstime of this JVM: the CPU of the children it reaped; -1 where there is no /proc. */
  private static long childTicks() {
    try {
      String stat = Files.readString(STAT);
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(f[13]) + Long.parseLong(f[14]);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  private static void append(String file, String text) {
    try {
      Files.writeString(TARGET.resolve(file), text, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      // For the record only.
    }
  }
}
