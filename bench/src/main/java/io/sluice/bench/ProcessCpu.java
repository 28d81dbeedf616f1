package io.sluice.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/** CPU a process (or each of its threads) has used, from {@code /proc}: what a loaded machine does not inflate. */
public final class ProcessCpu {
  /** Linux's clock tick: {@code /proc} counts CPU in hundredths of a second. */
  public static final double SECONDS_PER_TICK = 0.01;

  private ProcessCpu() {}

  /** utime + stime of a process, in clock ticks. */
  public static long ticks(long pid) throws IOException {
    return ticks(Path.of("/proc/" + pid + "/stat"));
  }

  /**
   * utime + stime per thread name, digits folded to {@code #} so that a pool's threads add up under one name (the
   * kernel keeps 15 characters of each name). Threads that ended are not counted.
   */
  public static Map<String, Long> ticksByThread(long pid) throws IOException {
    Map<String, Long> out = new HashMap<>();
    try (Stream<Path> tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
      for (Path t : (Iterable<Path>) tasks::iterator) {
        try {
          String name = Files.readString(t.resolve("comm")).strip().replaceAll("[0-9]+", "#");
          out.merge(name, ticks(t.resolve("stat")), Long::sum);
        } catch (IOException ended) {
          // The thread ended between the listing and the read.
        }
      }
    }
    return out;
  }

  private static long ticks(Path stat) throws IOException {
    String s = Files.readString(stat);
    String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(f[11]) + Long.parseLong(f[12]);
  }
}
