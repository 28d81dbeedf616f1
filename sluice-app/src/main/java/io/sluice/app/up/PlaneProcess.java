package io.sluice.app.up;

import io.sluice.app.Main;
import io.sluice.app.cli.KafkaClientLogs;
import io.sluice.app.config.ConfigDefinitions;
import io.sluice.app.config.SluiceConfig;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One plane's process ({@code sluice plane data|control}, a JVM of its own), as the {@link Supervisor} runs it: started
 * with the configuration handed over on its standard input ({@link PlaneCommand.Handoff}), ready once it says so, and
 * started again, after a pause that doubles each time, whenever it ends while {@code sluice up} runs.
 */
final class PlaneProcess {
  /** The pause before a start again doubles from this up to {@link #MAX_BACKOFF} ... */
  static final Duration FIRST_BACKOFF = Duration.ofSeconds(1);
  static final Duration MAX_BACKOFF = Duration.ofSeconds(30);
  /** ... and falls back to the first once a plane has stayed up this long. */
  static final Duration STABLE = Duration.ofSeconds(60);
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
  /** What the JVM exits with under {@code -XX:+ExitOnOutOfMemoryError}. */
  private static final int OUT_OF_MEMORY = 3;

  final Plane plane;
  private final SluiceConfig config;
  private final PlaneCommand.Handoff handoff;
  private final ComponentAlert alert;
  /** The supervisor's thread for starts again, shut down when it stops. */
  private final ScheduledExecutorService restarts;
  /** Whether {@code sluice up} is stopping: a plane that ends then is not started again. */
  private final BooleanSupplier stopping;
  private final Optional<ClassDataArchive> archive;

  volatile Process process;
  volatile Map<String, String> urls = Map.of();
  volatile CompletableFuture<Map<String, String>> ready = new CompletableFuture<>();
  /** The stop of the process last started, which hears what it says while it stops. */
  private volatile PlaneStop stop;
  /** What the plane said when it could not start, if it said anything. */
  private volatile String failure;
  private volatile long startedAt;
  private Duration backoff = FIRST_BACKOFF;

  PlaneProcess(Plane plane, SluiceConfig config, PlaneCommand.Handoff handoff, ComponentAlert alert,
      ScheduledExecutorService restarts, BooleanSupplier stopping) {
    this.plane = plane;
    this.config = config;
    this.handoff = handoff;
    this.alert = alert;
    this.restarts = restarts;
    this.stopping = stopping;
    this.archive = ClassDataArchive.of(plane);
  }

  /**
   * Logging configures itself when the first logger is made, a fifth of a second of CPU: none is made here until both
   * planes are ready, unless a start fails. The supervisor's: what it says of its planes is said as the supervisor.
   */
  private static Logger log() {
    return LoggerFactory.getLogger(Supervisor.class);
  }

  /**
   * The jars of {@code lib}, by name. Not {@code lib/*}: the JVM expands that in the folder's own order, which copying
   * or rebuilding the folder changes, and a class-data archive is valid only for the class path it was recorded with,
   * in that order; a mismatch is not an error, the JVM silently loads every class from the jars again.
   */
  private static String classPath(Path lib) {
    try (Stream<Path> files = Files.list(lib)) {
      return String.join(File.pathSeparator, files.map(Path::toString).filter(f -> f.endsWith(".jar"))
          .sorted().toList());
    } catch (IOException e) {
      return lib + "/*";
    }
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
    PlaneStop s = new PlaneStop(plane.name + " plane", plane.stopAllowance);
    stop = s;
    failure = null;
    ready = r;
    process = p;
    startedAt = System.nanoTime();
    Thread reader = new Thread(() -> read(p, r, s), "sluice-" + plane.name + "-stdout");
    reader.setDaemon(true);
    reader.start();
    p.onExit().thenAccept(ended -> exited(ended, r));
  }

  void sayProcess() {
    log().info("{} is process {}", plane.what, process.pid());
  }

  private void read(Process p, CompletableFuture<Map<String, String>> r, PlaneStop s) {
    try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = out.readLine()) != null; ) {
        if (line.startsWith(PlaneCommand.READY + " ") || line.equals(PlaneCommand.READY)) {
          r.complete(Platform.parseUrls(line.substring(PlaneCommand.READY.length())));
        } else if (line.startsWith(PlaneCommand.FAILED + " ")) {
          failure = line.substring(PlaneCommand.FAILED.length() + 1);
        } else if (line.startsWith(PlaneCommand.STOPPING + " ")) {
          PlaneCommand.Stopping.parse(line).ifPresent(s::heard);
        } else {
          System.out.println(line);
        }
      }
    } catch (IOException e) {
      // The process ended; exited() says how.
    }
  }

  void awaitFirstReady() throws Supervisor.StartFailure {
    try {
      urls = ready.get();
    } catch (ExecutionException e) {
      throw (Supervisor.StartFailure) e.getCause();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Supervisor.StartFailure("interrupted while " + plane.what + " started", 1);
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
      r.completeExceptionally(new Supervisor.StartFailure(reason != null ? reason
          : plane.what + " ended with status " + status + " before it was ready", status));
    }
    if (stopping.getAsBoolean() || r.isCompletedExceptionally() && urls.isEmpty()) {
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
    } catch (RejectedExecutionException stopped) {
      // sluice up is stopping.
    }
  }

  private void relaunch() {
    if (stopping.getAsBoolean()) {
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

  /**
   * SIGTERM, then a bounded wait ({@link Plane#stopAllowance}, for the tasks the plane says it stops); a plane that
   * does not stop in time is killed, and {@code sluice up} says what that cut short.
   */
  void stop() {
    Process p = process;
    if (p == null || !p.isAlive()) {
      return;
    }
    try {
      stop.stop(p).ifPresent(cutShort -> {
        System.err.println("sluice: " + cutShort);
        log().warn("{}", cutShort);
      });
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      p.getOutputStream().close();
    } catch (IOException ignored) {
      // Already closed by the process' end.
    }
    archive.ifPresent(a -> a.keep(p));
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
    archive.ifPresent(a -> c.addAll(a.options()));
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
}
