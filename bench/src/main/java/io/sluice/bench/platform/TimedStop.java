package io.sluice.bench.platform;

import io.sluice.bench.ProcessCpu;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The ordered stop of a packaged {@code sluice up}, timed plane by plane: SIGTERM to the supervisor, the control plane's
 * end, then the data plane's, with the data plane's task threads counted every half second and a thread dump of it
 * ({@code jstack}) every {@link #DUMP_EVERY_MS} into {@code dumps}, to show what of the stop runs one after another.
 *
 * @param controlSeconds SIGTERM to the control plane's end
 * @param dataSeconds the control plane's end (when the supervisor sends the data plane its SIGTERM) to the data plane's
 * @param tasksAtStart the data plane's task threads ({@code task-thread-…}) when its stop began
 * @param dataCpuSeconds the data plane's CPU over its stop, to its last reading
 * @param timeline seconds into the data plane's stop and its task threads still alive then
 * @param killed whether the supervisor said it killed a plane after its allowance
 * @param connectSeconds from the data plane's "stopping Connect worker" to its "stopping embedded Kafka broker", by the
 *     log's clock: the worker's stop
 * @param abandoned tasks whose stop Connect gave up on after {@code task.shutdown.graceful.timeout.ms} ("Graceful stop
 *     of task … failed"): their producers closed at once, their last offsets not committed
 */
record TimedStop(double controlSeconds, double dataSeconds, int tasksAtStart, double dataCpuSeconds,
    List<double[]> timeline, boolean killed, String supervisorSaid, double connectSeconds, long abandoned) {
  private static final java.util.regex.Pattern STAMP =
      java.util.regex.Pattern.compile("^(\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d),(\\d{3}) .*");
  static final long DUMP_EVERY_MS = 5_000;

  static TimedStop of(PackagedUp up, Path data, Path dumps) throws Exception {
    long controlPid = up.plane("control");
    long dataPid = up.plane("data");
    ProcessHandle control = ProcessHandle.of(controlPid).orElseThrow();
    ProcessHandle dataPlane = ProcessHandle.of(dataPid).orElseThrow();
    Files.createDirectories(dumps);
    long t0 = System.nanoTime();
    up.process().destroy();
    control.onExit().join();
    long t1 = System.nanoTime();
    int tasksAtStart = taskThreads(dataPid);
    long cpu0 = ProcessCpu.ticks(dataPid);
    long cpuLast = cpu0;
    List<double[]> timeline = new ArrayList<>();
    long nextDump = t1;
    int dump = 0;
    while (dataPlane.isAlive()) {
      long now = System.nanoTime();
      try {
        cpuLast = ProcessCpu.ticks(dataPid);
        timeline.add(new double[] {(now - t1) / 1e9, taskThreads(dataPid)});
      } catch (IOException ended) {
        break;
      }
      if (now >= nextDump) {
        jstack(dataPid, dumps.resolve(String.format(Locale.ROOT, "stop-%03d.txt", dump++)));
        nextDump = System.nanoTime() + DUMP_EVERY_MS * 1_000_000;
      }
      Thread.sleep(500);
    }
    dataPlane.onExit().join();
    long t2 = System.nanoTime();
    up.process().waitFor();
    List<String> log = Files.readAllLines(data.resolve("up.stderr"));
    String said = log.stream().filter(l -> l.contains("stop allowance") || l.contains("did not stop"))
        .reduce("", (a, b) -> a + b + "\n");
    double connect = at(log, "stopping embedded Kafka broker") - at(log, "stopping Connect worker");
    long abandoned = log.stream().filter(l -> l.contains("Graceful stop of task")).count();
    return new TimedStop((t1 - t0) / 1e9, (t2 - t1) / 1e9, tasksAtStart,
        (cpuLast - cpu0) * ProcessCpu.SECONDS_PER_TICK, timeline, !said.isEmpty(), said.strip(), connect, abandoned);
  }

  /** Seconds of the day of the last log line that holds {@code text}; NaN when none does. */
  private static double at(List<String> log, String text) {
    for (int i = log.size() - 1; i >= 0; i--) {
      java.util.regex.Matcher m = STAMP.matcher(log.get(i));
      if (log.get(i).contains(text) && m.matches()) {
        java.time.LocalDateTime t = java.time.LocalDateTime.parse(m.group(1));
        return t.toLocalTime().toSecondOfDay() + Integer.parseInt(m.group(2)) / 1000.0;
      }
    }
    return Double.NaN;
  }

  /** Threads of {@code pid} named {@code task-thread-…}: one per running Connect task. */
  static int taskThreads(long pid) throws IOException {
    int n = 0;
    try (Stream<Path> tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
      for (Path t : (Iterable<Path>) tasks::iterator) {
        try {
          if (Files.readString(t.resolve("comm")).startsWith("task-thread")) {
            n++;
          }
        } catch (IOException ended) {
          // The thread ended between the listing and the read.
        }
      }
    }
    return n;
  }

  private static void jstack(long pid, Path out) {
    String javaHome = System.getProperty("java.home");
    try {
      new ProcessBuilder(Path.of(javaHome, "bin", "jstack").toString(), String.valueOf(pid))
          .redirectErrorStream(true).redirectOutput(out.toFile()).start();
    } catch (IOException e) {
      // A dump is for reading afterwards; the timing goes on without it.
    }
  }

  /** The data plane's task threads every few seconds of its stop, e.g. {@code 0 s: 200, 5 s: 120, …}. */
  String timelineEvery(double seconds) {
    StringBuilder b = new StringBuilder();
    double next = 0;
    for (double[] p : timeline) {
      if (p[0] >= next) {
        b.append(String.format(Locale.ROOT, "%s%.0f s: %.0f", b.length() == 0 ? "" : ", ", p[0], p[1]));
        next += seconds;
      }
    }
    return b.toString();
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "control plane stopped in %.1f s; data plane stopped in %.1f s after its SIGTERM "
        + "(%d task threads when it began, %.1f s of CPU), of which Connect %.1f s, %d tasks abandoned by Connect%s; "
        + "task threads still alive: %s", controlSeconds, dataSeconds, tasksAtStart, dataCpuSeconds, connectSeconds,
        abandoned, killed ? "; supervisor: " + supervisorSaid : "", timelineEvery(5));
  }
}
