package io.sluice.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
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
        "--kafka-port", String.valueOf(PackagedSluice.freePort()),
        "--connect-port", String.valueOf(PackagedSluice.freePort()),
        "--registry-port", String.valueOf(PackagedSluice.freePort()),
        "--alerts-port", String.valueOf(PackagedSluice.freePort()),
        "--metrics-port", String.valueOf(PackagedSluice.freePort()),
        "--exporter-port", String.valueOf(PackagedSluice.freePort()),
        "--ui-port", String.valueOf(PackagedSluice.freePort()))
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
      // The first start after a build records three class-data archives as its JVMs exit (the planes', then the
      // supervisor's): a minute and more when other tests' JVMs share the cores.
      assertTrue(p.waitFor(180, TimeUnit.SECONDS), "sluice did not stop within 180 s of SIGTERM");
      reader.join(5000);
      assertEquals(0, p.exitValue(), "exit status after SIGTERM; stdout: " + out);
      assertTrue(out.contains("sluice stopped"), out.toString());
    } finally {
      p.destroyForcibly();
    }
  }

  /**
   * Under {@code SLUICE_NO_BUILD} (as the build's own tests run it) the launcher runs the distribution it finds even
   * when sources are newer than its stamp, instead of starting a Maven build inside a test's deadline; without the
   * variable it would build. Shown on a copy of the launcher whose checkout has a source newer than the stamp and no
   * Maven at all.
   */
  @Test
  void theLauncherRunsWhatWasBuiltInsteadOfBuildingAgain(@TempDir Path dir) throws Exception {
    Path root = Path.of(System.getProperty("sluice.root"));
    Path home = Files.createDirectories(dir.resolve("sluice-app/target/sluice"));
    Files.createSymbolicLink(home.resolve("lib"), root.resolve("sluice-app/target/sluice/lib"));
    Files.createSymbolicLink(home.resolve("plugins"), root.resolve("sluice-app/target/sluice/plugins"));
    Files.createSymbolicLink(home.resolve("bin"), root.resolve("sluice-app/target/sluice/bin"));
    Files.copy(root.resolve("sluice"), dir.resolve("sluice"));
    Files.createFile(home.resolve(".built")).toFile().setLastModified(System.currentTimeMillis() - 60_000);
    Files.writeString(Files.createDirectories(dir.resolve("sluice-x")).resolve("pom.xml"), "<project/>");
    Path file = Files.writeString(dir.resolve("alertmanager.yml"), "route: {receiver: a}\nreceivers: [{name: a}]\n");

    ProcessBuilder noBuild = new ProcessBuilder(dir.resolve("sluice").toString(), "alerts", "check-config",
        file.toString()).redirectErrorStream(true);
    noBuild.environment().put("SLUICE_NO_BUILD", "1");
    Process p = noBuild.start();
    String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertTrue(p.waitFor(120, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), out);
    assertTrue(out.contains("SUCCESS") && !out.contains("building"), out);

    ProcessBuilder stale = new ProcessBuilder(dir.resolve("sluice").toString(), "alerts", "check-config",
        file.toString()).redirectErrorStream(true);
    stale.environment().remove("SLUICE_NO_BUILD");
    Process q = stale.start();
    String tried = new String(q.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertTrue(q.waitFor(120, TimeUnit.SECONDS));
    assertTrue(tried.contains("sluice: building"), "without the variable a stale checkout is rebuilt: " + tried);
    assertTrue(q.exitValue() != 0, "and this copy has no Maven to build with: " + tried);
  }

  /**
   * A plane whose JVM refuses its options ends before it reads its hand-off: {@code sluice up} says which plane ended
   * and how, under the JVM's own words, exits 1 at once and leaves no plane behind.
   */
  @Test
  void aPlaneWhoseJvmCannotStartFailsTheStartAtOnce(@TempDir Path dir) throws Exception {
    Path data = dir.resolve("data");
    // The control plane starts too, and must be stopped again: this marks its JVM.
    String marker = "-Dsluice.test.start=" + java.util.UUID.randomUUID();
    PackagedSluice.Run run = PackagedSluice.run(dir, "up", "--data-dir", data.toString(),
        "--kafka-port", String.valueOf(PackagedSluice.freePort()), "--connect-port", String.valueOf(PackagedSluice.freePort()),
        "--registry-port", String.valueOf(PackagedSluice.freePort()), "--alerts-port", String.valueOf(PackagedSluice.freePort()),
        "--metrics-port", String.valueOf(PackagedSluice.freePort()), "--exporter-port", String.valueOf(PackagedSluice.freePort()),
        "--ui-port", String.valueOf(PackagedSluice.freePort()), "--set", "dataplane.java.options=-XX:+NoSuchSluiceOption", "--set", "controlplane.java.options=" + marker);
    assertEquals(1, run.exit(), run.toString());
    assertTrue(run.err().contains("NoSuchSluiceOption"), "the JVM's own words: " + run.err());
    assertTrue(run.err().contains("sluice: could not start: the data plane (broker, Connect, exporter) ended with "
        + "status 1 before it was ready"), run.err());
    assertTrue(!run.out().contains("sluice ready"), run.out());
    assertTrue(ProcessHandle.allProcesses().noneMatch(h -> h.info().arguments()
        .map(a -> List.of(a).contains(marker)).orElse(false)), "the control plane of this start is left running");
  }

  /**
   * Every value the table of settings refuses, from a flag or {@code --set} alike, is named before anything starts:
   * the key, the value and what is allowed; exit 2.
   */
  @Test
  void badValuesAreRefusedByKeyBeforeAnythingStarts(@TempDir Path dir) throws Exception {
    PackagedSluice.Run run = PackagedSluice.run(dir, "up", "--data-dir", dir.resolve("data").toString(),
        "--kafka-port", "ninety", "--set", "dataplane.nice=20", "--set", "registry.max.request.bytes=lots");
    assertEquals(2, run.exit(), run.toString());
    for (String said : List.of("sluice: kafka.port must be a port number (0-65535), not 'ninety'",
        "sluice: registry.max.request.bytes must be a size such as 4MiB or 1048576, not 'lots'",
        "sluice: dataplane.nice must be a nice value from 0 to 19, not '20'")) {
      assertTrue(run.err().contains(said), said + " in " + run.err());
    }
    assertTrue(!run.out().contains("sluice ready"), run.out());
  }

  /**
   * Two components given one port are refused before anything starts, as {@code check-config} refuses them: a CI run
   * once handed the broker and the console the same port, and the registry's Kafka client read the console's HTTP
   * answer as a frame length and filled the control plane's heap.
   */
  @Test
  void twoComponentsOnOnePortAreRefusedBeforeAnythingStarts(@TempDir Path dir) throws Exception {
    String port = String.valueOf(PackagedSluice.freePort());
    PackagedSluice.Run run = PackagedSluice.run(dir, "up", "--data-dir", dir.resolve("data").toString(),
        "--kafka-port", port, "--ui-port", port);
    assertEquals(2, run.exit(), run.toString());
    assertTrue(run.err().contains("sluice: kafka.port and ") && run.err().contains(" are both " + port
        + ": each component needs a port of its own"), run.err());
    assertTrue(!run.out().contains("sluice ready"), run.out());
  }
}
