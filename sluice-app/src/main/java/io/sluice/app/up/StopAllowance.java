package io.sluice.app.up;

import java.time.Duration;

/**
 * How long a plane is given to stop after SIGTERM before it is killed: {@code base}, and {@code perTask} more for each
 * Connect task the plane says it is stopping, up to {@code max}. The tasks stop side by side, so a fleet's stop takes
 * longer than one task's by the work each still does alone (its last offsets, its producer, its database connection),
 * which the machine's cores share; the allowance grows by that, not by a whole task's stop.
 */
record StopAllowance(Duration base, Duration perTask, Duration max, Duration recording) {
  /**
   * What a plane that has stopped everything but its JVM's exit is given from then on to write its class-data archive,
   * once after a build: on a loaded machine 40 to 70 s, past a small plane's allowance. Killed, the archive was dropped
   * and recorded again at the next stop, which was killed again: every stop of such a node ended in a kill.
   */
  static final Duration RECORDING = Duration.ofSeconds(90);

  StopAllowance {
    if (base.compareTo(max) > 0) {
      throw new IllegalArgumentException("base " + base + " beyond max " + max);
    }
  }

  StopAllowance(Duration base, Duration perTask, Duration max) {
    this(base, perTask, max, RECORDING);
  }

  /** A plane that runs no tasks: {@code base} whatever it says. */
  static StopAllowance fixed(Duration base) {
    return new StopAllowance(base, Duration.ZERO, base);
  }

  /** The longest a plane can be given: its most tasks' allowance, then its archive's recording. */
  Duration longest() {
    return max.plus(recording);
  }

  /** The allowance of a plane stopping {@code tasks} tasks. */
  Duration forTasks(int tasks) {
    Duration grown = base.plus(perTask.multipliedBy(Math.max(0, tasks)));
    return grown.compareTo(max) > 0 ? max : grown;
  }

  /** Seconds, with a tenth where the rule gives one: {@code 90 s}, {@code 112.5 s}. */
  static String seconds(Duration d) {
    long tenths = d.toMillis() / 100;
    return (tenths % 10 == 0 ? String.valueOf(tenths / 10) : tenths / 10 + "." + tenths % 10) + " s";
  }
}
