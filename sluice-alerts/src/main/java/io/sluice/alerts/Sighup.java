package io.sluice.alerts;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * SIGHUP handling through the JDK's (unsupported but exported) signal API. Installing it replaces the JVM's default
 * of shutting down on SIGHUP; handlers that other Sluice servers installed before are still called.
 */
final class Sighup {
  private static final Logger log = LoggerFactory.getLogger(Sighup.class);

  private Sighup() {}

  /** The JDK hands its own handlers back wrapped in sun.misc classes; handlers installed by us come back as is. */
  private static boolean isJdkHandler(SignalHandler h) {
    String name = h.getClass().getName();
    return name.startsWith("java.") || name.startsWith("sun.") || name.startsWith("jdk.");
  }

  static void onHangup(Runnable action) {
    try {
      Signal hup = new Signal("HUP");
      SignalHandler[] previous = new SignalHandler[1];
      previous[0] = Signal.handle(hup, sig -> {
        // Signal handlers run on a JVM thread that should not block: reload on a thread of its own.
        Thread t = new Thread(action, "sluice-alerts-sighup");
        t.setDaemon(true);
        t.start();
        SignalHandler prev = previous[0];
        // Chain only to handlers of ours: the JDK's own SIGHUP handler shuts the JVM down.
        if (prev != null && prev != SignalHandler.SIG_DFL && prev != SignalHandler.SIG_IGN
            && !isJdkHandler(prev)) {
          prev.handle(sig);
        }
      });
      if (previous[0] == SignalHandler.SIG_IGN) {
        // The JVM leaves a signal ignored at its start ignored (nohup does that): no handler of ours will be called.
        log.warn("SIGHUP is ignored by this process (started under nohup?): it will not reload the configuration; "
            + "POST /-/reload does");
      }
    } catch (IllegalArgumentException | UnsupportedOperationException e) {
      log.warn("cannot install a SIGHUP handler: {}", e.getMessage());
    }
  }
}
