package io.sluice.app.up;

import java.util.Deque;
import org.slf4j.Logger;

/** A started component, as a plane remembers it to stop it again. */
@FunctionalInterface
interface Stoppable {
  void stop() throws Exception;

  /** Stops what {@code started} holds, last started first; each failure is logged, the rest still stop. */
  static void stopAll(Deque<Stoppable> started, Logger log) {
    while (!started.isEmpty()) {
      try {
        started.pop().stop();
      } catch (Exception e) {
        log.warn("a component failed to stop cleanly", e);
      }
    }
  }
}
