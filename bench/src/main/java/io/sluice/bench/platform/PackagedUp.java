package io.sluice.bench.platform;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The packaged {@code ./sluice up} a benchmark runs as a user does: every component on a free port, its stderr in
 * {@code data/up.stderr}, returned once it printed its ready line.
 */
record PackagedUp(Process process, Map<String, Integer> ports) {
  private static final List<String> COMPONENTS =
      List.of("kafka", "connect", "registry", "metrics", "alerts", "exporter", "ui");

  static PackagedUp start(Path root, Path data, String... extra) throws Exception {
    Map<String, Integer> ports = new LinkedHashMap<>();
    List<String> command = new ArrayList<>(List.of(root.resolve("sluice").toString(), "up", "--data-dir",
        data.toString()));
    command.addAll(List.of(extra));
    for (String c : COMPONENTS) {
      ports.put(c, PipelineThroughput.freePort());
      command.addAll(List.of("--" + c + "-port", String.valueOf(ports.get(c))));
    }
    Process up = new ProcessBuilder(command).redirectError(data.resolve("up.stderr").toFile()).start();
    BufferedReader r = new BufferedReader(new InputStreamReader(up.getInputStream(), StandardCharsets.UTF_8));
    for (String line; (line = r.readLine()) != null; ) {
      if (line.startsWith("sluice ready")) {
        return new PackagedUp(up, ports);
      }
    }
    throw new IllegalStateException("sluice up ended before it was ready; see " + data.resolve("up.stderr"));
  }

  String url(String component) {
    return "http://127.0.0.1:" + ports.get(component);
  }

  /** The supervisor's JVM: the launcher's own process when it exec'd java, else the java it started. */
  long supervisor() {
    return java.util.stream.Stream.concat(java.util.stream.Stream.of(process.toHandle()), process.descendants())
        .filter(h -> h.info().command().map(c -> c.endsWith("java")).orElse(false))
        .filter(h -> h.info().arguments().map(a -> a.length < 2 || !a[a.length - 2].equals("plane")).orElse(true))
        .findFirst().orElseThrow().pid();
  }

  /** The process of one plane ({@code data}, {@code control}). */
  long plane(String plane) {
    return process.toHandle().descendants().filter(h -> h.info().arguments().map(a -> a.length >= 2
        && a[a.length - 2].equals("plane") && a[a.length - 1].equals(plane)).orElse(false))
        .findFirst().orElseThrow().pid();
  }

  /** SIGTERM, and waits for the ordered stop. */
  void stop() throws InterruptedException {
    process.destroy();
    process.waitFor();
  }
}
