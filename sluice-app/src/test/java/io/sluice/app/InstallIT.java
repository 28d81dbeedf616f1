package io.sluice.app;

import static io.sluice.app.PackagedSluice.freePort;
import static io.sluice.app.PackagedSluice.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.app.PackagedSluice.Run;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The archive the build produced ({@code sluice-app/target/sluice-VERSION.tar.gz}), installed as an operator installs
 * it: unpacked with tar in a folder outside the checkout and run through its own {@code bin/sluice}, which knows
 * nothing of the checkout. {@code up} with the shipped {@code conf/sluice.yaml} (class-data sharing as installed: the
 * first start records the archives), {@code connectors list} against it, {@code version}, {@code check-config}, and
 * the licenses of every bundled jar.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class InstallIT {
  @TempDir static Path dir;
  private static Path home;

  @BeforeAll
  static void unpack() throws Exception {
    Path root = PackagedSluice.root().toRealPath();
    String version = System.getProperty("sluice.version");
    Path archive = root.resolve("sluice-app/target/sluice-" + version + ".tar.gz");
    assertTrue(Files.isRegularFile(archive), "the build did not produce " + archive);
    assertFalse(dir.toRealPath().startsWith(root), dir + " is inside the checkout");
    Process tar = new ProcessBuilder("tar", "-xzf", archive.toString(), "-C", dir.toString()).inheritIO().start();
    assertTrue(tar.waitFor(120, TimeUnit.SECONDS) && tar.exitValue() == 0, "tar -xzf " + archive);
    home = dir.resolve("sluice-" + version);
    try (Stream<Path> top = Files.list(home)) {
      assertEquals(List.of("README.md", "bin", "conf", "docs", "lib", "licenses", "plugins", "systemd"),
          top.map(p -> p.getFileName().toString()).sorted().toList(), "the archive holds only what an install runs");
    }
    assertTrue(Files.getPosixFilePermissions(home.resolve("bin/sluice")).contains(PosixFilePermission.OWNER_EXECUTE));
    assertTrue(Files.isRegularFile(home.resolve("systemd/sluice.service")));
    assertTrue(Files.isRegularFile(home.resolve("docs/configuration.md")), "the README's links lead into docs/");
  }

  @Test
  @Order(1)
  void upRunsWhatTheFolderHoldsAnswersConnectorsListAndStopsOnSigterm() throws Exception {
    Path work = Files.createDirectories(dir.resolve("work"));
    int connectPort = freePort();
    List<String> command = new ArrayList<>(List.of("--config", home.resolve("conf/sluice.yaml").toString()));
    for (String flag : List.of("--kafka-port", "--registry-port", "--metrics-port", "--alerts-port",
        "--exporter-port", "--ui-port")) {
      command.addAll(List.of(flag, String.valueOf(freePort())));
    }
    command.addAll(List.of("--connect-port", String.valueOf(connectPort)));
    PackagedSluice.Up up = PackagedSluice.up(home.resolve("bin/sluice"), work, command, true);
    try {
      String connect = "http://127.0.0.1:" + connectPort;
      assertTrue(up.readyLine().contains("connect=" + connect), up.readyLine());
      // Both planes run the unpacked jars, with the heaps of the shipped configuration.
      for (String plane : List.of("data", "control")) {
        List<String> args = List.of(PackagedSluice.plane(up, plane).info().arguments().orElseThrow());
        // Each jar by name, in an order a copy of the folder cannot change: the class-data archives depend on it.
        long pid = PackagedSluice.plane(up, plane).pid();
        String classPath = List.of(Files.readString(Path.of("/proc/" + pid + "/environ")).split("\0")).stream()
            .filter(v -> v.startsWith("CLASSPATH=")).findFirst().orElseThrow().substring("CLASSPATH=".length());
        try (Stream<Path> jars = Files.list(home.resolve("lib"))) {
          assertEquals(jars.map(Path::toString).sorted().toList(), List.of(classPath.split(":")), args::toString);
        }
        assertFalse(args.contains("-cp"), args::toString);
        assertTrue(args.contains(plane.equals("data") ? "-Xmx1g" : "-Xmx512m"), args::toString);
      }
      assertTrue(Files.isDirectory(work.resolve("data/kafka")), "data.dir ./data is taken from the working folder");

      Run list = run(work, "connectors", "list", "--connect-url", connect);
      assertEquals(0, list.exit(), list::toString);
      assertEquals("no connectors on " + connect, list.out().strip(), list::toString);

      // The first start after an install records the class-data archives as each JVM exits: more than a plain stop.
      new ProcessBuilder("kill", "-TERM", String.valueOf(up.process().pid())).start().waitFor();
      assertTrue(up.process().waitFor(240, TimeUnit.SECONDS), "bin/sluice up did not stop within 240 s of SIGTERM");
      assertEquals(0, up.process().exitValue(), () -> "exit after SIGTERM; stdout " + up.out() + "\nstderr "
          + read(up.stderr()));
      for (String archive : List.of("sluice.jsa", "sluice-data.jsa", "sluice-control.jsa")) {
        assertTrue(Files.size(home.resolve(archive)) > 0, archive + " recorded beside lib/ by the first clean stop");
        // With the JDK it was recorded by, so that a start on another JDK records it again rather than run without.
        assertFalse(Files.readString(home.resolve(archive + ".jdk")).isBlank(), archive + ".jdk");
      }
      // Every other command then maps an archive: its own (sluice-cli-*.jsa) once the first command has recorded it in
      // the background, the data plane's until then. Sluice's own classes come from it.
      Path loaded = dir.resolve("version-classes.txt");
      Run version = PackagedSluice.runWith(home.resolve("bin/sluice"), work,
          java.util.Map.of("SLUICE_JAVA_OPTS", "-Xlog:class+load=info:file=" + loaded), "version");
      assertEquals(0, version.exit(), version::toString);
      assertTrue(Files.readAllLines(loaded).stream()
          .anyMatch(l -> l.contains(" io.sluice.app.Main source: shared objects file (top)")),
          "Main from sluice-data.jsa or sluice-cli-*.jsa");
    } finally {
      if (up.process().isAlive()) {
        PackagedSluice.killAll(up.process());
      }
    }
  }

  @Test
  @Order(2)
  void versionSaysWhatTheBuildBundledEvenThroughALink() throws Exception {
    Path bin = Files.createDirectories(dir.resolve("usr/local/bin"));
    Files.createSymbolicLink(bin.resolve("sluice"), home.resolve("bin/sluice"));
    Run version = PackagedSluice.runWith(bin.resolve("sluice"), dir, "version");
    assertEquals(0, version.exit(), version::toString);
    List<String> lines = version.out().lines().toList();
    assertEquals("sluice " + System.getProperty("sluice.version"), lines.get(0), version::toString);
    assertEquals("kafka " + System.getProperty("sluice.kafka.version"), lines.get(1), version::toString);
    for (String plugin : List.of("debezium-postgres", "debezium-mysql", "debezium-mariadb", "debezium-sqlserver",
        "jdbc-sink")) {
      String expected = System.getProperty("sluice.debezium.version." + plugin);
      assertTrue(lines.stream().anyMatch(l -> l.startsWith("debezium " + expected + " (")
          && l.endsWith(" in plugins/" + plugin + ")")), plugin + " " + expected + ": " + version);
    }
    assertTrue(lines.get(lines.size() - 1).startsWith("java " + Runtime.version().feature()), version::toString);
  }

  @Test
  @Order(3)
  void checkConfigPassesTheShippedFileAndListsEachProblemOfABrokenOne() throws Exception {
    Run good = run(home, "check-config", "conf/sluice.yaml");
    assertEquals(0, good.exit(), good::toString);
    assertEquals("conf/sluice.yaml: OK", good.out().strip(), good::toString);

    Files.writeString(dir.resolve("alertmanager.yml"), "route: {receiver: nobody}\nreceivers: [{name: a}]\n");
    Path broken = Files.writeString(dir.resolve("broken.yaml"), """
        connect.port: 8081
        registry.port: 8081
        controlplane.heap: half
        alerts.config: %s
        metrics.config: %s
        """.formatted(dir.resolve("alertmanager.yml"), dir.resolve("missing-prometheus.yml")));
    Run bad = run(home, "check-config", broken.toString());
    assertEquals(1, bad.exit(), bad::toString);
    List<String> lines = bad.out().lines().toList();
    assertEquals(broken + ": 4 problems", lines.get(0), bad::toString);
    // Bad values first, in the settings table's order, then what the values mean together (port clashes).
    assertTrue(lines.get(1).startsWith("  controlplane.heap must be a heap size"), bad::toString);
    assertTrue(lines.get(2).startsWith("  connect.port and registry.port are both 8081"), bad::toString);
    assertTrue(lines.get(3).startsWith("  metrics.config " + dir.resolve("missing-prometheus.yml") + ": cannot read"),
        bad::toString);
    assertEquals("  alerts.config " + dir.resolve("alertmanager.yml") + ": undefined receiver \"nobody\" used in route",
        lines.get(4), bad::toString);
  }

  @Test
  @Order(4)
  void everyBundledJarIsListedWithItsLicenseAndTheNoticesTheyCarryAreKept() throws Exception {
    String thirdParty = Files.readString(home.resolve("licenses/THIRD-PARTY.txt"));
    List<String> jars;
    try (Stream<Path> all = Files.walk(home)) {
      jars = all.filter(p -> p.toString().endsWith(".jar")).map(p -> home.relativize(p).toString()).sorted().toList();
    }
    assertTrue(jars.size() > 100, jars::toString);
    List<String> listed = thirdParty.lines().filter(l -> l.endsWith(".jar")).sorted().toList();
    assertEquals(jars, listed, "THIRD-PARTY.txt lists each bundled jar");
    assertFalse(thirdParty.contains("UNKNOWN"), () -> "a jar without a known license:\n" + thirdParty.lines()
        .filter(l -> l.contains("UNKNOWN")).toList());
    assertTrue(thirdParty.contains("lib/kafka-clients-" + System.getProperty("sluice.kafka.version") + ".jar\n"
        + "    org.apache.kafka:kafka-clients:" + System.getProperty("sluice.kafka.version") + "\n"
        + "    The Apache License, Version 2.0"), thirdParty);
    String notices = Files.readString(home.resolve("licenses/NOTICE.txt"));
    assertTrue(notices.contains("lib/kafka-clients-" + System.getProperty("sluice.kafka.version") + ".jar\n"), notices);
    assertTrue(notices.contains("Apache Kafka"), "Kafka's NOTICE text");
    assertTrue(Files.size(home.resolve("licenses/LICENSE-TEXTS.txt")) > 0);
  }

  /** {@code bin/sluice args} of the unpacked folder, in {@code workDir}. */
  private static Run run(Path workDir, String... args) throws Exception {
    return PackagedSluice.runWith(home.resolve("bin/sluice"), workDir, args);
  }
}
