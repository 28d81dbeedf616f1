package io.sluice.app.cli;

import io.sluice.kafka.ExitControl;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import sun.misc.Signal;

/**
 * What ends a long-running command ({@code up}, {@code kafka}): SIGTERM, Ctrl-C, or an embedded engine asking the JVM
 * to exit (taken over by {@link ExitControl}), and the exit status that follows. Catching the signals, rather than
 * only a shutdown hook, lets the command stop its parts in order and still exit 0.
 */
public final class StopSignal {
  private final CountDownLatch stop = new CountDownLatch(1);
  private final AtomicInteger status = new AtomicInteger(0);

  private StopSignal() {}

  public static StopSignal install() {
    return install(true);
  }

  /**
   * {@code interrupt} false: Ctrl-C is left to the process that started this one, which stops its children in order
   * (a terminal sends SIGINT to the whole process group at once).
   */
  public static StopSignal install(boolean interrupt) {
    StopSignal s = new StopSignal();
    ExitControl.install((code, message) -> {
      s.status.compareAndSet(0, code == 0 ? 1 : code);
      s.stop.countDown();
    });
    Signal.handle(new Signal("TERM"), sig -> s.stop.countDown());
    Signal.handle(new Signal("INT"), interrupt ? sig -> s.stop.countDown() : sun.misc.SignalHandler.SIG_IGN);
    return s;
  }

  /** Asks for a stop from within: the process that started this one is gone. */
  public void stop() {
    stop.countDown();
  }

  /** Blocks until a stop is asked for. */
  public void await() {
    try {
      stop.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** 0 after a signal; the engine's code (1 for its 0) when an engine asked to exit. */
  public int status() {
    return status.get();
  }
}
