package io.sluice.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The real launcher script, as an operator runs it: {@code ./sluice up}, then SIGTERM. */
class SluiceLauncherIT {

  @Test
  void upOnAnEmptyDataDirReachesReadyAndStopsCleanlyOnSigterm(@TempDir Path dataDir) throws Exception {
    Path root = Path.of(System.getProperty("sluice.root"));
    Path data = dataDir.resolve("data");
    assertTrue(Files.notExists(data));
    Process p = new ProcessBuilder(root.resolve("sluice").toString(), "up",
        "--data-dir", data.toString(),
        "--kafka-port", String.valueOf(freePort()),
        "--connect-port", String.valueOf(freePort()),
        "--registry-port", String.valueOf(freePort()),
        "--alerts-port", String.valueOf(freePort()),
        "--metrics-port", String.valueOf(freePort()),
        "--exporter-port", String.valueOf(freePort()))
        .directory(root.toFile())
        .redirectError(dataDir.resolve("stderr.log").toFile())
        .start();
    List<String> out = Collections.synchronizedList(new ArrayList<>());
    CountDownLatch ready = new CountDownLatch(1);
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          out.add(line);
          if (line.startsWith("sluice ready")) {
            ready.countDown();
          }
        }
      } catch (java.io.IOException ignored) {
        // The process ended.
      }
    });
    reader.start();
    try {
      // Stop waiting as soon as the process dies: a failed start must not look like a slow one.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
      while (ready.getCount() > 0 && p.isAlive() && System.nanoTime() < deadline) {
        ready.await(200, TimeUnit.MILLISECONDS);
      }
      assertTrue(ready.getCount() == 0,
          "no 'sluice ready' line; stdout: " + out + "\nstderr: " + Files.readString(dataDir.resolve("stderr.log")));
      String line = out.stream().filter(l -> l.startsWith("sluice ready")).findFirst().orElseThrow();
      assertTrue(line.contains("kafka=127.0.0.1:") && line.contains("connect=http://127.0.0.1:")
          && line.contains("registry=http://127.0.0.1:") && line.contains("alerts=http://127.0.0.1:")
          && line.contains("metrics=http://127.0.0.1:"), line);
      assertTrue(Files.exists(data.resolve("kafka").resolve("meta.properties")), "storage formatted on first start");

      // Process.destroy() would also close our end of its stdout; send the signal the way an operator does.
      new ProcessBuilder("kill", "-TERM", String.valueOf(p.pid())).start().waitFor();
      assertTrue(p.waitFor(60, TimeUnit.SECONDS), "sluice did not stop within 60 s of SIGTERM");
      reader.join(5000);
      assertEquals(0, p.exitValue(), "exit status after SIGTERM; stdout: " + out);
      assertTrue(out.contains("sluice stopped"), out.toString());
    } finally {
      p.destroyForcibly();
    }
  }

  private static int freePort() throws java.io.IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
