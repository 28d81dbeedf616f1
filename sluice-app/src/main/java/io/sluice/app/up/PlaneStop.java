package io.sluice.app.up;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One plane process' stop, as its supervisor runs it: SIGTERM, then a wait as long as the plane's
 * {@link StopAllowance} for the tasks it said it was stopping when its stop began ({@link PlaneCommand.Stopping});
 * a plane still running after it is killed, and the supervisor says what that cut short.
 */
final class PlaneStop {
  /** How often the wait looks again at what the plane said: its allowance grows once it says how many tasks it runs. */
  private static final long LOOK_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

  private final String plane;
  private final StopAllowance allowance;
  private volatile PlaneCommand.Stopping first;
  private volatile PlaneCommand.Stopping last;
  /** When the plane said it was writing its class-data archive, {@code System.nanoTime()}; 0 until it does. */
  private volatile long recordingSince;

  /** {@code plane}: its name in what is said, e.g. {@code data plane}. */
  PlaneStop(String plane, StopAllowance allowance) {
    this.plane = plane;
    this.allowance = allowance;
  }

  /** A line the plane said while it stopped. */
  void heard(PlaneCommand.Stopping stopping) {
    if (first == null) {
      first = stopping;
    }
    last = stopping;
    if (stopping.step().equals(PlaneCommand.Stopping.RECORDING) && recordingSince == 0) {
      recordingSince = System.nanoTime();
    }
  }

  /** The allowance as it stands: for the tasks the plane first said it stops, {@code base} until it says. */
  Duration allowance() {
    PlaneCommand.Stopping f = first;
    return allowance.forTasks(f == null ? 0 : f.tasks());
  }

  /**
   * SIGTERM to {@code process}, then its allowance; killed after it. What was cut short when it was killed (see
   * {@link #cutShort}), nothing when it stopped in time.
   */
  Optional<String> stop(Process process) throws InterruptedException {
    // SIGTERM through the process' handle: Process.destroy() also closes the pipes to the process, and with them what
    // the plane says while it stops.
    process.toHandle().destroy();
    long start = System.nanoTime();
    while (true) {
      Duration given = allowance();
      long now = System.nanoTime();
      long left = given.toNanos() - (now - start);
      long since = recordingSince;
      if (since != 0) {
        // Its work is done; what is left is the archive, which a kill would throw away.
        left = Math.max(left, allowance.recording().toNanos() - (now - since));
      }
      if (left <= 0) {
        String said = cutShort(given);
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        return Optional.of(said);
      }
      if (process.waitFor(Math.min(left, LOOK_NANOS), TimeUnit.NANOSECONDS)) {
        return Optional.empty();
      }
    }
  }

  /**
   * {@code data plane: stop allowance 140 s (for 200 tasks) passed with 12 tasks still stopping, at Connect; killed}:
   * what the plane last said, so that an operator knows which sources may produce again what they did since their last
   * commit.
   */
  String cutShort(Duration given) {
    PlaneCommand.Stopping f = first;
    PlaneCommand.Stopping l = last;
    String head = plane + ": stop allowance " + StopAllowance.seconds(given)
        + (recordingSince != 0 ? " and " + StopAllowance.seconds(allowance.recording()) + " to record" : "");
    if (f == null) {
      return head + " passed before it said what it was stopping; killed";
    }
    String tasks = f.tasks() > 0 ? " (for " + count(f.tasks()) + ")" : "";
    String still = l.tasks() > 0 || f.tasks() > 0 ? " with " + count(l.tasks()) + " still stopping" : "";
    return head + tasks + " passed" + still + ", at " + l.step() + "; killed";
  }

  private static String count(int tasks) {
    return tasks + (tasks == 1 ? " task" : " tasks");
  }
}
