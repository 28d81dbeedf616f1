package io.sluice.app.up;

import io.sluice.app.Main;
import io.sluice.app.cli.KafkaClientLogs;
import io.sluice.app.config.ConfigDefinitions;
import io.sluice.app.config.ConfigKey;
import io.sluice.app.config.SluiceConfig;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code sluice up} as a supervisor of two processes: the {@link DataPlane} (broker, Connect, exporter) and the
 * {@link ControlPlane} (router, metrics server, registry, dashboard), each with its own heap. A plane that ends on its
 * own (out of memory, killed, an engine asking to exit) is started again with a growing pause; while the data plane
 * is down the router hears of it ({@link ComponentAlert}), and hears again when it is back. To the operator it is one
 * command still: one {@code sluice ready} line once both planes answer, one SIGTERM stopping both in order (the
 * control plane first, so its last writes reach the broker).
 */
public final class Supervisor implements AutoCloseable {
  /** The pause before a start again doubles from this up to {@link #MAX_BACKOFF} ... */
  static final Duration FIRST_BACKOFF = Duration.ofSeconds(1);
  static final Duration MAX_BACKOFF = Duration.ofSeconds(30);
  /** ... and falls back to the first once a plane has stayed up this long. */
  static final Duration STABLE = Duration.ofSeconds(60);
  /**
   * How long each plane is given to stop in order after SIGTERM before it is killed: the control plane, then the data
   * plane (Connect's tasks flush their offsets). A service manager must wait at least their sum for {@code sluice up}.
   */
  static final Duration CONTROL_STOP = Duration.ofSeconds(60);
  static final Duration DATA_STOP = Duration.ofSeconds(90);

  /** The longest {@code sluice up} takes to stop after SIGTERM: what a service manager must wait for at least. */
  public static Duration stopTime() {
    return CONTROL_STOP.plus(DATA_STOP);
  }
  /**
   * The C2 compiler of each plane waits for methods ten times hotter than its defaults before it compiles them. A
   * plane's start runs a great deal of code a few thousand times (configurations, metadata, class set-up, the first
   * requests): C2 compiled it for nothing, and on two cores took a quarter of the start's CPU from the start itself.
   * Code that stays hot (a connector's records, a scrape's series, a query's samples) reaches C2 all the same, later;
   * until then it runs as C1 compiled it. Placed before {@code <plane>.java.options}, which can set them otherwise.
   * The launcher gives every other command the same four ({@code bin/sluice}): change both together.
   */
  static final List<String> COMPILE_LATER = List.of("-XX:Tier4InvocationThreshold=50000",
      "-XX:Tier4MinInvocationThreshold=6000", "-XX:Tier4CompileThreshold=150000", "-XX:Tier4BackEdgeThreshold=400000");
  /**
   * The jars of {@code lib}, by name. Not {@code lib/*}: the JVM expands that in the folder's own order, which copying
   * or rebuilding the folder changes, and a class-data archive is valid only for the class path it was recorded with,
   * in that order; a mismatch is not an error, the JVM silently loads every class from the jars again.
   */
  static String classPath(Path lib) {
    try (Stream<Path> files = Files.list(lib)) {
      return String.join(File.pathSeparator, files.map(Path::toString).filter(f -> f.endsWith(".jar"))
          .sorted().toList());
    } catch (IOException e) {
      return lib + "/*";
    }
  }

  /** What the JVM exits with under {@code -XX:+ExitOnOutOfMemoryError}. */
  private static final int OUT_OF_MEMORY = 3;

  /** The two processes, in the order they stop. */
  enum Plane {
    CONTROL("control", "control-plane", "the control plane (alert router, metrics server, registry, dashboard)",
        ConfigDefinitions.CONTROL_PLANE_HEAP, ConfigDefinitions.CONTROL_PLANE_JAVA_OPTIONS),
    DATA("data", "data-plane", "the data plane (broker, Connect, exporter)", ConfigDefinitions.DATA_PLANE_HEAP,
        ConfigDefinitions.DATA_PLANE_JAVA_OPTIONS);

    final String name;
    /** The {@code component} label of its {@link ComponentAlert}. */
    final String component;
    final String what;
    /** The settings of its JVM: its heap and more options. */
    final ConfigKey<String> heap;
    final ConfigKey<String> javaOptions;

    Plane(String name, String component, String what, ConfigKey<String> heap, ConfigKey<String> javaOptions) {
      this.name = name;
      this.component = component;
      this.what = what;
      this.heap = heap;
      this.javaOptions = javaOptions;
    }
  }

  /**
   * Logging configures itself when the first logger is made, a fifth of a second of CPU: the supervisor makes none (nor
   * do the classes it uses before) until both planes are ready, unless a start fails.
   */
  private static Logger log() {
    return LoggerFactory.getLogger(Supervisor.class);
  }

  private final PlaneCommand.Handoff handoff;
  private final SluiceConfig config;
  private final ComponentAlert alert;
  private final Map<Plane, Child> children = new LinkedHashMap<>();
  private final ScheduledExecutorService restarts = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "sluice-supervisor");
    t.setDaemon(true);
    return t;
  });
  private volatile boolean stopping;

  /** Why {@code sluice up} could not start: a plane ended before it was ready, with this status. */
  static final class StartFailure extends Exception {
    final int status;

    StartFailure(String message, int status) {
      super(message);
      this.status = status;
    }
  }

  private Supervisor(SluiceConfig config, Path plugins, WebSurfaces web) {
    this.config = config;
    this.handoff = new PlaneCommand.Handoff(config.values(), web.internalUser(), plugins.toString());
    this.alert = new ComponentAlert(web.internalClient(), config.host());
    for (Plane p : Plane.values()) {
      children.put(p, new Child(p));
    }
  }

  /** Starts both planes and returns once both answer; {@link StartFailure} when either ends first. */
  static Supervisor start(SluiceConfig config, Path plugins) throws StartFailure {
    SluiceConfig pinned = Ports.pinned(config);
    // Every value as the table allows it, before a process is started with one.
    List<String> problems = pinned.problems();
    if (!problems.isEmpty()) {
      throw new SluiceConfig.ConfigException(String.join("; ", problems));
    }
    archiveFolder().ifPresent(Supervisor::dropOrphanedRecordings);
    Supervisor s = new Supervisor(pinned, plugins, WebSurfaces.load(pinned));
    try {
      // The data plane first: its start is the longer one.
      s.children.get(Plane.DATA).launch();
      s.children.get(Plane.CONTROL).launch();
      s.awaitBothReady();
      for (Child c : s.children.values()) {
        c.awaitFirstReady();
      }
    } catch (StartFailure | RuntimeException e) {
      s.close();
      throw e;
    }
    return s;
  }

  /** Where the class-data archives are: {@code sluice.cds.dir} as the launcher sets it, else the distribution's home. */
  private static Optional<Path> archiveFolder() {
    String home = System.getProperty("sluice.home");
    if (home == null || System.getenv("SLUICE_NO_CDS") != null) {
      return Optional.empty();
    }
    return Optional.of(Path.of(System.getProperty("sluice.cds.dir", home)));
  }

  private static final Pattern RECORDING = Pattern.compile("sluice(-[a-z]+)?\\.jsa\\.([0-9]+)");

  /**
   * Deletes recordings whose {@code sluice up} is gone. A recording is named after the process that renames it once
   * complete ({@code sluice-data.jsa.<pid>}); when that process is killed, its planes still end cleanly and write the
   * file, some 50 MB, which no later start would ever look at again.
   */
  static void dropOrphanedRecordings(Path folder) {
    try (Stream<Path> files = Files.list(folder)) {
      files.forEach(f -> {
        Matcher m = RECORDING.matcher(f.getFileName().toString());
        try {
          if (m.matches() && ProcessHandle.of(Long.parseLong(m.group(2))).map(h -> !h.isAlive()).orElse(true)) {
            Files.deleteIfExists(f);
          }
        } catch (IOException | NumberFormatException e) {
          // Another user's, already gone, or a number no process has: not ours to insist on.
        }
      });
    } catch (IOException e) {
      // No folder yet: nothing recorded there.
    }
  }

  /**
   * Returns once both planes are ready, or as soon as either ends before it is: a data plane that cannot start is said
   * at once, not after the control plane has waited out its broker.
   */
  private void awaitBothReady() throws StartFailure {
    CompletableFuture<Void> failed = new CompletableFuture<>();
    List<CompletableFuture<Map<String, String>>> readies = children.values().stream().map(c -> c.ready).toList();
    readies.forEach(r -> r.whenComplete((urls, e) -> {
      if (e != null) {
        failed.completeExceptionally(e);
      }
    }));
    try {
      CompletableFuture.anyOf(CompletableFuture.allOf(readies.toArray(CompletableFuture[]::new)), failed).get();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() instanceof CompletionException c ? c.getCause() : e.getCause();
      if (cause instanceof StartFailure f) {
        throw f;
      }
      throw new IllegalStateException(cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StartFailure("interrupted while the planes started", 1);
    }
  }

  /**
   * Logs each plane's process id; once the ready line is out, since the first logger configures logging, CPU the
   * planes' start would have shared.
   */
  void sayProcesses() {
    children.values().forEach(Child::sayProcess);
  }

  /** {@code sluice ready …} with both planes' addresses. */
  String readyLine() {
    Map<String, String> data = children.get(Plane.DATA).urls;
    Map<String, String> urls = new LinkedHashMap<>();
    urls.put("kafka", data.get("kafka"));
    urls.putAll(children.get(Plane.CONTROL).urls);
    urls.putAll(data);
    return Platform.readyLine(urls);
  }

  /** Stops the control plane, then the data plane; no plane is started again from here on. */
  @Override
  public void close() {
    stopping = true;
    restarts.shutdownNow();
    for (Child c : children.values()) {
      c.stop();
    }
    alert.close();
  }

  /** One plane's process, started again whenever it ends while {@code sluice up} runs. */
  private final class Child {
    final Plane plane;
    volatile Process process;
    volatile Map<String, String> urls = Map.of();
    volatile CompletableFuture<Map<String, String>> ready = new CompletableFuture<>();
    /** What the plane said when it could not start, if it said anything. */
    private volatile String failure;
    private volatile long startedAt;
    private Duration backoff = FIRST_BACKOFF;
    private boolean recording;

    Child(Plane plane) {
      this.plane = plane;
    }

    synchronized void launch() {
      List<String> command = command();
      ProcessBuilder pb = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
      pb.environment().put("CLASSPATH", planeClassPath());
      Process p;
      try {
        p = pb.start();
      } catch (IOException e) {
        throw new IllegalStateException("cannot start " + plane.what + ": " + e.getMessage(), e);
      }
      try {
        OutputStream in = p.getOutputStream();
        in.write((handoff.toJson() + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
        // The pipe stays open: its end tells the plane that sluice up is gone.
      } catch (IOException e) {
        // The JVM ended before it read its hand-off (an option it refused, too little memory for its heap): exited()
        // says so as for any plane that ends before it is ready, and starts it again once it had been up.
      }
      CompletableFuture<Map<String, String>> r = new CompletableFuture<>();
      failure = null;
      ready = r;
      process = p;
      startedAt = System.nanoTime();
      Thread reader = new Thread(() -> read(p, r), "sluice-" + plane.name + "-stdout");
      reader.setDaemon(true);
      reader.start();
      p.onExit().thenAccept(ended -> exited(ended, r));
    }

    void sayProcess() {
      log().info("{} is process {}", plane.what, process.pid());
    }

    private void read(Process p, CompletableFuture<Map<String, String>> r) {
      try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = out.readLine()) != null; ) {
          if (line.startsWith(PlaneCommand.READY + " ") || line.equals(PlaneCommand.READY)) {
            r.complete(Platform.parseUrls(line.substring(PlaneCommand.READY.length())));
          } else if (line.startsWith(PlaneCommand.FAILED + " ")) {
            failure = line.substring(PlaneCommand.FAILED.length() + 1);
          } else {
            System.out.println(line);
          }
        }
      } catch (IOException e) {
        // The process ended; exited() says how.
      }
    }

    void awaitFirstReady() throws StartFailure {
      try {
        urls = ready.get();
      } catch (ExecutionException e) {
        throw (StartFailure) e.getCause();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new StartFailure("interrupted while " + plane.what + " started", 1);
      }
      whenReady();
    }

    private void whenReady() {
      ready.thenAccept(u -> {
        urls = u;
        if (plane == Plane.DATA) {
          alert.resolve(plane.component);
        } else {
          alert.routerReady(u.get("alerts"));
        }
      });
    }

    private void exited(Process ended, CompletableFuture<Map<String, String>> r) {
      int status = ended.exitValue();
      if (!r.isDone()) {
        String reason = failure;
        r.completeExceptionally(new StartFailure(reason != null ? reason
            : plane.what + " ended with status " + status + " before it was ready", status));
      }
      if (stopping || r.isCompletedExceptionally() && urls.isEmpty()) {
        // Stopped on purpose, or it never came up in the first place (the start reports that).
        return;
      }
      synchronized (this) {
        if (ended != process) {
          return;
        }
        if (System.nanoTime() - startedAt > STABLE.toNanos()) {
          backoff = FIRST_BACKOFF;
        }
        Duration pause = nextPause();
        String why = status == OUT_OF_MEMORY ? " (out of memory)" : status == 137 || status == 9 ? " (killed)" : "";
        System.err.println("sluice: " + plane.what + " ended with status " + status + why + "; starting it again in "
            + pause.toSeconds() + " s");
        log().warn("{} ended with status {}{}; starting it again in {} s", plane.what, status, why, pause.toSeconds());
        if (plane == Plane.DATA) {
          alert.fire(plane.component, plane.what);
        }
        relaunchIn(pause);
      }
    }

    /** The pause before the next start, doubling the one after it up to {@link #MAX_BACKOFF}. */
    private synchronized Duration nextPause() {
      Duration pause = backoff;
      backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
      return pause;
    }

    private void relaunchIn(Duration pause) {
      try {
        restarts.schedule(this::relaunch, pause.toMillis(), TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.RejectedExecutionException stopped) {
        // sluice up is stopping.
      }
    }

    private void relaunch() {
      if (stopping) {
        return;
      }
      try {
        launch();
        sayProcess();
        ready.thenRun(() -> System.err.println("sluice: " + plane.what + " is back"));
        whenReady();
      } catch (RuntimeException e) {
        // No process, so no exit to hear of: the next attempt is scheduled here, or the plane would stay down.
        Duration pause = nextPause();
        log().error("cannot start {} again; trying again in {} s", plane.what, pause.toSeconds(), e);
        relaunchIn(pause);
      }
    }

    /** SIGTERM, then a bounded wait; a plane that does not stop in time is killed. */
    void stop() {
      Process p = process;
      if (p == null || !p.isAlive()) {
        return;
      }
      p.destroy();
      try {
        if (!p.waitFor((plane == Plane.DATA ? DATA_STOP : CONTROL_STOP).toSeconds(), TimeUnit.SECONDS)) {
          log().warn("{} did not stop within its time; killing it", plane.what);
          p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      try {
        p.getOutputStream().close();
      } catch (IOException ignored) {
        // Already closed by the process' end.
      }
      keepArchive(p);
    }

    /** The JVM of this plane, with its heap and options from the configuration. */
    private List<String> command() {
      List<String> c = new ArrayList<>();
      if (plane == Plane.DATA) {
        c.addAll(lowerPriority(config.get(ConfigDefinitions.DATA_PLANE_NICE).intValue()));
      }
      c.add(ProcessHandle.current().info().command().orElse("java"));
      c.add("-Xmx" + config.get(plane.heap));
      c.addAll(COMPILE_LATER);
      c.addAll(Arrays.stream(config.find(plane.javaOptions).orElse("").trim().split("\\s+"))
          .filter(s -> !s.isEmpty()).toList());
      c.add("-XX:+ExitOnOutOfMemoryError");
      c.addAll(List.of("-Xlog:cds=off", "-Xlog:cds+dynamic=off"));
      c.addAll(classDataSharing());
      String home = System.getProperty("sluice.home");
      if (home != null) {
        c.add("-Dsluice.home=" + home);
      }
      String cds = System.getProperty("sluice.cds.dir");
      if (cds != null) {
        c.add("-Dsluice.cds.dir=" + cds);
      }
      c.add("-Dsluice.plane=" + plane.name);
      c.add(KafkaClientLogs.planeOption(plane == Plane.DATA));
      c.addAll(List.of(Main.class.getName(), "plane", plane.name));
      return c;
    }

    /**
     * {@code nice -n N} before the JVM, which nice then becomes (the process keeps its id); nothing at 0, or where
     * there is no {@code nice}, which Java cannot stand in for.
     */
    private static List<String> lowerPriority(int nice) {
      if (nice == 0) {
        return List.of();
      }
      String path = System.getenv().getOrDefault("PATH", "");
      Optional<Path> command = Stream.concat(Stream.of(path.split(File.pathSeparator)), Stream.of("/usr/bin", "/bin"))
          .filter(d -> !d.isEmpty()).map(d -> Path.of(d, "nice")).filter(Files::isExecutable).findFirst();
      if (command.isEmpty()) {
        log().warn("no nice command: the data plane runs at the control plane's priority");
        return List.of();
      }
      return List.of(command.get().toString(), "-n", Integer.toString(nice));
    }

    /**
     * The class path, given in {@code CLASSPATH} rather than {@code -cp}: the jars one by one are some 10 KB, which
     * would bury the plane's name in {@code ps} and past what {@link ProcessHandle.Info#arguments} reads.
     */
    private static String planeClassPath() {
      String home = System.getProperty("sluice.home");
      return home != null ? classPath(Path.of(home, "lib")) : System.getProperty("java.class.path");
    }

    /**
     * Class-data sharing as the launcher does for single commands: an archive per plane, recorded by the first clean
     * run after a build and mapped by every later start, which halves the time to ready. Where the archives' folder
     * cannot be written (an installation owned by another user, without {@code SLUICE_CDS_DIR}), none is recorded.
     */
    private List<String> classDataSharing() {
      Optional<Path> archive = archive();
      if (archive.isEmpty()) {
        return List.of();
      }
      Path a = archive.get();
      recording = false;
      if (Files.isRegularFile(a) && !newerJars(a)) {
        return List.of("-XX:SharedArchiveFile=" + a);
      }
      if (!Files.isWritable(a.getParent())) {
        return List.of();
      }
      recording = true;
      return List.of("-XX:ArchiveClassesAtExit=" + a + "." + ProcessHandle.current().pid());
    }

    /** The plane's archive, in {@link #archiveFolder()}. */
    private Optional<Path> archive() {
      return archiveFolder().map(dir -> dir.resolve("sluice-" + plane.name + ".jsa"));
    }

    private boolean newerJars(Path archive) {
      Path lib = Path.of(System.getProperty("sluice.home"), "lib");
      try (Stream<Path> jars = Files.list(lib)) {
        long at = Files.getLastModifiedTime(archive).toMillis();
        // The folder itself too: a jar added or taken away leaves every other jar's time as it was.
        if (Files.getLastModifiedTime(lib).toMillis() > at) {
          return true;
        }
        return jars.anyMatch(j -> {
          try {
            return Files.getLastModifiedTime(j).toMillis() > at;
          } catch (IOException e) {
            return true;
          }
        });
      } catch (IOException e) {
        return true;
      }
    }

    /** An archive recorded by a clean stop replaces the old one; a broken or partial one is dropped. */
    private void keepArchive(Process p) {
      if (!recording) {
        return;
      }
      archive().ifPresent(a -> {
        Path tmp = Path.of(a + "." + ProcessHandle.current().pid());
        try {
          if (p.exitValue() == 0 && Files.size(tmp) > 0) {
            Files.move(tmp, a, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
          } else {
            Files.deleteIfExists(tmp);
          }
        } catch (IOException | IllegalThreadStateException e) {
          log().debug("class-data archive of the {} plane not kept: {}", plane.name, e.toString());
        }
      });
    }
  }
}
