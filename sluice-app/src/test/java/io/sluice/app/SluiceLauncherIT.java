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
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real launcher script, as an operator runs it: {@code ./sluice up}, then SIGTERM; and {@code ./sluice
 * check-config --connect} against a real broker.
 */
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
    PidFiles.record(p);
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
   * Every command but {@code up} maps a class-data archive of its own, which the first commands on a JDK record in the
   * background: three first commands at once leave one archive (one records it, the others run as before), a later
   * command loads Sluice's classes from it, and none of them prints anything more or other than without it.
   */
  @Test
  void commandsRecordTheirClassDataArchiveOnceAndThenMapIt(@TempDir Path dir) throws Exception {
    Path root = Path.of(System.getProperty("sluice.root"));
    Path cds = dir.resolve("cds");
    Map<String, String> env = Map.of("SLUICE_CDS_DIR", cds.toString());
    List<java.util.concurrent.Future<PackagedSluice.Run>> first = new ArrayList<>();
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(3);
    try {
      for (int i = 0; i < 3; i++) {
        first.add(pool.submit(() -> PackagedSluice.runWith(root.resolve("sluice"), dir, env, "version")));
      }
      String expected = null;
      for (var f : first) {
        PackagedSluice.Run run = f.get(180, TimeUnit.SECONDS);
        assertEquals(0, run.exit(), run::toString);
        assertEquals("", run.err(), run::toString);
        assertTrue(run.out().startsWith("sluice " + System.getProperty("sluice.version") + "\n"), run::toString);
        if (expected != null) {
          assertEquals(expected, run.out());
        }
        expected = run.out();
      }

      // Recorded in the background, under a name of its own, then checked and renamed: wait for the lock to go.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
      List<String> files;
      do {
        Thread.sleep(200);
        try (var list = Files.list(cds)) {
          files = list.map(f -> f.getFileName().toString()).sorted().toList();
        }
      } while ((files.stream().anyMatch(f -> !f.endsWith(".jsa"))) && System.nanoTime() < deadline);
      assertEquals(1, files.size(), files::toString);
      assertTrue(files.get(0).matches("sluice-cli-[0-9]+\\.jsa"), files::toString);

      Path loaded = dir.resolve("version-classes.txt");
      PackagedSluice.Run mapped = PackagedSluice.runWith(root.resolve("sluice"), dir, Map.of("SLUICE_CDS_DIR",
          cds.toString(), "SLUICE_JAVA_OPTS", "-Xlog:class+load=info:file=" + loaded), "version");
      assertEquals(0, mapped.exit(), mapped::toString);
      assertEquals("", mapped.err(), mapped::toString);
      assertEquals(expected, mapped.out());
      assertTrue(Files.readAllLines(loaded).stream()
          .anyMatch(l -> l.contains(" io.sluice.app.Main source: shared objects file (top)")),
          "Main from " + files.get(0));
      try (var list = Files.list(cds)) {
        assertEquals(files, list.map(f -> f.getFileName().toString()).sorted().toList(), "recorded once only");
      }
    } finally {
      pool.shutdownNow();
    }
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

  /**
   * {@code ./sluice check-config --connect}, its own process, asks a real broker that authorizes whether a file's
   * login has what exactly-once sources need: {@code ./sluice kafka} with Kafka's StandardAuthorizer and a SASL/PLAIN
   * listener beside its plain one (whose anonymous login is the super user the broker itself needs). A login granted
   * the ACLs of docs/security.md passes, exit 0; a login without them is refused, exit 1, each missing permission named
   * with the kafka-acls command that grants it.
   */
  @Test
  void checkConfigConnectAsksARealBrokerForTheExactlyOncePermissions(@TempDir Path dir) throws Exception {
    int plain = PackagedSluice.freePort();
    int secured = PackagedSluice.freePort();
    int controller = PackagedSluice.freePort();
    String group = "checkconf";
    Path log = dir.resolve("kafka.log");
    Process kafka = PackagedSluice.start(dir, log, List.of("kafka", "--node-id", "1", "--voters",
        "1@127.0.0.1:" + controller, "--kafka-port", "" + plain, "--data-dir", dir.resolve("kafka").toString(),
        "--set", "kafka.broker.listeners=PLAINTEXT://127.0.0.1:" + plain + ",SECURED://127.0.0.1:" + secured
            + ",CONTROLLER://127.0.0.1:" + controller,
        "--set", "kafka.broker.advertised.listeners=PLAINTEXT://127.0.0.1:" + plain + ",SECURED://127.0.0.1:" + secured,
        "--set", "kafka.broker.listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"
            + ",SECURED:SASL_PLAINTEXT",
        "--set", "kafka.broker.sasl.enabled.mechanisms=PLAIN",
        "--set", "kafka.broker.listener.name.secured.plain.sasl.jaas.config="
            + "org.apache.kafka.common.security.plain.PlainLoginModule required user_granted=\"granted-pw\""
            + " user_ungranted=\"ungranted-pw\";",
        "--set", "kafka.broker.authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer",
        "--set", "kafka.broker.super.users=User:ANONYMOUS"));
    try {
      io.sluice.connect.testing.Eventually.await("sluice kafka ready", java.time.Duration.ofSeconds(120), () -> {
        if (!kafka.isAlive()) {
          throw new AssertionError("sluice kafka ended: " + PackagedSluice.read(log));
        }
        return PackagedSluice.read(log).contains("sluice kafka ready");
      }, ready -> ready);
      List<AclBinding> acls = new ArrayList<>();
      for (AclOperation op : List.of(AclOperation.WRITE, AclOperation.DESCRIBE)) {
        acls.add(grant(ResourceType.TRANSACTIONAL_ID, "connect-cluster-" + group, PatternType.LITERAL, op));
        acls.add(grant(ResourceType.TRANSACTIONAL_ID, group + "-", PatternType.PREFIXED, op));
      }
      acls.add(grant(ResourceType.TOPIC, "connect-offsets", PatternType.LITERAL, AclOperation.ALL));
      try (Admin admin = Admin.create(Map.of("bootstrap.servers", "127.0.0.1:" + plain))) {
        admin.createAcls(acls).all().get(60, TimeUnit.SECONDS);
      }

      Path granted = login(dir, "granted", secured, group);
      PackagedSluice.Run ok = PackagedSluice.run(dir, "check-config", "--connect", granted.toString());
      assertEquals(0, ok.exit(), ok.toString());
      assertTrue(ok.out().contains(granted + ": OK"), ok.toString());

      Path ungranted = login(dir, "ungranted", secured, group);
      PackagedSluice.Run refused = PackagedSluice.run(dir, "check-config", "--connect", ungranted.toString());
      assertEquals(1, refused.exit(), refused.toString());
      String lacks = "  kafka.bootstrap.servers 127.0.0.1:" + secured + ": User:ungranted lacks ";
      assertTrue(refused.out().contains(ungranted + ": 3 problems\n"), refused.toString());
      for (String named : List.of("Write and Describe on TransactionalId connect-cluster-" + group
          + " (pattern type literal)", "Write and Describe on TransactionalId " + group + "- (pattern type prefixed)",
          "Write, Read and Describe on Topic connect-offsets")) {
        assertTrue(refused.out().contains(lacks + named), named + " in " + refused);
      }
      assertTrue(refused.out().contains("--operation Write --operation Describe --transactional-id " + group
          + "- --resource-pattern-type prefixed"), refused.toString());
      // Without --connect the same file is not asked of the broker, and passes.
      PackagedSluice.Run unasked = PackagedSluice.run(dir, "check-config", ungranted.toString());
      assertEquals(0, unasked.exit(), unasked.toString());
    } finally {
      kafka.destroy();
      if (!kafka.waitFor(60, TimeUnit.SECONDS)) {
        kafka.destroyForcibly().waitFor();
      }
    }
  }

  private static AclBinding grant(ResourceType type, String name, PatternType pattern, AclOperation op) {
    return new AclBinding(new ResourcePattern(type, name, pattern),
        new AccessControlEntry("User:granted", "*", op, AclPermissionType.ALLOW));
  }

  /** A sluice.yaml whose Kafka clients log in to the SASL listener at {@code port} as {@code user}. */
  private static Path login(Path dir, String user, int port, String group) throws Exception {
    Path password = Files.writeString(dir.resolve(user + ".password"), user + "-pw\n");
    return Files.writeString(dir.resolve(user + ".yaml"), """
        data.dir: %s
        kafka:
          bootstrap.servers: 127.0.0.1:%d
          client:
            security.protocol: SASL_PLAINTEXT
            sasl.mechanism: PLAIN
            sasl.username: %s
            sasl.password.file: %s
        connect.group.id: %s
        """.formatted(dir.resolve("data"), port, user, password, group));
  }
}
