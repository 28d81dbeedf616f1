package io.sluice.app.up;

import io.sluice.app.config.SluiceConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * {@code sluice up} as a supervisor of two processes ({@link PlaneProcess}): the {@link DataPlane} (broker, Connect,
 * exporter) and the {@link ControlPlane} (router, metrics server, registry, console), each with its own heap. A plane
 * that ends on its own (out of memory, killed, an engine asking to exit) is started again with a growing pause; while
 * the data plane is down the router hears of it ({@link ComponentAlert}), and hears again when it is back. To the
 * operator it is one command still: one {@code sluice ready} line once both planes answer, one SIGTERM stopping both in
 * order (the control plane first, so its last writes reach the broker).
 */
public final class Supervisor implements AutoCloseable {
  private final Map<Plane, PlaneProcess> planes = new LinkedHashMap<>();
  private final ComponentAlert alert;
  private final ScheduledExecutorService restarts = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "sluice-supervisor");
    t.setDaemon(true);
    return t;
  });
  private volatile boolean stopping;

  /**
   * The longest {@code sluice up} takes to stop after SIGTERM, each plane in turn given its longest allowance before it
   * is killed: what a service manager must wait for at least.
   */
  public static Duration stopTime() {
    return Arrays.stream(Plane.values()).map(p -> p.stopAllowance.longest()).reduce(Duration.ZERO, Duration::plus);
  }

  /** Why {@code sluice up} could not start: a plane ended before it was ready, with this status. */
  static final class StartFailure extends Exception {
    final int status;

    StartFailure(String message, int status) {
      super(message);
      this.status = status;
    }
  }

  private Supervisor(SluiceConfig config, Path plugins, WebSurfaces web) {
    PlaneCommand.Handoff handoff = new PlaneCommand.Handoff(config.values(), web.internalUser(), plugins.toString());
    this.alert = new ComponentAlert(web.internalClient(), config.host());
    for (Plane p : Plane.values()) {
      planes.put(p, new PlaneProcess(p, config, handoff, alert, restarts, () -> stopping));
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
    ClassDataArchive.folder().ifPresent(ClassDataArchive::dropOrphanedRecordings);
    Supervisor s = new Supervisor(pinned, plugins, WebSurfaces.load(pinned));
    try {
      // The data plane first: its start is the longer one.
      s.planes.get(Plane.DATA).launch();
      s.planes.get(Plane.CONTROL).launch();
      s.awaitBothReady();
      for (PlaneProcess p : s.planes.values()) {
        p.awaitFirstReady();
      }
    } catch (StartFailure | RuntimeException e) {
      s.close();
      throw e;
    }
    return s;
  }

  /**
   * Returns once both planes are ready, or as soon as either ends before it is: a data plane that cannot start is said
   * at once, not after the control plane has waited out its broker.
   */
  private void awaitBothReady() throws StartFailure {
    CompletableFuture<Void> failed = new CompletableFuture<>();
    List<CompletableFuture<Map<String, String>>> readies = planes.values().stream().map(p -> p.ready).toList();
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
    planes.values().forEach(PlaneProcess::sayProcess);
  }

  /** {@code sluice ready …} with both planes' addresses. */
  String readyLine() {
    Map<String, String> data = planes.get(Plane.DATA).urls;
    Map<String, String> urls = new LinkedHashMap<>();
    urls.put("kafka", data.get("kafka"));
    urls.putAll(planes.get(Plane.CONTROL).urls);
    urls.putAll(data);
    return Platform.readyLine(urls);
  }

  /** Stops the control plane, then the data plane; no plane is started again from here on. */
  @Override
  public void close() {
    stopping = true;
    restarts.shutdownNow();
    for (PlaneProcess p : planes.values()) {
      p.stop();
    }
    alert.close();
  }
}
