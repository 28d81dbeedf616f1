package io.sluice.kafka;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.utils.Exit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes the JVM's exit, halt and shutdown-hook procedures away from Kafka's engines.
 *
 * <p>The broker and the Connect worker each believe they own the process: Connect adds a shutdown hook of its own, and
 * both call {@code Exit.exit}/{@code Exit.halt} on fatal errors. In one JVM, concurrent hooks stopped the broker in the
 * middle of Connect's final offset flush and the JVM hung. Here the hooks they register are kept, not installed; the
 * host runs one ordered shutdown instead, and a fatal exit from an engine becomes a request to that shutdown.
 */
public final class ExitControl {
  private static final AtomicBoolean installed = new AtomicBoolean();
  private static final List<String> suppressedHooks = new ArrayList<>();
  private static volatile ExitListener listener = (code, message) -> { };

  /** What the host does when an engine asks for the JVM to end. */
  @FunctionalInterface
  public interface ExitListener {
    void engineRequestedExit(int code, String message);
  }

  private ExitControl() {}

  /**
   * Made when an engine first calls, not when the takeover is installed: {@code sluice up} installs it before it starts
   * its planes, and making a logger configures logging, a fifth of a second of CPU it spends once they are ready.
   */
  private static Logger log() {
    return LoggerFactory.getLogger(ExitControl.class);
  }

  /** Installs the takeover once per JVM; later calls only replace the listener. */
  public static void install(ExitListener onEngineExit) {
    listener = onEngineExit;
    if (!installed.compareAndSet(false, true)) {
      return;
    }
    Exit.setShutdownHookAdder((name, hook) -> {
      synchronized (suppressedHooks) {
        suppressedHooks.add(name);
      }
      log().debug("kept shutdown hook '{}' out of the JVM: the host shuts engines down in order", name);
    });
    Exit.setExitProcedure((code, message) -> {
      log().error("an embedded engine asked the JVM to exit with status {}: {}", code, message);
      listener.engineRequestedExit(code, message);
      // Kafka expects exit() not to return; unwinding the caller's thread is the closest safe equivalent.
      throw new EngineExitException(code, message);
    });
    Exit.setHaltProcedure((code, message) -> {
      log().error("an embedded engine asked the JVM to halt with status {}: {}", code, message);
      listener.engineRequestedExit(code, message);
      throw new EngineExitException(code, message);
    });
  }

  /** Names of the shutdown hooks engines tried to install (for diagnostics and tests). */
  public static List<String> suppressedHooks() {
    synchronized (suppressedHooks) {
      return List.copyOf(suppressedHooks);
    }
  }

  /** Thrown on the engine's thread in place of ending the JVM. */
  public static final class EngineExitException extends RuntimeException {
    private final int code;

    EngineExitException(int code, String message) {
      super("embedded engine requested exit " + code + (message == null ? "" : ": " + message));
      this.code = code;
    }

    public int code() {
      return code;
    }
  }
}
