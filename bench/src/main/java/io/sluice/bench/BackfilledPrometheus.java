package io.sluice.bench;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Debian's Prometheus as the baseline of a benchmark: an OpenMetrics file backfilled into blocks with promtool, then
 * Prometheus started on them on a free loopback port and waited for. Its data, configuration and logs stay in
 * {@code dir}.
 */
public final class BackfilledPrometheus implements AutoCloseable {
  private static final Path PROMETHEUS = Path.of("/usr/bin/prometheus");
  private static final Path PROMTOOL = Path.of("/usr/bin/promtool");

  private final Process process;
  private final String url;

  private BackfilledPrometheus(Process process, String url) {
    this.process = process;
    this.url = url;
  }

  /** Whether Debian's {@code prometheus} package (both binaries) is installed. */
  public static boolean installed() {
    return Files.isExecutable(PROMETHEUS) && Files.isExecutable(PROMTOOL);
  }

  /** Backfills {@code openMetrics} into {@code dir/data} and returns how long promtool took. */
  public static Duration backfill(Path dir, Path openMetrics) throws IOException, InterruptedException {
    long t0 = System.nanoTime();
    Process backfill = new ProcessBuilder(PROMTOOL.toString(), "tsdb", "create-blocks-from", "openmetrics",
        openMetrics.toString(), dir.resolve("data").toString()).redirectErrorStream(true)
        .redirectOutput(dir.resolve("promtool.log").toFile()).start();
    if (backfill.waitFor() != 0) {
      throw new IllegalStateException("promtool failed: " + Files.readString(dir.resolve("promtool.log")));
    }
    return Duration.ofNanos(System.nanoTime() - t0);
  }

  /** Starts Prometheus on {@code dir/data} with {@code config} as its prometheus.yml, plus {@code flags}. */
  public static BackfilledPrometheus start(Path dir, String config, String... flags)
      throws IOException, InterruptedException {
    Files.writeString(dir.resolve("prometheus.yml"), config);
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    List<String> command = new ArrayList<>(List.of(PROMETHEUS.toString(),
        "--config.file=" + dir.resolve("prometheus.yml"), "--storage.tsdb.path=" + dir.resolve("data"),
        "--web.listen-address=127.0.0.1:" + port, "--storage.tsdb.retention.time=10y"));
    command.addAll(List.of(flags));
    Process p = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(dir.resolve("prometheus.log").toFile()).start();
    String url = "http://127.0.0.1:" + port;
    try {
      ReadyProbe.await(url, Duration.ofMinutes(2), p);
    } catch (RuntimeException | InterruptedException e) {
      p.destroy();
      throw e;
    }
    return new BackfilledPrometheus(p, url);
  }

  public String url() {
    return url;
  }

  public long pid() {
    return process.pid();
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    process.waitFor(10, TimeUnit.SECONDS);
  }
}
